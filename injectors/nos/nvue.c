// SPDX-License-Identifier: MIT
/*
 * NVIDIA Cumulus NVUE read back in its own words: 'nv config show -o
 * commands' and 'nv show ... -o json'; and its port states (links.h).  Each
 * parser names the source its format was checked against.
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
 * NVUE's RoCE mode in 'nv config show -o commands': 'nv set qos roce' (lossless,
 * the default) or 'nv set qos roce mode lossy|lossless' (Cumulus Linux, RDMA over
 * Converged Ethernet - RoCE).  The mode sets PFC on switch priority 3 and the
 * ECN thresholds itself, without a 'qos pfc' or 'qos congestion-control' line
 * to read: the kinds refuse a switch in it (pfc_misconfig.c, ecn_misconfig.c).
 */
static void nvue_roce(const char *out, struct readback *rb)
{
	const char *l, *s = out;
	size_t n;

	while ((l = nos_next_line(&s, &n))) {
		char w[7][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 7);

		if (k < 4 || strcmp(w[0], "nv") || strcmp(w[1], "set") || strcmp(w[2], "qos") ||
		    strcmp(w[3], "roce"))
			continue;
		if (k == 6 && !strcmp(w[4], "mode") && strlen(w[5]) < sizeof(rb->roce))
			snprintf(rb->roce, sizeof(rb->roce), "%s", w[5]);
		else if (k == 6 && !strcmp(w[4], "enable") &&
			 (!strcmp(w[5], "off") || !strcmp(w[5], "disable")))
			snprintf(rb->roce, sizeof(rb->roce), "off");
		else if (!rb->roce[0])
			snprintf(rb->roce, sizeof(rb->roce), "lossless");
	}
	if (!strcmp(rb->roce, "off"))
		rb->roce[0] = '\0';
}

/* canon with ", RoCE mode M" when the switch is in it. */
static void roce_canon(struct readback *rb)
{
	size_t n = strlen(rb->canon);

	if (rb->roce[0])
		snprintf(rb->canon + n, sizeof(rb->canon) - n, "; RoCE mode %s", rb->roce);
}

/* The words an NVUE command line is made of: what a copy of a profile may carry. */
static const char nvue_ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			      " _.,:/=+-";

/* Is l[n] 'nv set qos FEATURE NAME ...'? */
static bool nvue_profile_line(const char *l, size_t n, const char *feature, const char *name)
{
	char w[5][NOS_WORD_MAX];

	return nos_words(l, n, w, 5) == 5 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
	       !strcmp(w[2], "qos") && !strcmp(w[3], feature) && !strcmp(w[4], name);
}

/*
 * The lines of profile name of 'qos FEATURE' that a copy of it repeats
 * (readback_nvue_profile_copy) hold only NVUE's words: 0, or -EINVAL with
 * err.  What a device printed is data: a quote, '$', '`', ';' is refused
 * before it could reach a command line (issue 56).
 */
static int nvue_copy_ok(const char *out, const char *feature, const char *name, char *err,
			size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	while ((l = nos_next_line(&s, &n)))
		if (nvue_profile_line(l, n, feature, name) && strspn(l, nvue_ok) < n) {
			snprintf(err, errlen,
				 "NVUE's 'qos %s %.40s' as read holds characters no command may "
				 "carry (not copied from it): check the switch",
				 feature, name);
			return -EINVAL;
		}
	return 0;
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

	snprintf(rb->profile, sizeof(rb->profile), "default-global");
	while ((l = nos_next_line(&s, &n))) {
		char w[8][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 8);

		if (k == 8 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "qos") && !strcmp(w[5], "pfc") &&
		    !strcmp(w[6], "profile") && nvue_has(w[3], port)) {
			snprintf(rb->profile, sizeof(rb->profile), "%s", w[7]);
			rb->bound = true;
		}
	}
	for (s = out; (l = nos_next_line(&s, &n));) {
		char w[7][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 7), m;

		if (k != 7 || strcmp(w[0], "nv") || strcmp(w[1], "set") || strcmp(w[2], "qos") ||
		    strcmp(w[3], "pfc") || strcmp(w[4], rb->profile))
			continue;
		if (!strcmp(w[5], "switch-priority") &&
		    (m = nos_prio_list(w[6], strlen(w[6]))) >= 0)
			rb->lossless |= (unsigned)m;
		else if (!strcmp(w[5], "rx"))
			rx = strcmp(w[6], "disable") != 0;
		else if (!strcmp(w[5], "tx"))
			tx = strcmp(w[6], "disable") != 0;
	}
	rb->pfc_on = rx && tx;
	if (nvue_copy_ok(out, "pfc", rb->profile, err, errlen))
		return -EINVAL;
	snprintf(rb->canon, sizeof(rb->canon), "profile %s%s: switch-priority %s, rx %s, tx %s",
		 rb->profile, rb->bound ? "" : " (no profile of its own)",
		 readback_prios(rb->lossless, pr, sizeof(pr)), rx ? "enable" : "disable",
		 tx ? "enable" : "disable");
	nvue_roce(out, rb);
	roce_canon(rb);
	return 0;
}

