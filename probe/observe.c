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
 * An element's set of probe paths, as two independent hashes (and its
 * count): two elements on the same set of paths have equal hashes; two on
 * different sets collide with probability below 2^-118.  Bitsets would be
 * exact too, and a rail-optimized lab of 1024 RNICs has 8 million
 * R-Pingmesh probe paths: 1 GB of them.
 *
 * A probe path is a pair p of RNICs (a under ToR A, b under ToR B) and a
 * middle m between A and B: nothing when A is B, a link A--B, or a link
 * A--S, the switch S and a link S--B.  Its elements are p's own (a's and
 * b's links, A and B) and m's.  The path's value is h(p) * g(m) modulo the
 * prime 2^61 - 1, h and g random per pair and per middle; an element's hash
 * is the sum of the values of its paths.  That sum is a polynomial of
 * degree 2 in those random values with one monomial per path, so two
 * different sets of paths give different polynomials, and Schwartz-Zippel
 * bounds the chance they agree at random values by 2 / (2^61 - 1) per hash.
 * What it buys: p's own elements get h(p) * (the sum of g over the ToR
 * pair's middles), and a middle's get g(m) * (the sum of h over the ToR
 * pair's pairs) once per ToR pair, so the work grows with the pairs plus
 * the ToR pairs times their middles, not with the pairs times the middles
 * (80,000 RNICs: 45 million pairs, 360 million paths).
 */
#define P61 ((1ULL << 61) - 1)

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

static uint64_t mod61(uint64_t x)
{
	x = (x & P61) + (x >> 61);
	return x >= P61 ? x - P61 : x;
}

static uint64_t add61(uint64_t a, uint64_t b)
{
	return mod61(a + b); /* both below 2^61: no overflow */
}

static uint64_t mul61(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;

	return add61(mod61((uint64_t)r & P61), mod61((uint64_t)(r >> 61)));
}

/* Random value k (0 or 1) of a pair (by its index) or a middle (by its key). */
static uint64_t rnd(uint64_t salt, uint64_t x, int k)
{
	return mod61(mix(mix(salt + (uint64_t)k) ^ x));
}

#define SALT_PAIR 0x70616972ULL
#define SALT_MID  0x6d696464ULL
#define SALT_PATH 0x70617468ULL

/* A ToR pair's accumulators: its pairs' h sums and count; its middles' g sums and count. */
struct torpair {
	size_t a, b; /* a + 1 == 0: an empty slot */
	uint64_t hsum[2], gsum[2];
	size_t n_pairs, n_mid;
};

struct observe_builder {
	const struct inventory *inv;
	struct sig *sig;
	size_t n_paths, n_pairs;
	/* per switch: its links to other switches, by peer (sorted) */
	struct adj {
		size_t *peer, *link;
		size_t n;
	} * adj;
	struct torpair *tp;
	size_t tp_cap, tp_n;
	/* per RNIC (host h's r at rbase[h] + r): its ToR and link; ToR (size_t)-1: none */
	size_t *rbase, *rn_tor, *rn_link;
	int err;
};

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

/* The range [*lo, *hi) of switch s's links to switch peer. */
static void adj_range(const struct adj *x, size_t peer, size_t *lo, size_t *hi)
{
	size_t l = 0, h = x->n;

	while (l < h) {
		size_t m = l + (h - l) / 2;

		if (x->peer[m] < peer)
			l = m + 1;
		else
			h = m;
	}
	*lo = l;
	for (h = l; h < x->n && x->peer[h] == peer; h++)
		;
	*hi = h;
}

/*
 * Each middle between ToRs A and B, as routing has them (the direct links
 * when there are any, else every link A--S--B), to fn with its key and its
 * elements.
 */
static void each_middle(const struct observe_builder *b, size_t A, size_t B,
			void (*fn)(void *ctx, uint64_t key, const size_t *el, size_t n), void *ctx)
{
	const struct inventory *inv = b->inv;
	const struct adj *aa = &b->adj[A];
	size_t L = inv->n_links, lo, hi;

	if (A == B) {
		fn(ctx, 0, NULL, 0);
		return;
	}
	adj_range(aa, B, &lo, &hi);
	if (lo < hi) { /* the shorter way is the only one routing takes */
		for (size_t i = lo; i < hi; i++)
			fn(ctx, 1 + (uint64_t)aa->link[i], (const size_t[]){aa->link[i]}, 1);
		return;
	}
	for (size_t i = 0; i < aa->n; i++) {
		size_t S = aa->peer[i];
		const struct adj *as = &b->adj[S];

		if (S == B)
			continue;
		adj_range(as, B, &lo, &hi);
		for (size_t k = lo; k < hi; k++)
			fn(ctx, 1 + (uint64_t)L + (uint64_t)aa->link[i] * L + as->link[k],
			   (const size_t[]){aa->link[i], L + S, as->link[k]}, 3);
	}
}

static void sum_middle(void *ctx, uint64_t key, const size_t *el, size_t n)
{
	struct torpair *t = ctx;

	(void)el, (void)n;
	for (int k = 0; k < 2; k++)
		t->gsum[k] = add61(t->gsum[k], rnd(SALT_MID, key, k));
	t->n_mid++;
}

struct spread {
	struct observe_builder *b;
	const struct torpair *t;
};

/* A middle's elements get g(m) times the sum of h over the ToR pair's pairs, once per pair. */
static void spread_middle(void *ctx, uint64_t key, const size_t *el, size_t n)
{
	struct spread *s = ctx;

	for (int k = 0; k < 2; k++) {
		uint64_t v = mul61(rnd(SALT_MID, key, k), s->t->hsum[k]);

		for (size_t i = 0; i < n; i++)
			s->b->sig[el[i]].h[k] = add61(s->b->sig[el[i]].h[k], v);
	}
	for (size_t i = 0; i < n; i++)
		s->b->sig[el[i]].paths += s->t->n_pairs;
}

static uint64_t tp_hash(size_t a, size_t b)
{
	return mix((uint64_t)a << 32 ^ b);
}

/* ToR pair (a, b)'s accumulators, its middles summed when new; NULL when out of memory. */
static struct torpair *torpair(struct observe_builder *b, size_t A, size_t B)
{
	size_t i;

	if (2 * (b->tp_n + 1) > b->tp_cap) {
		size_t cap = b->tp_cap ? 2 * b->tp_cap : 64;
		struct torpair *nt = malloc(cap * sizeof(*nt)), *old = b->tp;

		if (!nt)
			return NULL;
		for (i = 0; i < cap; i++)
			nt[i].a = (size_t)-1;
		for (size_t j = 0; j < b->tp_cap; j++) {
			if (old[j].a == (size_t)-1)
				continue;
			for (i = tp_hash(old[j].a, old[j].b) & (cap - 1); nt[i].a != (size_t)-1;
			     i = (i + 1) & (cap - 1))
				;
			nt[i] = old[j];
		}
		free(old);
		b->tp = nt, b->tp_cap = cap;
	}
	for (i = tp_hash(A, B) & (b->tp_cap - 1); b->tp[i].a != (size_t)-1;
	     i = (i + 1) & (b->tp_cap - 1))
		if (b->tp[i].a == A && b->tp[i].b == B)
			return &b->tp[i];
	b->tp[i] = (struct torpair){.a = A, .b = B};
	b->tp_n++;
	each_middle(b, A, B, sum_middle, &b->tp[i]);
	return &b->tp[i];
}

/* RNIC ep's ToR and link from the table: 0, or -ENOENT. */
static int rnic_tor(const struct observe_builder *b, const struct inv_endpoint *ep, size_t *tor,
		    size_t *link)
{
	size_t i;

	if (ep->kind != INV_DEV_HOST || ep->dev >= b->inv->n_hosts ||
	    ep->port >= b->inv->hosts[ep->dev].n_rnics)
		return -ENOENT;
	i = b->rbase[ep->dev] + ep->port;
	if (b->rn_tor[i] == (size_t)-1)
		return -ENOENT;
	*tor = b->rn_tor[i];
	*link = b->rn_link[i];
	return 0;
}

void observe_pair(struct observe_builder *b, const struct comp_pair *p)
{
	const struct inventory *inv = b->inv;
	size_t L = inv->n_links, A, B, la, lb;
	struct torpair *t;

	if (b->err)
		return;
	if (rnic_tor(b, &p->a, &A, &la) || rnic_tor(b, &p->b, &B, &lb))
		return; /* an RNIC cabled to no switch: its probes cross nothing we know */
	if (!(t = torpair(b, A, B))) {
		b->err = ENOMEM;
		return;
	}
	if (!t->n_mid)
		return; /* no way between the ToRs that a two-tier fabric routes */
	size_t el[4] = {la, lb, L + A, L + B}, n = la == lb ? 1 : A == B ? 3 : 4;

	for (int k = 0; k < 2; k++) {
		uint64_t h = rnd(SALT_PAIR, b->n_pairs, k), v = mul61(h, t->gsum[k]);

		t->hsum[k] = add61(t->hsum[k], h);
		for (size_t i = 0; i < n; i++)
			b->sig[el[i]].h[k] = add61(b->sig[el[i]].h[k], v);
	}
	for (size_t i = 0; i < n; i++)
		b->sig[el[i]].paths += t->n_mid;
	t->n_pairs++;
	b->n_pairs++;
	b->n_paths += t->n_mid;
}

void observe_path(struct observe_builder *b, const size_t *links, size_t n)
{
	const struct inventory *inv = b->inv;
	size_t el[3 * COMP_PATH_LINKS], n_el = 0, L = inv->n_links;

	if (b->err || !n || n > COMP_PATH_LINKS)
		return;
	/* its links and the switches at their ends, each once */
	for (size_t i = 0; i < n; i++) {
		const struct inv_link *l;
		size_t cand[3];

		if (links[i] >= L)
			return; /* not this inventory's: the whole path is refused */
		l = &inv->links[links[i]];
		cand[0] = links[i];
		cand[1] = l->a.kind == INV_DEV_SWITCH ? L + l->a.dev : (size_t)-1;
		cand[2] = l->b.kind == INV_DEV_SWITCH ? L + l->b.dev : (size_t)-1;
		for (int c = 0; c < 3; c++) {
			size_t k = 0;

			if (cand[c] == (size_t)-1 || cand[c] >= L + inv->n_switches)
				continue;
			while (k < n_el && el[k] != cand[c])
				k++;
			if (k == n_el)
				el[n_el++] = cand[c];
		}
	}
	for (int k = 0; k < 2; k++) {
		uint64_t h = rnd(SALT_PATH, b->n_paths, k);

		for (size_t i = 0; i < n_el; i++)
			b->sig[el[i]].h[k] = add61(b->sig[el[i]].h[k], h);
	}
	for (size_t i = 0; i < n_el; i++)
		b->sig[el[i]].paths++;
	b->n_paths++;
}

static int peer_cmp(const void *x, const void *y)
{
	const size_t *a = x, *b = y; /* (peer, link) */

	return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] > b[1]) - (a[1] < b[1]);
}

