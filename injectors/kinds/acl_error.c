// SPDX-License-Identifier: MIT
/* acl-error: a switch ACL denies RoCEv2 (UDP 4791) from one RNIC or tenant to another. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/caps.h"
#include "injectors/render.h"

#include <arpa/inet.h>
#include <string.h>

struct acl_error_opts {
	/* RNIC to RNIC, or tenant to tenant */
	char from_name[FAULT_NAME_MAX], to_name[FAULT_NAME_MAX];
	char from_tenant_name[FAULT_NAME_MAX], to_tenant_name[FAULT_NAME_MAX];
	/* resolved */
	bool acl_tenants;
	struct inv_endpoint from, to;
	size_t from_tenant, to_tenant;
};
FAULT_KIND_OPTS(acl, struct acl_error_opts)

#define FS(f) offsetof(struct acl_error_opts, f)
#define NAME(opt, f, h)                                                                            \
	{                                                                                          \
		.name = opt, .type = OPT_STR, .off = FS(f),                                        \
		.size = sizeof(((struct acl_error_opts *)0)->f), .help = h                         \
	}

static const struct opt_desc opts[] = {
    NAME("from", from_name, "HOST:RNIC whose RoCE traffic is denied"),
    NAME("to", to_name, "HOST:RNIC it is denied to"),
    NAME("from-tenant", from_tenant_name, "tenant whose RoCE traffic is denied"),
    NAME("to-tenant", to_tenant_name, "tenant it is denied to"),
    OPT_TABLE_END,
};

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	bool rnics = acl_of(s)->from_name[0] || acl_of(s)->to_name[0];
	bool tenants = acl_of(s)->from_tenant_name[0] || acl_of(s)->to_tenant_name[0];

	if (rnics == tenants || (rnics && (!acl_of(s)->from_name[0] || !acl_of(s)->to_name[0])) ||
	    (tenants && (!acl_of(s)->from_tenant_name[0] || !acl_of(s)->to_tenant_name[0]))) {
		snprintf(why, whylen,
			 "acl-error needs 'from' and 'to' (HOST:RNIC each), or 'from-tenant' "
			 "and 'to-tenant'");
		return -EINVAL;
	}
	return 0;
}

static int rnic(const struct inventory *inv, const char *opt, const char *name,
		struct inv_endpoint *ep, char *why, size_t whylen)
{
	char msg[160];

	if (inventory_endpoint(inv, name, ep, msg, sizeof(msg))) {
		snprintf(why, whylen, "%s: %s", opt, msg);
		return -EINVAL;
	}
	if (ep->kind != INV_DEV_HOST) {
		snprintf(why, whylen, "%s: '%s' must be an RNIC (host:rnic)", opt, name);
		return -EINVAL;
	}
	return 0;
}

static int tenant(const struct inventory *inv, const char *name, size_t *out, char *why,
		  size_t whylen)
{
	for (size_t i = 0; i < inv->n_tenants; i++) {
		if (!strcmp(inv->tenants[i].name, name)) {
			*out = i;
			return 0;
		}
	}
	snprintf(why, whylen, "no tenant is named '%s' in %s", name, inv->path);
	return -EINVAL;
}

static int resolve(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen)
{
	if (acl_rw(s)->from_name[0])
		return rnic(inv, "from", acl_rw(s)->from_name, &acl_rw(s)->from, why, whylen) ||
			       rnic(inv, "to", acl_rw(s)->to_name, &acl_rw(s)->to, why, whylen)
			   ? -EINVAL
			   : 0;
	acl_rw(s)->acl_tenants = true;
	return tenant(inv, acl_rw(s)->from_tenant_name, &acl_rw(s)->from_tenant, why, whylen) ||
		       tenant(inv, acl_rw(s)->to_tenant_name, &acl_rw(s)->to_tenant, why, whylen)
		   ? -EINVAL
		   : 0;
}

/* An ACL fault's read: "PARSER TABLE PORT,PORT" (the ports it binds). */
static void read_acl(struct fault_action *a, const char *parser, const char *table,
		     const char **ports, size_t np, const char *cmd)
{
	struct sbuf arg = {0};

	sb_printf(&arg, "%s ", table);
	for (size_t i = 0; i < np; i++)
		sb_printf(&arg, "%s%s", i ? "," : "", ports[i]);
	nos_read_port(a, parser, arg.p, "%s", cmd);
	sb_free(&arg);
}

