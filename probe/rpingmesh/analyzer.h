/* SPDX-License-Identifier: MIT */
/*
 * The R-Pingmesh analyzer (SIGCOMM'24; ../shared/briefs/r-pingmesh.md C).
 * Per window of probe send times:
 *  0. host noise: the timeouts of a host whose agent stalled (a prober or
 *     responder delay over --stall) are not voted on;
 *  1. host-down: a host that sent nothing, whose every RNIC times out for
 *     probers on two hosts or more, is one host problem, not an RNIC each;
 *     and one whose last record so far is in the window, while the others
 *     go on, is stopping: its timeouts there are its own, not voted on;
 *  2. RNIC problems from the ToR-mesh: an RNIC that times out with most of
 *     its ToR-mesh peers (two at least: a ToR of two RNICs cannot tell which
 *     one is dead), worst first, each explaining its peers' timeouts away;
 *  3. switch problems: Algorithm 1 voting of the remaining timeouts over
 *     the forward and the reverse path of each (an ACK takes the reverse
 *     5-tuple), and of lost ACK2s over the reverse path alone; congestion:
 *     the same for probes whose RTT is high, when the top suspect's share
 *     of slow probes stands out against the rest of the fabric's;
 *  4. host processing: a host whose probes' prober delay, or whose
 *     answers' responder delay, is above proc for most of them;
 *  5. services (flows the agents found and probe on their own 5-tuples):
 *     what each sent against its best window, and whether its probes were
 *     lost or slow; a service that sends less, or whose path is in
 *     trouble, is a "service" line with network_related true when its
 *     probes say the network, false when they do not;
 *  6. SLA figures per list (ToR-mesh, inter-ToR, service): timeouts, RTT
 *     and delays' percentiles.
 * Output: JSON lines, as Hostmesh's analyzer writes them, with
 * "monitor":"rpingmesh".
 */
#ifndef ROCELAB_RPM_ANALYZER_H
#define ROCELAB_RPM_ANALYZER_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/recin.h"
#include "probe/rpingmesh/rpmrec.h"

#include <stdint.h>
#include <stdio.h>

struct rpa_cfg {
	long long window_ms;	/* 20 s, as Hostmesh's */
	double rnic_threshold;	/* a ToR-mesh pair timing out more than this is bad: 0.10 */
	int rnic_min_probes;	/* probes a pair needs in a window to be judged: 3 */
	int rnic_min_peers;	/* ToR-mesh peers an RNIC needs to be judged: 2 */
	double rnic_peer_share; /* bad pairs among its peers that make the RNIC bad: 0.5 */
	long long rnic_hold_ms; /* a bad RNIC's timeouts stay its own this long: 60 s */
	double host_down_share; /* timeout share to every RNIC of a silent host: 0.5 */
	int min_votes;		/* abnormal probes needed before voting: 5 */
	double min_share;	/* the top suspect must be on this share of them: 0.5 */
	long long slow_us;	/* an RTT over it is high: 1000 us, as Hostmesh's */
	double slow_share;	/* a hotspot's share of slow probes at least: 0.2 */
	long long proc_us;	/* host-processing when most delays exceed it: 5000 us */
	long long stall_us;	/* a host's prober or responder delay over it: its timeouts in the
				   window are host noise, not the network's: 100 ms */
	long long grace_ms;	/* a window closes this long after its end: timeout + 1 s */
	double svc_loss;	/* a service's probes lost past this share: its path's trouble */
	double svc_degrade;	/* a service sending this share less than its best: degraded */
	size_t max_tuples;	/* 5-tuples counted per window: 4,000,000, or RPM_TUPLES_PER_RNIC an
				   RNIC of the lab when more */
};

/* A window's 5-tuples an RNIC may bring (its targets times their source ports, with room). */
#define RPM_TUPLES_PER_RNIC 512

void rpa_defaults(struct rpa_cfg *c);

extern const struct opt_desc rpa_opts[];

struct rpa;

/* out receives JSON lines; inv is borrowed. */
struct rpa *rpa_new(const struct inventory *inv, const struct rpa_cfg *cfg, FILE *out);
void rpa_free(struct rpa *a);

void rpa_probe(struct rpa *a, size_t host, const struct rpm_probe_rec *p);
void rpa_path(struct rpa *a, size_t host, const struct rpm_path_rec *p);
void rpa_stats(struct rpa *a, size_t host, const char *transport, const struct rec_stats *s);
void rpa_flow(struct rpa *a, size_t host, const struct rpm_flow_rec *f);

/* Close the windows that can no longer get records at realtime now_ns; all of them. */
void rpa_tick(struct rpa *a, uint64_t now_ns);
void rpa_flush(struct rpa *a);

struct rpa_totals {
	uint64_t probes, paths, windows, verdicts, late, refused;
};
void rpa_totals(const struct rpa *a, struct rpa_totals *t);

/* One agent's record stream (recin.h): its whole frames taken; 0, or -1 to drop the stream. */
int rpa_stream_take(struct rpa *a, const struct inventory *inv, struct rec_stream *s);

#endif
