// SPDX-License-Identifier: MIT
/*
 * What a monitor can tell apart (issue 64): on the built-in lab every link
 * and switch alone, for both monitors; on a thin lab (2 rails, 2 spines) a
 * spine and its two links one class, and under Hostmesh a host's two RNICs
 * one class; an element no probe crosses unobservable; targets named the
 * ways faults and verdicts name them.
 */
#include "harness/lib/invgen.h"
#include "probe/hostmesh/component.h"
#include "probe/observe.h"
#include "probe/rpingmesh/component.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct inventory *gen(int hosts, int rnics, int spines, int pods)
{
	struct invgen_opts g = {.name = "gen",
				.hosts = hosts,
				.rnics = rnics,
				.spines = spines,
				.pods = pods,
				.speed = "100g"};
	struct inventory *inv = invgen_inventory(&g, stderr);

	cr_assert_not_null(inv);
	return inv;
}

static void feed(void *ctx, const struct comp_pair *p)
{
	observe_pair(ctx, p);
}

/* A monitor's own pairs on inv, through its component (its defaults). */
static struct observe *monitor(const struct component_ops *ops, const struct inventory *inv)
{
	void *cfg = calloc(1, ops->cfg_size);
	struct observe_builder *b = observe_begin(inv);
	struct observe *o;

	cr_assert_not_null(b);
	ops->defaults(cfg);
	cr_assert_eq(ops->probe_pairs(inv, cfg, 7, feed, b), 0);
	o = observe_end(b);
	cr_assert_not_null(o);
	free(cfg);
	return o;
}

static size_t cls(const struct observe *o, const char *target)
{
	ssize_t el = observe_element_of(o, target);

	cr_assert_geq(el, 0, "%s is an element", target);
	return o->class_of[el];
}

Test(observe, the_builtin_lab_is_identifiable_alone_by_both_monitors)
{
	struct inventory *inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	const struct component_ops *m[] = {&hostmesh_component, &rpingmesh_component};

	cr_assert_not_null(inv);
	for (size_t i = 0; i < 2; i++) {
		struct observe *o = monitor(m[i], inv);
		struct observe_cover c;

		observe_cover(o, &c);
		cr_expect_eq(c.fabric.total, 16);
		cr_expect_eq(c.fabric.alone, 16, "%s", m[i]->name);
		cr_expect_eq(c.access.alone, 16, "%s", m[i]->name);
		cr_expect_eq(c.switches.alone, 8, "%s", m[i]->name);
		cr_expect_eq(
		    c.fabric.unobservable + c.access.unobservable + c.switches.unobservable, 0);
		/* 4 hosts x 12 ordered pairs x 4 spines */
		if (m[i] == &hostmesh_component)
			cr_expect_eq(o->n_paths, 192);
		observe_free(o);
	}
	inventory_free(inv);
}

Test(observe, a_thin_lab_joins_a_spine_and_its_links_and_a_hosts_two_rnics)
{
	struct inventory *inv = gen(12, 2, 2, 1);
	struct observe *hm = monitor(&hostmesh_component, inv),
		       *rp = monitor(&rpingmesh_component, inv);
	size_t sp;
	char names[512];

	/* Every probe through spine1 crosses both of its rail links. */
	sp = cls(rp, "spine1");
	cr_expect_eq(rp->cls_size[sp], 3);
	cr_expect_eq(cls(rp, "rail1:swp13"), sp, "its port is its link, in the class");
	cr_expect_eq(cls(rp, "spine1:swp2"), sp);
	cr_expect_neq(cls(rp, "spine2"), sp);
	observe_class_names(rp, sp, names, sizeof(names));
	cr_expect_str_eq(names, "rail1:swp13--spine1:swp1, rail2:swp13--spine1:swp2, spine1");
	/* ... so a verdict on the link, its sibling or the switch names the class */
	cr_expect(observe_names_class(rp, "rail2:swp13--spine1:swp2", sp));
	cr_expect(observe_names_class(rp, "spine1", sp));
	cr_expect(!observe_names_class(rp, "spine2", sp));
	cr_expect(!observe_names_class(rp, "rail1", sp), "a ToR is not the class's switch");
	/* R-Pingmesh probes across hosts: every RNIC alone. */
	cr_expect_eq(rp->cls_size[cls(rp, "host1:rnic1")], 1);
	/* Hostmesh probes between a host's own two RNICs: they cannot be told apart. */
	cr_expect_eq(cls(hm, "host1:rnic1"), cls(hm, "host1:rnic2"));
	cr_expect_eq(hm->cls_size[cls(hm, "host1:rnic1")], 2);
	cr_expect(observe_names_class(hm, "host1:rnic2", cls(hm, "host1:rnic1")));
	cr_expect(!observe_names_class(hm, "host2:rnic1", cls(hm, "host1:rnic1")));
	cr_expect(!observe_names_class(hm, "rail1", cls(hm, "host1:rnic1")),
		  "the two links share no switch");
	observe_free(hm);
	observe_free(rp);
	inventory_free(inv);
}