/* Addresses on each side of an ACL fault, as "a.b.c.d" strings. */
static size_t acl_side(struct render_ctx *r, bool from, char addrs[][16], size_t max)
{
	const struct fault_spec *s = r->spec;
	const struct inventory *inv = r->inv;
	size_t n = 0;

	if (!acl_of(s)->acl_tenants) {
		const struct inv_endpoint *e = from ? &acl_of(s)->from : &acl_of(s)->to;

		inet_ntop(AF_INET, &inv->hosts[e->dev].rnics[e->port].addr.addr, addrs[0], 16);
		return 1;
	}
	const struct inv_tenant *t =
	    &inv->tenants[from ? acl_of(s)->from_tenant : acl_of(s)->to_tenant];

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

static int linux_acl_error(struct render_ctx *r)
{
	struct sbuf a = {0}, in = {0}, v = {0};
	char from[64][16], to[64][16];
	size_t nf = acl_side(r, true, from, 64), nt = acl_side(r, false, to, 64);

	nos_nft_begin(&in, r->table);
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
	nos_nft_revert(&v, r->table);
	nos_read_nft_tables(nos_emit(r, &a, &in, &v), r->table);
	return 0;
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
	size_t np = nos_ports_of(r, ports, 256), seq = 1;

	nos_sonic_acl_name(r->table, name, sizeof(name));
	sb_printf(&a, "sudo config acl add table %s L3 -s ingress -p ", name);
	for (size_t i = 0; i < np; i++)
		sb_printf(&a, "%s%s", i ? "," : "", ports[i]);
	sb_printf(&v, "sudo config acl remove table %s; true", name);
	nos_read_port(nos_emit(r, &a, NULL, &v), "sonic-acl", name,
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
	nos_emit(r, &ra, NULL, &rv);
	/* its counters: sonic-utilities scripts/aclshow, -a shows rules at 0 too */
	snprintf(r->plan->counters, sizeof(r->plan->counters), "aclshow -a -t %s", name);
	snprintf(r->plan->counters_as, sizeof(r->plan->counters_as), "sonic-aclshow %s", name);
	return 0;
}

size_t acl_error_sonic_status_cmd(const struct fault_plan *p, struct sbuf *cmd)
{
	static const char hset[] = "HSET 'ACL_RULE|"; /* as sonic_acl_error() writes each rule */
	const size_t k = sizeof(hset) - 1;
	char name[32];
	size_t rules = 0;

	nos_sonic_acl_name(p->table, name, sizeof(name));
	sb_printf(cmd, "for k in 'ACL_TABLE_TABLE|%s'", name);
	for (size_t i = 0; i < p->n_acts; i++)
		for (const char *a = p->acts[i].apply; (a = strstr(a, hset)); a += k, rules++)
			sb_printf(cmd, " 'ACL_RULE_TABLE|%.*s'", (int)strcspn(a + k, "'"), a + k);
	sb_printf(cmd, "; do printf '%%s=%%s\\n' \"$k\" \"$(sonic-db-cli STATE_DB HGET \"$k\" "
		       "status)\"; done");
	return rules;
}

int acl_error_sonic_status(char *out, const char *dev, const struct fault_plan *p, size_t rules,
			   char *evidence, size_t elen, char *err, size_t errlen)
{
	char name[32], *save = NULL;
	size_t active = 0;

	nos_sonic_acl_name(p->table, name, sizeof(name));
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

static int eos_acl_error(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	char from[64][16], to[64][16];
	size_t nf = acl_side(r, true, from, 64), nt = acl_side(r, false, to, 64);
	const char *ports[256];
	size_t np = nos_ports_of(r, ports, 256), seq = 10;

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
	read_acl(nos_emit(r, &a, NULL, &v), "eos-acl", r->table, ports, np, "show running-config");
	/* its counters, per entry: the list's 'counters per-entry' line above */
	snprintf(r->plan->counters, sizeof(r->plan->counters), "show ip access-lists %s", r->table);
	snprintf(r->plan->counters_as, sizeof(r->plan->counters_as), "eos-acl-counters %s",
		 r->table);
	return 0;
}

/*
 * NVUE: the UDP port is under the protocol from Cumulus Linux 5.7 ('match ip
 * udp dest-port'), beside it before ('match ip dest-port'): caps.h,
 * NOS_CAP_NVUE_ACL_L4.
 */
static int nvue_acl_error(struct render_ctx *r)
{
	const char *port_key = nos_has(&r->inv->switches[r->sw], NOS_CAP_NVUE_ACL_L4)
				   ? "ip udp dest-port"
				   : "ip dest-port";
	struct sbuf a = {0}, v = {0};
	char from[64][16], to[64][16];
	size_t nf = acl_side(r, true, from, 64), nt = acl_side(r, false, to, 64);
	const char *ports[256];
	size_t np = nos_ports_of(r, ports, 256), rule = 10;

	sb_printf(&a, "nv set acl %s type ipv4", r->table);
	for (size_t i = 0; i < nf; i++) {
		for (size_t j = 0; j < nt; j++, rule += 10) {
			sb_printf(&a,
				  " && nv set acl %s rule %zu match ip source-ip %s/32"
				  " && nv set acl %s rule %zu match ip dest-ip %s/32"
				  " && nv set acl %s rule %zu match ip protocol udp"
				  " && nv set acl %s rule %zu match %s %d"
				  " && nv set acl %s rule %zu action deny",
				  r->table, rule, from[i], r->table, rule, to[j], r->table, rule,
				  r->table, rule, port_key, ROCEV2_UDP_PORT, r->table, rule);
		}
	}
	sb_printf(&a, " && nv set acl %s rule %zu action permit", r->table, rule);
	for (size_t i = 0; i < np; i++) {
		sb_printf(&a, " && nv set interface %s acl %s inbound", ports[i], r->table);
		sb_printf(&v, "nv unset interface %s acl %s; ", ports[i], r->table);
	}
	sb_printf(&a, " && nv config apply -y");
	sb_printf(&v, "nv unset acl %s; nv config apply -y", r->table);
	read_acl(nos_emit(r, &a, NULL, &v), "nvue-acl", r->table, ports, np,
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

int acl_error_verify_sonic(struct fault_run *f)
{
	const char *dev = f->inv->switches[f->spec->tdev].name;
	char err[512], *out = NULL;
	struct sbuf cmd = {0};
	size_t rules = acl_error_sonic_status_cmd(f->plan, &cmd);
	int r = lab_cli(f->lab, dev, cmd.p, NULL, &out, err, sizeof(err));

	free(cmd.p);
	if (r) {
		snprintf(f->err, sizeof(f->err), "%s", err);
		free(out);
		return r < 0 ? r : -EIO;
	}
	r = acl_error_sonic_status(out ? out : (char[]){""}, dev, f->plan, rules, f->evidence,
				   sizeof(f->evidence), f->err, sizeof(f->err));
	free(out);
	return r;
}

/*
 * Every denied pair must be dropped where the ACL is: the ACL read back, then
 * test datagrams and its counters.
 */
static int verify(struct fault_run *f)
{
	const struct inventory *inv = f->inv;
	const struct fault_spec *s = f->spec;
	struct flow fl[64] = {0};
	size_t n = 0;

	if (!acl_of(s)->acl_tenants) {
		fl[0].src = acl_of(s)->from;
		fl[0].dst = inv->hosts[acl_of(s)->to.dev].rnics[acl_of(s)->to.port].addr.addr;
		n = 1;
	} else {
		const struct inv_tenant *a = &inv->tenants[acl_of(s)->from_tenant],
					*b = &inv->tenants[acl_of(s)->to_tenant];

		for (size_t i = 0; i < a->n_members && n < 64; i++)
			for (size_t k = 0; k < b->n_members && n < 64; k++) {
				fl[n].src = a->members[i];
				fl[n++].dst = inv->hosts[b->members[k].dev]
						  .rnics[b->members[k].port]
						  .addr.addr;
			}
	}
	if (inv->switches[s->tdev].dialect == INV_DIALECT_SONIC) {
		int r = acl_error_verify_sonic(f);

		return r ? r : fault_verify_acl_counters(f, fl, n);
	}
	return fault_verify_nft(f, fl, n);
}

const struct fault_kind_ops fk_acl_error = {
    .name = "acl-error",
    .usage = "--target SWITCH:PORT (or SWITCH --all-ports), and --from and --to, or\n"
	     "--from-tenant and --to-tenant   (denies UDP 4791 from -> to)",
    .targets = FT_PORT | FT_SWITCH,
    .example = "rail2:swp1",
    .opts = opts,
    .opts_size = sizeof(struct acl_error_opts),
    .check = check,
    .resolve = resolve,
    .render = {[INV_DIALECT_LINUX] = linux_acl_error,
	       [INV_DIALECT_SONIC] = sonic_acl_error,
	       [INV_DIALECT_EOS] = eos_acl_error,
	       [INV_DIALECT_NVUE] = nvue_acl_error},
    .cannot = "install an ACL",
    .discover = fault_found_free,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] = "nftables ('nft -f', 'nft -j list tables')",
	    [INV_DIALECT_SONIC] =
		"sonic-utilities config/main.py ('config acl add table'), acl_loader/main.py; "
		"sonic-swss orchagent/aclorch.cpp (STATE_DB status)",
	    [INV_DIALECT_EOS] =
		"EOS User Manual, ACLs ('ip access-list ... counters per-entry', 'ip "
		"access-group NAME in')",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference, ACL ('nv set acl', 'match ip udp dest-port' from 5.7, "
		"'match ip dest-port' before)",
	},
};
