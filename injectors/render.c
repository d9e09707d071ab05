// SPDX-License-Identifier: MIT
/* What the switch NOSes share across fault kinds (nos.h). */
#define _GNU_SOURCE
#include "injectors/render.h"

#include "harness/lib/common.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct fault_action *nos_emit(struct render_ctx *r, struct sbuf *apply, struct sbuf *input,
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

struct fault_action *nos_emit_copy(struct render_ctx *r, size_t i, size_t n, char *table,
				   size_t len)
{
	struct sbuf a = {0}, v = {0};

	snprintf(table, len, n > 1 ? "%s_%zu" : "%s", r->table, i);
	sb_printf(&a, "-");
	sb_printf(&v, "-");
	return nos_emit(r, &a, NULL, &v);
}

struct fault_action *nos_read_port(struct fault_action *a, const char *parser, const char *port,
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

void nos_read_nft_tables(struct fault_action *a, const char *table)
{
	nos_read_port(a, "nft-tables", table, "nft -j list tables");
}

void nos_read_tc_root(struct fault_action *a, const char *port)
{
	nos_read_port(a, "tc-root", port, "tc -j qdisc show dev %s root", port);
}

size_t nos_ports_of(struct render_ctx *r, const char **out, size_t max)
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

int nos_need_port(struct render_ctx *r, const char *kind)
{
	if (r->port)
		return 0;
	snprintf(r->why, r->whylen, "%s needs a port target (switch:port), not a whole switch",
		 kind);
	return -EINVAL;
}

void nos_nft_revert(struct sbuf *v, const char *table)
{
	/* Idempotent: succeeds when the table is gone, whether or not it was there. */
	sb_printf(v,
		  "nft delete table inet %s 2>/dev/null; ! nft list table inet %s >/dev/null 2>&1",
		  table, table);
}

void nos_nft_begin(struct sbuf *in, const char *table)
{
	sb_printf(in,
		  "table inet %s {\n\tchain rocelab {\n\t\ttype filter hook forward priority -10; "
		  "policy accept;\n",
		  table);
}
/* ---- linux ---- */

/*
 * The rules of a packet filter on r's port, one a direction (dir), or on the
 * whole switch: "MATCH drop", commented "rocelab KIND [in|out]".  MATCH ends
 * in the counter that verification reads.
 */
static void nft_port_rules(struct sbuf *in, const struct render_ctx *r, enum direction dir,
			   const char *match, const char *kind, bool crossed)
{
	if (!r->port) {
		if (crossed)
			sb_printf(in, "\t\tudp dport %d counter comment \"" NOS_NFT_CROSSED "\"\n",
				  ROCEV2_UDP_PORT);
		sb_printf(in, "\t\t%s drop comment \"rocelab %s\"\n", match, kind);
		return;
	}
	for (int out = 0; out < 2; out++) {
		if (dir == (out ? DIR_IN : DIR_OUT))
			continue;
		if (crossed)
			sb_printf(
			    in,
			    "\t\t%sifname \"%s\" udp dport %d counter comment \"" NOS_NFT_CROSSED
			    " %s\"\n",
			    out ? "o" : "i", r->port, ROCEV2_UDP_PORT, out ? "out" : "in");
		sb_printf(in, "\t\t%sifname \"%s\" %s drop comment \"rocelab %s %s\"\n",
			  out ? "o" : "i", r->port, match, kind, out ? "out" : "in");
	}
}

/* The fault's own table with those rules, fed to 'nft -f -'; undone by deleting the table. */
int nos_nft_rules_table(struct render_ctx *r, enum direction dir, const char *match,
			const char *kind, bool crossed)
{
	struct sbuf a = {0}, in = {0}, v = {0};

	nos_nft_begin(&in, r->table);
	nft_port_rules(&in, r, dir, match, kind, crossed);
	sb_printf(&in, "\t}\n}\n");
	sb_printf(&a, "nft -f -");
	nos_nft_revert(&v, r->table);
	nos_read_nft_tables(nos_emit(r, &a, &in, &v), r->table);
	return 0;
}

void nos_linux_class_leaf(struct render_ctx *r, const char **ports, size_t n, int prio,
			  unsigned long long rate_kbit, const char *leaf)
{
	nos_linux_tos_leaf(r, ports, n, prio << 5, 0xe0, rate_kbit, leaf);
}

void nos_linux_tos_leaf(struct render_ctx *r, const char **ports, size_t n, int tos, int mask,
			unsigned long long rate_kbit, const char *leaf)
{
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
			  "0x%02x 0x%02x "
			  "flowid 1:10",
			  p, p, rate_kbit, p, rate_kbit, p, rate_kbit, p, leaf, p, p, tos, mask);
		sb_printf(
		    &v,
		    "tc qdisc del dev %s root 2>/dev/null; ! tc qdisc show dev %s | grep -q htb", p,
		    p);
		nos_read_tc_root(nos_emit(r, &a, NULL, &v), p);
	}
}

int nos_linux_may_emulate(struct render_ctx *r, const char *what)
{
	const struct inv_switch *sw = &r->inv->switches[r->sw];

	if (r->inv->kind == INV_LAB_SSH && !sw->emulated) {
		snprintf(
		    r->why, r->whylen,
		    "%s on %s (dialect linux) would be emulated: tc queues standing in for %s, "
		    "capping its ports' traffic; refused in a lab of kind ssh, where %s may be "
		    "a router carrying real traffic. On a real switch %s is the NOS's (dialect "
		    "sonic, eos or nvue); a lab's stand-in switch is marked 'emulated: true' "
		    "in %s",
		    r->spec->kind->name, sw->name, what, sw->name, what, r->inv->path);
		return -EOPNOTSUPP;
	}
	r->plan->emulated = true;
	return 0;
}

/*
 * Emulated lossless class (veth has no PFC): the priority's class ends in
 * a tail-drop queue of bytes.  Under incast that class drops where a real
 * one would pause.
 */
void nos_linux_shallow(struct render_ctx *r, const char **ports, size_t n, int prio,
		       unsigned long long rate_kbit, unsigned bytes)
{
	char leaf[32];

	snprintf(leaf, sizeof(leaf), "bfifo limit %u", bytes);
	nos_linux_class_leaf(r, ports, n, prio, rate_kbit, leaf);
}

/* ---- NVUE ---- */

void nos_nvue_rebind(struct sbuf *v, const char *feature, const char *port, bool bound,
		     const char *profile, const char *table)
{
	if (bound)
		sb_printf(v, "nv set interface %s qos %s profile %s", port, feature, profile);
	else
		sb_printf(v, "nv unset interface %s qos %s", port, feature);
	sb_printf(v, "; nv unset qos %s %s; nv config apply -y", feature, table);
}

/* ---- SONiC ---- */

void nos_shell_word(struct sbuf *b, const char *w)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_.,:=+-/";

	if (*w && strspn(w, plain) == strlen(w))
		sb_printf(b, "%s", w);
	else
		sb_add_shell_word(b, w);
}

void nos_shell_words(struct sbuf *b, const char *words)
{
	for (const char *w = words; *w;) {
		size_t n = strcspn(w, " ");
		char one[192];

		snprintf(one, sizeof(one), "%.*s", (int)n, w);
		if (n) { /* a run's spaces are no words */
			sb_printf(b, " ");
			nos_shell_word(b, one);
		}
		w += n + (w[n] == ' ');
	}
}

void nos_sonic_acl_name(const char *table, char *buf, size_t len)
{
	size_t i;

	for (i = 0; table[i] && i + 1 < len; i++)
		buf[i] = (char)toupper((unsigned char)table[i]);
	buf[i] = '\0';
}
