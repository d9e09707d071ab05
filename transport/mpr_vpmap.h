/* SPDX-License-Identifier: MIT */
/*
 * Ground truth per virtual path: which inventory links each VP's data and
 * ACKs cross, read from 'rocelab transport paths' traces (mpr_ep.h), and,
 * from the sender's sends per VP, how soon MP-RDMA left the VPs a fault
 * touched and came back to them (the brief's D.5 and D.6).
 */
#ifndef ROCELAB_MPR_VPMAP_H
#define ROCELAB_MPR_VPMAP_H

#include "harness/lib/inventory.h"
#include "harness/lib/topo.h"
#include "probe/rec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MPR_ROUTE_MAX 12

/* The links one VP's packets crossed in one direction, as last traced. */
struct mpr_route {
	rec_link_t links[MPR_ROUTE_MAX]; /* inventory link indexes, from the sending end */
	uint8_t n;
	bool complete; /* every hop answered, each cabled to the one before, destination reached */
	double t;      /* when it was traced (CLOCK_REALTIME s), 0: never */
};

/*
 * Read a 'transport paths' log traced from RNIC src to RNIC dst ("host:rnic"):
 * routes[vp - vp_lo] (n of them) gets each VP's latest trace taken in
 * [from, to).  The number of VPs that got one; -1 when the log cannot be read
 * or src/dst are not RNICs of inv.
 */
int mpr_routes_read(const char *log, const struct inventory *inv, const struct topo *t,
		    const char *src, const char *dst, double from, double to, unsigned vp_lo,
		    struct mpr_route *routes, size_t n);

bool mpr_route_has(const struct mpr_route *r, size_t link);

/* Of one sender interval: its sends (probes aside) on a set of VPs, and on all. */
struct mpr_share {
	double t; /* the interval's end (CLOCK_REALTIME s) */
	double in, all;
};

/*
 * The time from 'from' to the start of the first interval after which the
 * share in/all, summed over a window of w seconds, is below bound (below:
 * true; an empty window counts as 0) or at least bound (below: false), with
 * the window within [from, to].  -1 when it never is.
 */
double mpr_share_settles(const struct mpr_share *s, size_t n, double interval_s, double from,
			 double to, double w, double bound, bool below);

/* The share in/all summed over the intervals within [from, to]; -1 when nothing was sent. */
double mpr_share_mean(const struct mpr_share *s, size_t n, double interval_s, double from,
		      double to);

/*
 * What MP-RDMA's own behaviour says of one VP over a window (the brief's
 * D.7): its sends (probes aside) and ACKs, the copies sent on it that went
 * again (retransmitted: presumably lost there), its prunes (an ACK too far
 * out of order), and whether it lost its clocking (a packet unanswered for
 * 3 RTTs).
 */
struct mpr_vp_evidence {
	double sent, acks, resent, prunes;
	bool lost;
	double first; /* when it first showed a loss or a prune (CLOCK_REALTIME s; 0: never) */
};

/*
 * A VP is judged good only when it carried at least this many sends or ACKs:
 * at 10% loss, 20 sends show fewer than MPR_JUDGE_K losses 39% of the time,
 * 50 sends 3% (a lossy VP probed now and then must not read as clean).
 */
#define MPR_JUDGE_MIN 50
/* Of a VP's resends (prunes): this many, this many times the reference rate, at this p. */
#define MPR_JUDGE_K	2
#define MPR_JUDGE_RATIO 4.0
#define MPR_JUDGE_P	1e-3
/* A reference rate never below this: a clean window has none, and one event is no evidence. */
#define MPR_JUDGE_FLOOR 1e-3

/*
 * P(X >= k) for X ~ Binomial(n, p), to about 1e-12 (0 <= p <= 1).
 */
double mpr_binom_tail(unsigned k, unsigned n, double p);

/*
 * The verdict on each VP: 2 (bad: slow) when its prunes (of its ACKs), 1
 * (bad: lossy) when not slow and it lost its clocking or its resends (of
 * its sends), are at least MPR_JUDGE_K, at least MPR_JUDGE_RATIO times what
 * the window's reference rate predicts, and that many would come by chance
 * with p < MPR_JUDGE_P (a one-sided binomial test).  Slow comes first: a
 * path that delayed its packets before it lost its clocking is a queue that
 * overflowed, or a timeout its delay and a stall of the rig's caused (a CI
 * run: both endpoints off for 15 ms, one RTO, six pruned VPs of the
 * degraded link marked lost at once, and the link called lossy).  A lossy
 * or dead link loses without delaying: no prunes.  The reference rate is the window's own, not the
 * baseline's: a recovery sends again what other paths had in flight, so every VP's resends rise
 * with any loss.  It is the rate below which VPs carrying a quarter of the sends (ACKs) lie: the
 * clean paths' once MP-RDMA moved its load onto them, even with most paths bad.  0 (good) with
 * MPR_JUDGE_MIN sends or ACKs and none of that; -1 (not judged) with fewer.  The number judged bad.
 */
unsigned mpr_vp_judge(const struct mpr_vp_evidence *e, size_t n, int8_t *verdict);

/* A link as a suspect: the VPs that cross it and stopped answering, and those that did not. */
struct mpr_vote {
	size_t link;
	unsigned bad, good;
};

/*
 * Vote (the brief's D.7): each VP with verdict[i] 1 or 2 (bad: lossy or
 * slow, mpr_vp_judge) or 0 (good; -1: not judged) counts once on every
 * link of its data and ACK routes.  out gets up to max links with a bad
 * vote, the likeliest first: the highest share of bad votes,
 * bad / (bad + good + 1), then most bad, then inventory order.  A share,
 * not a count: every VP crosses the two hosts' links, so with two paths of
 * four lossy those carry more bad votes than either faulted link, and the
 * good VPs that cross them exonerate them (network tomography).  The + 1
 * keeps one stray bad VP on a link of its own from outranking a link many
 * bad VPs cross.  The number of links written.
 */
size_t mpr_vote(const struct mpr_route *data, const struct mpr_route *ack, const int8_t *verdict,
		size_t n, struct mpr_vote *out, size_t max);

/*
 * The rank of link among votes[0..n): 1 + the links strictly ahead of it (a
 * tie shares the better rank); 0 when no bad VP crossed it.
 */
unsigned mpr_vote_rank(const struct mpr_vote *votes, size_t n, size_t link);

#endif
