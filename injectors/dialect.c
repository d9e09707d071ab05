// SPDX-License-Identifier: MIT
/* Per-dialect rendering of switch faults; every name in a command was validated by the inventory.
 */
#define _GNU_SOURCE
#include "injectors/dialect.h"

#include "harness/lib/common.h"
#include "harness/lib/nl.h"
#include "harness/lib/sbuf.h"
#include "injectors/readback.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int dialect_unsupported(struct render_ctx *r, const char *what)
{
	snprintf(r->why, r->whylen, "dialect %s of switch %s cannot %s",
		 inv_dialect_name(r->inv->switches[r->sw].dialect), r->inv->switches[r->sw].name,
		 what);
	return -EOPNOTSUPP;
}

static struct fault_action *emit(struct render_ctx *r, struct sbuf *apply, struct sbuf *input,
				 struct sbuf *revert)
{
	char *a = sb_take(apply), *i = input ? sb_take(input) : NULL, *v = sb_take(revert);
	struct fault_action *act =
	    fault_plan_add(r->plan, FB_SSH, r->inv->switches[r->sw].name, a, i, v);

	free(a);
	free(i);
	free(v);
	return act;
}

/* An action's read-back: the command, parsed by "PARSER PORT". */
static struct fault_action *read_port(struct fault_action *a, const char *parser, const char *port,
				      const char *cmd_fmt, ...)
    __attribute__((format(printf, 4, 5)));
static struct fault_action *read_port(struct fault_action *a, const char *parser, const char *port,
				      const char *cmd_fmt, ...)
{
	struct sbuf as = {0};
	char cmd[192];
	va_list ap;

	va_start(ap, cmd_fmt);
	vsnprintf(cmd, sizeof(cmd), cmd_fmt, ap);
	va_end(ap);
	sb_printf(&as, "%s %s", parser, port);
	fault_action_read(a, cmd, as.p);
	sb_free(&as);
	return a;
}

/* An ACL fault's read: "PARSER TABLE PORT,PORT" (the ports it binds). */
static void read_acl(struct fault_action *a, const char *parser, const char *table,
		     const char **ports, size_t np, const char *cmd)
{
	struct sbuf arg = {0};

	sb_printf(&arg, "%s ", table);
	for (size_t i = 0; i < np; i++)
		sb_printf(&arg, "%s%s", i ? "," : "", ports[i]);
	read_port(a, parser, arg.p, "%s", cmd);
	sb_free(&arg);
}

/* A Linux switch's nft tables: the fault's own must not be there before, nor after its revert. */
static void read_nft_tables(struct fault_action *a, const char *table)
{
	read_port(a, "nft-tables", table, "nft -j list tables");
}

/* The kernel's own root qdisc comes back when ours is deleted: read it before and after. */
static void read_tc_root(struct fault_action *a, const char *port)
{
	read_port(a, "tc-root", port, "tc -j qdisc show dev %s root", port);
}

/* Ports the fault covers: the target port, or every cabled port of the switch. */
static size_t ports_of(struct render_ctx *r, const char **out, size_t max)
{
	const struct inv_switch *sw = &r->inv->switches[r->sw];
	size_t n = 0;

	if (r->port) {
		out[0] = r->port;
		return 1;
	}
	for (size_t p = 0; p < sw->n_ports && n < max; p++) {
		struct inv_endpoint ep = {INV_DEV_SWITCH, r->sw, p};

		if (inventory_link_at(r->inv, &ep))
			out[n++] = sw->ports[p].name;
	}
	return n;
}

static int need_port(struct render_ctx *r, const char *kind)
{
	if (r->port)
		return 0;
	snprintf(r->why, r->whylen, "%s needs a port target (switch:port), not a whole switch",
		 kind);
	return -EINVAL;
}

/* Addresses on each side of an ACL fault, as "a.b.c.d" strings. */
static size_t acl_side(struct render_ctx *r, bool from, char addrs[][16], size_t max)
{
	const struct fault_spec *s = r->spec;
	const struct inventory *inv = r->inv;
	size_t n = 0;

	if (!s->acl_tenants) {
		const struct inv_endpoint *e = from ? &s->from : &s->to;

		inet_ntop(AF_INET, &inv->hosts[e->dev].rnics[e->port].addr.addr, addrs[0], 16);
		return 1;
	}
	const struct inv_tenant *t = &inv->tenants[from ? s->from_tenant : s->to_tenant];

	for (size_t i = 0; i < t->n_members && n < max; i++) {
		const struct inv_endpoint *e = &t->members[i];

		inet_ntop(AF_INET, &inv->hosts[e->dev].rnics[e->port].addr.addr, addrs[n++], 16);
	}
	return n;
}

static void nft_set(struct sbuf *b, char addrs[][16], size_t n)
{
	if (n == 1) {
		sb_printf(b, "%s", addrs[0]);
		return;
	}
	sb_printf(b, "{ ");
	for (size_t i = 0; i < n; i++)
		sb_printf(b, "%s%s", i ? ", " : "", addrs[i]);
	sb_printf(b, " }");
}

/* ---- linux (Cumulus-like NOS; what the virtual lab runs) ----------------- */

static void nft_revert(struct sbuf *v, const char *table)
{
	/* Idempotent: succeeds when the table is gone, whether or not it was there. */
	sb_printf(v,
		  "nft delete table inet %s 2>/dev/null; ! nft list table inet %s >/dev/null 2>&1",
		  table, table);
}

static void nft_begin(struct sbuf *in, const char *table)
{
	sb_printf(in,
		  "table inet %s {\n\tchain rocelab {\n\t\ttype filter hook forward priority -10; "
		  "policy accept;\n",
		  table);
}

/*
 * Admin-down flushes the IPv4 routes through a port and link-up does not bring
 * them back; a NOS's routing daemon re-installs them, so the undo does too.
 */
static void linux_restore_routes(struct render_ctx *r, struct sbuf *v)
{
	const struct inv_switch *sw = &r->inv->switches[r->sw];
	const struct topo_switch *ts;

	if (!r->topo)
		return;
	ts = &r->topo->sw[r->sw];
	for (size_t i = 0; i < ts->n_routes; i++) {
		const struct topo_route *rt = &ts->routes[i];
		bool mine = rt->n_nh == 0 && !strcmp(sw->ports[rt->dev_port].name, r->port);
		char dst[24];

		for (size_t k = 0; k < rt->n_nh; k++)
			mine |= !strcmp(sw->ports[rt->nh[k].port].name, r->port);
		if (!mine)
			continue;
		if (rt->len == 0)
			snprintf(dst, sizeof(dst), "default");
		else
			snprintf(dst, sizeof(dst), "%s/%d", inet_ntoa(rt->dst), rt->len);
		if (rt->n_nh == 0) {
			sb_printf(v, " && ip route replace %s dev %s proto static scope link", dst,
				  r->port);
		} else if (rt->n_nh == 1) {
			sb_printf(v, " && ip route replace %s via %s dev %s proto static", dst,
				  inet_ntoa(rt->nh[0].gw), sw->ports[rt->nh[0].port].name);
		} else {
			sb_printf(v, " && ip route replace %s proto static", dst);
			for (size_t k = 0; k < rt->n_nh; k++)
				sb_printf(v, " nexthop via %s dev %s", inet_ntoa(rt->nh[k].gw),
					  sw->ports[rt->nh[k].port].name);
		}
	}
}

static int linux_link_flap(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "ip link set dev %s down", r->port);
	sb_printf(&v, "ip link set dev %s up", r->port);
	linux_restore_routes(r, &v);
	read_port(emit(r, &a, NULL, &v), "ip-link", r->port, "ip -j link show dev %s", r->port);
	return 0;
}

