// SPDX-License-Identifier: MIT
/*
 * A Linux switch (what the virtual lab runs) and an RNIC's host, read back
 * in their own words: iproute2's JSON (ip -j link, tc -j qdisc), nft's
 * table list, dcb's PFC; and its port states (links.h).
 */
#define _GNU_SOURCE
#include "injectors/nos/nos_ops.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/nos/nos_text.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * 'tc -j qdisc show dev D root' (iproute2): the root qdisc.  The kernel's
 * own default has handle 0: (noqueue on veth, fq_codel, mq...); a qdisc
 * someone added has another.
 */
static int tc_root(const char *dev, const char *out, struct readback *rb, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v = json_loads(out, 0, &je), *q;

	q = json_array_get(v, 0);
	if (!json_is_object(q) || !json_is_string(json_object_get(q, "kind"))) {
		snprintf(err, errlen, "'tc -j qdisc show dev %s root' printed no root qdisc", dev);
		json_decref(v);
		return -EINVAL;
	}
	snprintf(rb->qdisc, sizeof(rb->qdisc), "%s", json_string_value(json_object_get(q, "kind")));
	snprintf(rb->handle, sizeof(rb->handle), "%s",
		 json_string_value(json_object_get(q, "handle")) ?: "?");
	snprintf(rb->canon, sizeof(rb->canon), "root qdisc %s %s", rb->qdisc, rb->handle);
	json_decref(v);
	return 0;
}

/*
 * 'ip -j link show dev D' (iproute2): administratively up when its flags
 * hold "UP" (IFF_UP); the operstate is the link's, not what a flap sets.
 */
static int ip_link(const char *dev, const char *out, struct readback *rb, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v = json_loads(out, 0, &je),
	       *flags = json_object_get(json_array_get(v, 0), "flags"), *x;
	size_t i;

	if (!json_is_array(flags)) {
		snprintf(err, errlen, "'ip -j link show dev %s' printed no link with flags", dev);
		json_decref(v);
		return -EINVAL;
	}
	json_array_foreach(flags, i, x) rb->up |= !strcmp(json_string_value(x) ?: "", "UP");
	snprintf(rb->admin, sizeof(rb->admin), "%s", rb->up ? "up" : "down");
	snprintf(rb->canon, sizeof(rb->canon), "admin %s", rb->admin);
	json_decref(v);
	return 0;
}

/* 'nft -j list tables' (nftables JSON, libnftables-json(5)): the tables, in order. */
static int nft_tables(const char *name, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	json_error_t je;
	json_t *v = json_loads(out, 0, &je), *list = json_object_get(v, "nftables"), *x;
	struct sbuf items = {0};
	char tail[96];
	size_t i;

	if (!json_is_array(list)) {
		snprintf(err, errlen, "'nft -j list tables' printed no nftables array");
		json_decref(v);
		return -EINVAL;
	}
	json_array_foreach(list, i, x)
	{
		json_t *t = json_object_get(x, "table");
		const char *fam = json_string_value(json_object_get(t, "family")),
			   *tn = json_string_value(json_object_get(t, "name"));

		if (!fam || !tn)
			continue;
		rb->exists |= !strcmp(fam, "inet") && !strcmp(tn, name);
		sb_printf(&items, "%s%s %s", items.len ? ", " : "", fam, tn);
	}
	json_decref(v);
	snprintf(tail, sizeof(tail), "; inet %s %s", name, rb->exists ? "there" : "not there");
	nos_canon_list(rb, items.len ? "nft tables " : "no nft tables", items.p ? items.p : "",
		       tail);
	sb_free(&items);
	return 0;
}

/*
 * 'dcb -j pfc show dev D prio-pfc' (iproute2 dcb/dcb_pfc.c: a "prio_pfc"
 * JSON array of 8 on/off values, printed with print_on_off: JSON booleans;
 * "on"/"off" strings are taken too).
 */
