/* SPDX-License-Identifier: MIT */
/*
 * What every monitor's analyzer does alike, beyond Algorithm 1's ranking
 * (vote.h): it keeps a few windows open, closes each once its probes can
 * no longer arrive (its end and a grace), oldest first, and writes its
 * verdicts as one stream: a head every verdict has, the suspects it ranked,
 * and the agents' counter lines.  A monitor's window begins with struct
 * az_win; its analysis of a window is its close().
 */
#ifndef ROCELAB_MONAZ_H
#define ROCELAB_MONAZ_H

#include "harness/component/component.h"
#include "harness/lib/inventory.h"
#include "probe/vote.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct out;

/* The head of every monitor's window: open, and its [start, end) in realtime ns. */
struct az_win {
	bool used;
	uint64_t start, end;
};

/* The open windows: n of stride bytes at win, each beginning with struct az_win. */
struct az_ring {
	void *win;
	size_t n, stride;
	uint64_t len_ns, grace_ns;
	void *ctx;
	/* Make w, not in use, ready for [start, end) (the ring sets its head after). */
	void (*open)(void *ctx, void *w, uint64_t start, uint64_t end);
	/* Analyze w and write it out; the ring marks it free after. */
	void (*close)(void *ctx, void *w);
};

/* A ring of n windows of stride bytes at win, window_ms long, closed grace_ms after their end. */
void az_ring_init(struct az_ring *r, void *win, size_t n, size_t stride, long long window_ms,
		  long long grace_ms, void *ctx, void (*open)(void *, void *, uint64_t, uint64_t),
		  void (*close)(void *, void *));

/*
 * The window holding time t, opened when none does; when all are in use,
 * the oldest is closed first.  NULL when t is older than every open
 * window (its window was closed already).  Borrowed, valid until closed.
 */
void *az_ring_get(struct az_ring *r, uint64_t t);

/* The open window holding time t, or NULL (never opens or closes one). */
void *az_ring_find(const struct az_ring *r, uint64_t t);

/* Close, oldest first, the windows whose end and grace are at or before limit (all: every one). */
void az_ring_close(struct az_ring *r, uint64_t limit, bool all);

/*
 * A verdict's head, as every monitor writes it: an object opened on o with
 * type, monitor, time (the window's end), emitted, window, class, target,
 * votes and share; the caller adds its own evidence and closes it.
 */
void az_verdict_head(struct out *o, const char *monitor, const struct az_win *w, const char *cls,
		     const char *target, uint64_t votes, double share);

/* The ranked candidates c[0..n) (max at most) as key: [{target, kind, votes, good}]. */
void az_suspects(struct out *o, const struct inventory *inv, const char *key, bool link,
		 const struct cand *c, size_t n, size_t max);

/*
 * The paths a monitor's probes took, as its agents traced them (issue 64:
 * what a monitor can tell apart is what its probes crossed, not what they
 * might): each complete path's links written once, the first time that set
 * is seen, as a line {"type":"path","t":S,"links":[L,...]} (inventory link
 * indexes, the source RNIC's first).  At most AZ_PATHS_MAX sets; past that
 * they are counted in dropped, not written.
 */
#define AZ_PATHS_MAX 65536
struct az_pathset {
	uint64_t *h; /* open addressing, 0 empty */
	size_t n, cap;
	uint64_t dropped;
};
void az_path_seen(struct az_pathset *s, struct out *o, uint64_t t_ns, const rec_link_t *links,
		  int n);
void az_pathset_free(struct az_pathset *s);

/*
 * The routes of an analyzer's paths longer than AZ_INLINE_LINKS (a
 * three-tier fabric's), each link sequence kept once: a 5-tuple (or an
 * abnormal probe) holds a route's number, 4 bytes, where its links would be
 * 40.  Routes are never forgotten: they are bounded by the topology's paths.
 * Ids count from 0.
 */
struct az_routes {
	rec_link_t *links; /* every route's links, one after another */
	uint32_t *at;	   /* per route: where its links start; at[n] is the end */
	uint32_t *slot;	   /* open addressing: route id + 1, 0 empty */
	size_t n, cap, n_links, cap_links, cap_at;
};
/* The id of links[0..n) (1 <= n <= REC_MAX_LINKS), interned if new; UINT32_MAX when full. */
uint32_t az_route_id(struct az_routes *r, const rec_link_t *links, int n);
/* Route id's links (its count in *n). */
static inline const rec_link_t *az_route(const struct az_routes *r, uint32_t id, int *n)
{
	*n = (int)(r->at[id + 1] - r->at[id]);
	return r->links + r->at[id];
}
void az_routes_free(struct az_routes *r);

/*
 * A path's links as an analyzer keeps them for a 5-tuple: up to
 * AZ_INLINE_LINKS here (a two-tier fabric's paths have 2 to 4), a longer
 * one's interned in the routes (a 3-tier fabric's): 20 bytes, where the
 * record's 10 links are 40, and a probe's lookup reads no other memory.
 */
#define AZ_INLINE_LINKS 4
#define AZ_NO_ROUTE	0x3fffffffu
struct az_plinks {
	uint32_t route : 30, complete : 1, longer : 1; /* route: a longer one's */
	rec_link_t l[AZ_INLINE_LINKS];		       /* REC_NO_LINK after the last */
};
/* p set to links[0..n) (complete: the whole path); a longer one with no room in r: none. */
void az_plinks_set(struct az_plinks *p, struct az_routes *r, const rec_link_t *links, int n,
		   bool complete);
/* p's links (their count: 0 when none). */
static inline int az_plinks_get(const struct az_plinks *p, const struct az_routes *r,
				const rec_link_t **links)
{
	int n = 0;

	if (p->longer)
		return *links = az_route(r, p->route, &n), n;
	for (*links = p->l; n < AZ_INLINE_LINKS && p->l[n] != REC_NO_LINK; n++)
		;
	return n;
}

/*
 * Zeroed memory in huge pages where the kernel gives them (madvise
 * MADV_HUGEPAGE): an analyzer's lookup tables of a gigabyte, in 4 KB pages,
 * cost a TLB miss on nearly every probe (10,000 hosts: a third of the time).
 */
void *az_huge_alloc(size_t size);
void az_huge_free(void *p, size_t size);

/*
 * Zeroed blocks of 2^k bytes (k >= 6) carved from az_huge_alloc() chunks, a
 * freed block kept for the next of its size (past 16 MB, a mapping each).
 * For the many small tables an analyzer grows by doubling (one a host).
 */
struct az_slab {
	void *free[48]; /* per size class: freed blocks, linked through their first word */
	char *chunk;	/* the chunk being carved */
	size_t used, cap;
	void **chunks; /* every chunk, for az_slab_free() */
	size_t n_chunks;
};
void *az_slab_get(struct az_slab *s, unsigned k);
void az_slab_put(struct az_slab *s, void *p, unsigned k);
void az_slab_free(struct az_slab *s);

/*
 * A window's distribution from its histogram h of n values in ns (hist_bin()),
 * as key: {"p50", "p90", "p99", "p999"} in microseconds: every monitor's
 * latencies and its agents' send lateness alike.
 */
void az_percentiles(struct out *o, const char *key, const uint32_t *h, uint64_t n);

/* Realtime ns as the seconds verdicts and windows are written in. */
static inline double az_secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

#endif