static int linux_acl_error(struct render_ctx *r)
{
	struct sbuf a = {0}, in = {0}, v = {0};
	char from[64][16], to[64][16];
	size_t nf = acl_side(r, true, from, 64), nt = acl_side(r, false, to, 64);

	nft_begin(&in, r->table);
	sb_printf(&in, "\t\t");
	if (r->port)
		sb_printf(&in, "iifname \"%s\" ", r->port);
	sb_printf(&in, "ip saddr ");
	nft_set(&in, from, nf);
	sb_printf(&in, " ip daddr ");
	nft_set(&in, to, nt);
	sb_printf(&in, " udp dport %d counter drop comment \"rocelab acl-error\"\n\t}\n}\n",
		  ROCEV2_UDP_PORT);
	sb_printf(&a, "nft -f -");
	nft_revert(&v, r->table);
	read_nft_tables(emit(r, &a, &in, &v), r->table);
	return 0;
}

static void ipid_expr(struct sbuf *b, const struct fault_spec *s)
{
	switch (s->ipid) {
	case IPID_MOD:
		if ((s->mod & (s->mod - 1)) == 0) {
			sb_printf(b, "ip id & 0x%x == %u", s->mod - 1, s->rem);
			return;
		}
		/* nft has no modulo: enumerate the matching IDs as a set. */
		sb_printf(b, "ip id {");
		for (unsigned id = s->rem, k = 0; id <= 0xffff; id += s->mod, k++)
			sb_printf(b, "%s%s%u", k ? "," : " ", k % 16 == 15 ? "\n\t\t\t" : "", id);
		sb_printf(b, " }");
		return;
	case IPID_RANGE:
		sb_printf(b, "ip id %u-%u", s->range.lo, s->range.hi);
		return;
	case IPID_SET:
		sb_printf(b, "ip id {");
		for (size_t i = 0; i < s->ids.n; i++)
			sb_printf(b, "%s%u", i ? ", " : " ", s->ids.v[i]);
		sb_printf(b, " }");
		return;
	}
}

/*
 * The rules of a packet filter on r's port, one a direction (dir), or on the
 * whole switch: "MATCH drop", commented "rocelab KIND [in|out]".  MATCH ends
 * in the counter that verification reads.
 */
static void nft_port_rules(struct sbuf *in, const struct render_ctx *r, enum direction dir,
			   const char *match, const char *kind)
{
	if (!r->port) {
		sb_printf(in, "\t\t%s drop comment \"rocelab %s\"\n", match, kind);
		return;
	}
	if (dir != DIR_OUT)
		sb_printf(in, "\t\tiifname \"%s\" %s drop comment \"rocelab %s in\"\n", r->port,
			  match, kind);
	if (dir != DIR_IN)
		sb_printf(in, "\t\toifname \"%s\" %s drop comment \"rocelab %s out\"\n", r->port,
			  match, kind);
}

/* The fault's own table with those rules, fed to 'nft -f -'; undone by deleting the table. */
static int nft_rules_table(struct render_ctx *r, enum direction dir, const char *match,
			   const char *kind)
{
	struct sbuf a = {0}, in = {0}, v = {0};

	nft_begin(&in, r->table);
	nft_port_rules(&in, r, dir, match, kind);
	sb_printf(&in, "\t}\n}\n");
	sb_printf(&a, "nft -f -");
	nft_revert(&v, r->table);
	read_nft_tables(emit(r, &a, &in, &v), r->table);
	return 0;
}

static int linux_ipid_drop(struct render_ctx *r)
{
	struct sbuf m = {0};
	int rc;

	ipid_expr(&m, r->spec);
	if (r->spec->roce_only)
		sb_printf(&m, " udp dport %d", ROCEV2_UDP_PORT);
	sb_printf(&m, " counter");
	rc = nft_rules_table(r, r->spec->dir, m.p, "ipid-drop");
	sb_free(&m);
	return rc;
}

/*
 * Emulated corruption: a receiver's CRC check drops a damaged frame, so a
 * random share of the port's RoCE packets is dropped (nft's numgen random;
 * the port's CRC error counter does not rise).  The first counter sees every
 * RoCE packet through the port, the second the ones dropped.  A port target
 * only (the kind's target forms).
 */
static int linux_packet_corruption(struct render_ctx *r)
{
	struct sbuf m = {0};
	int rc;

	sb_printf(&m, "udp dport %d counter numgen random mod %u < %u counter", ROCEV2_UDP_PORT,
		  FAULT_PPM, r->spec->corrupt_ppm);
	rc = nft_rules_table(r, r->spec->dir, m.p, "packet-corruption");
	sb_free(&m);
	return rc;
}

/*
 * A model of each of ports' line rate (HTB) whose RoCE priority class ends
 * in the queue discipline leaf ("bfifo limit N", "red ..."), the other
 * priorities in a deep FIFO: veth has no line rate of its own to queue at.
 */
static void linux_class_leaf(struct render_ctx *r, const char **ports, size_t n, const char *leaf)
{
	const struct fault_spec *s = r->spec;

	for (size_t i = 0; i < n; i++) {
		struct sbuf a = {0}, v = {0};
		const char *p = ports[i];

		sb_printf(&a,
			  "tc qdisc replace dev %s root handle 1: htb default 20 && "
			  "tc class add dev %s parent 1: classid 1:1 htb rate %llukbit && "
			  "tc class add dev %s parent 1:1 classid 1:10 htb rate %llukbit && "
			  "tc class add dev %s parent 1:1 classid 1:20 htb rate %llukbit && "
			  "tc qdisc add dev %s parent 1:10 handle 10: %s && "
			  "tc qdisc add dev %s parent 1:20 handle 20: bfifo limit 4000000 && "
			  "tc filter add dev %s parent 1: protocol ip prio 1 u32 match ip tos "
			  "0x%02x 0xe0 "
			  "flowid 1:10",
			  p, p, s->emu_rate_kbit, p, s->emu_rate_kbit, p, s->emu_rate_kbit, p, leaf,
			  p, p, s->priority << 5);
		sb_printf(
		    &v,
		    "tc qdisc del dev %s root 2>/dev/null; ! tc qdisc show dev %s | grep -q htb", p,
		    p);
		read_tc_root(emit(r, &a, NULL, &v), p);
	}
	r->plan->emulated = true;
}

/*
 * Emulated lossless class (veth has no PFC): the priority's class ends in
 * a tail-drop queue of bytes.  Under incast that class drops where a real
 * one would pause.
 */
static void linux_shallow(struct render_ctx *r, const char **ports, size_t n, unsigned bytes)
{
	char leaf[32];

	snprintf(leaf, sizeof(leaf), "bfifo limit %u", bytes);
	linux_class_leaf(r, ports, n, leaf);
}

/* PFC off, emulated: the priority's queue is a shallow tail-drop queue (linux_shallow). */
static int linux_pfc_misconfig(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const char *ports[256];
	size_t n = ports_of(r, ports, 256);

	linux_shallow(r, ports, n, s->shallow_bytes);
	snprintf(
	    r->plan->note, sizeof(r->plan->note),
	    "emulated PFC: priority %d of %s is a shallow %u-byte tail-drop queue at %llu kbit/s "
	    "(HTB+bfifo) instead of a lossless class",
	    s->priority, r->port ? r->port : "every port", s->shallow_bytes, s->emu_rate_kbit);
	return 0;
}

/*
 * The queue a dynamic threshold lets one congested queue fill: T = alpha x
 * (B - Q) stops growing at Q = alpha B / (1 + alpha), B the shared buffer
 * (Choudhury and Hahne's dynamic threshold, the alpha of the experiences
 * paper, section 6.2).  At least one full frame.
 */
static unsigned alpha_depth(const struct fault_spec *s)
{
	double a = ldexp(1.0, s->alpha_log2), q = (double)s->emu_buffer_bytes * a / (1.0 + a);

	return q < 1514 ? 1514 : (unsigned)q;
}

/*
 * buffer-alpha, emulated: every cabled port of the switch gets the
 * lossless class's queue that alpha leaves one congested queue
 * (alpha_depth) as a tail-drop queue, since veth has no PFC to pause with.
 */
