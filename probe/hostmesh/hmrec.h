/* SPDX-License-Identifier: MIT */
/*
 * Hostmesh records: what an agent streams to the analyzer (TCP or a file),
 * in probe/rec.h's frames.
 */
#ifndef ROCELAB_HMREC_H
#define ROCELAB_HMREC_H

#include "probe/rec.h"

#include <stdint.h>

#define HM_MAGIC	0x4d484c52u /* "RLHM" */
#define HM_VERSION	2	    /* 2: links in 32 bits (rec_link_t) */
#define HM_MAX_HOPS	REC_MAX_HOPS
#define HM_MAX_LINKS	REC_MAX_LINKS
#define HM_DEFAULT_PORT 4790 /* analyzer TCP port */

enum hm_type { HM_HELLO = 1, HM_PROBE = 2, HM_PATH = 3, HM_STATS = 4 };

struct hm_hello {
	struct rec_hello_head head; /* HM_MAGIC, HM_VERSION */
	uint32_t interval_us, timeout_us;
} __attribute__((packed));

enum hm_status { HM_OK = 0, HM_TIMEOUT = 1, HM_SEND_ERROR = 2 };

/* Flags of a probe record. */
#define HM_F_TX_KERNEL 0x01 /* ② is a kernel software timestamp (else clock_gettime) */
#define HM_F_RX_KERNEL 0x02 /* ③ likewise */
#define HM_F_HW	       0x04 /* ② and ③ are RNIC completion timestamps */
#define HM_F_ECN_CE    0x08 /* received with ECN CE */

/* One probe: sent at t_send (①, CLOCK_REALTIME), its fate and its delays. */
struct hm_probe {
	uint64_t t_send_ns;
	uint32_t net_ns;  /* ③ - ② */
	uint32_t proc_ns; /* (④ - ①) - (③ - ②) */
	uint16_t sport, ip_id;
	uint8_t src, dst; /* RNIC indexes of the agent's host (inventory order) */
	uint8_t status, flags;
	uint8_t ttl, tos; /* as received */
	/* how late its round's timer fired: the agent's send lateness (issue 64: the rig
	 * measured), in 10 us units, 65535 and more saturated; 0 from agents before it */
	uint16_t late_10us;
} __attribute__((packed));

/* The path of one 5-tuple (src RNIC, dst RNIC, sport; UDP 4791) as last traced. */
struct hm_path {
	uint64_t t_ns;
	uint16_t sport;
	uint8_t src, dst;
	uint8_t n_hops, complete, n_links, reserved;
	uint32_t hops[HM_MAX_HOPS];	/* hop addresses (network order), 0: no answer */
	rec_link_t links[HM_MAX_LINKS]; /* inventory link indexes, source RNIC first */
} __attribute__((packed));

#endif
