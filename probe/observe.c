// SPDX-License-Identifier: MIT
/* Identifiability classes of a lab's links and switches under a monitor's probe paths. */
#include "probe/observe.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"
#include "probe/pathmap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * An element's set of probe paths, as two independent sums of a random
 * 64-bit value per path (and its count): two elements on the same set of
 * paths have equal sums; two on different sets collide with probability
 * about 2^-128.  Bitsets would be exact too, and a rail-optimized lab of
 * 1024 RNICs has 8 million R-Pingmesh probe paths: 1 GB of them.
 */
struct sig {
	uint64_t h[2];
	size_t paths;
	size_t el;
};

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finalizer */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct builder {
	const struct inventory *inv;
	struct sig *sig;
	size_t n_paths;
	/* per switch: its links to other switches */
	struct adj {
		size_t *peer, *link;
		size_t n;
	} * adj;
};

static void add_path(struct builder *b, const size_t *el, size_t n)
{
	uint64_t h0 = mix(b->n_paths * 2), h1 = mix(b->n_paths * 2 + 1);

	b->n_paths++;
	for (size_t i = 0; i < n; i++) {
		b->sig[el[i]].h[0] += h0;
		b->sig[el[i]].h[1] += h1;
		b->sig[el[i]].paths++;
	}
}

/* The switch at the far end of an RNIC's link, and that link: 0, or -ENOENT. */
static int tor_of(const struct inventory *inv, const struct inv_endpoint *r, size_t *tor,
		  size_t *link)
{
	ssize_t l = pathmap_link_index(inv, r);
	const struct inv_endpoint *o;

	if (l < 0)
		return -ENOENT;
	o = inv_link_other_end(&inv->links[l], r);
	if (o->kind != INV_DEV_SWITCH)
		return -ENOENT;
	*tor = o->dev;
	*link = (size_t)l;
	return 0;
}

/* Every equal-cost path of a two-tier fabric from a to b. */
static void pair_paths(struct builder *b, const struct comp_pair *p)
{
	const struct inventory *inv = b->inv;
	size_t L = inv->n_links, A, B, la, lb, direct = 0;
	const struct adj *aa;

	if (tor_of(inv, &p->a, &A, &la) || tor_of(inv, &p->b, &B, &lb))
		return; /* an RNIC cabled to no switch: its probes cross nothing we know */
	if (A == B) {
		add_path(b, (const size_t[]){la, lb, L + A}, la == lb ? 1 : 3);
		return;
	}
	aa = &b->adj[A];
	for (size_t i = 0; i < aa->n; i++)
		if (aa->peer[i] == B) {
			add_path(b, (const size_t[]){la, aa->link[i], lb, L + A, L + B}, 5);
			direct++;
		}
	if (direct)
		return; /* the shorter way is the only one routing takes */
	for (size_t i = 0; i < aa->n; i++) {
		size_t S = aa->peer[i];
		const struct adj *as = &b->adj[S];

		if (S == B)
			continue;
		for (size_t k = 0; k < as->n; k++)
			if (as->peer[k] == B)
				add_path(b,
					 (const size_t[]){la, aa->link[i], L + S, as->link[k], lb,
							  L + A, L + B},
					 7);
	}
}

static int adj_build(struct builder *b)
{
	const struct inventory *inv = b->inv;

	b->adj = calloc(inv->n_switches ? inv->n_switches : 1, sizeof(*b->adj));
	if (!b->adj)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];

		if (l->a.kind != INV_DEV_SWITCH || l->b.kind != INV_DEV_SWITCH ||
		    l->a.dev == l->b.dev)
			continue;
		for (int side = 0; side < 2; side++) {
			struct adj *x = &b->adj[side ? l->b.dev : l->a.dev];
			size_t *peer = realloc(x->peer, (x->n + 1) * sizeof(*peer));
			size_t *link = peer ? realloc(x->link, (x->n + 1) * sizeof(*link)) : NULL;

			if (peer)
				x->peer = peer;
			if (!link)
				return -ENOMEM;
			x->link = link;
			x->peer[x->n] = side ? l->a.dev : l->b.dev;
			x->link[x->n++] = i;
		}
	}
	return 0;
}

static void builder_free(struct builder *b)
{
	for (size_t i = 0; b->adj && i < b->inv->n_switches; i++) {
		free(b->adj[i].peer);
		free(b->adj[i].link);
	}
	free(b->adj);
	free(b->sig);
}

static int sig_cmp(const void *pa, const void *pb)
{
	const struct sig *a = pa, *b = pb;

	if (!a->paths != !b->paths)
		return a->paths ? -1 : 1; /* the unobservable last */
	for (int i = 0; i < 2; i++)
		if (a->h[i] != b->h[i])
			return a->h[i] < b->h[i] ? -1 : 1;
	if (a->paths != b->paths)
		return a->paths < b->paths ? -1 : 1;
	return a->el < b->el ? -1 : a->el > b->el;
}