static int linux_buffer_alpha(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const char *ports[256];
	size_t n = ports_of(r, ports, 256);
	unsigned depth = alpha_depth(s);
	char a[16], why[8];

	linux_shallow(r, ports, n, depth);
	dialect_alpha_word(INV_DIALECT_LINUX, s->alpha_log2, a, sizeof(a), why, sizeof(why));
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "emulated buffer: alpha %s leaves priority %d a %u-byte tail-drop queue "
		 "(alpha/(1+alpha) of a %u-byte shared buffer) at %llu kbit/s on each of %zu ports "
		 "(HTB+bfifo)",
		 a, s->priority, depth, s->emu_buffer_bytes, s->emu_rate_kbit, n);
	return 0;
}

/*
 * ecn-misconfig on a Linux switch port: sch_red with ecn (tc-red(8)) ends
 * the priority's class, marking CE on ECN-capable packets from --kmin
 * bytes queued (RED's average), with a probability rising to --pmax at
 * --kmax, and on every one beyond; the others it drops instead, as a
 * switch's WRED does.  The marking is the kernel's own; the queue it marks
 * is emulated (HTB at --emu-rate: veth has no line rate).  A Linux port
 * marks nothing without RED, so --off has nothing to turn off there.
 */
static int linux_ecn_misconfig(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	unsigned limit = s->ecn_kmax < 25000 ? 100000 : s->ecn_kmax * 4,
		 burst = (2 * s->ecn_kmin + s->ecn_kmax) / 3000 +
			 1; /* tc-red(8): (2 min + max) / 3 avpkt */
	char leaf[192];
	int ret = need_port(r, "ecn-misconfig");

	if (ret)
		return ret;
	if (s->ecn_off) {
		snprintf(
		    r->why, r->whylen,
		    "a Linux switch port (%s:%s) marks no ECN to begin with (no RED qdisc), so "
		    "--off has nothing to turn off; give thresholds instead (--kmin, --kmax, "
		    "--pmax)",
		    r->inv->switches[r->sw].name, r->port);
		return -EOPNOTSUPP;
	}
	snprintf(leaf, sizeof(leaf),
		 "red limit %u min %u max %u avpkt 1000 burst %u probability %u.%02u bandwidth "
		 "%llukbit ecn",
		 limit, s->ecn_kmin, s->ecn_kmax, burst, s->ecn_pmax / 100, s->ecn_pmax % 100,
		 s->emu_rate_kbit);
	linux_class_leaf(r, &r->port, 1, leaf);
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "ECN marking by the kernel's RED (sch_red) in priority %d of %s, on an emulated "
		 "%llu kbit/s line (HTB)",
		 s->priority, r->port, s->emu_rate_kbit);
	return 0;
}

/*
 * pfc-storm, emulated: veth ignores PFC frames, so the port's egress of the
 * paused priority (toward the storming RNIC) is held by an HTB class at
 * spec->rate_kbit (near zero when the storm pauses it all the time), its
 * packets queued in a deep FIFO as a lossless class holds them; the other
 * priorities pass at up to 10 Gbit/s, more than a veth carries here.
 */
static int linux_pfc_storm(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const char *p = r->port;
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "pfc-storm");

	if (ret)
		return ret;
	sb_printf(&a,
		  "tc qdisc replace dev %s root handle 1: htb default 20 && "
		  "tc class add dev %s parent 1: classid 1:10 htb rate %llukbit ceil %llukbit "
		  "quantum 1514 && "
		  "tc class add dev %s parent 1: classid 1:20 htb rate 10gbit burst 200k quantum "
		  "60000 && "
		  "tc qdisc add dev %s parent 1:10 handle 10: pfifo limit 100000 && "
		  "tc filter add dev %s parent 1: protocol ip prio 1 u32 match ip tos 0x%02x 0xe0 "
		  "flowid 1:10",
		  p, p, s->rate_kbit, s->rate_kbit, p, p, p, s->priority << 5);
	sb_printf(&v, "tc qdisc del dev %s root 2>/dev/null; ! tc qdisc show dev %s | grep -q htb",
		  p, p);
	read_tc_root(emit(r, &a, NULL, &v), p);
	r->plan->emulated = true;
	return 0;
}

static int linux_link_degrade(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "link-degrade");

	if (ret)
		return ret;
	/* As nl_qdisc_tbf() makes it. */
	sb_printf(&a, "tc qdisc replace dev %s root tbf rate %llukbit burst %llu latency %dms",
		  r->port, r->spec->rate_kbit, nl_tbf_burst(r->spec->rate_kbit), NL_TBF_LATENCY_MS);
	sb_printf(&v, "tc qdisc del dev %s root 2>/dev/null; ! tc qdisc show dev %s | grep -q tbf",
		  r->port, r->port);
	read_tc_root(emit(r, &a, NULL, &v), r->port);
	return 0;
}

/* ---- SONiC ------------------------------------------------------------------ */

/*
 * config/main.py 'config interface shutdown|startup <interface_name>'
 * writes CONFIG_DB PORT|P admin_status down|up (sonic-net/sonic-utilities,
 * and its tests check exactly that field).  Read before: that field; a port
 * not configured up is refused (link_flap.c), so 'startup' gives it back.
 */
static int sonic_link_flap(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "sudo config interface shutdown %s", r->port);
	sb_printf(&v, "sudo config interface startup %s", r->port);
	read_port(emit(r, &a, NULL, &v), "sonic-admin", r->port,
		  "sonic-db-cli CONFIG_DB HGET 'PORT|%s' admin_status", r->port);
	return 0;
}

void dialect_sonic_acl_name(const char *table, char *buf, size_t len)
{
	size_t i;

	for (i = 0; table[i] && i + 1 < len; i++)
		buf[i] = (char)toupper((unsigned char)table[i]);
	buf[i] = '\0';
}

/*
 * An L3 ingress table on the ports, and one ACL_RULE per denied pair written
 * to CONFIG_DB as acl-loader would write it, without acl-loader.  Checked
 * against sonic-net/sonic-utilities:
 *  - config/main.py 'config acl add table NAME TYPE -p PORTS -s STAGE' sets
 *    ACL_TABLE|NAME; 'config acl remove table' deletes only that row, not
 *    its rules, so the undo deletes the rules first.
 *  - acl_loader/main.py: convert_rules() upper-cases acl-set names (a
 *    lower-case table never matched); incremental_update() deletes every
 *    other dataplane rule on the switch; deny_rule() adds DEFAULT_RULE DROP
 *    (all IPv4) to L3 tables.  None of that is wanted here.
 *    convert_rule_to_db_schema() names the fields: PRIORITY (10000 - seq),
 *    PACKET_ACTION, ETHER_TYPE 2048 for L3, IP_PROTOCOL, SRC_IP, DST_IP,
 *    L4_DST_PORT.
 *  - read back: read_acl_object_status_info(), STATE_DB
 *    ACL_TABLE_TABLE|NAME and ACL_RULE_TABLE|NAME|RULE status "Active".
 */