static int dcb_pfc(const char *dev, const char *out, struct readback *rb, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v = json_loads(out, 0, &je), *a = json_object_get(v, "prio_pfc"), *x;
	char pr[24];
	size_t i;

	if (!json_is_array(a) || json_array_size(a) != 8) {
		snprintf(err, errlen, "'dcb -j pfc show dev %s prio-pfc' printed no prio_pfc of 8",
			 dev);
		json_decref(v);
		return -EINVAL;
	}
	json_array_foreach(a, i, x) if (json_is_true(x) || !strcmp(json_string_value(x) ?: "",
								   "on")) rb->lossless |= 1u << i;
	json_decref(v);
	rb->pfc_on = true;
	snprintf(rb->canon, sizeof(rb->canon), "prio-pfc on for %s",
		 readback_prios(rb->lossless, pr, sizeof(pr)));
	return 0;
}

/*
 * 'dcb -j app show dev D dscp-prio' (arg "D DSCP", dscp-mismatch): iproute2
 * dcb/dcb_app.c prints {"dscp_prio":[[DSCP,PRIO],...]}, keys as numbers in
 * JSON (dcb_app_print_key_dscp), nothing of it for an empty table.  The
 * priority the DSCP maps to into dscp_prio (-1: none; -2: more than one,
 * which one replace would not restore), the table whole into map and canon.
 */
static int dcb_app(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	char dev[64];
	int dscp = atoi(readback_port_queue(arg, dev, sizeof(dev))), o = 0;
	json_t *v = nos_json_or_empty(out, strlen(out)), *a = json_object_get(v, "dscp_prio"), *x;
	size_t i;

	rb->dscp_prio = -1;
	if (!json_is_object(v) || (a && !json_is_array(a))) {
		snprintf(err, errlen, "'dcb -j app show dev %s dscp-prio' printed no dscp_prio",
			 dev);
		json_decref(v);
		return -EINVAL;
	}
	json_array_foreach(a, i, x)
	{
		json_t *k = json_array_get(x, 0), *p = json_array_get(x, 1);
		long long d = json_integer_value(k), pr = json_integer_value(p);

		if (json_array_size(x) != 2 || !json_is_integer(k) || !json_is_integer(p) ||
		    d < 0 || d > 63 || pr < 0 || pr > 7) {
			snprintf(err, errlen,
				 "'dcb -j app show dev %s dscp-prio' printed an entry that is not "
				 "[DSCP 0-63, PRIO 0-7]",
				 dev);
			json_decref(v);
			return -EINVAL;
		}
		if (d == dscp)
			rb->dscp_prio = rb->dscp_prio == -1 ? (int)pr : -2;
		if ((size_t)o < sizeof(rb->map))
			o += snprintf(rb->map + o, sizeof(rb->map) - (size_t)o, "%s%lld:%lld",
				      o ? " " : "", d, pr);
	}
	json_decref(v);
	snprintf(rb->canon, sizeof(rb->canon), "%.32s dscp-prio %.140s", dev,
		 rb->map[0] ? rb->map : "none");
	return 0;
}

/*
 * 'cat PATH' of a sysfs attribute of one value (an RNIC's DCQCN enable,
 * its trust mode): the value, one line of at most 31 printable characters.
 */
