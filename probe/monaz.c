// SPDX-License-Identifier: MIT
/* What every monitor's analyzer does alike: its open windows and its verdict stream (monaz.h). */
#include "probe/monaz.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static struct az_win *slot(const struct az_ring *r, size_t i)
{
	return (struct az_win *)((char *)r->win + i * r->stride);
}

void az_ring_init(struct az_ring *r, void *win, size_t n, size_t stride, long long window_ms,
		  long long grace_ms, void *ctx, void (*open)(void *, void *, uint64_t, uint64_t),
		  void (*close)(void *, void *))
{
	*r = (struct az_ring){.win = win,
			      .n = n,
			      .stride = stride,
			      .len_ns = (uint64_t)window_ms * 1000000ULL,
			      .grace_ns = (uint64_t)grace_ms * 1000000ULL,
			      .ctx = ctx,
			      .open = open,
			      .close = close};
}

void *az_ring_find(const struct az_ring *r, uint64_t t)
{
	uint64_t start = t - t % r->len_ns;

	for (size_t i = 0; i < r->n; i++) {
		struct az_win *w = slot(r, i);

		if (w->used && w->start == start)
			return w;
	}
	return NULL;
}

void *az_ring_get(struct az_ring *r, uint64_t t)
{
	uint64_t start = t - t % r->len_ns;
	struct az_win *free_w = NULL, *oldest = NULL, *have = az_ring_find(r, t);

	if (have)
		return have;
	for (size_t i = 0; i < r->n; i++) {
		struct az_win *w = slot(r, i);

		if (!w->used && !free_w)
			free_w = w;
		if (w->used && (!oldest || w->start < oldest->start))
			oldest = w;
	}
	if (!free_w) {
		if (start < oldest->start)
			return NULL; /* older than every open window */
		r->close(r->ctx, oldest);
		oldest->used = false;
		free_w = oldest;
	}
	r->open(r->ctx, free_w, start, start + r->len_ns);
	*free_w = (struct az_win){.used = true, .start = start, .end = start + r->len_ns};
	return free_w;
}

static int win_cmp(const void *pa, const void *pb)
{
	const struct az_win *x = *(struct az_win *const *)pa, *y = *(struct az_win *const *)pb;

	return x->start < y->start ? -1 : x->start > y->start;
}

void az_ring_close(struct az_ring *r, uint64_t limit, bool all)
{
	struct az_win **open = rl_xcalloc(r->n + 1, sizeof(*open));
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct az_win *w = slot(r, i);

		if (w->used && (all || w->end + r->grace_ns <= limit))
			open[n++] = w;
	}
	rl_sort(open, n, sizeof(*open), win_cmp);
	for (size_t i = 0; i < n; i++) {
		r->close(r->ctx, open[i]);
		open[i]->used = false;
	}
	free(open);
}

void az_verdict_head(struct out *o, const char *monitor, const struct az_win *w, const char *cls,
		     const char *target, uint64_t votes, double share)
{
	out_open_object(o, NULL);
	out_string(o, PRINT_JSON, "type", NULL, "verdict");
	out_string(o, PRINT_JSON, "monitor", NULL, monitor);
	out_float(o, PRINT_JSON, VERDICT_K_TIME, NULL, 3, az_secs(w->end));
	out_float(o, PRINT_JSON, VERDICT_K_EMITTED, NULL, 3, az_secs(rl_realtime_ns()));
	out_open_array(o, VERDICT_K_WINDOW);
	out_float(o, PRINT_JSON, NULL, NULL, 3, az_secs(w->start));
	out_float(o, PRINT_JSON, NULL, NULL, 3, az_secs(w->end));
	out_close(o);
	out_string(o, PRINT_JSON, VERDICT_K_CLASS, NULL, cls);
	out_string(o, PRINT_JSON, VERDICT_K_TARGET, NULL, target);
	out_uint(o, PRINT_JSON, VERDICT_K_VOTES, NULL, votes);
	out_float(o, PRINT_JSON, "share", NULL, 3, share);
}

