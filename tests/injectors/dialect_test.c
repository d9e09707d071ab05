// SPDX-License-Identifier: MIT
/* Dialect transcripts: for each fault kind and switch dialect, the exact commands rendered. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/sbuf.h"
#include "harness/lib/topo.h"
#include "injectors/deadman.h"
#include "injectors/fault.h"
#include "injectors/kinds/kinds.h"
#include "injectors/render.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#define LAB "injectors/dialect-lab.yaml"

struct transcript_case {
	char name[48];	/* golden file: injectors/transcripts/<name>.txt */
	char args[200]; /* inject arguments */
	int want;	/* 0 planned, or the negative errno of fault_plan_build */
	char nos[64];	/* "SWITCH KEY VALUE": what the inventory declares (caps.h) */
};

static struct transcript_case cases[] = {
    {"linux-link-flap", "link-flap --target sw-linux:swp3", 0},
    {"linux-link-flap-host-port", "link-flap --target sw-linux:swp1", 0},
    {"linux-acl-error", "acl-error --target sw-linux --all-ports --from h1:rnic1 --to h2:rnic1", 0},
    {"linux-pfc-misconfig", "pfc-misconfig --target sw-linux:swp1 --priority 3", 0},
    {"linux-ipid-drop-mod8", "ipid-drop --target spine1:swp1 --mod 8 --rem 3 --roce-only", 0},
    {"linux-ipid-drop-mod1000", "ipid-drop --target spine1 --all-ports --mod 1000", 0},
    {"linux-ipid-drop-range-in", "ipid-drop --target spine1:swp2 --range 100-200 --direction in",
     0},
    {"linux-link-degrade", "link-degrade --target sw-linux:swp3 --rate 1gbit", 0},
    {"linux-link-degrade-ecn-mark",
     "link-degrade --target sw-linux:swp3 --rate 1gbit --ecn-mark 20KB", 0},
    {"sonic-link-degrade-ecn-mark",
     "link-degrade --target sw-sonic:Ethernet8 --rate 1gbit --ecn-mark 20KB", -EINVAL},
    {"linux-packet-corruption", "packet-corruption --target sw-linux:swp3 --rate 1%", 0},
    {"linux-packet-corruption-out",
     "packet-corruption --target spine1:swp2 --rate 0.1% --direction out", 0},
    {"host-link-flap", "link-flap --target h1:rnic2", 0},
    {"host-rnic-route-missing", "rnic-route-missing --target h2:rnic3", 0},
    {"host-pfc-misconfig", "pfc-misconfig --target h1:rnic1 --priority 5", 0},
    {"host-dcqcn-off", "dcqcn-off --target h1:rnic2 --point rp --priority 5", 0},
    {"host-link-degrade", "link-degrade --target h1:rnic4 --rate 25g", 0},
    {"host-packet-corruption", "packet-corruption --target h1:rnic1 --rate 1% --direction in", 0},
    {"host-packet-corruption-to-sonic", "packet-corruption --target h1:rnic2 --rate 1%",
     -EOPNOTSUPP},
    {"host-cpu-hog", "cpu-hog --target h1", 0},
    {"host-host-down", "host-down --target h2", 0},
    {"host-pfc-storm", "pfc-storm --target h1:rnic1 --rate 4000/s", 0},
    {"host-pfc-storm-at-sonic", "pfc-storm --target h1:rnic2", 0},
    {"host-pfc-storm-at-eos", "pfc-storm --target h1:rnic3 --priority 4", 0},
    {"host-pfc-storm-at-nvue", "pfc-storm --target h1:rnic4", 0},
    {"host-pfc-storm-at-sonic-pfcwd-on",
     "pfc-storm --target h1:rnic2 --pfcwd on --pfcwd-detect 400ms --pfcwd-restore 2s", 0},
    {"host-pfc-storm-at-sonic-pfcwd-off", "pfc-storm --target h1:rnic2 --pfcwd off", 0},
    {"host-pfc-storm-at-eos-pfcwd", "pfc-storm --target h1:rnic3 --pfcwd off", 0},
    {"host-pfc-storm-at-eos-pfcwd-on",
     "pfc-storm --target h1:rnic3 --pfcwd on --pfcwd-detect 250ms --pfcwd-restore 1500ms", 0},
    {"host-pfc-storm-at-eos-pfcwd-ms",
     "pfc-storm --target h1:rnic3 --pfcwd on --pfcwd-detect 205ms", -EINVAL},
    {"host-pfc-storm-pfcwd", "pfc-storm --target h1:rnic1 --pfcwd on", -EOPNOTSUPP},
    {"host-pfc-storm-at-nvue-pfcwd-on", "pfc-storm --target h1:rnic4 --pfcwd on", 0},
    {"host-pfc-storm-at-nvue-pfcwd-off", "pfc-storm --target h1:rnic4 --pfcwd off", 0},
    {"host-pfc-storm-at-nvue-pfcwd-detect",
     "pfc-storm --target h1:rnic4 --pfcwd on --pfcwd-detect 400ms", -EOPNOTSUPP},
    {"sonic-link-flap", "link-flap --target sw-sonic:Ethernet8", 0},
    {"sonic-acl-error", "acl-error --target sw-sonic:Ethernet0 --from h1:rnic2 --to h2:rnic2", 0},
    {"sonic-pfc-misconfig", "pfc-misconfig --target sw-sonic:Ethernet4 --priority 3", 0},
    {"sonic-link-degrade", "link-degrade --target sw-sonic:Ethernet8 --rate 1gbit", 0},
    {"sonic-link-degrade-500m", "link-degrade --target sw-sonic:Ethernet8 --rate 500mbit",
     -EOPNOTSUPP},
    {"host-link-degrade-to-sonic-3g", "link-degrade --target h1:rnic2 --rate 3gbit", -EOPNOTSUPP},
    {"sonic-ipid-drop", "ipid-drop --target sw-sonic --all-ports --mod 10", -EOPNOTSUPP},
    {"sonic-ipid-drop-mod8", "ipid-drop --target sw-sonic:Ethernet8 --mod 8 --rem 3 --roce-only",
     0},
    {"sonic-ipid-drop-range-in",
     "ipid-drop --target sw-sonic:Ethernet0 --range 100-200 --direction in", 0},
    {"sonic-ipid-drop-ids", "ipid-drop --target sw-sonic --all-ports --ids 7,4242", 0},
    {"sonic-ipid-drop-out", "ipid-drop --target sw-sonic:Ethernet8 --mod 8 --direction out",
     -EOPNOTSUPP},
    {"sonic-packet-corruption", "packet-corruption --target sw-sonic:Ethernet8 --rate 1%",
     -EOPNOTSUPP},
    {"eos-link-flap", "link-flap --target sw-eos:Ethernet3", 0},
    {"eos-acl-error", "acl-error --target sw-eos --all-ports --from h1:rnic3 --to h2:rnic3", 0},
    {"eos-pfc-misconfig", "pfc-misconfig --target sw-eos:Ethernet1 --priority 3", 0},
    {"eos-link-degrade", "link-degrade --target sw-eos:Ethernet3 --rate 1gbit", 0},
    {"eos-ipid-drop", "ipid-drop --target sw-eos:Ethernet1 --mod 10", -EOPNOTSUPP},
    {"eos-packet-corruption", "packet-corruption --target sw-eos:Ethernet3 --rate 1%", -EOPNOTSUPP},
    {"nvue-link-flap", "link-flap --target sw-nvue:swp3", 0},
    {"nvue-acl-error", "acl-error --target sw-nvue:swp1 --from h1:rnic4 --to h2:rnic4", 0},
    {"nvue-pfc-misconfig", "pfc-misconfig --target sw-nvue:swp2 --priority 3", 0},
    {"nvue-link-degrade", "link-degrade --target sw-nvue:swp3 --rate 10gbit", 0},
    {"nvue-ipid-drop", "ipid-drop --target sw-nvue --all-ports --mod 10", -EOPNOTSUPP},
    {"nvue-packet-corruption", "packet-corruption --target sw-nvue:swp3 --rate 1%", -EOPNOTSUPP},
    {"linux-buffer-alpha", "buffer-alpha --target sw-linux --alpha 1/16", 0},
    {"sonic-buffer-alpha", "buffer-alpha --target sw-sonic", 0},
    {"sonic-buffer-alpha-pg-profile",
     "buffer-alpha --target sw-sonic --alpha 1/256 --profile pg_lossless_100000_5m_profile", 0},
    {"eos-buffer-alpha", "buffer-alpha --target sw-eos --alpha 1/64 --priority 4", 0},
    {"eos-buffer-alpha-16", "buffer-alpha --target sw-eos --alpha 16", -EOPNOTSUPP},
    {"nvue-buffer-alpha", "buffer-alpha --target sw-nvue --alpha 1/128", 0},
    {"linux-ecn-misconfig",
     "ecn-misconfig --target sw-linux:swp3 --kmin 5KB --kmax 20KB --pmax 80%", 0},
    {"linux-ecn-misconfig-off", "ecn-misconfig --target sw-linux:swp3 --off", -EOPNOTSUPP},
    {"sonic-ecn-misconfig", "ecn-misconfig --target sw-sonic:Ethernet0", 0},
    {"sonic-ecn-misconfig-off", "ecn-misconfig --target sw-sonic:Ethernet4 --off --priority 4", 0},
    {"eos-ecn-misconfig",
     "ecn-misconfig --target sw-eos:Ethernet1 --kmin 20KB --kmax 200KB --pmax 0.8", 0},
    {"eos-ecn-misconfig-off", "ecn-misconfig --target sw-eos:Ethernet1 --off", 0},
    {"nvue-ecn-misconfig", "ecn-misconfig --target sw-nvue:swp2", 0},
    {"linux-dscp-mismatch", "dscp-mismatch --target sw-linux:swp1", 0},
    {"sonic-dscp-mismatch", "dscp-mismatch --target sw-sonic:Ethernet4", 0},
    {"eos-dscp-mismatch", "dscp-mismatch --target sw-eos --all-ports --to 1", 0},
    {"eos-dscp-mismatch-port", "dscp-mismatch --target sw-eos:Ethernet1", -EOPNOTSUPP},
    {"nvue-dscp-mismatch", "dscp-mismatch --target sw-nvue:swp2 --dscp 24 --to 2", 0},
    {"host-dscp-mismatch", "dscp-mismatch --target h1:rnic1 --to 5", 0},
    /* per NOS version and model (injectors/nos/caps.c) */
    {"nvue-acl-error-5.5", "acl-error --target sw-nvue:swp1 --from h1:rnic4 --to h2:rnic4", 0,
     "sw-nvue version 5.5.0"},
    {"nvue-acl-error-5.9", "acl-error --target sw-nvue:swp1 --from h1:rnic4 --to h2:rnic4", 0,
     "sw-nvue version 5.9.1"},
    {"host-pfc-storm-at-nvue-5.4", "pfc-storm --target h1:rnic4", 0, "sw-nvue version 5.4.0"},
    {"nvue-buffer-alpha-5.3", "buffer-alpha --target sw-nvue --alpha 1/128", -EOPNOTSUPP,
     "sw-nvue version 5.3.1"},
    {"nvue-pfc-misconfig-5.2", "pfc-misconfig --target sw-nvue:swp2 --priority 3", -EOPNOTSUPP,
     "sw-nvue version 5.2.0"},
    {"nvue-dscp-mismatch-5.2", "dscp-mismatch --target sw-nvue:swp2", -EOPNOTSUPP,
     "sw-nvue version 5.2.0"},
    {"host-pfc-storm-at-nvue-pfcwd-5.5", "pfc-storm --target h1:rnic4 --pfcwd on", -EOPNOTSUPP,
     "sw-nvue version 5.5.0"},
    {"eos-ecn-misconfig-7280", "ecn-misconfig --target sw-eos:Ethernet1 --off", 0,
     "sw-eos model DCS-7280SR3-48YC8"},
    {"eos-buffer-alpha-7280", "buffer-alpha --target sw-eos --alpha 1/64", -EOPNOTSUPP,
     "sw-eos model DCS-7280CR3-32P4"},
    {"eos-buffer-alpha-7050", "buffer-alpha --target sw-eos --alpha 1/64", 0,
     "sw-eos model DCS-7050CX3-32S"},
    {"sonic-buffer-alpha-dynamic", "buffer-alpha --target sw-sonic", -EOPNOTSUPP,
     "sw-sonic buffer-model dynamic"},
    {"sonic-buffer-alpha-dynamic-profile",
     "buffer-alpha --target sw-sonic --alpha 1/4 --profile ingress_lossless_profile", 0,
     "sw-sonic buffer-model dynamic"},
};

