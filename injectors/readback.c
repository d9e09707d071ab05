// SPDX-License-Identifier: MIT
/*
 * Parsers of what a switch prints of the state a fault changes.  Each names
 * the NOS source its format was checked against; the unit tests feed them
 * outputs in those formats (tests/injectors/readback_test.c).
 */
#define _GNU_SOURCE
#include "injectors/readback.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *readback_prios(unsigned mask, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int p = 0; p < 8; p++)
		if (mask & (1u << p) && used + 3 < len)
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", p);
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

bool readback_lossless(const struct readback *rb, int prio)
{
	return rb->pfc_on && (rb->lossless & (1u << prio));
}

/* "3,4", "3-4", "3" (NVUE also writes ranges): a priority mask, or -1. */
static int prio_list(const char *s, size_t n)
{
	unsigned mask = 0;
	size_t i = 0;

	while (i < n) {
		int lo, hi;

		if (!isdigit((unsigned char)s[i]))
			return -1;
		lo = hi = s[i++] - '0';
		if (i < n && s[i] == '-') {
			if (++i >= n || !isdigit((unsigned char)s[i]))
				return -1;
			hi = s[i++] - '0';
		}
		if (lo > 7 || hi > 7 || lo > hi)
			return -1;
		for (int p = lo; p <= hi; p++)
			mask |= 1u << p;
		if (i < n && s[i++] != ',')
			return -1;
	}
	return (int)mask;
}

/* The next line of *s (without its newline, trailing spaces trimmed), or NULL at the end. */
static const char *next_line(const char **s, size_t *n)
{
	const char *l = *s;

	if (!*l)
		return NULL;
	*n = strcspn(l, "\n");
	*s = l + *n + (l[*n] == '\n');
	while (*n && isspace((unsigned char)l[*n - 1]))
		(*n)--;
	return l;
}

#define WORD_MAX 64

/* The first max words (space separated) of a line into w[], in one pass; how many. */
static int words(const char *l, size_t n, char w[][WORD_MAX], int max)
{
	size_t i = 0;
	int k = 0;

	while (k < max) {
		size_t b;

		while (i < n && isspace((unsigned char)l[i]))
			i++;
		if (i >= n)
			break;
		b = i;
		while (i < n && !isspace((unsigned char)l[i]))
			i++;
		snprintf(w[k++], WORD_MAX, "%.*s", (int)(i - b), l + b);
	}
	return k;
}

/*
 * EOS 'show running-config': each top-level line (a block's header, line
 * NULL) and each line indented under one, trimmed and NUL-terminated, to fn.
 */
static void eos_walk(const char *out, void (*fn)(const char *head, const char *line, void *ctx),
		     void *ctx)
{
	const char *l, *s = out;
	char head[128] = "";
	size_t n;

	while ((l = next_line(&s, &n))) {
		char copy[128];

		if (n && !isspace((unsigned char)l[0])) {
			snprintf(head, sizeof(head), "%.*s", (int)(n < 127 ? n : 127), l);
			fn(head, NULL, ctx);
			continue;
		}
		while (n && isspace((unsigned char)*l))
			l++, n--;
		if (n && n < sizeof(copy)) {
			snprintf(copy, sizeof(copy), "%.*s", (int)n, l);
			fn(head, copy, ctx);
		}
	}
}

struct eos_block_ctx {
	char head[96];
	struct readback *rb;
	void (*line)(const char *l, struct readback *rb);
	bool seen;
};

static void eos_block_line(const char *head, const char *line, void *ctx)
{
	struct eos_block_ctx *c = ctx;

	if (strcmp(head, c->head))
		return;
	if (!line)
		c->seen = true;
	else
		c->line(line, c->rb);
}

/*
 * EOS 'show running-config interfaces PORT': each line of the port's block
 * (indented under "interface PORT") to line(); -EINVAL with err when the
 * output has no such block.
 */
static int eos_block(const char *port, const char *out, struct readback *rb,
		     void (*line)(const char *l, struct readback *rb), char *err, size_t errlen)
{
	struct eos_block_ctx c = {.rb = rb, .line = line};

	snprintf(c.head, sizeof(c.head), "interface %s", port);
	eos_walk(out, eos_block_line, &c);
	if (c.seen)
		return 0;
	snprintf(err, errlen, "'show running-config interfaces %s' has no '%s'", port, c.head);
	return -EINVAL;
}

/*
 * SONiC 'show pfc priority PORT' (pfc/main.py showPfcPrio): a table of
 * "Interface  Lossless priorities" rows from CONFIG_DB PORT_QOS_MAP
 * pfc_enable, a "Namespace asicN" line above each table on multi-ASIC
 * switches, and "Cannot find interface PORT" when the port has no entry
 * (no PFC).  An empty pfc_enable prints no second column; a missing one
 * prints N/A.
 */
static int sonic_pfc(const char *port, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	rb->pfc_on = true;
	while ((l = next_line(&s, &n))) {
		char w[2][WORD_MAX], pr[24];
		int k = words(l, n, w, 2), m = 0;

		if (!k)
			continue;
		if (!strcmp(w[0], "Cannot") && strstr(l, "find interface")) {
			snprintf(rb->canon, sizeof(rb->canon),
				 "lossless none (no PORT_QOS_MAP entry for %s)", port);
			return 0;
		}
		if (strcmp(w[0], port))
			continue;
		if (k == 2 && strcmp(w[1], "N/A") && (m = prio_list(w[1], strlen(w[1]))) < 0) {
			snprintf(err, errlen, "'show pfc priority %s': '%s' is not a priority list",
				 port, w[1]);
			return -EINVAL;
		}
		rb->lossless = (unsigned)m;
		snprintf(rb->canon, sizeof(rb->canon), "lossless %s",
			 readback_prios(rb->lossless, pr, sizeof(pr)));
		return 0;
	}
	snprintf(err, errlen, "'show pfc priority %s' printed no row for %s", port, port);
	return -EINVAL;
}