static int sysfs(const char *path, const char *out, struct readback *rb, char *err, size_t errlen)
{
	size_t n = strcspn(out, "\n");

	if (!n || n >= sizeof(rb->value) || out[n + (out[n] == '\n')]) {
		snprintf(err, errlen, "'cat %s' printed not one value of at most %zu characters",
			 path, sizeof(rb->value) - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (out[i] < 0x21 || out[i] > 0x7e) {
			snprintf(err, errlen, "'cat %s' printed a value with a byte 0x%02x", path,
				 (unsigned char)out[i]);
			return -EINVAL;
		}
	snprintf(rb->value, sizeof(rb->value), "%.*s", (int)n, out);
	snprintf(rb->canon, sizeof(rb->canon), "%s = %s", path, rb->value);
	return 0;
}

/* ---- port states (links.h) ---- */

/* `ip -j link show` (iproute2): operstate UP, or UNKNOWN with the carrier (LOWER_UP). */
static const char *const linux_argv[] = {"ip", "-j", "link", "show", NULL};

static char *linux_links_command(const struct inv_switch *sw, const char *const **argv)
{
	(void)sw;
	*argv = linux_argv;
	return NULL;
}

static int linux_links_walk(const struct inv_switch *sw, json_t *root, struct port_state *st)
{
	json_t *v, *x;
	size_t i;

	if (!json_is_array(root))
		return -1;
	json_array_foreach(root, i, v)
	{
		const char *op = json_string_value(json_object_get(v, "operstate"));
		bool lower_up = false;
		size_t j;
		int p = nos_port_index(sw, json_string_value(json_object_get(v, "ifname")) ?: "");

		json_array_foreach(json_object_get(v, "flags"), j, x) lower_up |=
		    !strcmp(json_string_value(x) ?: "", "LOWER_UP");
		/* A driver without operstate says UNKNOWN; its carrier decides. */
		if (p >= 0)
			nos_port_set(
			    &st[p], op,
			    op && (!strcmp(op, "UP") || (!strcmp(op, "UNKNOWN") && lower_up)));
	}
	return 0;
}

/*
 * 'dcb -j maxrate show dev D' ("D UNIT": how that host's dcb writes rates):
 * a "tc_maxrate" array of 8 numbers, bytes/s as iproute2's print_rate()
 * takes them -- from 6.18 on DCBNL's kbit/s times 125, before it DCBNL's
 * kbit/s as they are (dcb/dcb_maxrate.c, e7d4c060).  Into kbit/s.
 */
static int dcb_maxrate(const char *dev, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	json_t *v = json_loads(out, 0, NULL), *a = json_object_get(v, "tc_maxrate"), *x;
	bool bps = strstr(dev, " Bps") != NULL;
	char *p = rb->canon;
	size_t i, left = sizeof(rb->canon);

	if (!json_is_array(a) || json_array_size(a) != 8) {
		snprintf(err, errlen, "'dcb -j maxrate show dev %.*s' printed no tc_maxrate of 8",
			 (int)strcspn(dev, " "), dev);
		json_decref(v);
		return -EINVAL;
	}
	json_array_foreach(a, i, x)
	{
		json_int_t n = json_integer_value(x);
		int k;

		if (!json_is_integer(x) || n < 0) {
			snprintf(err, errlen, "tc_maxrate[%zu] is not a rate", i);
			json_decref(v);
			return -EINVAL;
		}
		rb->maxrate[i] = bps ? (unsigned long long)n : (unsigned long long)n / 125;
		k = snprintf(p, left, "%s%zu:%llu", i ? " " : "tc-maxrate kbit/s ", i,
			     rb->maxrate[i]);
		if (k > 0 && (size_t)k < left)
			p += k, left -= (size_t)k;
	}
	json_decref(v);
	return 0;
}

static const struct nos_parser parsers[] = {
    {"tc-root", tc_root},	  {"ip-link", ip_link},
    {"nft-tables", nft_tables},	  {"dcb-pfc", dcb_pfc},
    {"dcb-maxrate", dcb_maxrate}, {"sysfs", sysfs},
    {"dcb-app", dcb_app},	  {NULL, NULL},
};

/* ---- counters (ctr.h) ---- */

/* The kernel's netdev counters and each qdisc's (where the emulated PFC and ECN classes count). */
static size_t linux_counters(const char *port, int prio, struct nos_ctr_read *r, size_t max)
{
	(void)prio; /* the emulated classes are qdiscs, read whole */
	return nos_ctr_linux(port, true, false, r, max);
}

const struct nos_ops nos_linux = {
    .dialect = INV_DIALECT_LINUX,
    .parsers = parsers,
    .links_command = linux_links_command,
    .links_source = "ip -j link show",
    .links_walk = linux_links_walk,
    .counters = linux_counters,
};