static int sonic_acl_error(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0}, ra = {0}, rv = {0};
	char from[64][16], to[64][16], name[32];
	size_t nf = acl_side(r, true, from, 64), nt = acl_side(r, false, to, 64);
	const char *ports[256];
	size_t np = ports_of(r, ports, 256), seq = 1;

	dialect_sonic_acl_name(r->table, name, sizeof(name));
	sb_printf(&a, "sudo config acl add table %s L3 -s ingress -p ", name);
	for (size_t i = 0; i < np; i++)
		sb_printf(&a, "%s%s", i ? "," : "", ports[i]);
	sb_printf(&v, "sudo config acl remove table %s; true", name);
	read_port(emit(r, &a, NULL, &v), "sonic-acl", name,
		  "sonic-db-cli CONFIG_DB KEYS 'ACL_TABLE|*'; sonic-db-cli CONFIG_DB KEYS "
		  "'ACL_RULE|*'");
	sb_printf(&rv, "sudo sonic-db-cli CONFIG_DB DEL");
	for (size_t i = 0; i < nf; i++) {
		for (size_t j = 0; j < nt; j++, seq++) {
			sb_printf(&ra,
				  "%ssudo sonic-db-cli CONFIG_DB HSET 'ACL_RULE|%s|RULE_%zu' "
				  "PRIORITY %zu PACKET_ACTION DROP ETHER_TYPE 2048 IP_PROTOCOL 17 "
				  "SRC_IP %s/32 DST_IP %s/32 L4_DST_PORT %d",
				  seq > 1 ? " && " : "", name, seq, 10000 - seq, from[i], to[j],
				  ROCEV2_UDP_PORT);
			sb_printf(&rv, " 'ACL_RULE|%s|RULE_%zu'", name, seq);
		}
	}
	sb_printf(&rv, " >/dev/null");
	emit(r, &ra, NULL, &rv);
	/* its counters: sonic-utilities scripts/aclshow, -a shows rules at 0 too */
	snprintf(r->plan->counters, sizeof(r->plan->counters), "aclshow -a -t %s", name);
	snprintf(r->plan->counters_as, sizeof(r->plan->counters_as), "sonic-aclshow %s", name);
	return 0;
}

/*
 * PFC frames a port received for a priority, per NOS:
 * - SONiC keeps them in COUNTERS_DB, per port object, as
 *   SAI_PORT_STAT_PFC_<p>_RX_PKTS, the port's object found in
 *   COUNTERS_PORT_NAME_MAP: what pfcstat ('show pfc counters') reads
 *   (sonic-net/sonic-utilities, scripts/pfcstat: counter_bucket_rx_dict).
 *   One number.
 * - EOS: 'show interfaces PORT priority-flow-control counters detail |
 *   json', interfaces.PORT.priorities."<p>".rxFrames: the model
 *   facebook/DNE-TaaC reads from EOS switches
 *   (taac/health_checks/dsf_health_checks/dsf_pfc_health_check.py,
 *   _get_eos_pfc_counters).  Arista publishes no sample output of it that
 *   we found; the text form ('show priority-flow-control counters') has
 *   RxPfc and TxPfc per port, all priorities together.
 * - NVUE: 'nv show interface PORT counters qos pfc-stats', a table with
 *   switch-priority and rx-pause-frames columns (CumulusNetworks/docs, NVUE
 *   command reference, Cumulus Linux 5.5 and later; 5.4 and earlier call it
 *   'qos counters pfc-stats').
 */
int dialect_pfc_rx_counter(enum inv_dialect d, const char *port, int prio, struct sbuf *cmd,
			   struct sbuf *read_as)
{
	switch (d) {
	case INV_DIALECT_SONIC:
		sb_printf(cmd,
			  "sonic-db-cli COUNTERS_DB HGET \"COUNTERS:$(sonic-db-cli COUNTERS_DB "
			  "HGET COUNTERS_PORT_NAME_MAP %s)\" SAI_PORT_STAT_PFC_%d_RX_PKTS",
			  port, prio);
		sb_printf(read_as, "sonic-pfc-rx %s %d", port, prio);
		return 0;
	case INV_DIALECT_EOS:
		sb_printf(cmd, "show interfaces %s priority-flow-control counters detail | json",
			  port);
		sb_printf(read_as, "eos-pfc-rx %s %d", port, prio);
		return 0;
	case INV_DIALECT_NVUE:
		sb_printf(cmd, "nv show interface %s counters qos pfc-stats", port);
		sb_printf(read_as, "nvue-pfc-rx %s %d", port, prio);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

size_t dialect_sonic_acl_status_cmd(const struct fault_plan *p, struct sbuf *cmd)
{
	static const char hset[] = "HSET 'ACL_RULE|"; /* as sonic_acl_error() writes each rule */
	const size_t k = sizeof(hset) - 1;
	char name[32];
	size_t rules = 0;

	dialect_sonic_acl_name(p->table, name, sizeof(name));
	sb_printf(cmd, "for k in 'ACL_TABLE_TABLE|%s'", name);
	for (size_t i = 0; i < p->n_acts; i++)
		for (const char *a = p->acts[i].apply; (a = strstr(a, hset)); a += k, rules++)
			sb_printf(cmd, " 'ACL_RULE_TABLE|%.*s'", (int)strcspn(a + k, "'"), a + k);
	sb_printf(cmd, "; do printf '%%s=%%s\\n' \"$k\" \"$(sonic-db-cli STATE_DB HGET \"$k\" "
		       "status)\"; done");
	return rules;
}

int dialect_sonic_acl_status(char *out, const char *dev, const struct fault_plan *p, size_t rules,
			     char *evidence, size_t elen, char *err, size_t errlen)
{
	char name[32], *save = NULL;
	size_t active = 0;

	dialect_sonic_acl_name(p->table, name, sizeof(name));
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *st = strchr(l, '=');

		if (!st || !st[1]) {
			continue; /* no status: a SONiC that does not keep it */
		} else if (!strcmp(st + 1, "Active")) {
			active++;
		} else {
			snprintf(err, errlen, "STATE_DB on %s: %.*s is '%.40s', not Active", dev,
				 (int)(st - l), l, st + 1);
			return -EIO;
		}
	}
	if (active == rules + 1)
		snprintf(evidence, elen,
			 "STATE_DB on %s (sonic-db-cli): table %s and its %zu rule(s) Active", dev,
			 name, rules);
	else
		snprintf(evidence, elen,
			 "CONFIG_DB written on %s; STATE_DB has no ACL status for %zu of %zu "
			 "(a SONiC before it kept one): not read back",
			 dev, rules + 1 - active, rules + 1);
	return 0;
}

/*
 * Checked against sonic-net/sonic-utilities: config/main.py 'config
 * interface pfc priority <interface_name> <priority> <on|off>' runs 'pfc
 * config priority STATUS PORT PRIO'; pfc/main.py configPfcPrio() edits
 * CONFIG_DB PORT_QOS_MAP|PORT pfc_enable and exits 0 without a change when
 * the priority is not enabled ("Priority N is not enabled on PORT") or the
 * port has no entry ("Cannot find interface").  So the state is read
 * first ('show pfc priority PORT', showPfcPrio()): a priority that is not
 * lossless is refused before anything changes, and 'on' restores it as found.
 */
static int sonic_pfc_misconfig(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = ports_of(r, ports, 256);

	for (size_t i = 0; i < n; i++) {
		struct sbuf a = {0}, v = {0};

		sb_printf(&a, "sudo config interface pfc priority %s %d off", ports[i],
			  r->spec->priority);
		sb_printf(&v, "sudo config interface pfc priority %s %d on", ports[i],
			  r->spec->priority);
		read_port(emit(r, &a, NULL, &v), "sonic-pfc", ports[i], "show pfc priority %s",
			  ports[i]);
	}
	return 0;
}

/*
 * A port speed, in Mbit/s as CONFIG_DB PORT|X speed holds it: config/main.py
 * 'config interface speed <interface_name> <interface_speed>' runs
 * 'portconfig -p PORT -s SPEED' (sonic-net/sonic-utilities).  Read before:
 * the port's configured speed and autoneg from CONFIG_DB; the undo sets the
 * speed found (dialect_speed_revert).
 */
static int sonic_link_degrade(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "link-degrade");

	if (ret)
		return ret;
	sb_printf(&a, "sudo config interface speed %s %llu", r->port, r->spec->rate_kbit / 1000);
	sb_printf(&v, "-");
	act = read_port(emit(r, &a, NULL, &v), "sonic-speed", r->port,
			"sonic-db-cli CONFIG_DB HGET 'PORT|%s' speed; sonic-db-cli CONFIG_DB HGET "
			"'PORT|%s' autoneg",
			r->port, r->port);
	dialect_speed_revert(act, r->port, NULL);
	return 0;
}

/* ---- Arista EOS (CLI lines over the exec channel) ----------------------------- */