static bool sig_same(const struct sig *a, const struct sig *b)
{
	return a->h[0] == b->h[0] && a->h[1] == b->h[1] && a->paths == b->paths;
}

struct observe *observe_new(const struct inventory *inv, const struct comp_pair *pairs, size_t n)
{
	struct builder b = {.inv = inv};
	struct observe *o = calloc(1, sizeof(*o));
	size_t n_el = inv->n_links + inv->n_switches;

	if (!o)
		return NULL;
	o->inv = inv;
	o->n_el = n_el;
	b.sig = calloc(n_el ? n_el : 1, sizeof(*b.sig));
	o->class_of = calloc(n_el ? n_el : 1, sizeof(*o->class_of));
	o->cls_size = calloc(n_el ? n_el : 1, sizeof(*o->cls_size));
	o->cls_seen = calloc(n_el ? n_el : 1, sizeof(*o->cls_seen));
	if (!b.sig || !o->class_of || !o->cls_size || !o->cls_seen || adj_build(&b))
		goto free_all;
	for (size_t i = 0; i < n; i++)
		pair_paths(&b, &pairs[i]);
	o->n_paths = b.n_paths;
	for (size_t i = 0; i < n_el; i++)
		b.sig[i].el = i;
	qsort(b.sig, n_el, sizeof(*b.sig), sig_cmp);
	for (size_t i = 0; i < n_el; i++) {
		if (i == 0 || !sig_same(&b.sig[i], &b.sig[i - 1])) {
			o->cls_seen[o->n_cls] = b.sig[i].paths > 0;
			o->n_cls++;
		}
		o->class_of[b.sig[i].el] = o->n_cls - 1;
		o->cls_size[o->n_cls - 1]++;
	}
	builder_free(&b);
	return o;
free_all:
	builder_free(&b);
	observe_free(o);
	errno = ENOMEM;
	return NULL;
}

void observe_free(struct observe *o)
{
	if (!o)
		return;
	free(o->class_of);
	free(o->cls_size);
	free(o->cls_seen);
	free(o);
}

bool observe_el_is_switch(const struct observe *o, size_t el)
{
	return el >= o->inv->n_links && el < o->n_el;
}

bool observe_el_is_access(const struct observe *o, size_t el)
{
	const struct inv_link *l;

	if (el >= o->inv->n_links)
		return false;
	l = &o->inv->links[el];
	return l->a.kind == INV_DEV_HOST || l->b.kind == INV_DEV_HOST;
}

const char *observe_el_name(const struct observe *o, size_t el, char *buf, size_t len)
{
	if (observe_el_is_switch(o, el))
		snprintf(buf, len, "%s", o->inv->switches[el - o->inv->n_links].name);
	else
		pathmap_link_name(o->inv, el, buf, len);
	return buf;
}

/* The link index of "a--b" in either order, or -1. */
static ssize_t link_named(const struct inventory *inv, const char *target)
{
	const char *sep = strstr(target, "--");
	char a[160];
	struct inv_endpoint ea, eb;
	ssize_t l;

	if (!sep || (size_t)(sep - target) >= sizeof(a))
		return -1;
	memcpy(a, target, (size_t)(sep - target));
	a[sep - target] = '\0';
	if (inventory_endpoint(inv, a, &ea, NULL, 0) ||
	    inventory_endpoint(inv, sep + 2, &eb, NULL, 0))
		return -1;
	l = pathmap_link_index(inv, &ea);
	if (l < 0)
		return -1;
	const struct inv_endpoint *other = inv_link_other_end(&inv->links[l], &ea);

	return other->kind == eb.kind && other->dev == eb.dev && other->port == eb.port ? l : -1;
}

ssize_t observe_element_of(const struct observe *o, const char *target)
{
	const struct inventory *inv = o->inv;
	struct inv_endpoint ep;
	const struct inv_switch *sw;

	if (strstr(target, "--"))
		return link_named(inv, target);
	if (strchr(target, ':')) {
		ssize_t l;

		if (inventory_endpoint(inv, target, &ep, NULL, 0))
			return -1;
		l = pathmap_link_index(inv, &ep);
		return l;
	}
	sw = inventory_switch(inv, target);
	return sw ? (ssize_t)(inv->n_links + (size_t)(sw - inv->switches)) : -1;
}

/* The switch every member link of cls touches (a class's switch), or -1. */
static ssize_t class_switch(const struct observe *o, size_t cls)
{
	const struct inventory *inv = o->inv;
	ssize_t cand[2] = {-1, -1};
	bool first = true;

	for (size_t el = 0; el < o->n_el; el++) {
		if (o->class_of[el] != cls)
			continue;
		if (observe_el_is_switch(o, el))
			return (ssize_t)(el - inv->n_links);
		const struct inv_link *l = &inv->links[el];
		ssize_t ends[2] = {l->a.kind == INV_DEV_SWITCH ? (ssize_t)l->a.dev : -1,
				   l->b.kind == INV_DEV_SWITCH ? (ssize_t)l->b.dev : -1};

		if (first) {
			cand[0] = ends[0];
			cand[1] = ends[1];
			first = false;
			continue;
		}
		for (int k = 0; k < 2; k++)
			if (cand[k] >= 0 && cand[k] != ends[0] && cand[k] != ends[1])
				cand[k] = -1;
	}
	return cand[0] >= 0 ? cand[0] : cand[1];
}