void az_suspects(struct out *o, const struct inventory *inv, const char *key, bool link,
		 const struct cand *c, size_t n, size_t max)
{
	char name[160];

	out_open_array(o, key);
	for (size_t i = 0; i < n && i < max; i++) {
		out_open_object(o, NULL);
		out_string(o, PRINT_JSON, VERDICT_K_TARGET, NULL,
			   vote_elem_name(inv, link, c[i].id, name, sizeof(name)));
		out_string(o, PRINT_JSON, "kind", NULL, link ? "link" : "switch");
		out_uint(o, PRINT_JSON, VERDICT_K_VOTES, NULL, c[i].votes);
		out_uint(o, PRINT_JSON, VERDICT_K_GOOD, NULL, c[i].good);
		out_close(o);
	}
	out_close(o);
}

void az_percentiles(struct out *o, const char *key, const uint32_t *h, uint64_t n)
{
	static const double q[] = {0.5, 0.9, 0.99, 0.999};
	static const char *const qn[] = {"p50", "p90", "p99", "p999"};

	out_open_object(o, key);
	for (int i = 0; i < 4; i++)
		out_float(o, PRINT_JSON, qn[i], NULL, 1, hist_pct(h, n, q[i]) / 1e3);
	out_close(o);
}

/* FNV-1a over the links in order (a path's are in hop order), never 0 */
static uint64_t path_hash(const rec_link_t *links, int n)
{
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < n; i++) /* a link a step, its 32 bits at once */
		h = (h ^ links[i]) * 1099511628211ULL;
	h ^= h >> 29;
	h = (h ^ (uint64_t)n) * 1099511628211ULL;
	return h ? h : 1;
}

/* h into s: true when it was not there (false when there, or s is full). */
static bool pathset_add(struct az_pathset *s, uint64_t h)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		uint64_t *nh = rl_xcalloc(cap, sizeof(*nh));

		for (size_t k = 0; k < s->cap; k++) {
			if (!s->h[k])
				continue;
			for (i = s->h[k] & (cap - 1); nh[i]; i = (i + 1) & (cap - 1))
				;
			nh[i] = s->h[k];
		}
		free(s->h);
		s->h = nh, s->cap = cap;
	}
	for (i = h & (s->cap - 1); s->h[i]; i = (i + 1) & (s->cap - 1))
		if (s->h[i] == h)
			return false;
	s->h[i] = h;
	s->n++;
	return true;
}

void az_path_seen(struct az_pathset *s, struct out *o, uint64_t t_ns, const rec_link_t *links,
		  int n)
{
	uint64_t h = path_hash(links, n);

	if (n <= 0)
		return;
	if (s->n >= AZ_PATHS_MAX) {
		s->dropped++;
		return;
	}
	if (!pathset_add(s, h))
		return;
	out_open_object(o, NULL);
	out_string(o, PRINT_JSON, "type", NULL, "path");
	out_float(o, PRINT_JSON, "t", NULL, 3, az_secs(t_ns));
	out_open_array(o, "links");
	for (int i = 0; i < n; i++)
		out_uint(o, PRINT_JSON, NULL, NULL, links[i]);
	out_close(o);
	out_close(o);
}

static bool same_route(const struct az_routes *r, uint32_t id, const rec_link_t *links, int n)
{
	int m;
	const rec_link_t *x = az_route(r, id, &m);

	if (m != n)
		return false;
	for (int i = 0; i < n; i++)
		if (x[i] != links[i])
			return false;
	return true;
}

