// SPDX-License-Identifier: MIT
/* The parsers of a port's counters, as each tool prints them (ctr.h). */
#define _GNU_SOURCE
#include "injectors/nos/ctr.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool nos_ctr_name_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static void put_n(json_t *group, const char *prefix, const char *name, unsigned long long n)
{
	char key[160];

	if (!nos_ctr_name_ok(name) || n > (unsigned long long)LLONG_MAX)
		return;
	snprintf(key, sizeof(key), "%s%s", prefix, name);
	json_object_set_new(group, key, json_integer((json_int_t)n));
}

static void put(json_t *group, const char *prefix, const char *name, json_t *v)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		put_n(group, prefix, name, (unsigned long long)json_integer_value(v));
}

void nos_ctr_put_ints(json_t *group, const char *prefix, json_t *o, const char *const *skip)
{
	const char *k, *k2;
	json_t *v, *v2;

	json_object_foreach(o, k, v)
	{
		bool skipped = false;

		for (size_t i = 0; skip && skip[i]; i++)
			skipped |= !strcmp(k, skip[i]);
		if (skipped)
			continue;
		if (!json_is_object(v)) {
			put(group, prefix, k, v);
			continue;
		}
		json_object_foreach(v, k2, v2)
		{
			char name[160];

			if (!nos_ctr_name_ok(k))
				break;
			snprintf(name, sizeof(name), "%s.%s", k, k2);
			put(group, prefix, name, v2);
		}
	}
}

size_t nos_ctr_linux(const char *port, bool qdisc, bool ethtool, struct nos_ctr_read *r, size_t max)
{
	size_t n = 0;

	if (n < max)
		r[n++] =
		    (struct nos_ctr_read){.group = "link",
					  .argv = {"ip", "-s", "-j", "link", "show", "dev", port},
					  .parse = nos_ctr_ip_link};
	if (qdisc && n < max)
		r[n++] =
		    (struct nos_ctr_read){.group = "qdisc",
					  .argv = {"tc", "-s", "-j", "qdisc", "show", "dev", port},
					  .parse = nos_ctr_tc_qdisc};
	if (ethtool && n < max)
		r[n++] = (struct nos_ctr_read){
		    .group = "ethtool", .argv = {"ethtool", "-S", port}, .parse = nos_ctr_ethtool};
	return n;
}

/* iproute2 ip/ipaddress.c print_link_stats64(): "stats64": {"rx": {...}, "tx": {...}} */
int nos_ctr_ip_link(const char *port, const char *out, json_t *group)
{
	json_t *v = json_loads(out ? out : "", JSON_DECODE_ANY, NULL),
	       *s = json_object_get(json_array_get(v, 0), "stats64");

	(void)port;
	if (!json_is_object(s)) {
		json_decref(v);
		return -EINVAL;
	}
	nos_ctr_put_ints(group, "rx_", json_object_get(s, "rx"), NULL);
	nos_ctr_put_ints(group, "tx_", json_object_get(s, "tx"), NULL);
	json_decref(v);
	return 0;
}

/* iproute2 tc/tc_qdisc.c print_qdisc() with tc/tc_util.c print_tcstats_attr(); sch_red's and
 * sch_choke's marks in "options" (tc/q_red.c red_print_xstats) */
int nos_ctr_tc_qdisc(const char *port, const char *out, json_t *group)
{
	static const char *const keys[] = {"packets",  "drops",	   "overlimits",
					   "requeues", "ecn_mark", "marked"};
	json_t *v = json_loads(out ? out : "", JSON_DECODE_ANY, NULL), *q;
	size_t i;

	(void)port;
	if (!json_is_array(v)) {
		json_decref(v);
		return -EINVAL;
	}
	json_array_foreach(v, i, q)
	{
		const char *h = json_string_value(json_object_get(q, "handle")),
			   *kind = json_string_value(json_object_get(q, "kind"));
		json_t *x = json_object_get(q, "options");

		if (!nos_ctr_name_ok(h) || !nos_ctr_name_ok(kind))
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			json_t *c = json_object_get(q, keys[k]);
			char name[128];

			if (!c && x)
				c = json_object_get(x, keys[k]);
			snprintf(name, sizeof(name), "%s %s %s", h, kind, keys[k]);
			put(group, "", name, c);
		}
	}
	json_decref(v);
	return 0;
}