ParameterizedTestParameters(dialect, transcript)
{
	return cr_make_param_array(struct transcript_case, cases, ARRAY_SIZE(cases));
}

/* "KIND --opt value --flag ..." into spec, checked and resolved on inv. */
static void parse_args(const struct inventory *inv, const char *args, struct fault_spec *spec)
{
	char buf[200], why[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", args);
	fault_spec_init(spec, fault_kind_find(strtok_r(buf, " ", &save)));
	for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		const struct opt_desc *d = fault_opt_find(spec->kind, t + 2);
		const char *v = d && d->type == OPT_BOOL ? NULL : strtok_r(NULL, " ", &save);

		cr_assert_eq(fault_spec_set(spec, t + 2, v, why, sizeof(why)), 0, "%s: %s", args,
			     why);
	}
	cr_assert_eq(fault_spec_check(spec, why, sizeof(why)), 0, "%s: %s", args, why);
	cr_assert_eq(fault_spec_resolve(inv, spec, why, sizeof(why)), 0, "%s: %s", args, why);
}

/* "SWITCH version|model|buffer-model VALUE" into inv, as its inventory would declare it. */
static void declare_nos(struct inventory *inv, const char *nos)
{
	char sw[32], key[16], val[64];
	struct inv_switch *s;

	cr_assert_eq(sscanf(nos, "%31s %15s %63s", sw, key, val), 3, "%s", nos);
	cr_assert_not_null((s = inventory_switch(inv, sw)), "%s", nos);
	if (!strcmp(key, "version"))
		snprintf(s->nos.version, sizeof(s->nos.version), "%s", val);
	else if (!strcmp(key, "model"))
		snprintf(s->nos.model, sizeof(s->nos.model), "%s", val);
	else
		snprintf(s->nos.buffer_model, sizeof(s->nos.buffer_model), "%s", val);
}