static int adj_build(struct observe_builder *b)
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
	/* by peer, then link: adj_range() finds a peer's links */
	for (size_t s = 0; s < inv->n_switches; s++) {
		struct adj *x = &b->adj[s];
		size_t *pl = malloc((x->n ? x->n : 1) * 2 * sizeof(*pl));

		if (!pl)
			return -ENOMEM;
		for (size_t i = 0; i < x->n; i++)
			pl[2 * i] = x->peer[i], pl[2 * i + 1] = x->link[i];
		qsort(pl, x->n, 2 * sizeof(*pl), peer_cmp);
		for (size_t i = 0; i < x->n; i++)
			x->peer[i] = pl[2 * i], x->link[i] = pl[2 * i + 1];
		free(pl);
	}
	return 0;
}

static void builder_free(struct observe_builder *b)
{
	for (size_t i = 0; b->adj && i < b->inv->n_switches; i++) {
		free(b->adj[i].peer);
		free(b->adj[i].link);
	}
	free(b->adj);
	free(b->sig);
	free(b->tp);
	free(b->rbase);
	free(b->rn_tor);
	free(b->rn_link);
	free(b);
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

struct observe_builder *observe_begin(const struct inventory *inv)
{
	struct observe_builder *b = calloc(1, sizeof(*b));
	size_t n_el = inv->n_links + inv->n_switches;

	if (!b)
		return NULL;
	b->inv = inv;
	b->sig = calloc(n_el ? n_el : 1, sizeof(*b->sig));
	b->rbase = calloc(inv->n_hosts + 1, sizeof(*b->rbase));
	if (!b->sig || !b->rbase || adj_build(b))
		goto fail;
	for (size_t h = 0; h < inv->n_hosts; h++)
		b->rbase[h + 1] = b->rbase[h] + inv->hosts[h].n_rnics;
	b->rn_tor = calloc(b->rbase[inv->n_hosts] + 1, sizeof(*b->rn_tor));
	b->rn_link = calloc(b->rbase[inv->n_hosts] + 1, sizeof(*b->rn_link));
	if (!b->rn_tor || !b->rn_link)
		goto fail;
	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t r = 0; r < inv->hosts[h].n_rnics; r++) {
			struct inv_endpoint ep = {INV_DEV_HOST, h, r};
			size_t i = b->rbase[h] + r;

			if (tor_of(inv, &ep, &b->rn_tor[i], &b->rn_link[i]))
				b->rn_tor[i] = (size_t)-1;
		}
	return b;
fail:
	builder_free(b);
	errno = ENOMEM;
	return NULL;
}

