// SPDX-License-Identifier: MIT
/* The scenario generator: deterministic per seed, every scenario loadable, kinds that fit the lab.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/invgen.h"
#include "harness/run/scenario.h"
#include "harness/run/scengen.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define VLAB "../lab-inventory/vlab-rail.yaml"

static char tmp[64];

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/scengen-test.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

/* Generate into tmp/name from the inventory at inv_path with o's draws; the return of
 * scengen_write. */
static int gen_opts(const char *inv_path, const char *name, struct scengen_opts o)
{
	struct inventory *inv = inventory_load(inv_path, stderr);
	char dir[128];
	int r;

	cr_assert_not_null(inv);
	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	o.dir = dir;
	o.inv = inv;
	o.inv_path = inv_path;
	r = scengen_write(&o, NULL);
	inventory_free(inv);
	return r;
}

static int gen(const char *inv_path, const char *name, unsigned seed, int faults, int free,
	       const char *kinds)
{
	return gen_opts(inv_path, name,
			(struct scengen_opts){
			    .seed = seed, .faults = faults, .fault_free = free, .kinds = kinds});
}

static char *slurp_all(const char *pattern, size_t *n)
{
	glob_t g;
	char *all = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&all, &len);

	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "%s", pattern);
	*n = g.gl_pathc;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t l;
		char *t = rl_read_file(g.gl_pathv[i], &l);

		cr_assert_not_null(t);
		fprintf(m, "%s\n", t);
		free(t);
	}
	globfree(&g);
	fclose(m);
	return all;
}

/* Generate into tmp/name (must succeed) and read every file written, n of them. */
static char *gen_all(const char *inv_path, const char *name, unsigned seed, int faults, int free,
		     const char *kinds, size_t *n)
{
	char p[128];

	cr_assert_eq(gen(inv_path, name, seed, faults, free, kinds), 0);
	snprintf(p, sizeof(p), "%s/%s/*.yaml", tmp, name);
	return slurp_all(p, n);
}

Test(scengen, same_seed_same_scenarios_and_each_one_loads, .init = setup, .fini = teardown)
{
	size_t na, nb, nc;
	char *a = gen_all(VLAB, "a", 5, 30, 2, NULL, &na),
	     *b = gen_all(VLAB, "b", 5, 30, 2, NULL, &nb),
	     *c = gen_all(VLAB, "c", 6, 30, 2, NULL, &nc);

	cr_assert_eq(na, 32);
	cr_assert_str_eq(a, b, "the same seed must write the same scenarios");
	cr_assert_str_neq(a, c, "another seed must draw other scenarios");
	/* 30 draws from a deck of 8 kinds: each kind 3 or 4 times, so each class shows up. */
	const char *classes[] = {"class: rnic", "class: switch-link", "class: switch\n",
				 "class: congestion", "silent: true"};

	for (size_t i = 0; i < 5; i++)
		cr_expect_not_null(strstr(a, classes[i]), "no '%s' in 30 draws", classes[i]);
	/* The deck: 30 draws over 8 kinds give each kind 3 or 4 scenarios. */
	char *list = strdup(scengen_kinds()), *save = NULL;

	for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		char needle[64];
		int count = 0;

		snprintf(needle, sizeof(needle), "  - kind: %s\n", k);
		for (const char *x = a; (x = strstr(x, needle)); x++)
			count++;
		cr_expect(count == 3 || count == 4, "%s drawn %d times in 30", k, count);
	}
	free(list);
	free(a);
	free(b);
	free(c);
}

/* A fault-free scenario's fault phase: 30 s, or what --fault-free-phase gives. */
Test(scengen, fault_free_phase_is_30s_unless_given, .init = setup, .fini = teardown)
{
	char p[160];
	size_t n;
	char *all;

	cr_assert_eq(gen_opts(VLAB, "short",
			      (struct scengen_opts){.seed = 3, .fault_free = 1, .free_ms = 10000}),
		     0);
	snprintf(p, sizeof(p), "%s/short/*.yaml", tmp);
	all = slurp_all(p, &n);
	cr_assert_eq(n, 1);
	cr_expect_not_null(strstr(all, "fault: 10s, recovery: 4s"), "%s", all);
	free(all);
	all = gen_all(VLAB, "default", 3, 0, 1, NULL, &n);
	cr_expect_not_null(strstr(all, "fault: 30s, recovery: 4s"), "%s", all);
	free(all);
}

Test(scengen, kinds_limit_the_draws, .init = setup, .fini = teardown)
{
	size_t n;
	char *all = gen_all(VLAB, "k", 9, 6, 0, "ipid-drop,rnic-route-missing", &n);

	cr_assert_eq(n, 6);
	cr_assert_null(strstr(all, "link-flap"));
	cr_assert_null(strstr(all, "acl-error"));
	cr_assert(strstr(all, "kind: ipid-drop") || strstr(all, "kind: rnic-route-missing"));
	free(all);
}

Test(scengen, bad_options_write_nothing, .init = setup, .fini = teardown)
{
	char p[160];
	FILE *f;
	struct stat st;

	cr_redirect_stderr();
	cr_assert_eq(gen(VLAB, "x", 1, 3, 0, "link-flap,no-such-kind"), -EINVAL);
	snprintf(p, sizeof(p), "%s/x", tmp);
	cr_assert_neq(stat(p, &st), 0, "a bad --kinds must create nothing");
	cr_assert_eq(gen(VLAB, "x", 1, 0, 0, NULL), -EINVAL);
	cr_assert_neq(stat(p, &st), 0);
	/* A folder with something in it is not overwritten. */
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/x/mine.yaml", tmp);
	cr_assert_not_null(f = fopen(p, "w"));
	fclose(f);
	cr_assert_eq(gen(VLAB, "x", 1, 3, 0, NULL), -EEXIST);
}

/* Two rails: a probe over one uplink of a spine crosses the other; link kinds do not fit. */
Test(scengen, link_faults_need_three_rails, .init = setup, .fini = teardown)
{
	char inv[128];
	size_t n;
	FILE *f;

	snprintf(inv, sizeof(inv), "%s/two-rails.yaml", tmp);
	cr_assert_not_null(f = fopen(inv, "w"));
	cr_assert_eq(invgen_write(f, &(struct invgen_opts){.name = "two-rails",
							   .hosts = 2,
							   .rnics = 2,
							   .spines = 2,
							   .pods = 2,
							   .speed = "100g"}),
		     0);
	fclose(f);
	cr_redirect_stderr();
	cr_assert_eq(gen(inv, "l", 3, 4, 0, "link-flap,ipid-drop"), -EINVAL);
	char *all = gen_all(inv, "m", 3, 12, 1, NULL, &n);

	cr_assert_eq(n, 13);
	cr_assert_null(strstr(all, "link-flap"));
	cr_assert_null(strstr(all, "packet-corruption"));
	cr_assert(strstr(all, "acl-error") || strstr(all, "rnic-route-missing"));
	free(all);
}
