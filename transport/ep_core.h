/* SPDX-License-Identifier: MIT */
/*
 * What every transport endpoint on an RNIC has (mpr_ep.c, spray_ep.c): the
 * RNIC found in the inventory, its datapath (transport/dp) with packets
 * batched for one send call, the event loop, and the statistics clock that
 * writes a JSON line every interval and one at the end, each with the
 * endpoint's own CPU figures.
 */
#ifndef ROCELAB_EP_CORE_H
#define ROCELAB_EP_CORE_H

#include "harness/lib/inventory.h"
#include "transport/dp/dp.h"
#include "transport/dp/tloop.h"
#include "transport/mprdma/mpr_wire.h"

#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

/* An RNIC of the inventory, named "host:rnic"; -ENOENT (said on stderr). */
int ep_find_rnic(const struct inventory *inv, const char *spec, const struct inv_rnic **out);
/* A fresh nonzero IP ID for every packet, retransmissions too (ipid-drop samples them). */
uint16_t ep_fresh_ip_id(uint64_t *rng);
/* One JSON line to out, flushed; o is consumed. */
void ep_emit(FILE *out, json_t *o);

/* Packets built for one sendmmsg(): each into buf[n], then ep_txq_push(). */
struct txq {
	const struct dp_ops *dp;
	struct dp_port *port;
	uint8_t buf[DP_BATCH][MPR_WIRE_PAYLOAD + 128];
	struct dp_tx tx[DP_BATCH];
	unsigned n;
};

void ep_txq_flush(struct txq *q);
/* The packet of len bytes built in buf[n], to dst; a full batch goes at once. */
void ep_txq_push(struct txq *q, size_t len, struct in_addr dst);

/* What both endpoints have: the loop, the datapath, the statistics clock. */
struct ep_core {
	struct tloop loop;
	struct txq q;
	struct tw_timer t_bin, t_end;
	uint64_t bin, interval_ns, t0;
	FILE *out;
	/* the scheduler's figures at the start and the last line (ns): on a CPU, waiting for one */
	uint64_t run0, wait0, run_bin, wait_bin;
	int sched_fd; /* /proc/thread-self/schedstat, open for the run (-1: none) */
};

/*
 * The loop, the RNIC's datapath for qpn (and the span of QPNs from it)
 * watched with on_rx, a statistics line by on_bin every interval and the
 * end after duration (0: none; ctx to both).  0, or -1 with nothing left
 * open (the reason printed).
 */
int ep_core_open(struct ep_core *c, const struct inv_rnic *me, uint32_t qpn, uint32_t qpn_span,
		 long long interval_ms, long long duration_ms, void (*on_rx)(void *, uint64_t),
		 void (*on_bin)(void *, uint64_t), void *ctx);
/* Run until the end or *stop; the seconds it ran, or -1 when the loop failed. */
double ep_core_run(struct ep_core *c, const volatile sig_atomic_t *stop);
void ep_core_close(struct ep_core *c);
/* The next statistics line's timer. */
void ep_core_next_bin(struct ep_core *c);
/*
 * Everything the datapath holds, a batch at a time: each packet to each
 * (with ctx and now), the batch's replies sent after it.  With rt_off,
 * CLOCK_REALTIME - CLOCK_MONOTONIC read with each batch (receive times are
 * the former, send stamps the latter).
 */
void ep_core_drain(struct ep_core *c, void (*each)(void *ctx, const struct dp_rx *rx, uint64_t now),
		   void *ctx, uint64_t now, uint64_t *rt_off);
/* A statistics line, with its CPU figures; the end line, with the run's. */
void ep_emit_bin(struct ep_core *c, json_t *o);
void ep_emit_end(struct ep_core *c, json_t *o);

/*
 * Emulated ECN (EP_ECN_SOJOURN): the sender stamps CLOCK_MONOTONIC, the
 * kernel's receive time is CLOCK_REALTIME, which NTP or a hypervisor may
 * step mid-run, so the caller brings the receive time to its monotonic
 * clock first (rx_mono).  The two hosts' monotonic clocks then differ by a
 * constant, which the minimum one-way delay takes away; what is left is
 * queueing, marked past k_ns.  The queue's sum, count and most (µs) are
 * the interval's: the caller zeroes them.
 */
struct ep_sojourn {
	uint64_t k_ns;
	int64_t min_owd;
	bool have_owd;
	double queue_us_sum;
	uint64_t queue_us_max;
	unsigned long long n;
};

/* true: mark this packet CE. */
bool ep_sojourn(struct ep_sojourn *s, uint64_t rx_mono, uint64_t tx_ns);

#endif