size_t observe_pairs_seen(const struct observe_builder *b)
{
	return b->n_pairs;
}

struct observe *observe_end(struct observe_builder *b)
{
	const struct inventory *inv = b->inv;
	struct observe *o = b->err ? NULL : calloc(1, sizeof(*o));
	size_t n_el = inv->n_links + inv->n_switches;

	if (!o)
		goto fail;
	o->inv = inv;
	o->n_el = n_el;
	o->class_of = calloc(n_el ? n_el : 1, sizeof(*o->class_of));
	o->cls_size = calloc(n_el ? n_el : 1, sizeof(*o->cls_size));
	o->cls_seen = calloc(n_el ? n_el : 1, sizeof(*o->cls_seen));
	if (!o->class_of || !o->cls_size || !o->cls_seen)
		goto fail;
	for (size_t i = 0; i < b->tp_cap; i++) {
		struct spread s = {b, &b->tp[i]};

		if (b->tp[i].a != (size_t)-1 && b->tp[i].n_pairs)
			each_middle(b, b->tp[i].a, b->tp[i].b, spread_middle, &s);
	}
	o->n_paths = b->n_paths;
	for (size_t i = 0; i < n_el; i++)
		b->sig[i].el = i;
	qsort(b->sig, n_el, sizeof(*b->sig), sig_cmp);
	for (size_t i = 0; i < n_el; i++) {
		if (i == 0 || !sig_same(&b->sig[i], &b->sig[i - 1])) {
			o->cls_seen[o->n_cls] = b->sig[i].paths > 0;
			o->n_cls++;
		}
		o->class_of[b->sig[i].el] = o->n_cls - 1;
		o->cls_size[o->n_cls - 1]++;
	}
	builder_free(b);
	return o;
fail:
	builder_free(b);
	observe_free(o);
	errno = ENOMEM;
	return NULL;
}