static int eos_link_flap(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "configure\ninterface %s\nshutdown\nend", r->port);
	sb_printf(&v, "configure\ninterface %s\nno shutdown\nend", r->port);
	read_port(emit(r, &a, NULL, &v), "eos-shut", r->port, "show running-config interfaces %s",
		  r->port);
	return 0;
}

static int eos_acl_error(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	char from[64][16], to[64][16];
	size_t nf = acl_side(r, true, from, 64), nt = acl_side(r, false, to, 64);
	const char *ports[256];
	size_t np = ports_of(r, ports, 256), seq = 10;

	/* 'counters per-entry': EOS counts an entry's matches only with it (EOS User Manual) */
	sb_printf(&a, "configure\nip access-list %s\ncounters per-entry\n", r->table);
	for (size_t i = 0; i < nf; i++)
		for (size_t j = 0; j < nt; j++, seq += 10)
			sb_printf(&a, "%zu deny udp host %s host %s eq %d\n", seq, from[i], to[j],
				  ROCEV2_UDP_PORT);
	sb_printf(&a, "%zu permit ip any any\nexit\n", seq);
	sb_printf(&v, "configure\n");
	for (size_t i = 0; i < np; i++) {
		sb_printf(&a, "interface %s\nip access-group %s in\nexit\n", ports[i], r->table);
		sb_printf(&v, "interface %s\nno ip access-group %s in\nexit\n", ports[i], r->table);
	}
	sb_printf(&a, "end");
	sb_printf(&v, "no ip access-list %s\nend", r->table);
	read_acl(emit(r, &a, NULL, &v), "eos-acl", r->table, ports, np, "show running-config");
	/* its counters, per entry: the list's 'counters per-entry' line above */
	snprintf(r->plan->counters, sizeof(r->plan->counters), "show ip access-lists %s", r->table);
	snprintf(r->plan->counters_as, sizeof(r->plan->counters_as), "eos-acl-counters %s",
		 r->table);
	return 0;
}

static int eos_pfc_misconfig(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = ports_of(r, ports, 256);

	for (size_t i = 0; i < n; i++) {
		struct sbuf a = {0}, v = {0};

		sb_printf(
		    &a,
		    "configure\ninterface %s\nno priority-flow-control priority %d no-drop\nend",
		    ports[i], r->spec->priority);
		sb_printf(&v,
			  "configure\ninterface %s\npriority-flow-control priority %d no-drop\nend",
			  ports[i], r->spec->priority);
		read_port(emit(r, &a, NULL, &v), "eos-pfc", ports[i],
			  "show running-config interfaces %s", ports[i]);
	}
	return 0;
}

/*
 * EOS interface configuration mode 'speed' (EOS User Manual, Ethernet
 * Ports): <N>gfull from 10G up, 1000full below; 'no speed' is its default.
 * Read before: the port's 'speed' line in its running-config; the undo
 * writes that line back, or 'no speed' when there was none.
 */
static int eos_link_degrade(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	unsigned long long mbps = r->spec->rate_kbit / 1000;
	int ret = need_port(r, "link-degrade");

	if (ret)
		return ret;
	if (mbps > 1000)
		sb_printf(&a, "configure\ninterface %s\nspeed %llugfull\nend", r->port,
			  mbps / 1000);
	else
		sb_printf(&a, "configure\ninterface %s\nspeed %llufull\nend", r->port, mbps);
	sb_printf(&v, "-");
	act = read_port(emit(r, &a, NULL, &v), "eos-speed", r->port,
			"show running-config interfaces %s", r->port);
	dialect_speed_revert(act, r->port, NULL);
	return 0;
}

/* ---- NVIDIA Cumulus NVUE ----------------------------------------------------- */

/*
 * 'nv set interface P link state down|up' (NVUE reference, Interfaces).
 * Read before: the port's 'link state' in the applied configuration; the
 * undo sets what was there, or unsets it when nothing was
 * (dialect_nvue_state_revert).
 */
static int nvue_link_flap(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "nv set interface %s link state down && nv config apply -y", r->port);
	sb_printf(&v, "-");
	act = read_port(emit(r, &a, NULL, &v), "nvue-state", r->port,
			"nv config show -o commands | { grep ' link state ' || true; }");
	dialect_nvue_state_revert(act, r->port, NULL);
	return 0;
}

static int nvue_acl_error(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	char from[64][16], to[64][16];
	size_t nf = acl_side(r, true, from, 64), nt = acl_side(r, false, to, 64);
	const char *ports[256];
	size_t np = ports_of(r, ports, 256), rule = 10;

	sb_printf(&a, "nv set acl %s type ipv4", r->table);
	for (size_t i = 0; i < nf; i++) {
		for (size_t j = 0; j < nt; j++, rule += 10) {
			sb_printf(&a,
				  " && nv set acl %s rule %zu match ip source-ip %s/32"
				  " && nv set acl %s rule %zu match ip dest-ip %s/32"
				  " && nv set acl %s rule %zu match ip protocol udp"
				  " && nv set acl %s rule %zu match ip udp dest-port %d"
				  " && nv set acl %s rule %zu action deny",
				  r->table, rule, from[i], r->table, rule, to[j], r->table, rule,
				  r->table, rule, ROCEV2_UDP_PORT, r->table, rule);
		}
	}
	sb_printf(&a, " && nv set acl %s rule %zu action permit", r->table, rule);
	for (size_t i = 0; i < np; i++) {
		sb_printf(&a, " && nv set interface %s acl %s inbound", ports[i], r->table);
		sb_printf(&v, "nv unset interface %s acl %s; ", ports[i], r->table);
	}
	sb_printf(&a, " && nv config apply -y");
	sb_printf(&v, "nv unset acl %s; nv config apply -y", r->table);
	read_acl(emit(r, &a, NULL, &v), "nvue-acl", r->table, ports, np,
		 "nv config show -o commands | { grep -E '^nv set (acl |interface [^ ]+ acl )' "
		 "|| true; }");
	/*
	 * its counters: 'nv show interface P acl' on each port it is bound to,
	 * the deny rules' "In Packets" (the permit is the last rule, beyond
	 * them); none read when the ports are more than the command holds
	 */
	size_t o = 0;

	for (size_t i = 0; i < np && o < sizeof(r->plan->counters); i++)
		o += (size_t)snprintf(r->plan->counters + o, sizeof(r->plan->counters) - o,
				      "%snv show interface %s acl", i ? "; " : "", ports[i]);
	if (o >= sizeof(r->plan->counters))
		r->plan->counters[0] = '\0';
	else
		snprintf(r->plan->counters_as, sizeof(r->plan->counters_as),
			 "nvue-acl-counters %s %zu", r->table, rule - 10);
	return 0;
}

/* What 'nv config show -o commands' says of PFC: every line naming it. */
#define NVUE_PFC_READ "nv config show -o commands | { grep ' qos pfc ' || true; }"

