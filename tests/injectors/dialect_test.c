// SPDX-License-Identifier: MIT
/* Dialect transcripts: for each fault kind and switch dialect, the exact commands rendered. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/topo.h"
#include "injectors/dialect.h"
#include "injectors/fault.h"
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#define LAB "injectors/dialect-lab.yaml"

struct transcript_case {
	char name[48];	/* golden file: injectors/transcripts/<name>.txt */
	char args[200]; /* inject arguments */
	int want;	/* 0 planned, or the negative errno of fault_plan_build */
};

static struct transcript_case cases[] = {
    {"linux-link-flap", "link-flap --target sw-linux:swp3", 0},
    {"linux-link-flap-host-port", "link-flap --target sw-linux:swp1", 0},
    {"linux-acl-error", "acl-error --target sw-linux --from h1:rnic1 --to h2:rnic1", 0},
    {"linux-pfc-misconfig", "pfc-misconfig --target sw-linux:swp1 --priority 3", 0},
    {"linux-ipid-drop-mod8", "ipid-drop --target spine1:swp1 --mod 8 --rem 3 --roce-only", 0},
    {"linux-ipid-drop-mod1000", "ipid-drop --target spine1 --mod 1000", 0},
    {"linux-ipid-drop-range-in", "ipid-drop --target spine1:swp2 --range 100-200 --direction in",
     0},
    {"linux-link-degrade", "link-degrade --target sw-linux:swp3 --rate 1gbit", 0},
    {"host-link-flap", "link-flap --target h1:rnic2", 0},
    {"host-rnic-route-missing", "rnic-route-missing --target h2:rnic3", 0},
    {"host-pfc-misconfig", "pfc-misconfig --target h1:rnic1 --priority 5", 0},
    {"host-link-degrade", "link-degrade --target h1:rnic4 --rate 25g", 0},
    {"sonic-link-flap", "link-flap --target sw-sonic:Ethernet8", 0},
    {"sonic-acl-error", "acl-error --target sw-sonic:Ethernet0 --from h1:rnic2 --to h2:rnic2", 0},
    {"sonic-pfc-misconfig", "pfc-misconfig --target sw-sonic:Ethernet4 --priority 3", 0},
    {"sonic-link-degrade", "link-degrade --target sw-sonic:Ethernet8 --rate 1gbit", 0},
    {"sonic-ipid-drop", "ipid-drop --target sw-sonic --mod 10", -EOPNOTSUPP},
    {"eos-link-flap", "link-flap --target sw-eos:Ethernet3", 0},
    {"eos-acl-error", "acl-error --target sw-eos --from h1:rnic3 --to h2:rnic3", 0},
    {"eos-pfc-misconfig", "pfc-misconfig --target sw-eos:Ethernet1 --priority 3", 0},
    {"eos-link-degrade", "link-degrade --target sw-eos:Ethernet3 --rate 1gbit", 0},
    {"eos-ipid-drop", "ipid-drop --target sw-eos:Ethernet1 --mod 10", -EOPNOTSUPP},
    {"nvue-link-flap", "link-flap --target sw-nvue:swp3", 0},
    {"nvue-acl-error", "acl-error --target sw-nvue:swp1 --from h1:rnic4 --to h2:rnic4", 0},
    {"nvue-pfc-misconfig", "pfc-misconfig --target sw-nvue:swp2 --priority 3", 0},
    {"nvue-link-degrade", "link-degrade --target sw-nvue:swp3 --rate 10gbit", 0},
    {"nvue-ipid-drop", "ipid-drop --target sw-nvue --mod 10", -EOPNOTSUPP},
};

ParameterizedTestParameters(dialect, transcript)
{
	return cr_make_param_array(struct transcript_case, cases, ARRAY_SIZE(cases));
}

/* Golden transcripts; regenerate with UPDATE_GOLDEN=1 make unit and review the diff. */
ParameterizedTest(struct transcript_case *c, dialect, transcript)
{
	struct inventory *inv = inventory_load(LAB, stderr);
	struct topo *topo = topo_build(inv, false, stderr);
	struct fault_spec spec;
	struct fault_plan plan;
	char buf[200], why[256], path[128], *save = NULL;

	cr_assert_not_null(inv);
	cr_assert_not_null(topo);
	snprintf(buf, sizeof(buf), "%s", c->args);
	fault_spec_init(&spec, fault_kind_find(strtok_r(buf, " ", &save)));
	for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		const struct opt_desc *d = fault_opt_find(spec.kind, t + 2);
		const char *v = d && d->type == OPT_BOOL ? NULL : strtok_r(NULL, " ", &save);

		cr_assert_eq(fault_spec_set(&spec, t + 2, v, why, sizeof(why)), 0, "%s: %s",
			     c->name, why);
	}
	cr_assert_eq(fault_spec_check(&spec, why, sizeof(why)), 0, "%s: %s", c->name, why);
	cr_assert_eq(fault_spec_resolve(inv, &spec, why, sizeof(why)), 0, "%s: %s", c->name, why);

	int r = fault_plan_build(inv, topo, &spec, 7, &plan, why, sizeof(why));

	cr_assert_eq(r, c->want, "%s: fault_plan_build returned %d (%s)", c->name, r, why);
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

Test(dialect, every_dialect_has_an_ops_table)
{
	for (int d = INV_DIALECT_LINUX; d <= INV_DIALECT_NVUE; d++) {
		const struct dialect_ops *o = dialect_get((enum inv_dialect)d);

		cr_assert_not_null(o->name);
		cr_assert_not_null(o->link_flap);
		cr_assert_not_null(o->acl_error);
	}
}