bool observe_names_class(const struct observe *o, const char *target, size_t cls)
{
	ssize_t el = observe_element_of(o, target), sw;

	if (el >= 0 && o->class_of[el] == cls)
		return true;
	sw = class_switch(o, cls);
	return sw >= 0 && !strcmp(target, o->inv->switches[sw].name);
}

bool observe_class_mixes(const struct observe *o, size_t cls)
{
	bool sw = false, link = false;

	for (size_t el = 0; el < o->n_el; el++)
		if (o->class_of[el] == cls)
			*(observe_el_is_switch(o, el) ? &sw : &link) = true;
	return sw && link;
}

size_t observe_class_names(const struct observe *o, size_t cls, char *buf, size_t len)
{
	size_t used = 0, n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t el = 0; el < o->n_el; el++) {
		char name[200];
		int w;

		if (o->class_of[el] != cls)
			continue;
		observe_el_name(o, el, name, sizeof(name));
		w = snprintf(buf + used, len - used, "%s%s", n++ ? ", " : "", name);
		if (w < 0 || (size_t)w >= len - used) {
			if (len >= 4)
				memcpy(buf + len - 4, "...", 4);
			return len - 1;
		}
		used += (size_t)w;
	}
	return used;
}

void observe_cover(const struct observe *o, struct observe_cover *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t el = 0; el < o->n_el; el++) {
		size_t k = o->class_of[el];
		struct observe_share *s = observe_el_is_switch(o, el)	? &c->switches
					  : observe_el_is_access(o, el) ? &c->access
									: &c->fabric;

		s->total++;
		if (!o->cls_seen[k])
			s->unobservable++;
		else if (o->cls_size[k] == 1)
			s->alone++;
	}
}

static void share_print(struct out *out, const char *key, const char *label,
			const struct observe_share *s)
{
	out_open_object(out, key);
	out_text(out, "  %-26s", label);
	out_uint(out, PRINT_ANY, "alone", "%llu", s->alone);
	out_uint(out, PRINT_ANY, "total", " of %llu identifiable alone", s->total);
	out_uint(out, PRINT_ANY, "unobservable", ", %llu unobservable", s->unobservable);
	out_text(out, " (%.0f%%)\n", s->total ? 100.0 * (double)s->alone / (double)s->total : 0.0);
	out_close(out);
}

void observe_print(struct out *out, const char *monitor, size_t n_pairs, const struct observe *o)
{
	struct observe_cover c;
	bool any = false;
	size_t unseen = 0;

	observe_cover(o, &c);
	out_open_object(out, NULL);
	out_string(out, PRINT_ANY, "monitor", "%s", monitor);
	out_string(out, PRINT_ANY, "lab", " on %s:", o->inv->name);
	out_uint(out, PRINT_ANY, "paths", " %llu probe path(s)", o->n_paths);
	out_uint(out, PRINT_ANY, "pairs", " between %llu pair(s) of RNICs\n", n_pairs);
	share_print(out, "fabric_links", "links between switches:", &c.fabric);
	share_print(out, "rnics", "RNICs (with their links):", &c.access);
	share_print(out, "switches", "switches:", &c.switches);
	out_open_array(out, "classes");
	/* in the order of their first members: links in inventory order, then switches */
	for (size_t first = 0; first < o->n_el; first++) {
		size_t k = o->class_of[first], prior = 0;

		while (prior < first && o->class_of[prior] != k)
			prior++;
		if (prior < first || !o->cls_seen[k] || o->cls_size[k] < 2)
			continue;
		if (!any)
			out_text(out, "  not told apart from each other:\n");
		any = true;
		out_open_array(out, NULL);
		out_text(out, "    {");
		for (size_t el = 0, n = 0; el < o->n_el; el++) {
			char name[200];

			if (o->class_of[el] != k)
				continue;
			out_string(out, PRINT_ANY, NULL, n++ ? ", %s" : "%s",
				   observe_el_name(o, el, name, sizeof(name)));
		}
		out_text(out, "}\n");
		out_close(out);
	}
	out_close(out);
	out_open_array(out, "unobservable");
	for (size_t el = 0; el < o->n_el; el++) {
		char name[200];

		if (o->cls_seen[o->class_of[el]])
			continue;
		if (!unseen)
			out_text(out, "  on no probe path:");
		out_string(out, PRINT_ANY, NULL, unseen++ ? ", %s" : " %s",
			   observe_el_name(o, el, name, sizeof(name)));
	}
	if (unseen)
		out_text(out, "\n");
	out_close(out);
	out_close(out);
}