/* ethtool.c do_gnicstats(): "NIC statistics:", then "     %.*s: %llu" a counter */
int nos_ctr_ethtool(const char *port, const char *out, json_t *group)
{
	const char *l = out ? out : "";

	(void)port;
	if (strncmp(l, "NIC statistics:", 15))
		return -EINVAL;
	for (l = strchr(l, '\n'); l && *l; l = strchr(l, '\n')) {
		const char *name, *colon;
		char *end, key[128];
		unsigned long long v;

		for (name = ++l; *name == ' ' || *name == '\t'; name++)
			;
		colon = strstr(name, ": ");
		if (!colon || colon == name || colon - name >= (ptrdiff_t)sizeof(key) ||
		    colon > strchrnul(name, '\n'))
			continue;
		errno = 0;
		v = strtoull(colon + 2, &end, 10);
		if (errno || end == colon + 2 || colon[2] == '-' || (*end && *end != '\n'))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(colon - name), name);
		put_n(group, "", key, v);
	}
	return 0;
}

int nos_ctr_rdma_stat(const char *port, const char *out, json_t *group)
{
	static const char *const skip[] = {"ifname", "port", "ifindex", NULL};
	json_t *v = json_loads(out ? out : "", JSON_DECODE_ANY, NULL), *o = json_array_get(v, 0);

	(void)port;
	if (!json_is_object(o)) {
		json_decref(v);
		return -EINVAL;
	}
	nos_ctr_put_ints(group, "", o, skip);
	json_decref(v);
	return 0;
}

int nos_ctr_rdma_link(const char *out, const char *netdev, char *buf, size_t len)
{
	json_t *v = json_loads(out ? out : "", JSON_DECODE_ANY, NULL), *o;
	size_t i;
	int r = -ENOENT;

	if (!json_is_array(v)) {
		json_decref(v);
		return -EINVAL;
	}
	/* rdma/link.c link_parse_cb(): "ifname", "port", and "netdev" when it has one */
	json_array_foreach(v, i, o)
	{
		const char *nd = json_string_value(json_object_get(o, "netdev")),
			   *dev = json_string_value(json_object_get(o, "ifname"));

		if (nd && dev && !strcmp(nd, netdev) && nos_ctr_name_ok(dev) &&
		    json_is_integer(json_object_get(o, "port"))) {
			snprintf(buf, len, "%s/%lld", dev,
				 (long long)json_integer_value(json_object_get(o, "port")));
			r = 0;
			break;
		}
	}
	json_decref(v);
	return r;
}

int nos_ctr_sonic_hash(const char *port, const char *out, json_t *group)
{
	const char *p = out ? out + strspn(out, " \r\n") : "";
	size_t n = 0;

	(void)port;
	if (*p != '{')
		return -EINVAL;
	/* 'KEY': 'VALUE' pairs, ", " apart; a string holding a ' is "double-quoted" */
	for (p++; *p && *p != '}';) {
		const char *k, *ke, *val, *ve;
		char key[128], text[64], *end;
		unsigned long long v;

		p += strspn(p, ", ");
		if ((*p != '\'' && *p != '"') || !(ke = strchr(k = p + 1, *p)))
			break;
		if (strncmp(ke + 1, ": ", 2) || (ke[3] != '\'' && ke[3] != '"') ||
		    !(ve = strchr(val = ke + 4, ke[3])))
			break;
		p = ve + 1;
		if (ke - k >= (ptrdiff_t)sizeof(key) || ve - val >= (ptrdiff_t)sizeof(text) ||
		    ve == val)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(ke - k), k);
		snprintf(text, sizeof(text), "%.*s", (int)(ve - val), val);
		errno = 0;
		v = strtoull(text, &end, 10);
		if (!errno && !*end && text[0] != '-') {
			put_n(group, "", key, v);
			n++;
		} else if (strlen(key) > 7 && !strcmp(key + strlen(key) - 7, "_STATUS") &&
			   nos_ctr_name_ok(key) && nos_ctr_name_ok(text)) {
			/* a state, not a count: the PFC watchdog's PFC_WD_STATUS (operational,
			 * stormed), as 'pfcwd show stats' prints it */
			json_object_set_new(group, key, json_string(text));
		}
	}
	return n ? 0 : -EINVAL;
}

