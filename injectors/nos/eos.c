// SPDX-License-Identifier: MIT
/*
 * Arista EOS read back in its own words: its running-config blocks and
 * its show commands (| json where EOS has it); and its port states
 * (links.h).  Each parser names the source its format was checked against.
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
 * EOS 'show running-config': each top-level line (a block's header, line
 * NULL) and each line indented under one, trimmed and NUL-terminated, to fn.
 */
static void eos_walk(const char *out, void (*fn)(const char *head, const char *line, void *ctx),
		     void *ctx)
{
	const char *l, *s = out;
	char head[128] = "";
	size_t n;

	while ((l = nos_next_line(&s, &n))) {
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
	void (*line)(const char *l, void *ctx);
	void *ctx;
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
		c->line(line, c->ctx);
}

/*
 * EOS 'show running-config interfaces PORT': each line of the port's block
 * (indented under "interface PORT") to line(l, ctx); -EINVAL with err when
 * the output has no such block.
 */
static int eos_block(const char *port, const char *out, void (*line)(const char *l, void *ctx),
		     void *ctx, char *err, size_t errlen)
{
	struct eos_block_ctx c = {.line = line, .ctx = ctx};

	snprintf(c.head, sizeof(c.head), "interface %s", port);
	eos_walk(out, eos_block_line, &c);
	if (c.seen)
		return 0;
	snprintf(err, errlen, "'show running-config interfaces %s' has no '%s'", port, c.head);
	return -EINVAL;
}

/*
 * EOS 'show running-config interfaces PORT': the port's block, its lines
 * indented under "interface PORT".  PFC is 'priority-flow-control on' (older
 * EOS: '... mode on') and one 'priority-flow-control priority N no-drop' per
 * lossless priority (Arista EOS User Manual, Data Center Bridging).
 */
static void eos_pfc_line(const char *l, void *ctx)
{
	struct readback *rb = ctx;
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
	int r = eos_block(port, out, eos_pfc_line, rb, err, errlen);

	if (!r)
		snprintf(rb->canon, sizeof(rb->canon), "priority-flow-control %s, no-drop %s",
			 rb->pfc_on ? "on" : "off", readback_prios(rb->lossless, pr, sizeof(pr)));
	return r;
}

/*
 * EOS 'show running-config interfaces PORT': the block's 'speed ...' line
 * ('speed 100gfull', 'speed 100g-2', 'speed forced 40gfull'); none: the
 * port's default.
 */
static void eos_speed_line(const char *l, void *ctx)
{
	struct readback *rb = ctx;

	if (!strncmp(l, "speed ", 6) && l[6] && strlen(l + 6) < sizeof(rb->speed))
		snprintf(rb->speed, sizeof(rb->speed), "%s", l + 6);
}

static int eos_speed(const char *port, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	int r = eos_block(port, out, eos_speed_line, rb, err, errlen);

	if (!r)
		snprintf(rb->canon, sizeof(rb->canon), "speed %s",
			 rb->speed[0] ? rb->speed : "default");
	return r;
}

/* EOS: a 'shutdown' line in the port's block (EOS User Manual, Ethernet Ports). */
static void eos_shut_line(const char *l, void *ctx)
{
	struct readback *rb = ctx;

	if (!strcmp(l, "shutdown"))
		snprintf(rb->admin, sizeof(rb->admin), "down");
}

static int eos_shut(const char *port, const char *out, struct readback *rb, char *err,
		    size_t errlen)
{
	int r = eos_block(port, out, eos_shut_line, rb, err, errlen);

	rb->up = !rb->admin[0];
	if (!r)
		snprintf(rb->canon, sizeof(rb->canon), "%s", rb->up ? "no shutdown" : "shutdown");
	return r;
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
	char acl[NOS_WORD_MAX + 16];
	const char *port = !strncmp(head, "interface ", 10) ? head + 10 : NULL;

	snprintf(acl, sizeof(acl), "ip access-list %s", c->name);
	if (!line) {
		c->rb->exists |= !strcmp(head, acl);
		c->seen += port && nos_in_list(c->ports, port);
		return;
	}
	if (!port || !nos_in_list(c->ports, port) || strncmp(line, "ip access-group ", 16))
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
	char name[NOS_WORD_MAX], tail[96];
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
	nos_canon_list(rb, c.groups.len ? "ip access-group in: " : "no ip access-group in",
		       c.groups.p ? c.groups.p : "", tail);
	sb_free(&c.groups);
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
	char w[6][NOS_WORD_MAX];
	size_t n, deny = 0;
	bool in = false, seen = false;

	while ((l = nos_next_line(&s, &n))) {
		int k = nos_words(l, n, w, 6);

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
 * The series from Arista's own architecture papers: 7280R3 "based on
 * Broadcom Jericho2 silicon" (Arista 7280R3 Switch Architecture), 7500R and
 * 7500R2 on Jericho and Jericho+, 7500E and 7280E on Arad, 7800R3 on
 * Jericho2, 7020R on Qumran; the series number is the first "7" and three
 * digits of the model, after an optional DCS- or CCS- prefix.
 */
bool eos_model_sand(const char *model)
{
	static const char *const sand[] = {"7280", "7500", "7800", "7020R"};
	const char *m = model;

	if (!strncmp(m, "DCS-", 4) || !strncmp(m, "CCS-", 4))
		m += 4;
	for (size_t i = 0; i < ARRAY_SIZE(sand); i++)
		if (!strncmp(m, sand[i], strlen(sand[i])))
			return true;
	return false;
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

struct eos_ecn_ctx {
	const char *q; /* the queue's number */
	bool in_q;     /* inside its queue's block */
	bool tx;       /* its block is 'tx-queue Q' (a DNX platform's), not 'uc-tx-queue Q' */
	struct readback *rb;
};

/* The port's block: 'uc-tx-queue Q' (or 'tx-queue Q') and its 'random-detect ecn ...' line. */
static void eos_ecn_line(const char *line, void *ctx)
{
	struct eos_ecn_ctx *c = ctx;
	char w[2][NOS_WORD_MAX];

	if (nos_words(line, strlen(line), w, 2) == 2 &&
	    (!strcmp(w[0], "uc-tx-queue") || !strcmp(w[0], "tx-queue"))) {
		c->in_q = !strcmp(w[1], c->q);
		if (c->in_q)
			c->tx = !strcmp(w[0], "tx-queue");
		return;
	}
	if (c->in_q && !strncmp(line, "random-detect ecn ", 18) &&
	    strcmp(line, "random-detect ecn count") && strlen(line) < sizeof(c->rb->ecn))
		snprintf(c->rb->ecn, sizeof(c->rb->ecn), "%s", line);
}

/*
 * EOS 'show running-config interfaces PORT': the 'random-detect ecn
 * minimum-threshold ... maximum-threshold ... [max-mark-probability P]'
 * line under the port's 'uc-tx-queue Q', or a DNX platform's 'tx-queue Q'
 * (aristanetworks/avd eos_cli_config_gen templates
 * eos/ethernet-interface-uc-tx-queues.j2, eos/ethernet-interface-tx-queues.j2);
 * none: the queue marks no ECN.  arg: "PORT Q".
 */
static int eos_ecn(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	char port[64];
	struct eos_ecn_ctx c = {.q = readback_port_queue(arg, port, sizeof(port)), .rb = rb};
	int r = eos_block(port, out, eos_ecn_line, &c, err, errlen);

	if (r)
		return r;
	snprintf(rb->canon, sizeof(rb->canon), "%s %s %s: %s", port,
		 c.tx ? "tx-queue" : "uc-tx-queue", c.q,
		 rb->ecn[0] ? rb->ecn : "no random-detect ecn");
	return 0;
}

/*
 * EOS 'show running-config', its 'qos map dscp D... to traffic-class T' lines
 * (arg "DSCP", dscp-mismatch): the switch's DSCP to traffic class map as
 * configured (AVD eos_cli_config_gen templates/eos/qos.j2 writes them so);
 * dscp_prio the traffic class of the last line that names DSCP, -1 when
 * none does: EOS's default map, not printed in running-config.  canon: the
 * lines whole (drift).
 */
static int eos_dscp(const char *arg, const char *out, struct readback *rb, char *err, size_t errlen)
{
	const char *l, *s = out;
	int dscp = atoi(arg);
	char head[96];
	struct sbuf items = {0};
	size_t n;

	(void)err;
	(void)errlen;
	rb->dscp_prio = -1;
	while ((l = nos_next_line(&s, &n))) {
		char w[72][NOS_WORD_MAX];
		int k, tc = -1;
		bool has = false;

		while (n && isspace((unsigned char)*l))
			l++, n--;
		if (n < 13 || strncmp(l, "qos map dscp ", 13))
			continue;
		k = nos_words(l, n, w, 72);
		if (k >= 7 && !strcmp(w[k - 2], "traffic-class") && !strcmp(w[k - 3], "to") &&
		    strlen(w[k - 1]) == 1 && w[k - 1][0] >= '0' && w[k - 1][0] <= '7')
			tc = w[k - 1][0] - '0';
		for (int i = 3; i < k - 3; i++)
			has |= strspn(w[i], "0123456789") == strlen(w[i]) && atoi(w[i]) == dscp;
		if (has && tc >= 0)
			rb->dscp_prio = tc;
		sb_printf(&items, "%s%.*s", items.len ? "; " : "", (int)n, l);
	}
	if (rb->dscp_prio >= 0)
		snprintf(head, sizeof(head), "DSCP %d -> traffic-class %d; ", dscp, rb->dscp_prio);
	else
		snprintf(head, sizeof(head), "DSCP %d in no qos map line (EOS's default map); ",
			 dscp);
	nos_canon_list(rb, head, items.p ? items.p : "no qos map dscp lines", "");
	sb_free(&items);
	return 0;
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
		r = nos_pfc_rx_found(rb, port, prio, (unsigned long long)json_integer_value(n));
	}
	json_decref(v);
	return r;
}

/* ---- port states (links.h) ---- */

/*
 * `show interfaces status | json`: interfaceStatuses.<port>.linkStatus
 * "connected" (else notconnect, disabled, errdisabled).
 */
static char *eos_links_command(const struct inv_switch *sw, const char *const **argv)
{
	(void)sw;
	(void)argv;
	return rl_xstrdup("show interfaces status | json");
}

static int eos_links_walk(const struct inv_switch *sw, json_t *root, struct port_state *st)
{
	json_t *v = json_object_get(root, "interfaceStatuses"), *x;
	const char *name;

	if (!json_is_object(v))
		return -1;
	json_object_foreach(v, name, x)
	{
		const char *ls = json_string_value(json_object_get(x, "linkStatus"));
		int p = nos_port_index(sw, name);

		if (p >= 0)
			nos_port_set(&st[p], ls, ls && !strcmp(ls, "connected"));
	}
	return 0;
}

/*
 * EOS 'show running-config interfaces PORT', its PFC watchdog lines (arg
 * PORT, pfc-storm --pfcwd), the interface commands aristanetworks/avd's
 * eos_cli_config_gen renders (templates eos/qos-profiles.j2, schema
 * qos_profiles.schema.yml priority_flow_control.watchdog):
 *   priority-flow-control pause watchdog            (on; "no ...": off; none: not set)
 *   priority-flow-control pause watchdog port action drop|notify-only
 *   priority-flow-control pause watchdog port timer timeout S polling-interval S|auto
 *     recovery-time S [forced]                      (seconds, at most 2 decimals; 3 for the poll)
 * rb->admin: "on", "off" or "" (not set); rb->value: "STATE ACTION TIMEOUT POLL
 * RECOVERY FORCED", "-" for what is not set, ACTION drop or notify (notify-only),
 * FORCED f ("on drop 0.2 auto 0.4 -"; 31 bytes at the most the forms allow).  Device
 * output is untrusted: any other watchdog line, or a value outside those forms,
 * is refused (the undo could not put it back as found).  rb->profile: the qos
 * profile the port names ('service-profile NAME'), whose lines apply to it too.
 */
struct eos_wd {
	bool bad;
	char state[4], action[12], timeout[8], poll[8], recovery[8], forced[2];
	char profile[64]; /* 'service-profile NAME': a qos profile's lines apply too */
};

/* "N" or "N.D[D]" (at most decimals digits after the point), or auto when allowed. */
static bool eos_secs(const char *v, int decimals, bool can_auto)
{
	size_t i = strspn(v, "0123456789"), d;

	if (can_auto && !strcmp(v, "auto"))
		return true;
	if (!i || i > 2)
		return false;
	if (!v[i])
		return true;
	d = strspn(v + i + 1, "0123456789");
	return v[i] == '.' && d >= 1 && d <= (size_t)decimals && !v[i + 1 + d];
}

static void eos_wd_line(const char *l, void *ctx)
{
	struct eos_wd *w = ctx;
	char t[13][NOS_WORD_MAX];
	int k, o;

	k = nos_words(l, strlen(l), t, 13);
	if (k == 2 && !strcmp(t[0], "service-profile"))
		snprintf(w->profile, sizeof(w->profile), "%.63s", t[1]);
	o = k > 0 && !strcmp(t[0], "no");
	if (k < 3 + o || strcmp(t[o], "priority-flow-control") || strcmp(t[o + 1], "pause") ||
	    strcmp(t[o + 2], "watchdog"))
		return;
	if (k == 3 + o)
		snprintf(w->state, sizeof(w->state), "%s", o ? "off" : "on");
	else if (!o && k == 6 && !strcmp(t[3], "port") && !strcmp(t[4], "action") &&
		 (!strcmp(t[5], "drop") || !strcmp(t[5], "notify-only")))
		snprintf(w->action, sizeof(w->action), "%.11s", t[5]);
	else if (!o && (k == 11 || k == 12) && !strcmp(t[3], "port") && !strcmp(t[4], "timer") &&
		 !strcmp(t[5], "timeout") && eos_secs(t[6], 2, false) &&
		 !strcmp(t[7], "polling-interval") && eos_secs(t[8], 3, true) &&
		 !strcmp(t[9], "recovery-time") && eos_secs(t[10], 2, false) &&
		 (k == 11 || !strcmp(t[11], "forced"))) {
		snprintf(w->timeout, sizeof(w->timeout), "%.7s", t[6]);
		snprintf(w->poll, sizeof(w->poll), "%.7s", t[8]);
		snprintf(w->recovery, sizeof(w->recovery), "%.7s", t[10]);
		snprintf(w->forced, sizeof(w->forced), "%s", k == 12 ? "f" : "-");
	} else {
		w->bad = true;
	}
}

static int eos_pfcwd(const char *port, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	struct eos_wd w = {0};
	size_t n;
	int r = eos_block(port, out, eos_wd_line, &w, err, errlen);

	if (r)
		return r;
	if (w.bad) {
		snprintf(err, errlen,
			 "%s's PFC watchdog as read has a line in none of EOS's forms "
			 "('priority-flow-control pause watchdog [port action drop|notify-only | "
			 "port timer timeout S polling-interval S|auto recovery-time S [forced]]')",
			 port);
		return -EINVAL;
	}
	snprintf(rb->admin, sizeof(rb->admin), "%s", w.state);
	snprintf(rb->profile, sizeof(rb->profile), "%s", w.profile);
	snprintf(rb->value, sizeof(rb->value), "%.3s %.6s %.5s %.6s %.5s %.1s",
		 w.state[0] ? w.state : "-",
		 !w.action[0]	      ? "-"
		 : w.action[0] == 'd' ? "drop"
				      : "notify",
		 w.timeout[0] ? w.timeout : "-", w.poll[0] ? w.poll : "-",
		 w.recovery[0] ? w.recovery : "-", w.forced[0] ? w.forced : "-");
	n = (size_t)snprintf(rb->canon, sizeof(rb->canon), "%s pause watchdog %s, port action %s",
			     port, w.state[0] ? w.state : "not set",
			     w.action[0] ? w.action : "not set");
	if (w.timeout[0] && n < sizeof(rb->canon))
		snprintf(rb->canon + n, sizeof(rb->canon) - n,
			 ", port timer timeout %s polling-interval %s recovery-time %s%s",
			 w.timeout, w.poll, w.recovery, w.forced[0] == 'f' ? " forced" : "");
	return 0;
}

static const struct nos_parser parsers[] = {
    {"eos-pfc", eos_pfc},
    {"eos-speed", eos_speed},
    {"eos-shut", eos_shut},
    {"eos-acl", eos_acl},
    {"eos-acl-counters", eos_acl_counters},
    {"eos-mmu", eos_mmu},
    {"eos-ecn", eos_ecn},
    {"eos-pfc-rx", eos_pfc_rx},
    {"eos-dscp", eos_dscp},
    {"eos-pfcwd", eos_pfcwd},
    {NULL, NULL},
};

/* ---- counters (ctr.h) ---- */

/*
 * 'show interfaces P | json', interfaces.P.interfaceCounters (inDiscards,
 * outDiscards, totalInErrors, inputErrorsDetail.fcsErrors, ...: the model
 * napalm's EOS driver reads, napalm/eos/eos.py get_interfaces_counters and
 * its test fixture show_interfaces.json); and 'show interfaces P
 * priority-flow-control counters detail | json', priorities."N" (rxFrames,
 * as pfc-storm reads it, pfc_storm.c); where the fault names a priority,
 * 'show interfaces P counters queue detail | json' and 'show qos interfaces P
 * ecn counters queue | json' (ctr.c: the models aristanetworks/anta reads).
 */
static size_t eos_counters(const char *port, int prio, struct nos_ctr_read *r, size_t max)
{
	size_t n = 0;

	if (n < max) {
		r[n] = (struct nos_ctr_read){.group = "interface", .parse = nos_ctr_eos_interface};
		snprintf(r[n++].line, sizeof(r[0].line), "show interfaces %s | json", port);
	}
	if (n < max) {
		r[n] = (struct nos_ctr_read){.group = "pfc", .parse = nos_ctr_eos_pfc};
		snprintf(r[n++].line, sizeof(r[0].line),
			 "show interfaces %s priority-flow-control counters detail | json", port);
	}
	if (prio < 0)
		return n;
	/* a fault that names a priority: every queue's drops and ECN marks (all TCs: a drop in
	 * another queue is evidence too; TC N is priority N's in EOS's default map, inferred) */
	if (n < max) {
		r[n] = (struct nos_ctr_read){.group = "queues", .parse = nos_ctr_eos_queues};
		snprintf(r[n++].line, sizeof(r[0].line),
			 "show interfaces %s counters queue detail | json", port);
	}
	if (n < max) {
		r[n] = (struct nos_ctr_read){.group = "ecn", .parse = nos_ctr_eos_ecn};
		snprintf(r[n++].line, sizeof(r[0].line),
			 "show qos interfaces %s ecn counters queue | json", port);
	}
	return n;
}

const struct nos_ops nos_eos = {
    .dialect = INV_DIALECT_EOS,
    .parsers = parsers,
    .links_command = eos_links_command,
    .links_source = "show interfaces status | json",
    .links_walk = eos_links_walk,
    .counters = eos_counters,
};
