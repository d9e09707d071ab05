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
void az_path_seen(struct az_pathset *s, struct out *o, uint64_t t_ns, const uint16_t *links, int n);
void az_pathset_free(struct az_pathset *s);

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