Test(observe, what_no_probe_crosses_is_unobservable)
{
	struct inventory *inv = gen(4, 4, 4, 1), *one = gen(4, 1, 2, 1);
	/* host1's own pairs only: the other hosts' links are on no probe path */
	struct comp_pair pairs[] = {{{INV_DEV_HOST, 0, 0}, {INV_DEV_HOST, 0, 1}},
				    {{INV_DEV_HOST, 0, 1}, {INV_DEV_HOST, 0, 0}}};
	struct observe *o = observe_new(inv, pairs, 2), *hm = monitor(&hostmesh_component, one);
	struct observe_cover c;
	size_t k = cls(o, "host2:rnic1");

	cr_expect(!o->cls_seen[k]);
	cr_expect(o->cls_seen[cls(o, "host1:rnic1")]);
	cr_expect_eq(o->n_paths, 8, "two pairs over four spines");
	/* one RNIC a host: Hostmesh has no pair to probe, nothing is observable */
	observe_cover(hm, &c);
	cr_expect_eq(hm->n_paths, 0);
	cr_expect_eq(c.access.unobservable, 4);
	cr_expect_eq(c.switches.unobservable, c.switches.total);
	observe_free(o);
	observe_free(hm);
	inventory_free(inv);
	inventory_free(one);
}

Test(observe, targets_are_named_as_faults_and_verdicts_name_them)
{
	struct inventory *inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	struct observe *o;
	char name[200];
	ssize_t el;

	cr_assert_not_null(inv);
	o = monitor(&hostmesh_component, inv);
	el = observe_element_of(o, "host1:rnic1");
	cr_assert_geq(el, 0);
	observe_el_name(o, (size_t)el, name, sizeof(name));
	cr_expect_eq(observe_element_of(o, name), el, "its link by name");
	{
		/* the link named the other way round */
		char rev[200], *sep = strstr(name, "--");

		*sep = '\0';
		snprintf(rev, sizeof(rev), "%s--%s", sep + 2, name);
		cr_expect_eq(observe_element_of(o, rev), el);
	}
	cr_expect(observe_el_is_access(o, (size_t)el));
	cr_expect(observe_el_is_switch(o, (size_t)observe_element_of(o, "spine3")));
	cr_expect_eq(observe_element_of(o, "host1"), -1, "a host is no element");
	cr_expect_eq(observe_element_of(o, "nosuch:port"), -1);
	cr_expect_eq(observe_element_of(o, "host1:rnic1--host2:rnic1"), -1, "no such link");
	observe_free(o);
	inventory_free(inv);
}

/*
 * Issue 64: the classes of the paths a monitor's probes took, as traced.
 * On the built-in lab, probes of host1's pair that all took spine1 cannot
 * tell spine1's links from the pair's access links, and spine2 (which ECMP
 * could have used) is on none of them: unobservable.  One more path, by
 * spine2, sets them apart.
 */
Test(observe, classes_from_the_paths_probes_took)
{
	struct inventory *inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	struct observe *names, *o;
	struct observe_builder *b;

	cr_assert_not_null(inv);
	cr_assert_not_null(names = observe_new(inv, NULL, 0));
#define LK(t) ((size_t)observe_element_of(names, t))
	size_t p1[] = {LK("host1:rnic1"), LK("rail1:swp5"), LK("spine1:swp2"), LK("host1:rnic2")},
	       p2[] = {LK("host1:rnic2"), LK("rail2:swp5"), LK("spine1:swp1"), LK("host1:rnic1")},
	       p3[] = {LK("host1:rnic1"), LK("rail1:swp6"), LK("spine2:swp2"), LK("host1:rnic2")},
	       bad[] = {LK("host1:rnic1"), 100000};
#undef LK

	cr_assert_not_null(b = observe_begin(inv));
	observe_path(b, p1, 4);
	observe_path(b, p2, 4);
	observe_path(b, bad, 2); /* a link this inventory lacks: left out */
	cr_assert_not_null(o = observe_end(b));
	cr_expect_eq(o->n_paths, 2);
	cr_expect_eq(cls(o, "spine1"), cls(o, "rail1:swp5"));
	cr_expect_eq(cls(o, "spine1"), cls(o, "host1:rnic1"), "every path crosses both");
	cr_expect_eq(cls(o, "rail1"), cls(o, "spine1"));
	cr_expect_eq(o->cls_size[cls(o, "spine1")], 7, "2 access links, 2 uplinks, 3 switches");
	cr_expect(o->cls_seen[cls(o, "spine1")]);
	cr_expect(!o->cls_seen[cls(o, "spine2")], "no probe took spine2");
	cr_expect(!o->cls_seen[cls(o, "host2:rnic1")]);
	observe_free(o);
	cr_assert_not_null(b = observe_begin(inv));
	observe_path(b, p1, 4);
	observe_path(b, p2, 4);
	observe_path(b, p3, 4);
	cr_assert_not_null(o = observe_end(b));
	cr_expect_neq(cls(o, "spine1"), cls(o, "host1:rnic1"), "spine2's path sets them apart");
	cr_expect_eq(cls(o, "spine1"), cls(o, "rail1:swp5"), "still on the same paths");
	cr_expect_eq(cls(o, "host1:rnic1"), cls(o, "host1:rnic2"));
	cr_expect(o->cls_seen[cls(o, "spine2")]);
	observe_free(o);
	observe_free(names);
	inventory_free(inv);
}
