// SPDX-License-Identifier: MIT
/* Typed fault specs: each kind's option table drives YAML, the CLI and the child argv alike. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "injectors/fault.h"
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#define LAB "injectors/dialect-lab.yaml"

/* Every kind's options, set to non-default values, written as argv and read back. */
Test(spec, argv_round_trip_for_every_kind)
{
	static const char *const vals[][2] = {
	    {"period", "3s"},	      {"down", "250ms"},
	    {"count", "4"},	      {"from", "h1:rnic1"},
	    {"to", "h2:rnic1"},	      {"priority", "5"},
	    {"emu-rate", "25mbit"},   {"shallow", "9000"},
	    {"mod", "1000"},	      {"rem", "7"},
	    {"range", "10-20"},	      {"ids", "1,2,65535"},
	    {"roce-only", "true"},    {"direction", "out"},
	    {"rate", "500kbit"},      {"from-tenant", "a"},
	    {"to-tenant", "b"},	      {"quanta", "1000"},
	    {"alpha", "1/16"},	      {"profile", "pg_lossless_100000_5m_profile"},
	    {"emu-buffer", "786432"}, {"dscp", "46"},
	};
	/* where a kind reads an option's value its own way */
	static const char *const kind_vals[][3] = {{"packet-corruption", "rate", "2.5%"},
						   {"pfc-storm", "rate", "3000/s"},
						   {"dscp-mismatch", "to", "5"}};
	const struct fault_kind_ops *k;

	for (size_t i = 0; (k = fault_kind_at(i)); i++) {
		struct fault_spec a, b;
		struct opt_store st = {0};
		const char *argv[64];
		size_t n = 0;
		char why[256], va[128], vb[128];

		fault_spec_init(&a, k);
		cr_assert_eq(fault_spec_set(&a, "target", "sw-linux:swp3", why, sizeof(why)), 0);
		for (size_t v = 0; v < ARRAY_SIZE(vals); v++) {
			const char *val = vals[v][1];

			if (!opt_find(k->opts, vals[v][0]))
				continue;
			for (size_t w = 0; w < ARRAY_SIZE(kind_vals); w++)
				if (!strcmp(kind_vals[w][0], k->name) &&
				    !strcmp(kind_vals[w][1], vals[v][0]))
					val = kind_vals[w][2];
			cr_assert_eq(fault_spec_set(&a, vals[v][0], val, why, sizeof(why)), 0,
				     "%s %s: %s", k->name, vals[v][0], why);
		}
		cr_assert_eq(fault_spec_argv(&a, argv, &n, ARRAY_SIZE(argv), &st), 0);
		cr_assert_str_eq(argv[0], k->name);
		fault_spec_init(&b, k);
		for (size_t x = 1; x < n; x++) {
			const struct opt_desc *d = fault_opt_find(k, argv[x] + 2);

			cr_assert_not_null(d, "%s: argv has unknown %s", k->name, argv[x]);
			cr_assert_eq(fault_spec_set(&b, d->name,
						    d->type == OPT_BOOL ? NULL : argv[++x], why,
						    sizeof(why)),
				     0, "%s: %s", k->name, why);
		}
		for (const struct opt_desc *d = k->opts; d->type != OPT_END; d++)
			cr_assert_str_eq(fault_spec_value(&b, d->name, vb, sizeof(vb)),
					 fault_spec_value(&a, d->name, va, sizeof(va)), "%s --%s",
					 k->name, d->name);
		cr_assert_str_eq(b.target, a.target);
		opt_store_free(&st);
	}
}