void readback_nvue_profile_copy(const char *out, const char *feature, const char *name,
				const char *newname, const char *const *skip, struct sbuf *sb)
{
	const char *l, *s = out;
	size_t n;

	while ((l = nos_next_line(&s, &n))) {
		char w[6][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 6);
		bool skipped = false;

		if (k < 6 || strcmp(w[0], "nv") || strcmp(w[1], "set") || strcmp(w[2], "qos") ||
		    strcmp(w[3], feature) || strcmp(w[4], name) || strspn(l, nvue_ok) < n)
			continue; /* not the profile's, or not NVUE's words (its parser refused it)
				   */
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
 * NVUE: the last 'nv set interface LIST link ATTR X' line of 'nv config
 * show -o commands' whose LIST holds port: X into val ("": none).
 */
static void nvue_link_attr(const char *port, const char *out, const char *attr, char *val,
			   size_t len)
{
	const char *l, *s = out;
	size_t n;

	while ((l = nos_next_line(&s, &n))) {
		char w[7][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 7);

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
 * NVUE: 'nv set acl NAME ...' and 'nv set interface LIST acl NAME
 * inbound|outbound' lines of 'nv config show -o commands' (NVUE reference,
 * ACLs: an interface's ACLs are a set, each bound on its own).
 */
static int nvue_acl(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	char name[NOS_WORD_MAX], tail[96];
	size_t k = strcspn(arg, " ");
	const char *ports = arg + k + (arg[k] == ' '), *l, *s = out;
	struct sbuf items = {0};
	size_t n;

	(void)err;
	(void)errlen;
	snprintf(name, sizeof(name), "%.*s", (int)k, arg);
	while ((l = nos_next_line(&s, &n))) {
		char w[7][NOS_WORD_MAX];
		int c = nos_words(l, n, w, 7);

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
			char port[NOS_WORD_MAX];

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
	nos_canon_list(rb, items.len ? "acls: " : "no acls on its port(s)", items.p ? items.p : "",
		       tail);
	sb_free(&items);
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
	char name[64], cur[NOS_WORD_MAX] = "";
	size_t n, tables = 0, rules = 0, col_rule = 0, col_in = 0;
	unsigned long last = strtoul(readback_port_queue(arg, name, sizeof(name)), NULL, 10);
	bool in = false;

	while ((l = nos_next_line(&s, &n))) {
		char w[1][NOS_WORD_MAX];

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
		if (!nos_words(l, n, w, 1)) {
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

/* NVUE: the last 'nv set qos advance-buffer-config P ingress-lossless-buffer shared-alpha X'. */
static int nvue_alpha(const char *prof, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	(void)err;
	(void)errlen;
	while ((l = nos_next_line(&s, &n))) {
		char w[8][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 8);

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

	snprintf(rb->profile, sizeof(rb->profile), "default-global");
	while ((l = nos_next_line(&s, &n))) {
		char w[8][NOS_WORD_MAX];

		if (nos_words(l, n, w, 8) == 8 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "qos") &&
		    !strcmp(w[5], "congestion-control") && !strcmp(w[6], "profile") &&
		    nvue_has(w[3], port)) {
			snprintf(rb->profile, sizeof(rb->profile), "%s", w[7]);
			rb->bound = true;
		}
	}
	for (s = out; (l = nos_next_line(&s, &n));) {
		char w[10][NOS_WORD_MAX];

		if (nos_words(l, n, w, 10) != 9 || strcmp(w[0], "nv") || strcmp(w[1], "set") ||
		    strcmp(w[2], "qos") || strcmp(w[3], "congestion-control") ||
		    strcmp(w[4], rb->profile) || strcmp(w[5], "traffic-class") ||
		    !nvue_tc_has(w[6], q) || strlen(w[7]) > 16 || strlen(w[8]) > 16)
			continue;
		o += (size_t)snprintf(rb->ecn + o, o < sizeof(rb->ecn) ? sizeof(rb->ecn) - o : 0,
				      "%s%s %s", o ? " " : "", w[7], w[8]);
		if (o >= sizeof(rb->ecn))
			o = sizeof(rb->ecn) - 1;
	}
	if (nvue_copy_ok(out, "congestion-control", rb->profile, err, errlen))
		return -EINVAL;
	snprintf(rb->canon, sizeof(rb->canon), "profile %.40s%s: traffic-class %d %.100s",
		 rb->profile, rb->bound ? "" : " (no profile of its own)", q,
		 rb->ecn[0] ? rb->ecn : "not set (NVUE's defaults)");
	nvue_roce(out, rb);
	roce_canon(rb);
	return 0;
}

/* Is dscp in an NVUE DSCP list ("26", "10,21,36", "24-31")? */
static bool nvue_dscp_has(const char *list, int dscp)
{
	for (const char *it = list; *it;) {
		char *end;
		long lo = strtol(it, &end, 10), hi = lo;

		if (end == it)
			return false;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (dscp >= lo && dscp <= hi)
			return true;
		if (*end != ',')
			return false;
		it = end + 1;
	}
	return false;
}

/*
 * NVUE 'nv config show -o commands', the lines with ' qos mapping ' (and
 * ' qos roce'), arg "PORT DSCP" (dscp-mismatch): the port's mapping profile
 * ('nv set interface LIST qos mapping profile P'; none: default-global), its
 * trust ('nv set qos mapping P trust l2|l3|both|port'; none: l2, 802.1p,
 * Cumulus Linux's default) and the switch priority DSCP maps to ('... dscp
 * LIST switch-priority S'; none: DSCP >> 3, the default table): Cumulus
 * Linux user guide, Quality of Service, Classification (Trust DSCP, Port
 * Groups); NVUE command reference, 'nv set qos mapping <profile-id> dscp
 * <qos-dscp-id> switch-priority', 'nv set interface <interface-id> qos
 * mapping profile' (5.3).  canon holds every mapping line whole (drift).
 */
static int nvue_dscp(const char *arg, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	const char *l, *s = out;
	char port[64], trust[16] = "", head[192];
	int dscp = atoi(readback_port_queue(arg, port, sizeof(port))), sp = -1;
	struct sbuf items = {0};
	size_t n;

	snprintf(rb->profile, sizeof(rb->profile), "default-global");
	while ((l = nos_next_line(&s, &n))) {
		char w[8][NOS_WORD_MAX];

		if (nos_words(l, n, w, 8) == 8 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "qos") &&
		    !strcmp(w[5], "mapping") && !strcmp(w[6], "profile") && nvue_has(w[3], port)) {
			snprintf(rb->profile, sizeof(rb->profile), "%s", w[7]);
			rb->bound = true;
		}
		if (memmem(l, n, " qos mapping ", 13))
			sb_printf(&items, "%s%.*s", items.len ? "; " : "", (int)n, l);
	}
	for (s = out; (l = nos_next_line(&s, &n));) {
		char w[10][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 10);

		if (k < 7 || strcmp(w[0], "nv") || strcmp(w[1], "set") || strcmp(w[2], "qos") ||
		    strcmp(w[3], "mapping") || strcmp(w[4], rb->profile))
			continue;
		if (k == 7 && !strcmp(w[5], "trust"))
			snprintf(trust, sizeof(trust), "%.15s", w[6]);
		else if (k == 9 && !strcmp(w[5], "dscp") && !strcmp(w[7], "switch-priority") &&
			 nvue_dscp_has(w[6], dscp) && strlen(w[8]) == 1 && w[8][0] >= '0' &&
			 w[8][0] <= '7')
			sp = w[8][0] - '0';
	}
	if (nvue_copy_ok(out, "mapping", rb->profile, err, errlen)) {
		sb_free(&items);
		return -EINVAL;
	}
	rb->trust_dscp = !strcmp(trust, "l3") || !strcmp(trust, "both");
	rb->dscp_prio = sp >= 0 ? sp : dscp >> 3;
	snprintf(head, sizeof(head), "profile %.40s%s: trust %s, DSCP %d -> switch-priority %d%s; ",
		 rb->profile, rb->bound ? "" : " (no profile of its own)",
		 trust[0] ? trust : "l2 (default)", dscp, rb->dscp_prio,
		 sp >= 0 ? "" : " (default map)");
	nos_canon_list(rb, head, items.p ? items.p : "no mapping lines", "");
	sb_free(&items);
	nvue_roce(out, rb);
	roce_canon(rb);
	return 0;
}

/*
 * NVUE 'nv config show -o commands', its ' qos pfc-watchdog' lines (arg
 * PORT, pfc-storm --pfcwd): the port's 'nv set interface LIST qos
 * pfc-watchdog [state enable|disable]' (none: not set, NVUE's default
 * disable), and the switch's 'nv set qos pfc-watchdog polling-interval MS'
 * and 'robustness N' (100 ms and 3 when not set): Cumulus Linux user guide,
 * Quality of Service / PFC Watchdog; NVUE reference (5.6).  rb->value: "STATE
 * POLL ROBUSTNESS" (STATE "-" when not set); rb->admin: the state as
 * written.  A value that is not one of NVUE's words or numbers is refused.
 */
static int nvue_pfcwd(const char *port, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	const char *l, *s = out;
	char state[16] = "", poll[8] = "100", robust[8] = "3";
	size_t n;

	while ((l = nos_next_line(&s, &n))) {
		char w[9][NOS_WORD_MAX];
		int k = nos_words(l, n, w, 9);

		if (k >= 6 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
		    !strcmp(w[2], "interface") && !strcmp(w[4], "qos") &&
		    !strcmp(w[5], "pfc-watchdog") && nvue_has(w[3], port)) {
			const char *v = k == 6				   ? "enable"
					: k == 8 && !strcmp(w[6], "state") ? w[7]
									   : "";

			if (strcmp(v, "enable") && strcmp(v, "disable")) {
				snprintf(
				    err, errlen,
				    "NVUE's pfc-watchdog of %s as read is not 'state enable' or "
				    "'state disable'",
				    port);
				return -EINVAL;
			}
			snprintf(state, sizeof(state), "%.15s", v);
		} else if (k == 6 && !strcmp(w[0], "nv") && !strcmp(w[1], "set") &&
			   !strcmp(w[2], "qos") && !strcmp(w[3], "pfc-watchdog") &&
			   (!strcmp(w[4], "polling-interval") || !strcmp(w[4], "robustness"))) {
			if (!w[5][0] || strlen(w[5]) > 5 ||
			    strspn(w[5], "0123456789") != strlen(w[5])) {
				snprintf(err, errlen,
					 "NVUE's pfc-watchdog %s as read is not a number", w[4]);
				return -EINVAL;
			}
			snprintf(w[4][0] == 'p' ? poll : robust, sizeof(poll), "%s", w[5]);
		}
	}
	snprintf(rb->admin, sizeof(rb->admin), "%s", state);
	snprintf(rb->value, sizeof(rb->value), "%s %s %s", state[0] ? state : "-", poll, robust);
	snprintf(rb->canon, sizeof(rb->canon),
		 "%s pfc-watchdog %s; polling-interval %s ms, robustness %s", port,
		 state[0] ? state : "not set (disable)", poll, robust);
	return 0;
}

/*
 * NVUE: 'nv show interface PORT counters qos pfc-stats' (5.4 and earlier:
 * 'qos counters pfc-stats'), the table of the NVUE command reference: a header "switch-priority
 * rx-pause-frames rx-pause-duration tx-pause-frames tx-pause-duration", a dashed rule, one row a
 * priority.  The column is found by its header, not its place.
 */
static int nvue_pfc_rx(const char *arg, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	char port[64], w[8][NOS_WORD_MAX];
	int prio = atoi(readback_port_queue(arg, port, sizeof(port))), col = -1;
	size_t n;

	while ((l = nos_next_line(&s, &n))) {
		int k = nos_words(l, n, w, 8);

		if (col < 0) {
			for (int j = 1; j < k && !strcmp(w[0], "switch-priority"); j++)
				if (!strcmp(w[j], "rx-pause-frames"))
					col = j;
			continue;
		}
		if (k > col && isdigit((unsigned char)w[0][0]) && atoi(w[0]) == prio &&
		    isdigit((unsigned char)w[col][0]))
			return nos_pfc_rx_found(rb, port, prio, strtoull(w[col], NULL, 10));
	}
	snprintf(
	    err, errlen, "the PFC counters of %s ('nv show interface ... pfc-stats') show %s", port,
	    col < 0 ? "no switch-priority / rx-pause-frames table" : "no row for the priority");
	return -EINVAL;
}

/* ---- port states (links.h) ---- */

/* `nv show interface -o json`: <port>.link.oper-status "up". */
static char *nvue_links_command(const struct inv_switch *sw, const char *const **argv)
{
	(void)sw;
	(void)argv;
	return rl_xstrdup("nv show interface -o json");
}

static int nvue_links_walk(const struct inv_switch *sw, json_t *root, struct port_state *st)
{
	json_t *x;
	const char *name;

	if (!json_is_object(root))
		return -1;
	json_object_foreach(root, name, x)
	{
		const char *os =
		    json_string_value(json_object_get(json_object_get(x, "link"), "oper-status"));
		int p = nos_port_index(sw, name);

		if (p >= 0)
			nos_port_set(&st[p], os, os && !strcmp(os, "up"));
	}
	return 0;
}

static const struct nos_parser parsers[] = {
    {"nvue-pfc", nvue_pfc},
    {"nvue-speed", nvue_speed},
    {"nvue-state", nvue_state},
    {"nvue-acl", nvue_acl},
    {"nvue-acl-counters", nvue_acl_counters},
    {"nvue-alpha", nvue_alpha},
    {"nvue-ecn", nvue_ecn},
    {"nvue-pfc-rx", nvue_pfc_rx},
    {"nvue-dscp", nvue_dscp},
    {"nvue-pfcwd", nvue_pfcwd},
    {NULL, NULL},
};

/* ---- counters (ctr.h) ---- */

/*
 * Cumulus Linux is Linux: switchd keeps a switch port's netdev counters and
 * its 'ethtool -S' hardware counters (HwIfInDiscards, HwIfOutQDrops, the
 * per-priority PFC ones) from the ASIC (Cumulus Linux user guide,
 * "Monitoring Interfaces and Transceivers with ethtool"; CUMULUS-COUNTERS-MIB:
 * "These table values come from Ethtool hardware interface statistics
 * counters").  Read in the login shell NVUE runs in.
 */
static size_t nvue_counters(const char *port, int prio, struct nos_ctr_read *r, size_t max)
{
	(void)prio; /* ethtool -S has the per-priority ones */
	return nos_ctr_linux(port, false, true, r, max);
}

/*
 * The PFC watchdog of port's queue prio ('nv show interface P qos
 * pfc-watchdog', the user guide's table: a "state" row, operational first,
 * then a row a traffic class, "TC STATUS DEADLOCK-COUNT", STATUS OK or
 * DEADLOCK): "stormed" for DEADLOCK, "operational" for OK, nothing when
 * its state is not enabled (it watches no queue).  The queue is the
 * priority's: NVUE maps switch priority N to traffic class N unless told
 * otherwise (user guide, Egress Queues).  No restoration time is NVUE's to
 * set.  The awk runs on the switch; what it prints is taken as one word
 * (nos_word) or not at all.
 */
static void nvue_pfcwd_read(const char *port, int prio, struct sbuf *state, struct sbuf *restore)
{
	(void)restore;
	sb_printf(state,
		  "nv show interface %s qos pfc-watchdog | awk '$1 == \"state\" && $2 != "
		  "\"enabled\" {off = 1} !off && $1 == \"%d\" && NF >= 3 {print ($2 == "
		  "\"DEADLOCK\" ? \"stormed\" : \"operational\")}'",
		  port, prio);
}

const struct nos_ops nos_nvue = {
    .dialect = INV_DIALECT_NVUE,
    .parsers = parsers,
    .links_command = nvue_links_command,
    .links_source = "nv show interface -o json",
    .links_walk = nvue_links_walk,
    .counters = nvue_counters,
    .pfcwd = nvue_pfcwd_read,
};
