/* SPDX-License-Identifier: MIT */
/*
 * The framing of every monitor's record stream (agent to analyzer, over TCP
 * or in a file): a sequence of frames {u16 type, u16 length, body}, the
 * first a hello.  Little-endian, fixed-size bodies; a reader skips types it
 * does not know by length, so old analyzers read newer agents.  Each
 * monitor numbers its own types: Hostmesh 1-15 (hostmesh/hmrec.h),
 * R-Pingmesh 16-31 (rpingmesh/rpmrec.h).
 */
#ifndef ROCELAB_REC_H
#define ROCELAB_REC_H

#include <stddef.h>
#include <stdint.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "records are little-endian; add byte swapping for this target"
#endif

#define REC_MAX_HOPS  8			 /* switch hops a traced path holds */
#define REC_MAX_LINKS (REC_MAX_HOPS + 2) /* and its links, both RNICs' included */

/*
 * An inventory link index in a record: 32 bits (a 10,000-host x 8-RNIC lab has
 * 82,560 links; records of version 1 named them in 16).  REC_NO_LINK: none.
 */
typedef uint32_t rec_link_t;
#define REC_NO_LINK UINT32_MAX

/*
 * A probe's bytes on the wire, for what an agent sends: Ethernet 14, IPv4 20,
 * UDP 8, BTH 12, DETH 8, the payload, ICRC 4 (preamble and FCS not counted).
 */
#define REC_WIRE_BYTES(payload) ((payload) + 66u)

struct rec_frame {
	uint16_t type, len;
} __attribute__((packed));

#define REC_STATS 4 /* every monitor's frame type of struct rec_stats */

/*
 * What every monitor's hello begins with: which monitor and version, the
 * agent's host (NUL-padded) and RNICs, its probe transport, and the
 * fingerprint of the inventory it was given.  A monitor's hello adds its
 * own fields after.
 */
struct rec_hello_head {
	uint32_t magic;
	uint16_t version;
	uint8_t n_rnics;
	uint8_t transport; /* 0 udp, 1 verbs */
	char host[32];
	uint64_t inv_fingerprint;
} __attribute__((packed));

/*
 * An agent's counters since it started (every monitor's, type 4 in each
 * numbering), sent every few seconds and as its last words.  The fields from
 * cpu_us on came later: a shorter body reads them as 0.
 */
struct rec_stats {
	uint64_t t_ns;
	uint64_t probes, timeouts, send_errors, malformed, foreign, dropped_records;
	uint64_t traces, traces_complete;
	uint32_t rss_kb;
	uint32_t rx_overflow;	    /* packets the agent's receive path dropped when full (not the
				       network's) */
	uint64_t cpu_us;	    /* the agent's user + system CPU time */
	uint64_t tx_pkts, tx_bytes; /* what it sent (probes, ACKs, traces), bytes as on the wire */
} __attribute__((packed));
#define REC_STATS_MIN_LEN offsetof(struct rec_stats, cpu_us) /* the first version's body */

#endif