/* interfaces.PORT.KEY of an EOS '| json' answer */
static json_t *eos_port(json_t *v, const char *port, const char *key)
{
	return json_object_get(json_object_get(json_object_get(v, "interfaces"), port), key);
}

int nos_ctr_eos_interface(const char *port, const char *out, json_t *group)
{
	json_t *v = json_loads(out ? out : "", 0, NULL),
	       *c = eos_port(v, port, "interfaceCounters");

	if (!json_is_object(c)) {
		json_decref(v);
		return -EINVAL;
	}
	nos_ctr_put_ints(group, "", c, NULL);
	json_decref(v);
	return 0;
}

int nos_ctr_eos_pfc(const char *port, const char *out, json_t *group)
{
	json_t *v = json_loads(out ? out : "", 0, NULL), *p = eos_port(v, port, "priorities");

	if (!json_is_object(p)) {
		json_decref(v);
		return -EINVAL;
	}
	nos_ctr_put_ints(group, "", p, NULL);
	json_decref(v);
	return 0;
}

/*
 * EOS: 'show interfaces P counters queue detail | json',
 * egressQueueCounters.interfaces.P.{ucastQueues,mcastQueues}.trafficClasses.TC.
 * dropPrecedences.DP.{droppedPackets, ...}: a key "ucast TC3 DP0 droppedPackets" each
 * (a range's name kept as EOS writes it: "TC0-2", "DP0-2"), the model aristanetworks/anta
 * reads (anta/tests/interfaces.py VerifyInterfacesEgressQueueDrops and its unit test data).
 */
int nos_ctr_eos_queues(const char *port, const char *out, json_t *group)
{
	static const char *const kinds[][2] = {{"ucastQueues", "ucast"}, {"mcastQueues", "mcast"}};
	json_t *v = json_loads(out ? out : "", 0, NULL),
	       *p = json_object_get(
		   json_object_get(json_object_get(v, "egressQueueCounters"), "interfaces"), port);
	size_t n = 0;

	for (size_t i = 0; json_is_object(p) && i < 2; i++) {
		json_t *tcs = json_object_get(json_object_get(p, kinds[i][0]), "trafficClasses"),
		       *tc, *dp;
		const char *tk, *dk;

		json_object_foreach(tcs, tk, tc)
		{
			json_object_foreach(json_object_get(tc, "dropPrecedences"), dk, dp)
			{
				char prefix[160];

				if (!nos_ctr_name_ok(tk) || !nos_ctr_name_ok(dk) ||
				    strlen(tk) > 32 || strlen(dk) > 32)
					continue;
				snprintf(prefix, sizeof(prefix), "%s %s %s ", kinds[i][1], tk, dk);
				nos_ctr_put_ints(group, prefix, dp, NULL);
				n++;
			}
		}
	}
	json_decref(v);
	return n ? 0 : -EINVAL;
}

/*
 * EOS: 'show qos interfaces P ecn counters queue | json', intfQueueCounters.P.queueCounters
 * {"Q": "N"}: the packets each queue marked CE, written as strings (a number is taken too),
 * as "queue Q ecn marked"; aristanetworks/anta anta/tests/interfaces.py
 * VerifyInterfacesECNCounters and its unit test data.  A count that is not digits is left out.
 */
int nos_ctr_eos_ecn(const char *port, const char *out, json_t *group)
{
	json_t *v = json_loads(out ? out : "", 0, NULL),
	       *q = json_object_get(json_object_get(json_object_get(v, "intfQueueCounters"), port),
				    "queueCounters"),
	       *c;
	const char *k;

	if (!json_is_object(q)) {
		json_decref(v);
		return -EINVAL;
	}
	json_object_foreach(q, k, c)
	{
		const char *t = json_string_value(c);
		char name[64];
		unsigned long long x;

		if (!nos_ctr_name_ok(k) || strlen(k) > 16)
			continue;
		if (t) {
			if (!*t || strspn(t, "0123456789") != strlen(t) || strlen(t) > 19)
				continue;
			x = strtoull(t, NULL, 10);
		} else if (json_is_integer(c) && json_integer_value(c) >= 0) {
			x = (unsigned long long)json_integer_value(c);
		} else {
			continue;
		}
		snprintf(name, sizeof(name), "queue %s ecn marked", k);
		put_n(group, "", name, x);
	}
	json_decref(v);
	return 0;
}
