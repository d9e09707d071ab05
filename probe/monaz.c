// SPDX-License-Identifier: MIT
/* What every monitor's analyzer does alike: its open windows and its verdict stream (monaz.h). */
#include "probe/monaz.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"

#include <stdlib.h>
#include <string.h>

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

void *az_ring_get(struct az_ring *r, uint64_t t)
{
	uint64_t start = t - t % r->len_ns;
	struct az_win *free_w = NULL, *oldest = NULL;

	for (size_t i = 0; i < r->n; i++) {
		struct az_win *w = slot(r, i);

		if (w->used && w->start == start)
			return w;
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
static uint64_t path_hash(const uint16_t *links, int n)
{
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < n; i++) {
		h = (h ^ (links[i] & 0xff)) * 1099511628211ULL;
		h = (h ^ (links[i] >> 8)) * 1099511628211ULL;
	}
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

void az_path_seen(struct az_pathset *s, struct out *o, uint64_t t_ns, const uint16_t *links, int n)
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

void az_pathset_free(struct az_pathset *s)
{
	free(s->h);
	memset(s, 0, sizeof(*s));
}