void dialect_nvue_pfc(struct fault_action *a, const char *port, int prio, const char *table,
		      const char *found)
{
	char pr[24], cp[64], err[160];
	struct readback rb;
	struct sbuf ap = {0}, v = {0};
	if (!found) { /* not read yet (a dry run): as a port on the default profile shows it */
		snprintf(cp, sizeof(cp), "nv set qos pfc default-global switch-priority %d", prio);
		found = cp;
	}
	if (readback_parse(a->read_as, found, &rb, err, sizeof(err)))
		return; /* nvue-pfc parses any text: not reached */
	readback_nvue_profile_copy(found, "pfc", rb.profile, table,
				   (const char *const[]){"switch-priority", "rx", "tx", NULL}, &ap);
	if (rb.lossless & ~(1u << prio)) {
		sb_printf(&ap, "nv set qos pfc %s switch-priority %s && ", table,
			  readback_prios(rb.lossless & ~(1u << prio), pr, sizeof(pr)));
	} else { /* prio was its only one: the profile keeps it, with PFC off both ways */
		sb_printf(&ap,
			  "nv set qos pfc %s switch-priority %d && nv set qos pfc %s rx disable && "
			  "nv set qos pfc %s tx disable && ",
			  table, prio, table, table);
	}
	sb_printf(&ap, "nv set interface %s qos pfc profile %s && nv config apply -y", port, table);
	if (rb.bound)
		sb_printf(&v, "nv set interface %s qos pfc profile %s", port, rb.profile);
	else
		sb_printf(&v, "nv unset interface %s qos pfc", port);
	sb_printf(&v, "; nv unset qos pfc %s; nv config apply -y", table);
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/*
 * PFC off for one priority on the target ports only: NVUE sets PFC per
 * profile ('nv set qos pfc PROFILE switch-priority ...'), and a port takes
 * its own with 'nv set interface PORT qos pfc profile PROFILE' (NVUE
 * reference, Set and Unset Commands / QoS; Cumulus Linux user guide,
 * Quality of Service / PFC).  So the port's profile is read, copied as
 * rocelab_f<id> without the priority and bound to the port; the undo binds
 * the port back to what it had (or to none) and deletes the copy.  The
 * switch's default-global profile, which every other port uses, is never
 * changed.
 */
static int nvue_pfc_misconfig(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = ports_of(r, ports, 256);

	for (size_t i = 0; i < n; i++) {
		struct sbuf a = {0}, v = {0};
		struct fault_action *act;
		char table[48];

		/* one profile per port: each copies its port's own */
		snprintf(table, sizeof(table), n > 1 ? "%s_%zu" : "%s", r->table, i);
		sb_printf(&a, "-");
		sb_printf(&v, "-");
		act = emit(r, &a, NULL, &v);
		read_port(act, "nvue-pfc", ports[i], "%s", NVUE_PFC_READ);
		dialect_nvue_pfc(act, ports[i], r->spec->priority, table, NULL);
	}
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a port on default-global with priority %d alone; when applied, the "
		 "profile each port has is read and copied without it",
		 r->spec->priority);
	return 0;
}

/*
 * NVUE 'nv set interface <interface-id> link speed' (NVUE reference,
 * Set and Unset Commands / Interface: 1G, 10G, 25G, 40G, 50G, 100G, 200G,
 * 400G, 800G, auto).  Read before: what 'nv config show -o commands' sets
 * of the port's link speed; the undo sets it back, or unsets it.
 */
static int nvue_link_degrade(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	int ret = need_port(r, "link-degrade");

	if (ret)
		return ret;
	sb_printf(&a, "nv set interface %s link speed %lluG && nv config apply -y", r->port,
		  r->spec->rate_kbit / 1000000);
	sb_printf(&v, "-");
	act = read_port(emit(r, &a, NULL, &v), "nvue-speed", r->port, "%s",
			"nv config show -o commands | { grep ' link speed ' || true; }");
	dialect_speed_revert(act, r->port, NULL);
	return 0;
}

static const unsigned port_speeds[] = {1000,   10000,  25000,  40000, 50000,
				       100000, 200000, 400000, 800000};

int dialect_port_speed(const struct inventory *inv, const struct inv_endpoint ends[2],
		       unsigned long long rate_kbit, char *why, size_t whylen)
{
	const char *nos = NULL;
	char list[128] = "";
	size_t used = 0;

	for (int e = 0; e < 2; e++)
		if (ends[e].kind == INV_DEV_SWITCH &&
		    inv->switches[ends[e].dev].dialect != INV_DIALECT_LINUX)
			nos = inv->switches[ends[e].dev].name;
	if (!nos)
		return 0; /* shaped with a TBF at any rate */
	for (size_t i = 0; i < ARRAY_SIZE(port_speeds); i++) {
		if (rate_kbit == port_speeds[i] * 1000ULL)
			return (int)port_speeds[i];
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%uG", i ? ", " : "",
					 port_speeds[i] / 1000);
	}
	snprintf(
	    why, whylen,
	    "link-degrade on %s's port is a port speed that both ends take, not a shaper: give "
	    "--rate one of %s below the link's speed (a TBF of any rate needs Linux switches)",
	    nos, list);
	return -EOPNOTSUPP;
}

void dialect_speed_revert(struct fault_action *a, const char *port, const char *found)
{
	struct readback rb;
	struct sbuf v = {0};
	char err[160];
	bool known = found && !readback_parse(a->read_as, found, &rb, err, sizeof(err));

	if (!strncmp(a->read_as, "sonic-speed ", 12)) {
		if (known && rb.speed[0])
			sb_printf(&v, "sudo config interface speed %s %s", port, rb.speed);
		else
			sb_printf(&v, "sudo config interface speed %s <speed as read>", port);
	} else if (!strncmp(a->read_as, "eos-speed ", 10)) {
		sb_printf(&v, "configure\ninterface %s\n", port);
		if (!found)
			sb_printf(&v, "<speed as read, or no speed>\nend");
		else if (known && rb.speed[0])
			sb_printf(&v, "speed %s\nend", rb.speed);
		else
			sb_printf(&v, "no speed\nend");
	} else {
		if (!found)
			sb_printf(&v, "nv set interface %s link speed <speed as read, or unset>",
				  port);
		else if (known && rb.speed[0])
			sb_printf(&v, "nv set interface %s link speed %s", port, rb.speed);
		else
			sb_printf(&v, "nv unset interface %s link speed", port);
		sb_printf(&v, " && nv config apply -y");
	}
	fault_action_set(&a->revert, v.p);
	sb_free(&v);
}

void dialect_nvue_state_revert(struct fault_action *a, const char *port, const char *found)
{
	struct readback rb;
	struct sbuf v = {0};
	char err[160];

	/* not read yet (a dry run): as a port with no link state set shows it */
	if (found && !readback_parse(a->read_as, found, &rb, err, sizeof(err)) && rb.admin[0])
		sb_printf(&v, "nv set interface %s link state %s", port, rb.admin);
	else
		sb_printf(&v, "nv unset interface %s link state", port);
	sb_printf(&v, " && nv config apply -y");
	fault_action_set(&a->revert, v.p);
	sb_free(&v);
}

/* ---- buffer-alpha in each NOS -------------------------------------------------- */

/* 2^n as a person writes it: "1/64", "1", "8". */
static void alpha_fraction(int n, char *buf, size_t len)
{
	snprintf(buf, len, n < 0 ? "1/%d" : "%d", 1 << (n < 0 ? -n : n));
}

int dialect_alpha_word(enum inv_dialect d, int n, char *buf, size_t len, char *why, size_t whylen)
{
	/* the exponents each NOS takes: mmuconfig -8..8, EOS 1/128..8, NVUE 1/128..64 */
	static const int lo[] = {[INV_DIALECT_LINUX] = -8,
				 [INV_DIALECT_SONIC] = -8,
				 [INV_DIALECT_EOS] = -7,
				 [INV_DIALECT_NVUE] = -7};
	static const int hi[] = {[INV_DIALECT_LINUX] = 8,
				 [INV_DIALECT_SONIC] = 8,
				 [INV_DIALECT_EOS] = 3,
				 [INV_DIALECT_NVUE] = 6};

	char asked[16], from[16], to[16];

	if (n < lo[d] || n > hi[d]) {
		alpha_fraction(n, asked, sizeof(asked));
		alpha_fraction(lo[d], from, sizeof(from));
		alpha_fraction(hi[d], to, sizeof(to));
		snprintf(
		    why, whylen,
		    "dialect %s cannot set alpha %s: give --alpha from %s to %s (powers of two)",
		    inv_dialect_name(d), asked, from, to);
		return -EOPNOTSUPP;
	}
	if (d == INV_DIALECT_SONIC)
		snprintf(buf, len, "%d", n);
	else if (d == INV_DIALECT_NVUE)
		snprintf(buf, len, n < 0 ? "alpha_1_%d" : "alpha_%d", 1 << (n < 0 ? -n : n));
	else
		alpha_fraction(n, buf, len);
	return 0;
}

/* NVUE: the ingress lossless buffer of the switch's buffer profile. */
#define NVUE_ALPHA_KEY                                                                             \
	"qos advance-buffer-config default-global ingress-lossless-buffer shared-alpha"

