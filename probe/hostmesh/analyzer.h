/* SPDX-License-Identifier: MIT */
/*
 * The Hostmesh analyzer (APNet'24 §3.4): per analysis window, RNIC anomalies
 * (more than 10% of an RNIC's probes time out), then Algorithm 1 voting of the
 * remaining timeouts and of high-latency probes over links and switches, SLA
 * figures (RNIC and switch-network drop rates, latency percentiles) and
 * verdicts.  Output: JSON lines (window, verdict, agent).
 */
#ifndef ROCELAB_ANALYZER_H
#define ROCELAB_ANALYZER_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/recin.h"

#include <stdint.h>
#include <stdio.h>

struct az_cfg {
	long long window_ms;	  /* analysis window: 20 s */
	double rnic_threshold;	  /* timeout share that makes an RNIC anomalous: 0.10 */
	long long rnic_hold_ms;	  /* its timeouts stay RNIC problems this long: 60 s */
	int rnic_min_probes;	  /* probes an RNIC needs in a window to be judged: 10 */
	int min_votes;		  /* abnormal probes needed before voting: 5 */
	double min_share;	  /* the top suspect must be on this share of them: 0.5 */
	long long slow_us;	  /* network latency that counts as high, at least: 1000 us */
	long long slow_span_ms;	  /* a hotspot's slow probes span this much send time: 300 ms */
	double slow_alpha;	  /* a hotspot's slow share is this unlikely by chance: 1e-6 */
	double slow_tail;	  /* and above this many times the healthy windows' p99: 2 */
	long long slow_memory_ms; /* the healthy baseline halves its weight this often: 60 s */
	int evidence_windows;	  /* a weak loss accumulates over this many windows: 5 (1: off) */
	double evidence_alpha;	  /* and its share is this unlikely by chance: 1e-4 */
	long long proc_us;	  /* host-processing verdict when most probes exceed it: 5000 us */
	long long grace_ms;	  /* a window closes this long after its end: timeout + 1 s */
	size_t max_abnormal;	  /* abnormal probes kept per window: 1,000,000 */
	size_t max_good;	  /* good-probe path references kept per window: 16,000,000 */
};

void az_defaults(struct az_cfg *c);

/* The analyzer's parameters (params.c). */
extern const struct opt_desc az_opts[];

struct az;

/* out receives JSON lines; inv is borrowed. */
struct az *az_new(const struct inventory *inv, const struct az_cfg *cfg, FILE *out);
void az_free(struct az *a);

/* Inventory index of host name, or -1. */
int az_host_index(const struct az *a, const char *name);

void az_probe(struct az *a, size_t host, const struct hm_probe *p);
void az_path(struct az *a, size_t host, const struct hm_path *p);
void az_agent_stats(struct az *a, size_t host, const char *transport, const struct rec_stats *s);

/* Close the windows that can no longer get records at realtime now_ns. */
void az_tick(struct az *a, uint64_t now_ns);
/* Close every open window (end of input). */
void az_flush(struct az *a);

/*
 * One agent's record stream (recin.h) as it arrives: hm_stream_take() the
 * whole frames in it.  A frame body longer than HM_MAX_FRAME, records
 * before the hello, a hello of another inventory or version: -1, the stream
 * is to be dropped (said on stderr).
 */
#define HM_MAX_FRAME REC_MAX_FRAME
int hm_stream_take(struct az *a, const struct inventory *inv, struct rec_stream *s);

/* Counters since az_new. */
struct az_totals {
	uint64_t probes, paths, windows, verdicts, late, unknown_rnic;
	/* records over the bounds on network input: probes from the future (a window past the
	 * last az_tick), paths past 2048 5-tuples per RNIC pair
	 * (two pools of the most source ports an agent takes), agent stats more often than
	 * once a second */
	uint64_t refused;
};
void az_totals(const struct az *a, struct az_totals *t);

#endif