uint32_t az_route_id(struct az_routes *r, const rec_link_t *links, int n)
{
	uint64_t h = path_hash(links, n);
	size_t i;

	if (n < 1 || n > REC_MAX_LINKS)
		return UINT32_MAX;
	if (2 * (r->n + 1) > r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		uint32_t *ns = rl_xcalloc(cap, sizeof(*ns));

		if (cap > UINT32_MAX) {
			free(ns);
			return UINT32_MAX;
		}
		for (size_t id = 0; id < r->n; id++) {
			int m;
			const rec_link_t *x = az_route(r, (uint32_t)id, &m);

			for (i = path_hash(x, m) & (cap - 1); ns[i]; i = (i + 1) & (cap - 1))
				;
			ns[i] = (uint32_t)id + 1;
		}
		free(r->slot);
		r->slot = ns, r->cap = cap;
	}
	for (i = h & (r->cap - 1); r->slot[i]; i = (i + 1) & (r->cap - 1))
		if (same_route(r, r->slot[i] - 1, links, n))
			return r->slot[i] - 1;
	if (r->n_links + (size_t)n > UINT32_MAX)
		return UINT32_MAX;
	if (r->n_links + (size_t)n > r->cap_links) {
		r->cap_links = r->cap_links ? 2 * r->cap_links + (size_t)n : 4096;
		r->links = rl_xrealloc(r->links, r->cap_links, sizeof(*r->links));
	}
	if (r->n + 2 > r->cap_at) {
		r->cap_at = r->cap_at ? 2 * r->cap_at : 1024;
		r->at = rl_xrealloc(r->at, r->cap_at, sizeof(*r->at));
	}
	if (!r->n)
		r->at[0] = 0;
	memcpy(r->links + r->n_links, links, (size_t)n * sizeof(*links));
	r->n_links += (size_t)n;
	r->at[r->n + 1] = (uint32_t)r->n_links;
	r->slot[i] = (uint32_t)++r->n;
	return (uint32_t)(r->n - 1);
}

#define SLAB_CHUNK (64u << 20)

void *az_huge_alloc(size_t size)
{
	void *p =
	    mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		rl_oom();
	madvise(p, size, MADV_HUGEPAGE); /* advice: where refused, 4 KB pages as before */
	return p;
}

void az_huge_free(void *p, size_t size)
{
	if (p)
		munmap(p, size ? size : 1);
}

void *az_slab_get(struct az_slab *s, unsigned k)
{
	size_t size = (size_t)1 << k;
	void *p;

	if (k < 6 || k >= ARRAY_SIZE(s->free))
		return NULL;
	if (size > SLAB_CHUNK / 4) /* a block that large is a mapping of its own */
		return az_huge_alloc(size);
	if ((p = s->free[k])) {
		s->free[k] = *(void **)p;
		memset(p, 0, size);
		return p;
	}
	if (!s->chunk || s->used + size > s->cap) {
		s->chunk = az_huge_alloc(SLAB_CHUNK);
		s->cap = SLAB_CHUNK, s->used = 0;
		*RL_PUSH(s->chunks, s->n_chunks) = s->chunk;
	}
	p = s->chunk + s->used;
	s->used += size;
	return p;
}

void az_slab_put(struct az_slab *s, void *p, unsigned k)
{
	if (!p || k < 6 || k >= ARRAY_SIZE(s->free))
		return;
	if (((size_t)1 << k) > SLAB_CHUNK / 4) {
		az_huge_free(p, (size_t)1 << k);
		return;
	}
	*(void **)p = s->free[k];
	s->free[k] = p;
}

void az_slab_free(struct az_slab *s)
{
	for (size_t i = 0; i < s->n_chunks; i++)
		az_huge_free(s->chunks[i], SLAB_CHUNK);
	free(s->chunks);
	memset(s, 0, sizeof(*s));
}

void az_plinks_set(struct az_plinks *p, struct az_routes *r, const rec_link_t *links, int n,
		   bool complete)
{
	uint32_t id = n > AZ_INLINE_LINKS ? az_route_id(r, links, n) : AZ_NO_ROUTE;

	*p = (struct az_plinks){.route = AZ_NO_ROUTE};
	for (int i = 0; i < AZ_INLINE_LINKS; i++)
		p->l[i] = i < n && n <= AZ_INLINE_LINKS ? links[i] : REC_NO_LINK;
	if (n > AZ_INLINE_LINKS && id >= AZ_NO_ROUTE)
		return; /* kept as no links at all, never as a part of them */
	p->route = id < AZ_NO_ROUTE ? id : AZ_NO_ROUTE;
	p->longer = n > AZ_INLINE_LINKS;
	p->complete = complete && n > 0;
}

void az_routes_free(struct az_routes *r)
{
	free(r->links);
	free(r->at);
	free(r->slot);
	memset(r, 0, sizeof(*r));
}

void az_pathset_free(struct az_pathset *s)
{
	free(s->h);
	memset(s, 0, sizeof(*s));
}