void dialect_alpha_plan(struct fault_action *a, enum inv_dialect d, const struct fault_spec *s,
			const char *table, const char *found)
{
	struct readback rb = {0};
	struct sbuf ap = {0}, v = {0};
	char w[24], why[160], err[160];
	bool known = found && !readback_parse(a->read_as, found, &rb, err, sizeof(err));

	dialect_alpha_word(d, s->alpha_log2, w, sizeof(w), why,
			   sizeof(why)); /* in range: planned */
	if (d == INV_DIALECT_SONIC) {
		sb_printf(&ap, "sudo mmuconfig -p %s -a %s", s->buf_profile, w);
		sb_printf(&v, "sudo mmuconfig -p %s -a %s", s->buf_profile,
			  known && rb.alpha[0] ? rb.alpha : "<dynamic_th as read>");
	} else if (d == INV_DIALECT_NVUE) {
		sb_printf(&ap, "nv set %s %s && nv config apply -y", NVUE_ALPHA_KEY, w);
		if (known && rb.alpha[0])
			sb_printf(&v, "nv set %s %s", NVUE_ALPHA_KEY, rb.alpha);
		else /* not set before (or a dry run, shown as a switch with none set) */
			sb_printf(&v, "nv unset %s", NVUE_ALPHA_KEY);
		sb_printf(&v, " && nv config apply -y");
	} else {			      /* EOS */
		if (known && rb.profile[0]) { /* the applied profile, changed in place */
			sb_printf(&ap,
				  "configure\nplatform trident mmu queue profile %s\ningress "
				  "priority-group %d threshold %s\nend",
				  rb.profile, s->priority, w);
			sb_printf(&v, "configure\nplatform trident mmu queue profile %s\n",
				  rb.profile);
			if (rb.alpha[0])
				sb_printf(&v, "ingress priority-group %d threshold %s\nend",
					  s->priority, rb.alpha);
			else
				sb_printf(&v, "no ingress priority-group %d threshold\nend",
					  s->priority);
		} else { /* none applied (or a dry run): a profile of the fault's own */
			sb_printf(
			    &ap,
			    "configure\nplatform trident mmu queue profile %s\ningress "
			    "priority-group %d threshold %s\nexit\nplatform trident mmu queue "
			    "profile %s apply\nend",
			    table, s->priority, w, table);
			sb_printf(&v,
				  "configure\nno platform trident mmu queue profile %s apply\nno "
				  "platform trident mmu queue profile %s\nend",
				  table, table);
		}
	}
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/* One action on the switch whose read is cmd (parsed as "PARSER ARG"), planned as not read yet. */
static int alpha_action(struct render_ctx *r, const char *parser, const char *arg, const char *cmd)
{
	enum inv_dialect d = r->inv->switches[r->sw].dialect;
	struct sbuf a = {0}, v = {0};
	struct fault_action *act;
	char w[24];
	int ret = dialect_alpha_word(d, r->spec->alpha_log2, w, sizeof(w), r->why, r->whylen);

	if (ret)
		return ret;
	sb_printf(&a, "-");
	sb_printf(&v, "-");
	act = read_port(emit(r, &a, NULL, &v), parser, arg, "%s", cmd);
	dialect_alpha_plan(act, d, r->spec, r->table, NULL);
	return 0;
}

/*
 * sonic-net/sonic-utilities scripts/mmuconfig: 'mmuconfig -p PROFILE -a N'
 * writes CONFIG_DB BUFFER_PROFILE|PROFILE dynamic_th = N (alpha 2^N, N in
 * -8..8).  It writes the field even where the profile is not there (a new
 * entry of one field), so the read comes first and a profile without
 * dynamic_th is refused (buffer_alpha.c); the undo writes the N found.
 */
static int sonic_buffer_alpha(struct render_ctx *r)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "sonic-db-cli CONFIG_DB HGET 'BUFFER_PROFILE|%s' dynamic_th",
		 r->spec->buf_profile);
	return alpha_action(r, "sonic-dynth", r->spec->buf_profile, cmd);
}

/*
 * EOS on Trident: 'platform trident mmu queue profile NAME' holds 'ingress
 * priority-group PG threshold ALPHA' (1/128 .. 8), and 'platform trident
 * mmu queue profile NAME apply' makes it the switch's (aristanetworks/avd
 * eos_cli_config_gen templates eos/platform-trident.j2, and its schema
 * platform.schema.yml for the thresholds).  The priority group is taken to
 * be the priority's number.  The undo's 'no' forms are EOS's usual way to
 * remove a line (inferred, not in that source).
 */
static int eos_buffer_alpha(struct render_ctx *r)
{
	char pg[8];

	snprintf(pg, sizeof(pg), "%d", r->spec->priority);
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a switch with no MMU queue profile applied; when applied, the "
		 "profile applied is read and changed in place");
	return alpha_action(r, "eos-mmu", pg, "show running-config");
}

/*
 * NVUE 'nv set qos advance-buffer-config default-global
 * ingress-lossless-buffer shared-alpha alpha_1_64' (alpha_0, alpha_1_128 ..
 * alpha_64, alpha_infinity): CumulusNetworks/docs nvue-reference
 * Set-and-Unset-Commands/QoS.md.  Read before: the value set, if any; the
 * undo sets it back, or unsets it.
 */
static int nvue_buffer_alpha(struct render_ctx *r)
{
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a switch with no shared-alpha set; when applied, the value read is "
		 "set back");
	return alpha_action(r, "nvue-alpha", "default-global",
			    "nv config show -o commands | { grep ' ingress-lossless-buffer "
			    "shared-alpha ' || true; }");
}

void dialect_eos_ecn_line(const struct fault_spec *s, char *buf, size_t len)
{
	if (s->ecn_off)
		buf[0] = '\0';
	else
		snprintf(buf, len,
			 "random-detect ecn minimum-threshold %u bytes maximum-threshold %u bytes "
			 "max-mark-probability %u",
			 s->ecn_kmin, s->ecn_kmax, s->ecn_pmax);
}