/* The longest ID list reaches the child whole: it was cut at 128 bytes (found by fuzz). */
Test(spec, longest_id_list_reaches_the_child_whole)
{
	struct fault_spec a, b;
	struct opt_store st = {0};
	const char *argv[16];
	char ids[64 * 6 + 1] = "", why[256], got[OPT_VALUE_MAX];
	size_t n = 0, o = 0;

	for (int i = 0; i < 64; i++) /* ipid-drop's most */
		o += (size_t)snprintf(ids + o, sizeof(ids) - o, "%s%d", i ? "," : "", 65535 - i);
	fault_spec_init(&a, fault_kind_find("ipid-drop"));
	cr_assert_eq(fault_spec_set(&a, "target", "h1:rnic1", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_set(&a, "ids", ids, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_argv(&a, argv, &n, ARRAY_SIZE(argv), &st), 0);
	cr_assert_eq(n, 5);
	cr_assert_str_eq(argv[3], "--ids");
	cr_assert_str_eq(argv[4], ids);
	fault_spec_init(&b, a.kind);
	cr_assert_eq(fault_spec_set(&b, "ids", argv[4], why, sizeof(why)), 0, "%s", why);
	cr_assert_str_eq(fault_spec_value(&b, "ids", got, sizeof(got)), ids);
	opt_store_free(&st);
}

/* packet-corruption's share: as a percentage or a fraction, kept in ppm, written as a percentage.
 */
Test(spec, corruption_share_in_ppm)
{
	static const struct {
		const char *in, *out;
		unsigned ppm;
	} cases[] = {{"1%", "1%", 10000},	{"0.1%", "0.1%", 1000},
		     {"0.001", "0.1%", 1000},	{"0.0001%", "0.0001%", 1},
		     {"100%", "100%", 1000000}, {"1", "100%", 1000000},
		     {"2.5%", "2.5%", 25000},	{"0.12345%", "0.1235%", 1235}};
	char why[256], buf[OPT_VALUE_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fault_spec s;

		fault_spec_init(&s, fault_kind_find("packet-corruption"));
		cr_assert_eq(fault_spec_set(&s, "rate", cases[i].in, why, sizeof(why)), 0, "%s: %s",
			     cases[i].in, why);
		/* the kind's own field, where its option table says it is */
		unsigned ppm;

		memcpy(&ppm, s.opts + fault_opt_find(s.kind, "rate")->off, sizeof(ppm));
		cr_assert_eq(ppm, cases[i].ppm, "%s: %u ppm", cases[i].in, ppm);
		cr_assert_str_eq(fault_spec_value(&s, "rate", buf, sizeof(buf)), cases[i].out);
	}
}

/* A kind's defaults give no option at all: the child argv is KIND --target T. */
Test(spec, defaults_are_not_written)
{
	struct fault_spec s;
	struct opt_store st = {0};
	const char *argv[16];
	size_t n = 0;
	char why[256];

	fault_spec_init(&s, fault_kind_find("pfc-misconfig"));
	fault_spec_set(&s, "target", "rail1:swp1", why, sizeof(why));
	cr_assert_eq(fault_spec_argv(&s, argv, &n, 16, &st), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(argv[1], "--target");
	opt_store_free(&st);
}

/* getopt finds the kind over the union of the kinds' options: a name means one arity. */
Test(spec, option_names_mean_the_same_in_every_kind)
{
	const struct fault_kind_ops *a, *b;

	for (size_t i = 0; (a = fault_kind_at(i)); i++) {
		cr_assert_not_null(a->verify, "%s has no verification", a->name);
		cr_assert(a->targets & FT_RNIC ? a->plan_host != NULL : 1, "%s", a->name);
		cr_assert(a->targets & (FT_PORT | FT_SWITCH) ? a->render != NULL : 1, "%s",
			  a->name);
		for (const struct opt_desc *d = a->opts; d->type != OPT_END; d++) {
			cr_assert_null(opt_find(fault_common_opts, d->name), "%s", d->name);
			for (size_t j = 0; (b = fault_kind_at(j)); j++) {
				const struct opt_desc *e = opt_find(b->opts, d->name);

				cr_assert(!e || (e->type == OPT_BOOL) == (d->type == OPT_BOOL),
					  "--%s of %s and %s", d->name, a->name, b->name);
			}
		}
	}
}

struct bad_case {
	char args[120];
	char why[256];
};

static struct bad_case bad[] = {
    {"link-flap target=sw-linux:swp3 mod=3",
     "link-flap has no option 'mod' (its options: period, down, count)"},
    {"rnic-route-missing target=sw-linux:swp1",
     "rnic-route-missing targets HOST:RNIC, and sw-linux:swp1 is a switch port"},
    {"link-flap target=sw-linux", "link-flap targets SWITCH:PORT, HOST:RNIC, and sw-linux is a "
				  "whole switch"},
    {"ipid-drop target=h1:rnic1 mod=4",
     "ipid-drop targets SWITCH:PORT, SWITCH, and h1:rnic1 is an RNIC"},
    {"ipid-drop target=spine1 all-ports=true mod=4 range=1-2",
     "ipid-drop needs one of mod (with rem), range or ids"},
    {"ipid-drop target=spine1 all-ports=true mod=8 rem=8", "rem 8 must be smaller than mod 8"},
    {"ipid-drop target=spine1 all-ports=true direction=sideways",
     "direction 'sideways': give in, out or both"},
    {"packet-corruption target=sw-linux:swp3",
     "packet-corruption needs --rate (the share lost, e.g. 1%)"},
    {"packet-corruption target=sw-linux:swp3 rate=0%",
     "rate '0%': give a share from 0.0001% (1 in a million) to 100%, as 1% or 0.01"},
    {"packet-corruption target=sw-linux:swp3 rate=150%",
     "rate '150%': give a share from 0.0001% (1 in a million) to 100%, as 1% or 0.01"},
    {"packet-corruption target=sw-linux:swp3 rate=nan%",
     "rate 'nan%': give a share from 0.0001% (1 in a million) to 100%, as 1% or 0.01"},
    {"packet-corruption target=sw-linux:swp3 rate=0.00001%",
     "rate '0.00001%': give a share from 0.0001% (1 in a million) to 100%, as 1% or 0.01"},
    {"packet-corruption target=sw-linux:swp3 rate=1mbit",
     "rate '1mbit': give a share from 0.0001% (1 in a million) to 100%, as 1% or 0.01"},
    {"packet-corruption target=sw-linux rate=1%",
     "packet-corruption targets SWITCH:PORT, HOST:RNIC, and sw-linux is a whole switch"},
    {"pfc-storm target=sw-linux:swp3",
     "pfc-storm targets HOST:RNIC, and sw-linux:swp3 is a switch port"},
    {"pfc-storm target=h1:rnic1 rate=0/s",
     "rate '0/s': give 1 to 1000000 frames a second, as 2000/s"},
    {"pfc-storm target=h1:rnic1 rate=2000pps",
     "rate '2000pps': give 1 to 1000000 frames a second, as 2000/s"},
    {"pfc-storm target=h1:rnic1 rate=-5",
     "rate '-5': give 1 to 1000000 frames a second, as 2000/s"},
    {"buffer-alpha target=sw-linux:swp3",
     "buffer-alpha targets SWITCH, and sw-linux:swp3 is a switch port"},
    {"buffer-alpha target=sw-sonic alpha=1/3",
     "alpha '1/3': give a power of two from 1/256 to 256 (e.g. 1/64, 1/16, 2)"},
    {"buffer-alpha target=sw-sonic alpha=512",
     "alpha '512': give a power of two from 1/256 to 256 (e.g. 1/64, 1/16, 2)"},
    {"buffer-alpha target=sw-sonic alpha=1/-4",
     "alpha '1/-4': give a power of two from 1/256 to 256 (e.g. 1/64, 1/16, 2)"},
    {"buffer-alpha target=sw-sonic profile=x;reboot",
     "profile 'x;reboot': give a SONiC buffer profile name (letters, digits, '_', '.', '-'; e.g. "
     "ingress_lossless_profile)"},
    {"buffer-alpha target=sw-sonic profile=-a",
     "profile '-a': give a SONiC buffer profile name (letters, digits, '_', '.', '-'; e.g. "
     "ingress_lossless_profile)"},
    {"ecn-misconfig target=sw-linux",
     "ecn-misconfig targets SWITCH:PORT, and sw-linux is a whole switch"},
    {"ecn-misconfig target=sw-sonic:Ethernet0 kmin=300KB kmax=200KB",
     "kmin 300KB is above kmax 200KB: give --kmin at most --kmax (equal: a step, as DCTCP "
     "marks)"},
    {"ecn-misconfig target=sw-sonic:Ethernet0 off=true kmin=20KB",
     "give --off or thresholds (--kmin, --kmax, --pmax), not both: --off marks nothing"},
    {"ecn-misconfig target=sw-sonic:Ethernet0 kmin=20XB",
     "kmin '20XB': give a queue depth in bytes from 1 to 256MB (e.g. 20KB, 240KB, 1500, 2MB; KB "
     "is 1000 bytes, KiB 1024)"},
    {"ecn-misconfig target=sw-sonic:Ethernet0 kmax=300MB",
     "kmax '300MB': give a queue depth in bytes from 1 to 256MB (e.g. 20KB, 240KB, 1500, 2MB; KB "
     "is 1000 bytes, KiB 1024)"},
    {"ecn-misconfig target=sw-sonic:Ethernet0 pmax=0.333",
     "pmax '0.333': give a whole percent from 1% to 100% (e.g. 100%, 20%, 0.8)"},
    {"ecn-misconfig target=sw-sonic:Ethernet0 pmax=150%",
     "pmax '150%': give a whole percent from 1% to 100% (e.g. 100%, 20%, 0.8)"},
    {"ecn-misconfig target=sw-sonic:Ethernet0 pmax=0",
     "pmax '0': give a whole percent from 1% to 100% (e.g. 100%, 20%, 0.8)"},
    {"link-flap target=sw-linux:swp3 period=1s down=1s",
     "down (1000ms) must be shorter than period (1000ms)"},
    {"link-degrade target=sw-linux:swp3 rate=200g",
     "rate must be below the link's speed (100000 Mbit/s) to degrade it"},
    {"acl-error target=sw-linux all-ports=true from=h1:rnic1 to=sw-linux:swp1",
     "to: 'sw-linux:swp1' must be an RNIC (host:rnic)"},
    {"acl-error target=sw-linux all-ports=true from-tenant=nobody to-tenant=nobody",
     "no tenant is named 'nobody' in injectors/dialect-lab.yaml"},
    {"link-flap target=sw-linux:swp3;id", "target 'sw-linux:swp3;id' is not a valid name"},
    /* a whole switch is every cabled port of it: said, never implied */
    {"acl-error target=sw-linux from=h1:rnic1 to=h2:rnic1",
     "acl-error --target sw-linux binds every cabled port of sw-linux (3): give one port "
     "(sw-linux:swp1), or add --all-ports (a scenario's fault: all-ports: true) to mean every "
     "port"},
    {"pfc-misconfig target=sw-linux", "pfc-misconfig --target sw-linux binds every cabled port "
				      "of sw-linux (3): give one port (sw-linux:swp1), or add "
				      "--all-ports (a scenario's fault: all-ports: true) to mean "
				      "every port"},
    {"ipid-drop target=sw-linux:swp1 all-ports=true mod=4",
     "--all-ports goes with a whole switch (--target SWITCH); sw-linux:swp1 is one port"},
    {"ipid-drop target=h1:rnic1 all-ports=true mod=4",
     "ipid-drop targets SWITCH:PORT, SWITCH, and h1:rnic1 is an RNIC"},
};

ParameterizedTestParameters(spec, bad_input)
{
	return cr_make_param_array(struct bad_case, bad, ARRAY_SIZE(bad));
}

/* Each refusal says what to write; the first one met is the one reported. */
ParameterizedTest(struct bad_case *c, spec, bad_input)
{
	struct inventory *inv = inventory_load(LAB, stderr);
	char buf[120], why[256] = "", *save = NULL;
	struct fault_spec s;
	int r = 0;

	cr_assert_not_null(inv);
	snprintf(buf, sizeof(buf), "%s", c->args);
	fault_spec_init(&s, fault_kind_find(strtok_r(buf, " ", &save)));
	for (char *t = strtok_r(NULL, " ", &save); t && !r; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');

		*eq = '\0';
		r = fault_spec_set(&s, t, eq + 1, why, sizeof(why));
	}
	if (!r)
		r = fault_spec_check(&s, why, sizeof(why));
	if (!r)
		r = fault_spec_resolve(inv, &s, why, sizeof(why));
	cr_assert_eq(r, -EINVAL, "%s: accepted", c->args);
	cr_assert_str_eq(why, c->why);
	inventory_free(inv);
}

/* cpu-hog takes a whole host too: one step, the cgroup and its threads, undone at once. */
Test(spec, cpu_hog_is_one_host_step_with_its_options)
{
	struct inventory *inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	struct fault_spec s;
	struct fault_plan p;
	char why[256];

	cr_assert_not_null(inv);
	fault_spec_init(&s, fault_kind_find("cpu-hog"));
	cr_assert_str_eq(fault_spec_value(&s, "threads", why, sizeof(why)), "2",
			 "the defaults: 2 threads, 10%%, the last CPU, 100 ms");
	cr_assert_str_eq(fault_spec_value(&s, "quota", why, sizeof(why)), "10");
	cr_assert_str_eq(fault_spec_value(&s, "cpu", why, sizeof(why)), "-1");
	cr_assert_str_eq(fault_spec_value(&s, "min-delay", why, sizeof(why)), "100ms");
	cr_assert_eq(fault_spec_set(&s, "target", "host2", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_set(&s, "threads", "3", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_set(&s, "cpu", "0", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &s, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(inv, NULL, &s, 1, &p, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(p.n_acts, 1);
	cr_assert_str_eq(p.acts[0].apply, "cpu-hog-on host2 10 3 0");
	cr_assert_str_eq(p.acts[0].revert, "cpu-hog-off host2");
	cr_assert(p.emulated && strstr(p.note, "3 busy thread(s) beside host2's monitor agents"),
		  "%s", p.note);
	fault_plan_clear(&p);
	cr_assert_eq(fault_spec_set(&s, "quota", "0", why, sizeof(why)), -EINVAL);
	cr_assert_eq(fault_spec_set(&s, "quota", "101", why, sizeof(why)), -EINVAL);
	cr_assert_eq(fault_spec_set(&s, "threads", "65", why, sizeof(why)), -EINVAL);
	cr_assert_eq(fault_spec_set(&s, "target", "host2:rnic1", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &s, why, sizeof(why)), -EINVAL);
	cr_assert(strstr(why, "cpu-hog targets HOST, and host2:rnic1 is an RNIC"), "%s", why);
	inventory_free(inv);
}

/* host-down takes a whole host, which no other kind does; its plan is the agents, then links. */
Test(spec, a_whole_host_is_a_target_of_host_down_only)
{
	struct inventory *inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	struct fault_spec s;
	struct fault_plan p;
	char why[256];

	cr_assert_not_null(inv);
	fault_spec_init(&s, fault_kind_find("host-down"));
	cr_assert_eq(fault_spec_set(&s, "target", "host3", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &s, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(s.tkind, INV_DEV_HOST);
	cr_assert_eq(s.tport, -1);
	cr_assert_eq(fault_plan_build(inv, NULL, &s, 1, &p, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(p.n_acts, 1 + 2 * inv->hosts[2].n_rnics);
	cr_assert_str_eq(p.acts[0].apply, "agents-stop");
	cr_assert_str_eq(p.acts[0].revert, "agents-cont");
	/* each RNIC's policy route, which its link-down flushes, back after its link-up */
	cr_assert_str_eq(p.acts[1].apply, "noop");
	cr_assert(!strncmp(p.acts[1].revert, "route-add 101 0.0.0.0/0 198.18.1.", 32), "%s",
		  p.acts[1].revert);
	cr_assert_str_eq(p.acts[2].apply, "link-down rnic1");
	cr_assert_str_eq(p.acts[2].revert, "link-up rnic1");
	cr_assert(p.emulated && strstr(p.note, "emulated: host3's 4 RNIC link(s) down"), "%s",
		  p.note);
	fault_plan_clear(&p);
	/* an RNIC or a switch is not a host */
	cr_assert_eq(fault_spec_set(&s, "target", "host3:rnic1", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &s, why, sizeof(why)), -EINVAL);
	cr_assert(strstr(why, "host-down targets HOST, and host3:rnic1 is an RNIC"), "%s", why);
	cr_assert_eq(fault_spec_set(&s, "target", "nohost", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &s, why, sizeof(why)), -EINVAL);
	cr_assert(strstr(why, "no switch is named 'nohost'"), "%s", why);
	/* other kinds still ask for an RNIC when given a host */
	fault_spec_init(&s, fault_kind_find("link-flap"));
	cr_assert_eq(fault_spec_set(&s, "target", "host3", why, sizeof(why)), 0);
	cr_assert_eq(fault_spec_resolve(inv, &s, why, sizeof(why)), -EINVAL);
	cr_assert(strstr(why, "is a host: give one of its RNICs (host3:rnicN)"), "%s", why);
	inventory_free(inv);
}