/* Golden transcripts; regenerate with UPDATE_GOLDEN=1 make unit and review the diff. */
ParameterizedTest(struct transcript_case *c, dialect, transcript)
{
	struct inventory *inv = inventory_load(LAB, stderr);
	struct topo *topo = topo_build(inv, false, stderr);
	struct fault_spec spec;
	struct fault_plan plan;
	char why[512], path[128];

	cr_assert_not_null(inv);
	cr_assert_not_null(topo);
	if (c->nos[0])
		declare_nos(inv, c->nos);
	parse_args(inv, c->args, &spec);

	int r = fault_plan_build(inv, topo, &spec, 7, &plan, why, sizeof(why));

	cr_assert_eq(r, c->want, "%s: fault_plan_build returned %d (%s)", c->name, r, why);
	/* as a run holds it: each device's dead-man timer in the plan (a fixed owner) */
	spec.hold = true;
	if (r == 0)
		cr_assert_eq(fault_plan_deadman(&plan, inv, &spec, 7, "0wner0id", why, sizeof(why)),
			     0, "%s: %s", c->name, why);
	snprintf(path, sizeof(path), "injectors/transcripts/%s.txt", c->name);
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	if (r == 0)
		fault_plan_format(&plan, f);
	else
		fprintf(f, "# unsupported: %s\n", why);
	fclose(f);
	if (getenv("UPDATE_GOLDEN")) {
		cr_assert_eq(rl_write_file(path, got, len), 0);
	} else {
		char *want = rl_read_file(path, NULL);

		cr_assert_not_null(want, "missing golden transcript %s", path);
		cr_assert_str_eq(got, want, "%s differs from the golden transcript", c->name);
		free(want);
	}
	free(got);
	fault_plan_clear(&plan);
	topo_free(topo);
	inventory_free(inv);
}

/* Every switch kind renders on Linux, and the two every lab needs on every NOS. */
Test(dialect, every_nos_renders_link_flap_and_acl_error)
{
	for (size_t i = 0; fault_kind_at(i); i++) {
		const struct fault_kind_ops *k = fault_kind_at(i);

		if (k->targets & (FT_PORT | FT_SWITCH))
			cr_assert(k->render[INV_DIALECT_LINUX] || k->plan_switch, "%s", k->name);
	}
	for (int d = INV_DIALECT_LINUX; d < INV_DIALECT_N; d++) {
		cr_assert_not_null(fk_link_flap.render[d], "%s", inv_dialect_name(d));
		cr_assert_not_null(fk_acl_error.render[d], "%s", inv_dialect_name(d));
	}
}