void dialect_ecn_plan(struct fault_action *a, enum inv_dialect d, const struct fault_spec *s,
		      const char *table, const char *found)
{
	struct readback rb = {0};
	struct sbuf ap = {0}, v = {0};
	char port[64], err[160], name[64], line[112];
	bool known = found && !readback_parse(a->read_as, found, &rb, err, sizeof(err));
	int q = s->priority; /* the queue read is the priority's */

	readback_port_queue(strchr(a->read_as, ' ') + 1, port, sizeof(port));
	if (d == INV_DIALECT_SONIC) {
		const char *was = known ? rb.ecn : "<wred_profile as read>";
		char ref[80];

		dialect_sonic_acl_name(table, name, sizeof(name));
		/* the reference as this SONiC writes it: a name, or "[WRED_PROFILE|NAME]" before */
		snprintf(ref, sizeof(ref), known && rb.ecn[0] == '[' ? "[WRED_PROFILE|%s]" : "%s",
			 name);
		if (s->ecn_off) {
			sb_printf(&ap,
				  "sudo sonic-db-cli CONFIG_DB HDEL 'QUEUE|%s|%d' wred_profile "
				  ">/dev/null",
				  port, q);
		} else {
			sb_printf(&ap,
				  "sudo sonic-db-cli CONFIG_DB HSET 'WRED_PROFILE|%s' "
				  "wred_green_enable true ecn ecn_all green_min_threshold %u "
				  "green_max_threshold %u green_drop_probability %u >/dev/null && ",
				  name, s->ecn_kmin, s->ecn_kmax, s->ecn_pmax);
			sb_printf(&ap,
				  "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|%s|%d' wred_profile %s "
				  ">/dev/null",
				  port, q, ref);
		}
		if (!known || rb.ecn[0])
			sb_printf(&v,
				  "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|%s|%d' wred_profile %s "
				  ">/dev/null",
				  port, q, was);
		else
			sb_printf(&v,
				  "sudo sonic-db-cli CONFIG_DB HDEL 'QUEUE|%s|%d' wred_profile "
				  ">/dev/null",
				  port, q);
		if (!s->ecn_off)
			sb_printf(&v,
				  "; sudo sonic-db-cli CONFIG_DB DEL 'WRED_PROFILE|%s' >/dev/null",
				  name);
	} else if (d == INV_DIALECT_EOS) {
		dialect_eos_ecn_line(s, line, sizeof(line));
		sb_printf(&ap, "configure\ninterface %s\nuc-tx-queue %d\n%s\nend", port, q,
			  line[0] ? line : "no random-detect ecn");
		sb_printf(&v, "configure\ninterface %s\nuc-tx-queue %d\n%s\nend", port, q,
			  known && rb.ecn[0] ? rb.ecn : "no random-detect ecn");
	} else { /* NVUE */
		if (known)
			readback_nvue_profile_copy(found, "congestion-control", rb.profile, table,
						   NULL, &ap);
		if (s->ecn_off)
			sb_printf(
			    &ap,
			    "nv set qos congestion-control %s traffic-class %d ecn disable && ",
			    table, q);
		else
			sb_printf(
			    &ap,
			    "nv set qos congestion-control %s traffic-class %d ecn enable && "
			    "nv set qos congestion-control %s traffic-class %d min-threshold %u "
			    "&& nv set qos congestion-control %s traffic-class %d max-threshold "
			    "%u && nv set qos congestion-control %s traffic-class %d probability "
			    "%u && ",
			    table, q, table, q, s->ecn_kmin, table, q, s->ecn_kmax, table, q,
			    s->ecn_pmax);
		sb_printf(&ap,
			  "nv set interface %s qos congestion-control profile %s && nv config "
			  "apply -y",
			  port, table);
		if (known && rb.bound)
			sb_printf(&v, "nv set interface %s qos congestion-control profile %s", port,
				  rb.profile);
		else
			sb_printf(&v, "nv unset interface %s qos congestion-control", port);
		sb_printf(&v, "; nv unset qos congestion-control %s; nv config apply -y", table);
	}
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/* One action on the target port's queue, read with cmd as "PARSER PORT Q", planned as not read. */
static int ecn_action(struct render_ctx *r, const char *parser, const char *cmd)
{
	struct sbuf a = {0}, v = {0};
	struct fault_action *act;
	char arg[96];
	int ret = need_port(r, "ecn-misconfig");

	if (ret)
		return ret;
	snprintf(arg, sizeof(arg), "%s %d", r->port, r->spec->priority);
	sb_printf(&a, "-");
	sb_printf(&v, "-");
	act = read_port(emit(r, &a, NULL, &v), parser, arg, "%s", cmd);
	dialect_ecn_plan(act, r->inv->switches[r->sw].dialect, r->spec, r->table, NULL);
	return 0;
}

/*
 * sonic-net/sonic-swss orchagent/qosorch.cpp: CONFIG_DB QUEUE|PORT|Q
 * wred_profile binds a WRED_PROFILE to the queue (handleQueueTable,
 * applyWredProfileToQueue), and a field no longer there unbinds it ("was
 * configured but is not any more"); WredMapHandler takes
 * green_min_threshold and green_max_threshold in bytes,
 * green_drop_probability in percent, wred_green_enable and ecn (ecn_all).
 * sonic-utilities scripts/ecnconfig writes the same fields, but for every
 * port at once ('-q 3 on|off' sets or deletes wred_profile; '-p PROFILE
 * -gmin ...' edits the profile all of them share), so one port's queue
 * gets a profile of the fault's own through sonic-db-cli, and what it had
 * back on the undo.  The queue is taken to be the priority's number (the
 * AZURE TC_TO_QUEUE_MAP maps each class to its own queue; inferred).
 */
static int sonic_ecn_misconfig(struct render_ctx *r)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "sonic-db-cli CONFIG_DB HGET 'QUEUE|%s|%d' wred_profile",
		 r->port ? r->port : "", r->spec->priority);
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a queue whose wred_profile is not read yet; when applied, the one "
		 "read is bound back");
	return ecn_action(r, "sonic-wred", cmd);
}

/*
 * EOS: under 'interface PORT', 'uc-tx-queue Q' takes 'random-detect ecn
 * minimum-threshold MIN UNITS maximum-threshold MAX UNITS
 * max-mark-probability P' (units segments, bytes, kbytes, mbytes;
 * probability 1..100: aristanetworks/avd python-avd eos_cli_config_gen
 * templates eos/ethernet-interface-uc-tx-queues.j2 and its schema).  The
 * tx-queue is taken to be the priority's number, and 'no random-detect
 * ecn' to remove the line (EOS's usual 'no' form; both inferred).
 */
static int eos_ecn_misconfig(struct render_ctx *r)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "show running-config interfaces %s", r->port ? r->port : "");
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a queue with no random-detect ecn; when applied, the line read is set "
		 "back");
	return ecn_action(r, "eos-ecn", cmd);
}

/*
 * NVUE: 'nv set qos congestion-control PROFILE traffic-class TC ecn
 * enable|disable', '... min-threshold BYTES', '... max-threshold BYTES',
 * '... probability P', and 'nv set interface PORT qos congestion-control
 * profile PROFILE' (CumulusNetworks/docs nvue-reference
 * Set-and-Unset-Commands/QoS.md; per port since Cumulus Linux 5.4).  The
 * port's profile is read and copied as the fault's own with the queue's
 * ECN changed, as pfc-misconfig copies its PFC profile; default-global,
 * which the other ports use, is never changed.  NVUE's built-in defaults
 * of a profile ('nv config show' does not print them) are not copied.
 */
static int nvue_ecn_misconfig(struct render_ctx *r)
{
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a port on default-global with nothing set; when applied, the "
		 "profile the port has is read and copied");
	return ecn_action(r, "nvue-ecn",
			  "nv config show -o commands | { grep ' qos congestion-control ' || "
			  "true; }");
}

static const struct dialect_ops dialects[] = {
    [INV_DIALECT_LINUX] = {.name = "linux",
			   .link_flap = linux_link_flap,
			   .acl_error = linux_acl_error,
			   .pfc_misconfig = linux_pfc_misconfig,
			   .ipid_drop = linux_ipid_drop,
			   .link_degrade = linux_link_degrade,
			   .packet_corruption = linux_packet_corruption,
			   .pfc_storm = linux_pfc_storm,
			   .buffer_alpha = linux_buffer_alpha,
			   .ecn_misconfig = linux_ecn_misconfig},
    /*
     * SONiC, EOS and NVUE ACLs cannot match the IP ID field, and none of their
     * ACL actions drops a random share of the packets matched.
     */
    [INV_DIALECT_SONIC] = {.name = "sonic",
			   .link_flap = sonic_link_flap,
			   .acl_error = sonic_acl_error,
			   .pfc_misconfig = sonic_pfc_misconfig,
			   .link_degrade = sonic_link_degrade,
			   .buffer_alpha = sonic_buffer_alpha,
			   .ecn_misconfig = sonic_ecn_misconfig},
    [INV_DIALECT_EOS] = {.name = "eos",
			 .link_flap = eos_link_flap,
			 .acl_error = eos_acl_error,
			 .pfc_misconfig = eos_pfc_misconfig,
			 .link_degrade = eos_link_degrade,
			 .buffer_alpha = eos_buffer_alpha,
			 .ecn_misconfig = eos_ecn_misconfig},
    [INV_DIALECT_NVUE] = {.name = "nvue",
			  .link_flap = nvue_link_flap,
			  .acl_error = nvue_acl_error,
			  .pfc_misconfig = nvue_pfc_misconfig,
			  .link_degrade = nvue_link_degrade,
			  .buffer_alpha = nvue_buffer_alpha,
			  .ecn_misconfig = nvue_ecn_misconfig},
};

const struct dialect_ops *dialect_get(enum inv_dialect d)
{
	return &dialects[d];
}
