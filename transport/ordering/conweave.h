/* SPDX-License-Identifier: MIT */
/*
 * A ConWeave-style reorderer (Song et al., "Network Load Balancing with
 * In-network Reordering Support for RDMA", SIGCOMM'23), the baseline the
 * Eunomia paper's section 5 compares with, as conweave-ns3 models it
 * (conweave-project/conweave-ns3, src/point-to-point/model/
 * conweave-routing.cc, RouteInput()).  Two ToR roles, both pure state:
 *
 * The source ToR keeps each connection on one path a round ("epoch").  An
 * epoch's first packet is an RTT_REQUEST (INIT); when its reply does not
 * come back within the base RTT plus reply_extra_ns, the next packet is
 * the old path's TAIL and every packet after it takes a new path: of two
 * sampled at random, the first no NOTIFY (an ECN mark the destination saw)
 * has paused for pause_ns, else the second, else the path stays.  The
 * TAIL's reply (CLEAR), or the INIT's in time, ends the epoch; a
 * connection idle for expiry_ns starts a new one on a new path.
 *
 * The destination ToR holds a rerouted epoch's packets that arrive before
 * its TAIL in a queue of the connection's own (a VOQ) and releases them
 * behind the TAIL, or when the TAIL is overdue: the old path's last packet
 * arrival predicted from the send-time gap, plus flush_extra_ns
 * (default_wait_ns without a timestamp of the old path).  A flush before
 * the TAIL is reordering the NIC sees.  At most two paths a connection at
 * once, as the Eunomia paper notes.
 *
 * conweave-ns3's parameters (scratch/network-load-balance.cc) at its 8 µs
 * base RTT, kept as multiples of it: reply_extra 4 µs (RTT / 2), pause
 * 8 µs (1 RTT), expiry 1000 µs (125 RTT), flush_extra 32 µs (4 RTT),
 * default_wait 500 µs (62.5 RTT).  The control packets (replies, NOTIFY)
 * are the caller's to carry.
 */
#ifndef ROCELAB_CONWEAVE_H
#define ROCELAB_CONWEAVE_H

#include <stdbool.h>
#include <stdint.h>

#define CW_PATHS_MAX 16

struct cw_cfg {
	unsigned n_paths; /* the source ToR's uplinks to the destination ToR */
	uint64_t base_rtt_ns, reply_extra_ns, pause_ns, expiry_ns, flush_extra_ns, default_wait_ns;
};

/* conweave-ns3's parameters for n paths, scaled to base_rtt_ns. */
void cw_cfg_default(struct cw_cfg *c, unsigned n_paths, uint64_t base_rtt_ns);

enum cw_flag { CW_DATA, CW_INIT, CW_TAIL };

/* What the source ToR writes into a data packet (conweave-ns3's ConWeaveDataTag). */
struct cw_tag {
	uint32_t epoch;
	uint8_t phase;		 /* 0: before the reroute, 1: after */
	uint8_t flag;		 /* enum cw_flag */
	uint64_t tx_ns, tail_ns; /* sent at the source ToR; the epoch's TAIL was sent (0: none) */
};

/* The source ToR's paths: paused by a NOTIFY until then. */
struct cw_paths {
	uint64_t paused_until[CW_PATHS_MAX];
};

struct cw_tx {
	uint32_t epoch;
	uint8_t phase;
	bool stabilized, started;
	unsigned path;
	uint64_t active_ns, reply_at, tail_ns; /* reply_at UINT64_MAX: none awaited */
};

struct cw_stats {
	unsigned long long reroutes, held, flush_tail, flush_timeout;
};

void cw_tx_init(struct cw_tx *t);
/* One data packet leaves the source ToR now: its path (0 .. n_paths - 1) and its tag. */
unsigned cw_tx_route(struct cw_tx *t, const struct cw_cfg *c, const struct cw_paths *p,
		     uint64_t now, uint64_t *rng, struct cw_tag *tag, struct cw_stats *st);
/* A reply (RTT_REPLY for an INIT, CLEAR for a TAIL) of epoch reaches the source ToR. */
void cw_tx_reply(struct cw_tx *t, uint32_t epoch, enum cw_flag of, uint64_t now);
/* A NOTIFY: path carried an ECN-marked packet; the source ToR pauses it. */
void cw_tx_notify(struct cw_paths *p, const struct cw_cfg *c, unsigned path, uint64_t now);

struct cw_rx {
	uint32_t epoch;
	uint8_t phase;
	bool cache, reordering;
	uint64_t phase0_tx, phase0_rx, tail_ns;
	uint64_t flush_at; /* the VOQ's release when the TAIL has not come (reordering) */
};

enum cw_act {
	CW_PASS,       /* on to the NIC */
	CW_HOLD,       /* into the connection's VOQ (flush_at set) */
	CW_PASS_FLUSH, /* on to the NIC, then the VOQ behind it (the TAIL came) */
};

void cw_rx_init(struct cw_rx *r);
/*
 * A data packet reaches the destination ToR now: what to do with it, and in
 * *reply the reply the source ToR asked for (CW_INIT, CW_TAIL, or CW_DATA:
 * none).  Call cw_rx_flushed() once the VOQ is released.
 */
enum cw_act cw_rx_data(struct cw_rx *r, const struct cw_cfg *c, const struct cw_tag *tag,
		       uint64_t now, enum cw_flag *reply, struct cw_stats *st);
/* The VOQ was released (behind its TAIL, or at flush_at). */
void cw_rx_flushed(struct cw_rx *r, bool by_tail, struct cw_stats *st);

#endif