/* Is there a golden transcript named NAME or NAME-...? */
static bool has_case(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strncmp(cases[i].name, name, n) &&
		    (!cases[i].name[n] || cases[i].name[n] == '-'))
			return true;
	return false;
}

/*
 * Issue 63's "golden transcripts per kind x dialect": every kind a switch
 * takes has one on every dialect (a plan, or the reason it cannot be), and
 * every kind a host takes one on a host.
 */
Test(dialect, every_kind_has_a_transcript_on_every_dialect)
{
	char name[96];

	for (size_t i = 0; fault_kind_at(i); i++) {
		const struct fault_kind_ops *k = fault_kind_at(i);

		for (int d = INV_DIALECT_LINUX;
		     d < INV_DIALECT_N && (k->targets & (FT_PORT | FT_SWITCH)); d++) {
			snprintf(name, sizeof(name), "%s-%s", inv_dialect_name(d), k->name);
			cr_expect(has_case(name), "no golden transcript of %s", name);
		}
		snprintf(name, sizeof(name), "host-%s", k->name);
		cr_expect(!(k->targets & (FT_RNIC | FT_HOST)) || has_case(name),
			  "no golden transcript of %s", name);
	}
}

/*
 * Issue 63: in every golden plan, each device a fault changes has its
 * dead-man timer before its first step there ('shell D dead-man' or, on EOS,
 * 'ssh D dead-man'), and no plan says a device has none.
 */
Test(dialect, every_device_a_plan_changes_has_its_dead_man_first)
{
	char path[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *t, *line, *save = NULL, seen[16][64];
		size_t n_seen = 0;

		if (cases[i].want)
			continue;
		snprintf(path, sizeof(path), "injectors/transcripts/%s.txt", cases[i].name);
		cr_assert_not_null(t = rl_read_file(path, NULL), "%s", path);
		cr_expect(!strstr(t, "no dead-man timer"), "%s says a device has none", path);
		for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char be[16], dev[64], what[32];
			bool known = false;

			if (sscanf(line, "%15s %63s %31s", be, dev, what) != 3 ||
			    (strcmp(be, "ssh") && strcmp(be, "shell") && strcmp(be, "netlink")) ||
			    !strcmp(what, "check:") || !strncmp(what, "counter", 7))
				continue;
			for (size_t k = 0; k < n_seen; k++)
				known |= !strcmp(seen[k], dev);
			if (known)
				continue;
			cr_expect_str_eq(what,
					 "dead-man:", "%s: %s's first step is no dead-man timer",
					 path, dev);
			if (n_seen < ARRAY_SIZE(seen))
				snprintf(seen[n_seen++], sizeof(seen[0]), "%s", dev);
		}
		free(t);
	}
}

/* A rendered command's words after "... HSET" or "... DEL": into w[], how many. */
static size_t words_after(const char *cmd, const char *verb, char w[][64], size_t max)
{
	const char *p = strstr(cmd, verb);
	size_t n = 0;
	int k;

	cr_assert_not_null(p, "no %s in '%s'", verb, cmd);
	for (p += strlen(verb); n < max && sscanf(p, " %63s%n", w[n], &k) == 1; p += k)
		if (strcmp(w[n], ">/dev/null"))
			n++;
	return n;
}

/*
 * SONiC acl-error against sonic-utilities' own grammar, not against an earlier
 * output: acl_loader/main.py convert_rule_to_db_schema() writes ACL_RULE|TABLE|
 * RULE_<seq> with these fields and PRIORITY = max_priority (10000) - seq, an L3
 * table's ETHER_TYPE 2048; convert_rules() names tables in upper case; min
 * priority (1) is its DEFAULT_RULE, which rocelab must not add, nor run
 * 'acl-loader update' (it deletes every other dataplane rule).  config/main.py
 * 'config acl add table NAME TYPE -s STAGE -p PORTS'.
 */
