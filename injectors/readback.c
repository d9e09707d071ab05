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

static bool line_is(const char *l, size_t n, const char *s)
{
	return n == strlen(s) && !strncmp(l, s, n);
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
 * EOS 'show running-config interfaces PORT': each line of the port's block
 * (indented under "interface PORT"), trimmed and NUL-terminated, to line();
 * -EINVAL with err when the output has no such block.
 */
static int eos_block(const char *port, const char *out, struct readback *rb,
		     void (*line)(const char *l, struct readback *rb), char *err, size_t errlen)
{
	const char *l, *s = out;
	size_t n;
	bool in = false, seen = false;
	char head[96];

	snprintf(head, sizeof(head), "interface %s", port);
	while ((l = next_line(&s, &n))) {
		char copy[128];

		if (n && !isspace((unsigned char)l[0])) {
			in = line_is(l, n, head);
			seen |= in;
			continue;
		}
		while (n && isspace((unsigned char)*l))
			l++, n--;
		if (in && n < sizeof(copy)) {
			snprintf(copy, sizeof(copy), "%.*s", (int)n, l);
			line(copy, rb);
		}
	}
	if (seen)
		return 0;
	snprintf(err, errlen, "'show running-config interfaces %s' has no '%s'", port, head);
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

void readback_nvue_profile_copy(const char *out, const char *name, const char *newname,
				struct sbuf *sb)
{
	const char *l, *s = out;
	size_t n;

	while ((l = next_line(&s, &n))) {
		char w[6][WORD_MAX];
		int k = words(l, n, w, 6);

		if (k < 6 || strcmp(w[0], "nv") || strcmp(w[1], "set") || strcmp(w[2], "qos") ||
		    strcmp(w[3], "pfc") || strcmp(w[4], name) || !strcmp(w[5], "switch-priority") ||
		    !strcmp(w[5], "rx") || !strcmp(w[5], "tx"))
			continue;
		/* the line's words after the profile name, as NVUE printed them */
		const char *rest = strstr(l, w[4]) + strlen(w[4]);

		sb_printf(sb, "nv set qos pfc %s%.*s && ", newname, (int)(n - (size_t)(rest - l)),
			  rest);
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

/* NVUE: 'nv set interface LIST link speed X' lines of 'nv config show -o commands'. */
static int nvue_speed(const char *port, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	(void)err;
	(void)errlen;
	while ((l = next_line(&s, &n))) {
		char w[7][WORD_MAX];
		int k = words(l, n, w, 7);

		if (k == 7 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "link") && !strcmp(w[5], "speed") &&
		    nvue_has(w[3], port))
			snprintf(rb->speed, sizeof(rb->speed), "%.31s", w[6]);
	}
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

int readback_parse(const char *read_as, const char *out, struct readback *rb, char *err,
		   size_t errlen)
{
	static const struct {
		const char *name;
		int (*parse)(const char *arg, const char *out, struct readback *rb, char *err,
			     size_t errlen);
	} parsers[] = {
	    {"sonic-pfc", sonic_pfc},	{"eos-pfc", eos_pfc},	      {"nvue-pfc", nvue_pfc},
	    {"tc-root", tc_root},	{"sonic-speed", sonic_speed}, {"eos-speed", eos_speed},
	    {"nvue-speed", nvue_speed},
	};
	size_t k = strcspn(read_as, " ");

	memset(rb, 0, sizeof(*rb));
	for (size_t i = 0; i < ARRAY_SIZE(parsers); i++)
		if (strlen(parsers[i].name) == k && !strncmp(read_as, parsers[i].name, k) &&
		    read_as[k] == ' ')
			return parsers[i].parse(read_as + k + 1, out ? out : "", rb, err, errlen);
	snprintf(err, errlen, "no parser '%.*s' for a read-back (a journal from a newer rocelab?)",
		 (int)k, read_as);
	return -EINVAL;
}