/*
 * EOS 'show running-config interfaces PORT': the port's block, its lines
 * indented under "interface PORT".  PFC is 'priority-flow-control on' (older
 * EOS: '... mode on') and one 'priority-flow-control priority N no-drop' per
 * lossless priority (Arista EOS User Manual, Data Center Bridging).
 */
static void eos_pfc_line(const char *l, struct readback *rb)
{
	unsigned p;
	char tail[16];

	if (!strcmp(l, "priority-flow-control on") || !strcmp(l, "priority-flow-control mode on"))
		rb->pfc_on = true;
	else if (sscanf(l, "priority-flow-control priority %u %15s", &p, tail) == 2 && p < 8 &&
		 !strcmp(tail, "no-drop"))
		rb->lossless |= 1u << p;
}

static int eos_pfc(const char *port, const char *out, struct readback *rb, char *err, size_t errlen)
{
	char pr[24];
	int r = eos_block(port, out, rb, eos_pfc_line, err, errlen);

	if (!r)
		snprintf(rb->canon, sizeof(rb->canon), "priority-flow-control %s, no-drop %s",
			 rb->pfc_on ? "on" : "off", readback_prios(rb->lossless, pr, sizeof(pr)));
	return r;
}

/* Is port in an NVUE interface list ("swp1", "swp1-4,swp6")? */
static bool nvue_has(const char *list, const char *port)
{
	size_t pl = strcspn(port, "0123456789");
	long pn = strtol(port + pl, NULL, 10);

	for (const char *it = list; *it;) {
		size_t n = strcspn(it, ","), k = strcspn(it, "0123456789");
		const char *dash = memchr(it, '-', n);

		if (n == strlen(port) && !strncmp(it, port, n))
			return true;
		if (dash && k == pl && k < n && !strncmp(it, port, pl) && port[pl]) {
			long lo = strtol(it + k, NULL, 10), hi = strtol(dash + 1, NULL, 10);

			if (pn >= lo && pn <= hi)
				return true;
		}
		it += n + (it[n] == ',');
	}
	return false;
}

/*
 * NVUE 'nv config show -o commands', the lines with ' qos pfc ': the
 * applied configuration as nv set commands (NVUE reference, Set and Unset
 * Commands / QoS): 'nv set qos pfc PROFILE switch-priority 3,4', '... rx
 * disable', and 'nv set interface LIST qos pfc profile PROFILE'.  A port
 * without its own profile has default-global's.
 */
static int nvue_pfc(const char *port, const char *out, struct readback *rb, char *err,
		    size_t errlen)
{
	const char *l, *s = out;
	size_t n;
	char pr[24];
	bool rx = true, tx = true;

	(void)err;
	(void)errlen;
	snprintf(rb->profile, sizeof(rb->profile), "default-global");
	while ((l = next_line(&s, &n))) {
		char w[8][WORD_MAX];
		int k = words(l, n, w, 8);

		if (k == 8 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "qos") && !strcmp(w[5], "pfc") &&
		    !strcmp(w[6], "profile") && nvue_has(w[3], port)) {
			snprintf(rb->profile, sizeof(rb->profile), "%s", w[7]);
			rb->bound = true;
		}
	}
	for (s = out; (l = next_line(&s, &n));) {
		char w[7][WORD_MAX];
		int k = words(l, n, w, 7), m;

		if (k != 7 || strcmp(w[0], "nv") || strcmp(w[1], "set") || strcmp(w[2], "qos") ||
		    strcmp(w[3], "pfc") || strcmp(w[4], rb->profile))
			continue;
		if (!strcmp(w[5], "switch-priority") && (m = prio_list(w[6], strlen(w[6]))) >= 0)
			rb->lossless |= (unsigned)m;
		else if (!strcmp(w[5], "rx"))
			rx = strcmp(w[6], "disable") != 0;
		else if (!strcmp(w[5], "tx"))
			tx = strcmp(w[6], "disable") != 0;
	}
	rb->pfc_on = rx && tx;
	snprintf(rb->canon, sizeof(rb->canon), "profile %s%s: switch-priority %s, rx %s, tx %s",
		 rb->profile, rb->bound ? "" : " (no profile of its own)",
		 readback_prios(rb->lossless, pr, sizeof(pr)), rx ? "enable" : "disable",
		 tx ? "enable" : "disable");
	return 0;
}

void readback_nvue_profile_copy(const char *out, const char *feature, const char *name,
				const char *newname, const char *const *skip, struct sbuf *sb)
{
	const char *l, *s = out;
	size_t n;

	while ((l = next_line(&s, &n))) {
		char w[6][WORD_MAX];
		int k = words(l, n, w, 6);
		bool skipped = false;

		if (k < 6 || strcmp(w[0], "nv") || strcmp(w[1], "set") || strcmp(w[2], "qos") ||
		    strcmp(w[3], feature) || strcmp(w[4], name))
			continue;
		for (size_t i = 0; skip && skip[i]; i++)
			skipped |= !strcmp(w[5], skip[i]);
		if (skipped)
			continue;
		/* the line's words after the profile name, as NVUE printed them */
		const char *rest = strstr(l, w[4]) + strlen(w[4]);

		sb_printf(sb, "nv set qos %s %s%.*s && ", feature, newname,
			  (int)(n - (size_t)(rest - l)), rest);
	}
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET PORT|P speed' then '... autoneg', one
 * value a line (an empty line: the field is not set).  CONFIG_DB PORT speed
 * is in Mbit/s (sonic-utilities config/main.py 'config interface speed',
 * scripts/portconfig); autoneg "on"/"off".
 */
static int sonic_speed(const char *port, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	if ((l = next_line(&s, &n)) && n) {
		if (n >= sizeof(rb->speed) || strspn(l, "0123456789") != n) {
			snprintf(err, errlen, "CONFIG_DB PORT|%s speed '%.*s' is not Mbit/s", port,
				 (int)(n < 40 ? n : 40), l);
			return -EINVAL;
		}
		snprintf(rb->speed, sizeof(rb->speed), "%.*s", (int)n, l);
	}
	if ((l = next_line(&s, &n)) && n)
		snprintf(rb->autoneg, sizeof(rb->autoneg), "%.*s",
			 (int)(n < sizeof(rb->autoneg) ? n : sizeof(rb->autoneg) - 1), l);
	snprintf(rb->canon, sizeof(rb->canon), "speed %s, autoneg %s",
		 rb->speed[0] ? rb->speed : "not set", rb->autoneg[0] ? rb->autoneg : "not set");
	return 0;
}

/*
 * EOS 'show running-config interfaces PORT': the block's 'speed ...' line
 * ('speed 100gfull', 'speed 100g-2', 'speed forced 40gfull'); none: the
 * port's default.
 */
static void eos_speed_line(const char *l, struct readback *rb)
{
	if (!strncmp(l, "speed ", 6) && l[6] && strlen(l + 6) < sizeof(rb->speed))
		snprintf(rb->speed, sizeof(rb->speed), "%s", l + 6);
}

static int eos_speed(const char *port, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	int r = eos_block(port, out, rb, eos_speed_line, err, errlen);

	if (!r)
		snprintf(rb->canon, sizeof(rb->canon), "speed %s",
			 rb->speed[0] ? rb->speed : "default");
	return r;
}

/*
 * NVUE: the last 'nv set interface LIST link ATTR X' line of 'nv config
 * show -o commands' whose LIST holds port: X into val ("": none).
 */
static void nvue_link_attr(const char *port, const char *out, const char *attr, char *val,
			   size_t len)
{
	const char *l, *s = out;
	size_t n;

	while ((l = next_line(&s, &n))) {
		char w[7][WORD_MAX];
		int k = words(l, n, w, 7);

		if (k == 7 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "link") && !strcmp(w[5], attr) &&
		    nvue_has(w[3], port)) {
			size_t m = strlen(w[6]) < len ? strlen(w[6]) : len - 1;

			memcpy(val, w[6], m);
			val[m] = '\0';
		}
	}
}