struct observe *observe_new(const struct inventory *inv, const struct comp_pair *pairs, size_t n)
{
	struct observe_builder *b = observe_begin(inv);

	if (!b)
		return NULL;
	for (size_t i = 0; i < n; i++)
		observe_pair(b, &pairs[i]);
	return observe_end(b);
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
	if (!n_pairs) /* say why it sees nothing, not only that */
		out_text(out, "  it probes no pair of RNICs on this lab%s\n",
			 o->inv->n_tenants ? " (the inventory has tenants, and R-Pingmesh pairs "
					     "only RNICs of one tenant)"
					   : "");
	share_print(out, "fabric_links", "links between switches:", &c.fabric);
	share_print(out, "rnics", "RNICs (with their links):", &c.access);
	share_print(out, "switches", "switches:", &c.switches);
	out_open_array(out, "classes");
	/* in the order of their first members: links in inventory order, then switches; each
	 * class's members chained from its first (next[el]: the member after el, or n_el) */
	size_t *last = malloc((o->n_cls ? o->n_cls : 1) * sizeof(*last)),
	       *next = malloc((o->n_el ? o->n_el : 1) * sizeof(*next));

	if (!last || !next) {
		free(last), free(next);
		out_close(out);
		out_close(out);
		return; /* out of memory: the shares are said */
	}
	for (size_t k = 0; k < o->n_cls; k++)
		last[k] = o->n_el;
	for (size_t el = o->n_el; el-- > 0;) {
		next[el] = last[o->class_of[el]];
		last[o->class_of[el]] = el; /* walking back: ends at the first member */
	}
	for (size_t first = 0; first < o->n_el; first++) {
		size_t k = o->class_of[first];

		if (last[k] != first || !o->cls_seen[k] || o->cls_size[k] < 2)
			continue;
		if (!any)
			out_text(out, "  not told apart from each other:\n");
		any = true;
		out_open_array(out, NULL);
		out_text(out, "    {");
		for (size_t el = first, n = 0; el < o->n_el; el = next[el]) {
			char name[200];

			out_string(out, PRINT_ANY, NULL, n++ ? ", %s" : "%s",
				   observe_el_name(o, el, name, sizeof(name)));
		}
		out_text(out, "}\n");
		out_close(out);
	}
	free(last);
	free(next);
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
