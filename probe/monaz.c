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