/* NVUE: 'nv set interface LIST link speed X'; none: auto. */
static int nvue_speed(const char *port, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	(void)err;
	(void)errlen;
	nvue_link_attr(port, out, "speed", rb->speed, sizeof(rb->speed));
	snprintf(rb->canon, sizeof(rb->canon), "link speed %s",
		 rb->speed[0] ? rb->speed : "not set (auto)");
	return 0;
}

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

/* Is port one of the comma-separated names of list? */
static bool in_list(const char *list, const char *port)
{
	size_t pl = strlen(port);

	for (const char *it = list; *it;) {
		size_t n = strcspn(it, ",");

		if (n == pl && !strncmp(it, port, n))
			return true;
		it += n + (it[n] == ',');
	}
	return false;
}

/*
 * canon = head + items + tail; items that do not fit are cut, with an
 * FNV-1a hash of all of them, so that two readings still differ in canon
 * when they differ at all.
 */
static void canon_list(struct readback *rb, const char *head, const char *items, const char *tail)
{
	size_t fixed = strlen(head) + strlen(tail), room = sizeof(rb->canon) - 1;
	uint32_t h = 2166136261u;

	if (fixed + strlen(items) <= room) {
		snprintf(rb->canon, sizeof(rb->canon), "%s%s%s", head, items, tail);
		return;
	}
	for (const char *c = items; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	snprintf(rb->canon, sizeof(rb->canon), "%s%.*s... (fnv %08x)%s", head,
		 (int)(room > fixed + 24 ? room - fixed - 24 : 0), items, h, tail);
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET PORT|P admin_status', what 'config
 * interface shutdown/startup P' writes ("down"/"up": sonic-utilities
 * config/main.py, checked by its tests as CONFIG_DB PORT|Ethernet0
 * admin_status); an empty line: not set.
 */
static int sonic_admin(const char *port, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	if ((l = next_line(&s, &n)) && n) {
		if (n >= sizeof(rb->admin) || strspn(l, "abcdefghijklmnopqrstuvwxyz") != n) {
			snprintf(err, errlen, "CONFIG_DB PORT|%s admin_status '%.*s' is not a word",
				 port, (int)(n < 40 ? n : 40), l);
			return -EINVAL;
		}
		snprintf(rb->admin, sizeof(rb->admin), "%.*s", (int)n, l);
	}
	rb->up = !strcmp(rb->admin, "up");
	snprintf(rb->canon, sizeof(rb->canon), "admin_status %s",
		 rb->admin[0] ? rb->admin : "not set");
	return 0;
}

/* EOS: a 'shutdown' line in the port's block (EOS User Manual, Ethernet Ports). */
static void eos_shut_line(const char *l, struct readback *rb)
{
	if (!strcmp(l, "shutdown"))
		snprintf(rb->admin, sizeof(rb->admin), "down");
}

static int eos_shut(const char *port, const char *out, struct readback *rb, char *err,
		    size_t errlen)
{
	int r = eos_block(port, out, rb, eos_shut_line, err, errlen);

	rb->up = !rb->admin[0];
	if (!r)
		snprintf(rb->canon, sizeof(rb->canon), "%s", rb->up ? "no shutdown" : "shutdown");
	return r;
}

/* NVUE: 'nv set interface LIST link state up|down'; none: up (its default). */
static int nvue_state(const char *port, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	(void)err;
	(void)errlen;
	nvue_link_attr(port, out, "state", rb->admin, sizeof(rb->admin));
	rb->up = strcmp(rb->admin, "down") != 0;
	snprintf(rb->canon, sizeof(rb->canon), "link state %s",
		 rb->admin[0] ? rb->admin : "not set (up)");
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB KEYS ACL_TABLE|*' then '... ACL_RULE|*',
 * one key a line, as sonic-mgmt's ACL tests read them (tests/acl, 'keys
 * "ACL_RULE|*" | xargs sonic-db-cli CONFIG_DB del').  The tables (sorted),
 * how many rules, and whether the fault's own table is there.
 */
static int sonic_acl(const char *name, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	const char *l, *s = out;
	char **tables = NULL, tail[96];
	size_t n, nt = 0, rules = 0, nl = strlen(name);
	struct sbuf items = {0};

	(void)err;
	(void)errlen;
	while ((l = next_line(&s, &n))) {
		if (n > 10 && !strncmp(l, "ACL_TABLE|", 10)) {
			char **t = RL_PUSH(tables, nt);

			*t = rl_xstrdup(l + 10);
			(*t)[n - 10] = '\0';
			rb->exists |= n - 10 == nl && !strncmp(l + 10, name, nl);
		} else if (n > 9 && !strncmp(l, "ACL_RULE|", 9)) {
			rules++;
			rb->exists |= n > 9 + nl && !strncmp(l + 9, name, nl) && l[9 + nl] == '|';
		}
	}
	if (nt)
		rl_sort(tables, nt, sizeof(*tables), cmp_str);
	for (size_t i = 0; i < nt; i++) {
		sb_printf(&items, "%s%s", i ? ", " : "", tables[i]);
		free(tables[i]);
	}
	free(tables);
	snprintf(tail, sizeof(tail), "; %zu rule(s); %s %s", rules, name,
		 rb->exists ? "there" : "not there");
	canon_list(rb, nt ? "ACL tables " : "no ACL tables", items.p ? items.p : "", tail);
	sb_free(&items);
	return 0;
}

struct eos_acl_ctx {
	const char *name, *ports;
	struct readback *rb;
	struct sbuf groups; /* "PORT NAME, ..." */
	size_t seen;
};

/*
 * EOS: 'ip access-list NAME' at the top, 'ip access-group NAME in' in an
 * interface's block (EOS User Manual, Access Control Lists: one IPv4 ACL
 * per interface and direction, so a second replaces the first).
 */
static void eos_acl_line(const char *head, const char *line, void *ctx)
{
	struct eos_acl_ctx *c = ctx;
	char acl[WORD_MAX + 16];
	const char *port = !strncmp(head, "interface ", 10) ? head + 10 : NULL;

	snprintf(acl, sizeof(acl), "ip access-list %s", c->name);
	if (!line) {
		c->rb->exists |= !strcmp(head, acl);
		c->seen += port && in_list(c->ports, port);
		return;
	}
	if (!port || !in_list(c->ports, port) || strncmp(line, "ip access-group ", 16))
		return;
	size_t n = strcspn(line + 16, " ");

	if (strcmp(line + 16 + n, " in"))
		return;
	if (n == strlen(c->name) && !strncmp(line + 16, c->name, n))
		c->rb->n_bound++;
	else if (!c->rb->clash[0])
		snprintf(c->rb->clash, sizeof(c->rb->clash), "%s has 'ip access-group %.*s in'",
			 port, (int)n, line + 16);
	sb_printf(&c->groups, "%s%s %.*s", c->groups.len ? ", " : "", port, (int)n, line + 16);
}

static int eos_acl(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	char name[WORD_MAX], tail[96];
	struct eos_acl_ctx c = {.name = name, .rb = rb};
	size_t k = strcspn(arg, " "), want = 0;

	snprintf(name, sizeof(name), "%.*s", (int)k, arg);
	c.ports = arg + k + (arg[k] == ' ');
	for (const char *p = c.ports; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		want++;
	eos_walk(out, eos_acl_line, &c);
	if (c.seen < want) {
		snprintf(err, errlen,
			 "'show running-config' has an 'interface' block for %zu of the %zu "
			 "port(s) %s",
			 c.seen, want, c.ports);
		sb_free(&c.groups);
		return -EINVAL;
	}
	snprintf(tail, sizeof(tail), "; ip access-list %s %s", name,
		 rb->exists ? "there" : "not there");
	canon_list(rb, c.groups.len ? "ip access-group in: " : "no ip access-group in",
		   c.groups.p ? c.groups.p : "", tail);
	sb_free(&c.groups);
	return 0;
}

/*
 * NVUE: 'nv set acl NAME ...' and 'nv set interface LIST acl NAME
 * inbound|outbound' lines of 'nv config show -o commands' (NVUE reference,
 * ACLs: an interface's ACLs are a set, each bound on its own).
 */
static int nvue_acl(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	char name[WORD_MAX], tail[96];
	size_t k = strcspn(arg, " ");
	const char *ports = arg + k + (arg[k] == ' '), *l, *s = out;
	struct sbuf items = {0};
	size_t n;

	(void)err;
	(void)errlen;
	snprintf(name, sizeof(name), "%.*s", (int)k, arg);
	while ((l = next_line(&s, &n))) {
		char w[7][WORD_MAX];
		int c = words(l, n, w, 7);

		if (c < 4 || strcmp(w[0], "nv") || strcmp(w[1], "set"))
			continue;
		if (!strcmp(w[2], "acl") && !strcmp(w[3], name)) {
			rb->exists = true;
			continue;
		}
		if (c != 7 || strcmp(w[2], "interface") || strcmp(w[4], "acl"))
			continue;
		for (const char *p = ports; *p;) {
			size_t pn = strcspn(p, ",");
			char port[WORD_MAX];

			snprintf(port, sizeof(port), "%.*s", (int)pn, p);
			p += pn + (p[pn] == ',');
			if (!nvue_has(w[3], port))
				continue;
			if (!strcmp(w[5], name))
				rb->n_bound++;
			sb_printf(&items, "%s%s %s %s", items.len ? ", " : "", port, w[5], w[6]);
		}
	}
	snprintf(tail, sizeof(tail), "; acl %s %s", name, rb->exists ? "there" : "not there");
	canon_list(rb, items.len ? "acls: " : "no acls on its port(s)", items.p ? items.p : "",
		   tail);
	sb_free(&items);
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
	canon_list(rb, items.len ? "nft tables " : "no nft tables", items.p ? items.p : "", tail);
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
 * SONiC 'aclshow -a -t NAME' (sonic-utilities scripts/aclshow; the format
 * of tests/aclshow_test.py): "RULE NAME  TABLE NAME  PRIO  PACKETS COUNT
 * BYTES COUNT" under a line of dashes; N/A where COUNTERS_DB has no value
 * (ACL counter polling off, or not polled yet).  The fault's rules are
 * RULE_<n> of its table.
 */
static int sonic_aclshow(const char *name, const char *out, struct readback *rb, char *err,
			 size_t errlen)
{
	const char *l, *s = out;
	char w[5][WORD_MAX];
	size_t n, rules = 0, na = 0;

	while ((l = next_line(&s, &n))) {
		if (words(l, n, w, 5) < 5 || strcmp(w[1], name) || strncmp(w[0], "RULE_", 5))
			continue;
		rules++;
		if (!strcmp(w[3], "N/A"))
			na++;
		else
			rb->packets += strtoull(w[3], NULL, 10);
	}
	if (!rules) {
		snprintf(err, errlen, "aclshow lists no RULE_ of %s", name);
		return -EINVAL;
	}
	rb->counted = na < rules;
	snprintf(rb->canon, sizeof(rb->canon), "%zu rule(s) of %s: %llu packet(s)%s", rules, name,
		 rb->packets,
		 na ? (rb->counted ? ", some N/A" : ", N/A (counters not polled)") : "");
	return 0;
}

/*
 * EOS 'show ip access-lists NAME': "IP Access List NAME", then its entries
 * indented; with 'counters per-entry' an entry that matched ends in
 * "[match N packets, 0:00:14 ago]" or "[match B bytes in N packets, ...]"
 * (EOS User Manual, ACLs; samples in Arista's public examples).  The
 * fault's entries are its deny lines.
 */
static int eos_acl_counters(const char *name, const char *out, struct readback *rb, char *err,
			    size_t errlen)
{
	const char *l, *s = out;
	char w[6][WORD_MAX];
	size_t n, deny = 0;
	bool in = false, seen = false;

	while ((l = next_line(&s, &n))) {
		int k = words(l, n, w, 6);

		if (n && !isspace((unsigned char)l[0])) {
			in = k >= 4 && !strcmp(w[0], "IP") && !strcmp(w[1], "Access") &&
			     !strcmp(w[2], "List") && !strcmp(w[3], name);
			seen |= in;
			continue;
		}
		if (!in || k < 2)
			continue;
		if (!strcmp(w[0], "counters") && !strcmp(w[1], "per-entry")) {
			rb->counted = true;
		} else if (isdigit((unsigned char)w[0][0]) && !strcmp(w[1], "deny")) {
			const char *m = memmem(l, n, "[match ", 7), *p;

			deny++;
			if (!m || !(p = memmem(m, n - (size_t)(m - l), " packets", 8)))
				continue;
			while (p > m && isdigit((unsigned char)p[-1]))
				p--;
			rb->packets += strtoull(p, NULL, 10);
		}
	}
	if (!seen || !deny) {
		snprintf(err, errlen, "'show ip access-lists %s' shows %s", name,
			 seen ? "no deny entry" : "no such list");
		return -EINVAL;
	}
	snprintf(rb->canon, sizeof(rb->canon), "%zu deny entr%s of %s: %llu packet(s)%s", deny,
		 deny == 1 ? "y" : "ies", name, rb->packets,
		 rb->counted ? "" : " (no 'counters per-entry': not counted)");
	return 0;
}

/*
 * NVUE: 'nv show interface P acl' for each port the fault's ACL is bound
 * to, one table each as the NVUE command reference prints it: "ACL Name
 * Rule ID In Packets In Bytes Out Packets Out Bytes", left-aligned columns
 * whose empty cells are blank (an outbound-only ACL has no In Packets).  A
 * cell is read where its header starts.  arg: "NAME LAST", the deny rules
 * being those up to LAST; a row without a name continues the one above.
 */
static int nvue_acl_counters(const char *arg, const char *out, struct readback *rb, char *err,
			     size_t errlen)
{
	const char *l, *s = out, *h, *id;
	char name[64], cur[WORD_MAX] = "";
	size_t n, tables = 0, rules = 0, col_rule = 0, col_in = 0;
	unsigned long last = strtoul(readback_port_queue(arg, name, sizeof(name)), NULL, 10);
	bool in = false;

	while ((l = next_line(&s, &n))) {
		char w[1][WORD_MAX];

		if ((h = memmem(l, n, "In Packets", 10)) && memmem(l, n, "ACL Name", 8) &&
		    (id = memmem(l, n, "Rule ID", 7))) {
			col_in = (size_t)(h - l);
			col_rule = (size_t)(id - l);
			in = true;
			tables++;
			cur[0] = '\0';
			continue;
		}
		if (!in || !n || l[0] == '-')
			continue;
		if (!words(l, n, w, 1)) {
			in = false; /* a blank line ends the table */
			continue;
		}
		if (!isspace((unsigned char)l[0]))
			snprintf(cur, sizeof(cur), "%s", w[0]);
		if (strcmp(cur, name) || n <= col_rule)
			continue;
		unsigned long rule = strtoul(l + col_rule, NULL, 10);

		if (!rule || rule > last)
			continue;
		rules++;
		if (n > col_in && isdigit((unsigned char)l[col_in]))
			rb->packets += strtoull(l + col_in, NULL, 10);
	}
	if (!tables || !rules) {
		snprintf(err, errlen, "'nv show interface ... acl' shows %s",
			 !tables ? "no ACL table (ACL Name, Rule ID, In Packets)"
				 : "no deny rule of the fault's ACL");
		return -EINVAL;
	}
	rb->counted = true;
	snprintf(rb->canon, sizeof(rb->canon),
		 "%zu deny rule row(s) of %.40s on %zu port(s): "
		 "%llu packet(s) in",
		 rules, name, tables, rb->packets);
	return 0;
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET BUFFER_PROFILE|P dynamic_th', one
 * integer (mmuconfig's -8..8); an empty line: the profile is not there or
 * has a static threshold instead.
 */
static int sonic_dynth(const char *prof, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	size_t n = 0;
	char *end;
	long v;

	if ((l = next_line(&s, &n)) && n) {
		char num[24];

		snprintf(num, sizeof(num), "%.*s", (int)(n < 23 ? n : 23), l);
		v = strtol(num, &end, 10);
		if (n > 3 || end == num || *end || v < -8 || v > 8) {
			snprintf(err, errlen,
				 "CONFIG_DB BUFFER_PROFILE|%s dynamic_th '%s' is not an alpha "
				 "exponent (-8..8)",
				 prof, num);
			return -EINVAL;
		}
		snprintf(rb->alpha, sizeof(rb->alpha), "%ld", v);
	}
	if (rb->alpha[0])
		snprintf(rb->canon, sizeof(rb->canon), "%s dynamic_th %s", prof, rb->alpha);
	else
		snprintf(rb->canon, sizeof(rb->canon), "%s has no dynamic_th", prof);
	return 0;
}

#define EOS_MMU_PROFILE "platform trident mmu queue profile "

struct eos_mmu_ctx {
	struct readback *rb;
	char block[128];  /* "platform trident mmu queue profile NAME", once NAME is known */
	char pg_line[48]; /* "ingress priority-group N threshold " */
};

/* The applied profile: "platform trident mmu queue profile NAME apply". */
static void eos_mmu_applied(const char *head, const char *line, void *ctx)
{
	struct eos_mmu_ctx *c = ctx;
	size_t k = strlen(EOS_MMU_PROFILE), n = strlen(head);

	if (!line && !strncmp(head, EOS_MMU_PROFILE, k) && n > k + 6 &&
	    !strcmp(head + n - 6, " apply"))
		snprintf(c->rb->profile, sizeof(c->rb->profile), "%.*s", (int)(n - k - 6),
			 head + k);
}

/* Its block's "ingress priority-group N threshold X". */
static void eos_mmu_threshold(const char *head, const char *line, void *ctx)
{
	struct eos_mmu_ctx *c = ctx;
	size_t k = strlen(c->pg_line);

	if (line && !strcmp(head, c->block) && !strncmp(line, c->pg_line, k) && line[k] &&
	    strlen(line + k) < sizeof(c->rb->alpha))
		snprintf(c->rb->alpha, sizeof(c->rb->alpha), "%s", line + k);
}

/* EOS 'show running-config': the MMU queue profile applied, and its threshold for PG pg. */
static int eos_mmu(const char *pg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	struct eos_mmu_ctx c = {.rb = rb};

	(void)err;
	(void)errlen;
	snprintf(c.pg_line, sizeof(c.pg_line), "ingress priority-group %s threshold ", pg);
	eos_walk(out, eos_mmu_applied, &c);
	if (!rb->profile[0]) {
		snprintf(rb->canon, sizeof(rb->canon), "no MMU queue profile applied");
		return 0;
	}
	snprintf(c.block, sizeof(c.block), EOS_MMU_PROFILE "%s", rb->profile);
	eos_walk(out, eos_mmu_threshold, &c);
	snprintf(rb->canon, sizeof(rb->canon),
		 "MMU queue profile %s applied, ingress priority-group %s threshold %s",
		 rb->profile, pg, rb->alpha[0] ? rb->alpha : "not set");
	return 0;
}

/* NVUE: the last 'nv set qos advance-buffer-config P ingress-lossless-buffer shared-alpha X'. */
static int nvue_alpha(const char *prof, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	(void)err;
	(void)errlen;
	while ((l = next_line(&s, &n))) {
		char w[8][WORD_MAX];
		int k = words(l, n, w, 8);

		if (k == 8 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") && !strcmp(w[2], "qos") &&
		    !strcmp(w[3], "advance-buffer-config") && !strcmp(w[4], prof) &&
		    !strcmp(w[5], "ingress-lossless-buffer") && !strcmp(w[6], "shared-alpha") &&
		    strlen(w[7]) < sizeof(rb->alpha))
			snprintf(rb->alpha, sizeof(rb->alpha), "%s", w[7]);
	}
	snprintf(rb->canon, sizeof(rb->canon), "%s ingress-lossless-buffer shared-alpha %s", prof,
		 rb->alpha[0] ? rb->alpha : "not set (the platform's default)");
	return 0;
}

/* A name CONFIG_DB can hold and a command line can carry: letters, digits, _ . - | [ ]. */
static bool db_name(const char *v)
{
	return strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-|[]") ==
	       strlen(v);
}

const char *readback_port_queue(const char *arg, char *port, size_t len)
{
	size_t pl = strcspn(arg, " ");

	snprintf(port, len, "%.*s", (int)pl, arg);
	return arg + pl + (arg[pl] == ' ');
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET QUEUE|PORT|Q wred_profile', the WRED
 * profile bound to the queue (its name, or "[WRED_PROFILE|NAME]" before
 * sonic-utilities' db_migrator dropped the brackets); an empty line: none
 * bound, no WRED or ECN on the queue.  arg: "PORT Q".
 */
static int sonic_wred(const char *arg, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	const char *l, *s = out;
	size_t n = 0;
	char port[64];
	const char *q = readback_port_queue(arg, port, sizeof(port));

	if ((l = next_line(&s, &n)) && n) {
		snprintf(rb->ecn, sizeof(rb->ecn), "%.*s", (int)n, l);
		if (n >= sizeof(rb->ecn) || !db_name(rb->ecn)) {
			snprintf(err, errlen,
				 "CONFIG_DB QUEUE|%s|%s wred_profile '%.40s' is not a profile name",
				 port, q, rb->ecn);
			rb->ecn[0] = '\0';
			return -EINVAL;
		}
	}
	snprintf(rb->canon, sizeof(rb->canon), "QUEUE|%s|%s wred_profile %.100s", port, q,
		 rb->ecn[0] ? rb->ecn : "not set (no WRED/ECN)");
	return 0;
}

struct eos_ecn_ctx {
	char head[96];	 /* "interface PORT" */
	const char *q;	 /* the queue's number */
	bool seen, in_q; /* the port's block; inside its queue's */
	struct readback *rb;
};

/* The port's block: 'uc-tx-queue Q' (or 'tx-queue Q') and its 'random-detect ecn ...' line. */
static void eos_ecn_line(const char *head, const char *line, void *ctx)
{
	struct eos_ecn_ctx *c = ctx;
	char w[2][WORD_MAX];

	if (strcmp(head, c->head))
		return;
	if (!line) {
		c->seen = true;
		return;
	}
	if (words(line, strlen(line), w, 2) == 2 &&
	    (!strcmp(w[0], "uc-tx-queue") || !strcmp(w[0], "tx-queue"))) {
		c->in_q = !strcmp(w[1], c->q);
		return;
	}
	if (c->in_q && !strncmp(line, "random-detect ecn ", 18) &&
	    strcmp(line, "random-detect ecn count") && strlen(line) < sizeof(c->rb->ecn))
		snprintf(c->rb->ecn, sizeof(c->rb->ecn), "%s", line);
}

/*
 * EOS 'show running-config interfaces PORT': the 'random-detect ecn
 * minimum-threshold ... maximum-threshold ... [max-mark-probability P]'
 * line under the port's 'uc-tx-queue Q' (aristanetworks/avd
 * eos_cli_config_gen templates eos/ethernet-interface-uc-tx-queues.j2);
 * none: the queue marks no ECN.  arg: "PORT Q".
 */
static int eos_ecn(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	char port[64];
	struct eos_ecn_ctx c = {.q = readback_port_queue(arg, port, sizeof(port)), .rb = rb};

	snprintf(c.head, sizeof(c.head), "interface %s", port);
	eos_walk(out, eos_ecn_line, &c);
	if (!c.seen) {
		snprintf(err, errlen, "'show running-config interfaces %s' has no '%s'", port,
			 c.head);
		return -EINVAL;
	}
	snprintf(rb->canon, sizeof(rb->canon), "%s uc-tx-queue %s: %s", port, c.q,
		 rb->ecn[0] ? rb->ecn : "no random-detect ecn");
	return 0;
}

/* Does an NVUE traffic-class list ("3", "4,5,7", "0-3") name q? */
static bool nvue_tc_has(const char *list, int q)
{
	for (const char *it = list; *it;) {
		size_t n = strcspn(it, ",");
		char *end;
		long lo = strtol(it, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, NULL, 10);
		if (q >= lo && q <= hi)
			return true;
		it += n + (it[n] == ',');
	}
	return false;
}

/*
 * NVUE 'nv config show -o commands', the lines with ' qos
 * congestion-control ': 'nv set interface LIST qos congestion-control
 * profile NAME' binds a port (NVUE reference, Set and Unset Commands /
 * QoS; Cumulus Linux 5.4 and later), else it has default-global; and 'nv
 * set qos congestion-control NAME traffic-class TCS KEY VALUE' (ecn,
 * min-threshold, max-threshold, probability, red) set for the queue, in
 * ecn as "KEY VALUE ...".  arg: "PORT Q".
 */
static int nvue_ecn(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	const char *l, *s = out;
	size_t n, o = 0;
	char port[64];
	int q = atoi(readback_port_queue(arg, port, sizeof(port)));

	(void)err;
	(void)errlen;
	snprintf(rb->profile, sizeof(rb->profile), "default-global");
	while ((l = next_line(&s, &n))) {
		char w[8][WORD_MAX];

		if (words(l, n, w, 8) == 8 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "qos") &&
		    !strcmp(w[5], "congestion-control") && !strcmp(w[6], "profile") &&
		    nvue_has(w[3], port)) {
			snprintf(rb->profile, sizeof(rb->profile), "%s", w[7]);
			rb->bound = true;
		}
	}
	for (s = out; (l = next_line(&s, &n));) {
		char w[10][WORD_MAX];

		if (words(l, n, w, 10) != 9 || strcmp(w[0], "nv") || strcmp(w[1], "set") ||
		    strcmp(w[2], "qos") || strcmp(w[3], "congestion-control") ||
		    strcmp(w[4], rb->profile) || strcmp(w[5], "traffic-class") ||
		    !nvue_tc_has(w[6], q) || strlen(w[7]) > 16 || strlen(w[8]) > 16)
			continue;
		o += (size_t)snprintf(rb->ecn + o, o < sizeof(rb->ecn) ? sizeof(rb->ecn) - o : 0,
				      "%s%s %s", o ? " " : "", w[7], w[8]);
		if (o >= sizeof(rb->ecn))
			o = sizeof(rb->ecn) - 1;
	}
	snprintf(rb->canon, sizeof(rb->canon), "profile %.40s%s: traffic-class %d %.100s",
		 rb->profile, rb->bound ? "" : " (no profile of its own)", q,
		 rb->ecn[0] ? rb->ecn : "not set (NVUE's defaults)");
	return 0;
}

/* The count a PFC receive read found; canon names what was counted. */
static int pfc_rx_found(struct readback *rb, const char *port, int prio, unsigned long long n)
{
	rb->packets = n;
	rb->counted = true;
	snprintf(rb->canon, sizeof(rb->canon), "%.64s: PFC frames received for priority %d", port,
		 prio);
	return 0;
}

/*
 * SONiC: 'sonic-db-cli COUNTERS_DB HGET "COUNTERS:<oid>"
 * SAI_PORT_STAT_PFC_<p>_RX_PKTS', one number (the counter pfcstat shows as
 * "PFC<p>" under Rx).  An empty line: no such port or counter.
 */
static int sonic_pfc_rx(const char *arg, const char *out, struct readback *rb, char *err,
			size_t errlen)
{
	char port[64], *end;
	int prio = atoi(readback_port_queue(arg, port, sizeof(port)));
	unsigned long long n;

	errno = 0;
	n = strtoull(out, &end, 10);
	if (errno || end == out || *out == '-' || strspn(end, " \r\n") != strlen(end)) {
		snprintf(err, errlen,
			 "COUNTERS_DB has '%.40s' for %s's SAI_PORT_STAT_PFC_%d_RX_PKTS, not a "
			 "count (is %s in COUNTERS_PORT_NAME_MAP?)",
			 out, port, prio, port);
		return -EINVAL;
	}
	return pfc_rx_found(rb, port, prio, n);
}

/*
 * EOS: 'show interfaces PORT priority-flow-control counters detail | json':
 * {"interfaces": {"PORT": {"priorities": {"<p>": {"rxFrames": N,
 * "txFrames": N}}}}} (the model facebook/DNE-TaaC reads, kinds/pfc_storm.c).  EOS
 * writes the port's full name; a reply naming one other port (the CLI's
 * abbreviation expanded) is taken as it.
 */
static int eos_pfc_rx(const char *arg, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	char port[64], key[8];
	int prio = atoi(readback_port_queue(arg, port, sizeof(port)));
	json_error_t je;
	json_t *v = json_loads(out, 0, &je), *ifs = json_object_get(v, "interfaces"), *i, *n;
	int r;

	i = json_object_get(ifs, port);
	if (!i && json_object_size(ifs) == 1)
		i = json_object_iter_value(json_object_iter(ifs));
	snprintf(key, sizeof(key), "%d", prio);
	n = json_object_get(json_object_get(json_object_get(i, "priorities"), key), "rxFrames");
	if (!json_is_integer(n) || json_integer_value(n) < 0) {
		snprintf(err, errlen, "%s: %s", port,
			 !v   ? "the reply is not JSON (is '| json' supported here?)"
			 : !i ? "no such interface in the reply"
			      : "no rxFrames for the priority in the reply");
		r = -EINVAL;
	} else {
		r = pfc_rx_found(rb, port, prio, (unsigned long long)json_integer_value(n));
	}
	json_decref(v);
	return r;
}

/*
 * NVUE: 'nv show interface PORT counters qos pfc-stats', the table of the
 * NVUE command reference: a header "switch-priority rx-pause-frames
 * rx-pause-duration tx-pause-frames tx-pause-duration", a dashed rule, one
 * row a priority.  The column is found by its header, not its place.
 */
static int nvue_pfc_rx(const char *arg, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	char port[64], w[8][WORD_MAX];
	int prio = atoi(readback_port_queue(arg, port, sizeof(port))), col = -1;
	size_t n;

	while ((l = next_line(&s, &n))) {
		int k = words(l, n, w, 8);

		if (col < 0) {
			for (int j = 1; j < k && !strcmp(w[0], "switch-priority"); j++)
				if (!strcmp(w[j], "rx-pause-frames"))
					col = j;
			continue;
		}
		if (k > col && isdigit((unsigned char)w[0][0]) && atoi(w[0]) == prio &&
		    isdigit((unsigned char)w[col][0]))
			return pfc_rx_found(rb, port, prio, strtoull(w[col], NULL, 10));
	}
	snprintf(err, errlen, "'nv show interface %s counters qos pfc-stats' shows %s", port,
		 col < 0 ? "no switch-priority / rx-pause-frames table"
			 : "no row for the priority");
	return -EINVAL;
}

/*
 * What a device printed becomes part of a command that restores it (a speed, an
 * alpha, a profile, an ECN line): on every NOS alike, only words a NOS writes pass,
 * [A-Za-z0-9 _.,:/|=+-] and brackets; a quote, '$', '`', ';', '&', a newline and the
 * like are refused, however the parser of that NOS read them (issue 56).
 */
static int undo_words_ok(const struct readback *rb, char *err, size_t errlen)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				 " _.,:/|=+-[]";
	const struct {
		const char *what, *v;
	} f[] = {{"profile", rb->profile}, {"speed", rb->speed}, {"autoneg", rb->autoneg},
		 {"alpha", rb->alpha},	   {"ecn", rb->ecn},	 {"qdisc", rb->qdisc},
		 {"handle", rb->handle},   {"admin", rb->admin}};

	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (strspn(f[i].v, ok) != strlen(f[i].v)) {
			snprintf(err, errlen,
				 "the device's %s as read holds characters no command may carry "
				 "(not restored from it): check the device",
				 f[i].what);
			return -EINVAL;
		}
	return 0;
}

int readback_parse(const char *read_as, const char *out, struct readback *rb, char *err,
		   size_t errlen)
{
	static const struct {
		const char *name;
		int (*parse)(const char *arg, const char *out, struct readback *rb, char *err,
			     size_t errlen);
	} parsers[] = {
	    {"sonic-pfc", sonic_pfc},
	    {"eos-pfc", eos_pfc},
	    {"nvue-pfc", nvue_pfc},
	    {"tc-root", tc_root},
	    {"sonic-speed", sonic_speed},
	    {"eos-speed", eos_speed},
	    {"nvue-speed", nvue_speed},
	    {"sonic-admin", sonic_admin},
	    {"eos-shut", eos_shut},
	    {"nvue-state", nvue_state},
	    {"ip-link", ip_link},
	    {"sonic-acl", sonic_acl},
	    {"eos-acl", eos_acl},
	    {"nvue-acl", nvue_acl},
	    {"nft-tables", nft_tables},
	    {"dcb-pfc", dcb_pfc},
	    {"sonic-aclshow", sonic_aclshow},
	    {"eos-acl-counters", eos_acl_counters},
	    {"nvue-acl-counters", nvue_acl_counters},
	    {"sonic-dynth", sonic_dynth},
	    {"eos-mmu", eos_mmu},
	    {"nvue-alpha", nvue_alpha},
	    {"sonic-wred", sonic_wred},
	    {"eos-ecn", eos_ecn},
	    {"nvue-ecn", nvue_ecn},
	    {"sonic-pfc-rx", sonic_pfc_rx},
	    {"eos-pfc-rx", eos_pfc_rx},
	    {"nvue-pfc-rx", nvue_pfc_rx},
	};
	size_t k = strcspn(read_as, " ");

	memset(rb, 0, sizeof(*rb));
	for (size_t i = 0; i < ARRAY_SIZE(parsers); i++)
		if (strlen(parsers[i].name) == k && !strncmp(read_as, parsers[i].name, k) &&
		    read_as[k] == ' ') {
			int r = parsers[i].parse(read_as + k + 1, out ? out : "", rb, err, errlen);

			return r ? r : undo_words_ok(rb, err, errlen);
		}
	snprintf(err, errlen, "no parser '%.*s' for a read-back (a journal from a newer rocelab?)",
		 (int)k, read_as);
	return -EINVAL;
}