Test(dialect, sonic_acl_error_is_acl_loaders_schema_without_acl_loader)
{
	static const char *const fields[] = {"PRIORITY",    "PACKET_ACTION", "ETHER_TYPE",
					     "IP_PROTOCOL", "SRC_IP",	     "DST_IP",
					     "L4_DST_PORT"};
	struct inventory *inv = inventory_load("../lab-inventory/example-lab.yaml", stderr);
	struct fault_spec spec;
	struct fault_plan plan;
	char why[256], w[80][64], keys[40][64], name[32];
	size_t n_keys = 0;

	cr_assert_not_null(inv);
	fault_spec_init(&spec, fault_kind_find("acl-error"));
	cr_assert_eq(fault_spec_set(&spec, "target", "rail1", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_set(&spec, "all-ports", NULL, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_set(&spec, "from-tenant", "team-a", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_set(&spec, "to-tenant", "team-b", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &spec, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(inv, NULL, &spec, 12, &plan, why, sizeof(why)), 0, "%s", why);
	nos_sonic_acl_name(plan.table, name, sizeof(name));
	cr_assert_str_eq(name, "ROCELAB_F12");
	cr_assert_eq(plan.n_acts, 2);
	cr_assert_str_eq(plan.acts[0].apply,
			 "sudo config acl add table ROCELAB_F12 L3 -s ingress -p "
			 "Ethernet0,Ethernet4,Ethernet248,Ethernet252");
	for (size_t i = 0; i < plan.n_acts; i++) {
		cr_assert_null(strstr(plan.acts[i].apply, "acl-loader"));
		cr_assert_null(strstr(plan.acts[i].apply, "DEFAULT_RULE"));
	}
	/* 4 x 4 RNICs: one rule each, every field one acl-loader writes. */
	for (const char *p = plan.acts[1].apply; (p = strstr(p, "HSET ")); p += 5) {
		char one[1024];
		size_t n, seq;

		snprintf(one, sizeof(one), "%.*s", (int)strcspn(p, "&"), p);
		n = words_after(one, "HSET", w, 80);
		cr_assert_eq(sscanf(w[0], "'ACL_RULE|ROCELAB_F12|RULE_%zu'", &seq), 1, "%s", w[0]);
		snprintf(keys[n_keys++], sizeof(keys[0]), "%s", w[0]);
		cr_assert_eq(n % 2, 1, "field-value pairs: %s", one);
		for (size_t f = 1; f < n; f += 2) {
			size_t k;

			for (k = 0; k < ARRAY_SIZE(fields) && strcmp(fields[k], w[f]); k++)
				;
			cr_assert_lt(k, ARRAY_SIZE(fields), "%s is no acl-loader field", w[f]);
			if (!strcmp(w[f], "PRIORITY"))
				cr_assert_eq(strtoul(w[f + 1], NULL, 10), 10000 - seq);
			if (!strcmp(w[f], "ETHER_TYPE"))
				cr_assert_str_eq(w[f + 1], "2048");
		}
	}
	cr_assert_eq(n_keys, 16);
	/* The undo deletes exactly the rules, before the table goes (reverse order). */
	cr_assert_eq(words_after(plan.acts[1].revert, "CONFIG_DB DEL", w, 80), n_keys);
	for (size_t i = 0; i < n_keys; i++)
		cr_assert_str_eq(w[i], keys[i]);
	cr_assert_str_eq(plan.acts[0].revert, "sudo config acl remove table ROCELAB_F12; true");
	fault_plan_clear(&plan);
	inventory_free(inv);
}

/* The plan of one SONiC acl-error on the dialect lab (fault 7: ROCELAB_F7, one rule). */
static void sonic_acl_plan(struct inventory **inv, struct fault_plan *plan)
{
	struct fault_spec spec;
	char why[256];

	*inv = inventory_load(LAB, stderr);
	cr_assert_not_null(*inv);
	fault_spec_init(&spec, fault_kind_find("acl-error"));
	cr_assert_eq(fault_spec_set(&spec, "target", "sw-sonic:Ethernet0", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_set(&spec, "from", "h1:rnic2", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_set(&spec, "to", "h2:rnic2", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(*inv, &spec, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(*inv, NULL, &spec, 7, plan, why, sizeof(why)), 0, "%s", why);
}

/*
 * Read back from STATE_DB as acl-loader's read_acl_object_status_info() does;
 * "Active"/"Inactive" are what sonic-swss aclorch writes there.
 */
Test(dialect, sonic_acl_error_is_read_back_from_state_db)
{
	struct inventory *inv;
	struct fault_plan plan;
	struct sbuf cmd = {0};
	char ev[256] = "", err[256] = "";
	char ok[] = "ACL_TABLE_TABLE|ROCELAB_F7=Active\nACL_RULE_TABLE|ROCELAB_F7|RULE_1=Active\n";
	char bad[] =
	    "ACL_TABLE_TABLE|ROCELAB_F7=Active\nACL_RULE_TABLE|ROCELAB_F7|RULE_1=Inactive\n";
	char old[] = "ACL_TABLE_TABLE|ROCELAB_F7=\nACL_RULE_TABLE|ROCELAB_F7|RULE_1=\n";

	sonic_acl_plan(&inv, &plan);
	cr_assert_eq(acl_error_sonic_status_cmd(&plan, &cmd), 1);
	cr_assert_str_eq(cmd.p, "for k in 'ACL_TABLE_TABLE|ROCELAB_F7' "
				"'ACL_RULE_TABLE|ROCELAB_F7|RULE_1'; do printf '%s=%s\\n' \"$k\" "
				"\"$(sonic-db-cli STATE_DB HGET \"$k\" status)\"; done");
	cr_assert_eq(
	    acl_error_sonic_status(ok, "sw-sonic", &plan, 1, ev, sizeof(ev), err, sizeof(err)), 0);
	cr_assert_str_eq(ev, "STATE_DB on sw-sonic (sonic-db-cli): table ROCELAB_F7 and its 1 "
			     "rule(s) Active");
	cr_assert_eq(
	    acl_error_sonic_status(bad, "sw-sonic", &plan, 1, ev, sizeof(ev), err, sizeof(err)),
	    -EIO);
	cr_assert_str_eq(err, "STATE_DB on sw-sonic: ACL_RULE_TABLE|ROCELAB_F7|RULE_1 is "
			      "'Inactive', not Active");
	cr_assert_eq(
	    acl_error_sonic_status(old, "sw-sonic", &plan, 1, ev, sizeof(ev), err, sizeof(err)), 0);
	cr_assert_not_null(strstr(ev, "no ACL status for 2 of 2"), "%s", ev);
	free(cmd.p);
	fault_plan_clear(&plan);
	inventory_free(inv);
}

/* The plan of pfc-misconfig --priority 3 on target (a port of the dialect lab), fault 7. */
static void pfc_plan(struct inventory **inv, const char *target, struct fault_plan *plan)
{
	struct fault_spec spec;
	char why[256];

	*inv = inventory_load(LAB, stderr);
	cr_assert_not_null(*inv);
	fault_spec_init(&spec, fault_kind_find("pfc-misconfig"));
	cr_assert_eq(fault_spec_set(&spec, "target", target, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_resolve(*inv, &spec, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(*inv, NULL, &spec, 7, plan, why, sizeof(why)), 0, "%s", why);
}

/*
 * Every dialect reads the port's PFC before pfc-misconfig and names only the
 * target port: no other port of the switch, and never NVUE's switch-wide
 * default-global profile.
 */
Test(dialect, pfc_misconfig_reads_first_and_touches_only_the_target)
{
	static const struct {
		const char *target, *port, *others[2], *read_as;
	} c[] = {
	    {"sw-linux:swp1", "swp1", {"swp2", "swp3"}, "tc-root swp1"},
	    {"sw-sonic:Ethernet4", "Ethernet4", {"Ethernet0", "Ethernet8"}, "sonic-pfc Ethernet4"},
	    {"sw-eos:Ethernet2", "Ethernet2", {"Ethernet1", "Ethernet3"}, "eos-pfc Ethernet2"},
	    {"sw-nvue:swp2", "swp2", {"swp1", "swp3"}, "nvue-pfc swp2"},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct inventory *inv;
		struct fault_plan plan;

		pfc_plan(&inv, c[i].target, &plan);
		cr_assert_eq(plan.n_acts, 1, "%s", c[i].target);
		cr_assert_not_null(plan.acts[0].read, "%s has no read-back", c[i].target);
		cr_assert_str_eq(plan.acts[0].read_as, c[i].read_as);
		for (int k = 0; k < 2; k++) {
			char w[16];

			snprintf(w, sizeof(w), "%s ", c[i].others[k]);
			cr_assert_null(strstr(plan.acts[0].apply, w), "%s: apply names %s: %s",
				       c[i].target, c[i].others[k], plan.acts[0].apply);
			cr_assert_null(strstr(plan.acts[0].revert, w), "%s: undo names %s",
				       c[i].target, c[i].others[k]);
		}
		cr_assert(strstr(plan.acts[0].apply, c[i].port), "%s", plan.acts[0].apply);
		cr_assert_null(strstr(plan.acts[0].apply, "default-global"), "%s", c[i].target);
		cr_assert_null(strstr(plan.acts[0].revert, "default-global"), "%s", c[i].target);
		fault_plan_clear(&plan);
		inventory_free(inv);
	}
}

/*
 * SONiC pfc-misconfig against sonic-utilities' grammar: config/main.py
 * 'config interface pfc priority <interface_name> <priority> <on|off>'
 * (click arguments in that order, priority a choice of 0..7), and the read
 * 'show pfc priority [INTERFACE]' (pfc/main.py showPrio).  EOS against the
 * EOS User Manual's interface configuration mode: '[no]
 * priority-flow-control priority N no-drop' under 'interface PORT'.
 */
Test(dialect, pfc_misconfig_is_the_noss_own_grammar)
{
	struct inventory *inv;
	struct fault_plan plan;
	char w[8][64];

	pfc_plan(&inv, "sw-sonic:Ethernet4", &plan);
	cr_assert_eq(words_after(plan.acts[0].apply, "sudo config interface pfc priority", w, 8),
		     3);
	cr_assert_str_eq(w[0], "Ethernet4");
	cr_assert_str_eq(w[1], "3");
	cr_assert_str_eq(w[2], "off");
	cr_assert_eq(words_after(plan.acts[0].revert, "sudo config interface pfc priority", w, 8),
		     3);
	cr_assert_str_eq(w[2], "on");
	/* its PFC, then the port's BUFFER_PG entries whole (buffermgrd leaves one behind) */
	cr_assert_str_eq(plan.acts[0].read,
			 "show pfc priority Ethernet4 && echo '# CONFIG_DB BUFFER_PG' && "
			 "sonic-cfggen -d --var-json BUFFER_PG");
	fault_plan_clear(&plan);
	inventory_free(inv);

	pfc_plan(&inv, "sw-eos:Ethernet2", &plan);
	cr_assert_str_eq(plan.acts[0].apply,
			 "configure\ninterface Ethernet2\nno priority-flow-control priority 3 "
			 "no-drop\nend");
	cr_assert_str_eq(plan.acts[0].revert,
			 "configure\ninterface Ethernet2\npriority-flow-control priority 3 "
			 "no-drop\nend");
	cr_assert_str_eq(plan.acts[0].read, "show running-config interfaces Ethernet2");
	fault_plan_clear(&plan);
	inventory_free(inv);
}

/*
 * link-degrade on a NOS port is a port speed, the same on both ends, each in
 * its own grammar: sonic-utilities config/main.py 'config interface speed
 * <interface_name> <interface_speed>' (Mbit/s, as CONFIG_DB PORT speed);
 * EOS 'speed <N>gfull' in interface mode; NVUE 'nv set interface <id> link
 * speed <N>G'.  Each reads the port's speed first; the undo is that speed.
 */
Test(dialect, link_degrade_is_one_port_speed_on_both_ends)
{
	struct inventory *inv = inventory_load(LAB, stderr);
	struct fault_spec spec;
	struct fault_plan plan;
	char why[256], w[8][64];

	cr_assert_not_null(inv);
	fault_spec_init(&spec, fault_kind_find("link-degrade"));
	cr_assert_eq(fault_spec_set(&spec, "target", "sw-sonic:Ethernet8", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_set(&spec, "rate", "25g", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &spec, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, &plan, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(plan.n_acts, 2);
	cr_assert_eq(words_after(plan.acts[0].apply, "sudo config interface speed", w, 8), 2);
	cr_assert_str_eq(w[0], "Ethernet8");
	cr_assert_str_eq(w[1], "25000");
	cr_assert_str_eq(plan.acts[0].read_as, "sonic-speed Ethernet8");
	/* its peer, spine1:swp2, is a Linux switch: a TBF at the same rate */
	cr_assert_str_eq(plan.acts[1].apply,
			 "tc qdisc replace dev swp2 root tbf rate 25000000kbit burst 3125000 "
			 "latency 50ms");
	cr_assert(strstr(plan.note, "port speed 25G on both ends"), "%s", plan.note);

	/* the undo, once read: the speed as found */
	link_degrade_speed_revert(&plan.acts[0], "Ethernet8", "400000\noff\n");
	cr_assert_str_eq(plan.acts[0].revert, "sudo config interface speed Ethernet8 400000");
	fault_plan_clear(&plan);

	cr_assert_eq(fault_spec_set(&spec, "target", "sw-eos:Ethernet1", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &spec, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, &plan, why, sizeof(why)), 0, "%s", why);
	cr_assert_str_eq(plan.acts[0].apply, "configure\ninterface Ethernet1\nspeed 25gfull\nend");
	link_degrade_speed_revert(&plan.acts[0], "Ethernet1", "interface Ethernet1\n   mtu 9214\n");
	cr_assert_str_eq(plan.acts[0].revert, "configure\ninterface Ethernet1\nno speed\nend");
	link_degrade_speed_revert(&plan.acts[0], "Ethernet1",
				  "interface Ethernet1\n   speed 100g-2\n   mtu 9214\n");
	cr_assert_str_eq(plan.acts[0].revert, "configure\ninterface Ethernet1\nspeed 100g-2\nend");
	fault_plan_clear(&plan);

	cr_assert_eq(fault_spec_set(&spec, "target", "sw-nvue:swp1", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &spec, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, &plan, why, sizeof(why)), 0, "%s", why);
	cr_assert_str_eq(plan.acts[0].apply,
			 "nv set interface swp1 link speed 25G && nv config apply -y");
	cr_assert_str_eq(plan.acts[1].apply, "tbf rnic4 25000000", "its RNIC peer: a TBF");
	link_degrade_speed_revert(&plan.acts[0], "swp1",
				  "nv set interface swp1-3 link speed 100G\n");
	cr_assert_str_eq(plan.acts[0].revert,
			 "nv set interface swp1 link speed 100G && nv config apply -y");
	link_degrade_speed_revert(&plan.acts[0], "swp1", "");
	cr_assert_str_eq(plan.acts[0].revert,
			 "nv unset interface swp1 link speed && nv config apply -y");
	fault_plan_clear(&plan);

	/* a rate no port speed matches is refused, with the speeds to pick from */
	cr_assert_eq(fault_spec_set(&spec, "rate", "500mbit", why, sizeof(why)), 0);
	cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, &plan, why, sizeof(why)), -EOPNOTSUPP);
	cr_assert(strstr(why, "not a shaper") && strstr(why, "1G, 10G, 25G"), "%s", why);
	inventory_free(inv);
}

/*
 * The ACL counters a NOS is read for under test traffic, each in its own
 * grammar: sonic-utilities scripts/aclshow '-a' (rules at 0 too) '-t
 * TABLES', on the upper-case table acl-loader's names take; EOS 'show ip
 * access-lists NAME', counted only with 'counters per-entry' in the list
 * (EOS User Manual, ACLs: the first line of the list's configuration).
 * NVUE and Linux have none here (Linux: nft counters).
 */
/* acl-error planned on target from h1:RNIC to h2:RNIC of the dialect lab. */
static void plan_acl(struct inventory *inv, const char *target, const char *rnic,
		     struct fault_plan *plan)
{
	struct fault_spec spec;
	char why[256], from[32], to[32];

	snprintf(from, sizeof(from), "h1:%s", rnic);
	snprintf(to, sizeof(to), "h2:%s", rnic);
	fault_spec_init(&spec, fault_kind_find("acl-error"));
	cr_assert_eq(fault_spec_set(&spec, "target", target, why, sizeof(why)), 0, "%s", why);
	if (!strchr(target, ':')) /* a whole switch: every cabled port, said */
		cr_assert_eq(fault_spec_set(&spec, "all-ports", NULL, why, sizeof(why)), 0, "%s",
			     why);
	cr_assert_eq(fault_spec_set(&spec, "from", from, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_set(&spec, "to", to, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_resolve(inv, &spec, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, plan, why, sizeof(why)), 0, "%s", why);
}

Test(dialect, acl_counters_are_read_in_the_noss_own_grammar)
{
	static const struct {
		const char *target, *rnic, *cmd, *as;
	} want[] = {
	    {"sw-sonic", "rnic2", "aclshow -a -t ROCELAB_F7", "sonic-aclshow ROCELAB_F7"},
	    {"sw-eos", "rnic3", "show ip access-lists rocelab_f7", "eos-acl-counters rocelab_f7"},
	    {"sw-nvue", "rnic4",
	     "nv show interface swp1 acl; nv show interface swp2 acl; nv show interface swp3 acl",
	     "nvue-acl-counters rocelab_f7 10"},
	    {"sw-linux", "rnic1", "", ""},
	};
	struct inventory *inv = inventory_load(LAB, stderr);
	struct fault_plan plan;

	cr_assert_not_null(inv);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		plan_acl(inv, want[i].target, want[i].rnic, &plan);
		cr_assert_str_eq(plan.counters, want[i].cmd, "%s", want[i].target);
		cr_assert_str_eq(plan.counters_as, want[i].as, "%s", want[i].target);
		if (i == 1)
			cr_assert(!strncmp(plan.acts[0].apply,
					   "configure\nip access-list rocelab_f7\ncounters "
					   "per-entry\n10 deny udp ",
					   strlen("configure\nip access-list rocelab_f7\ncounters "
						  "per-entry\n10 deny udp ")),
				  "%s", plan.acts[0].apply);
		fault_plan_clear(&plan);
	}
	inventory_free(inv);
}

/*
 * pfc-storm's counter, in each NOS's own grammar: SONiC's COUNTERS_DB key
 * and field as sonic-utilities scripts/pfcstat reads them
 * (COUNTERS_PORT_NAME_MAP, SAI_PORT_STAT_PFC_<p>_RX_PKTS); EOS 'show
 * interfaces PORT priority-flow-control counters detail' with '| json'
 * (EOS User Manual: any show command takes '| json'); NVUE 'nv show
 * interface <interface-id> counters qos pfc-stats' (NVUE command reference,
 * Cumulus Linux 5.5+).  A Linux switch has no counter (veth ignores pause).
 */
Test(dialect, pfc_rx_counters_are_read_in_the_noss_own_grammar)
{
	static const struct {
		enum inv_dialect d;
		const char *port, *cmd, *as;
	} want[] = {
	    {INV_DIALECT_SONIC, "Ethernet0",
	     "sonic-db-cli COUNTERS_DB HGET \"COUNTERS:$(sonic-db-cli COUNTERS_DB HGET "
	     "COUNTERS_PORT_NAME_MAP Ethernet0)\" SAI_PORT_STAT_PFC_3_RX_PKTS",
	     "sonic-pfc-rx Ethernet0 3"},
	    {INV_DIALECT_EOS, "Ethernet1",
	     "show interfaces Ethernet1 priority-flow-control counters detail | json",
	     "eos-pfc-rx Ethernet1 3"},
	    {INV_DIALECT_NVUE, "swp1", "nv show interface swp1 counters qos pfc-stats",
	     "nvue-pfc-rx swp1 3"},
	    /* Cumulus Linux 5.4 and earlier (caps.h) */
	    {INV_DIALECT_NVUE, "swp1", "nv show interface swp1 qos counters pfc-stats",
	     "nvue-pfc-rx swp1 3"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		struct sbuf cmd = {0}, as = {0};
		struct inv_switch sw = {.dialect = want[i].d};

		if (i == 3)
			snprintf(sw.nos.version, sizeof(sw.nos.version), "5.4.0");
		cr_assert_eq(pfc_storm_rx_counter(&sw, want[i].port, 3, &cmd, &as), 0);
		cr_assert_str_eq(cmd.p, want[i].cmd);
		cr_assert_str_eq(as.p, want[i].as);
		sb_free(&cmd);
		sb_free(&as);
	}
	struct sbuf cmd = {0}, as = {0};

	cr_assert_eq(pfc_storm_rx_counter(&(struct inv_switch){.dialect = INV_DIALECT_LINUX},
					  "swp1", 3, &cmd, &as),
		     -EOPNOTSUPP);
	sb_free(&cmd);
	sb_free(&as);
}

/*
 * The Linux dialect's emulations (tc queues standing in for PFC, ECN, a
 * shared buffer, PFC pauses) run on a lab of kind ssh only where the
 * inventory marks the switch a stand-in: a real Linux router's ports
 * would all be capped.  What needs no emulation (nft, a port's link) is
 * planned there as before.
 */
Test(dialect, linux_emulations_only_on_stand_in_switches)
{
	static const char *const emulations[] = {
	    "pfc-misconfig --target sw-linux:swp1",
	    "ecn-misconfig --target sw-linux:swp3 --kmin 5KB --kmax 20KB --pmax 80%",
	    "buffer-alpha --target sw-linux --alpha 1/16",
	    "pfc-storm --target h1:rnic1",
	};
	struct inventory *inv = inventory_load(LAB, stderr);
	struct inv_switch *sw;
	struct fault_plan plan;
	char why[512];

	cr_assert_not_null(inv);
	cr_assert_not_null(sw = inventory_switch(inv, "sw-linux"));
	inv->kind = INV_LAB_SSH;
	for (size_t i = 0; i < ARRAY_SIZE(emulations); i++) {
		struct fault_spec spec;

		parse_args(inv, emulations[i], &spec);
		sw->emulated = false;
		cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, &plan, why, sizeof(why)),
			     -EOPNOTSUPP, "%s: planned on a real Linux switch", emulations[i]);
		cr_assert(strstr(why, "would be emulated") && strstr(why, "emulated: true"),
			  "%s: %s", emulations[i], why);
		sw->emulated = true;
		cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, &plan, why, sizeof(why)), 0,
			     "%s: %s", emulations[i], why);
		cr_assert(plan.emulated, "%s: not said to be emulated", emulations[i]);
		fault_plan_clear(&plan);
	}
	sw->emulated = false;
	{
		struct fault_spec spec;

		parse_args(inv, "ipid-drop --target sw-linux:swp1 --mod 8", &spec);
		cr_assert_eq(fault_plan_build(inv, NULL, &spec, 7, &plan, why, sizeof(why)), 0,
			     "nft needs no stand-in: %s", why);
		fault_plan_clear(&plan);
	}
	inventory_free(inv);
}

/* Every renderer, and every host side, names the source its commands follow. */
Test(dialect, every_renderer_names_what_it_follows)
{
	const struct fault_kind_ops *k;

	for (size_t i = 0; (k = fault_kind_at(i)); i++) {
		for (int d = 0; d < INV_DIALECT_N; d++)
			cr_expect(!k->render[d] || (k->follows[d] && *k->follows[d]),
				  "%s on %s: its renderer names no source", k->name,
				  inv_dialect_name((enum inv_dialect)d));
		cr_expect(!k->plan_host || (k->follows_host && *k->follows_host),
			  "%s on a host names no source", k->name);
	}
}

/* ... and so every planned transcript says it, at its head. */
Test(dialect, every_transcript_says_what_it_follows)
{
	char path[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *t;

		if (cases[i].want)
			continue;
		snprintf(path, sizeof(path), "injectors/transcripts/%s.txt", cases[i].name);
		cr_assert_not_null(t = rl_read_file(path, NULL), "%s", path);
		cr_expect(strstr(t, "\n# follows: "), "%s names no source", path);
		free(t);
	}
}
