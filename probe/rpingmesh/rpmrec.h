/* SPDX-License-Identifier: MIT */
/*
 * R-Pingmesh records: what its agent streams to its analyzer, in
 * probe/rec.h's frames (types 16-31; the agent's counters reuse Hostmesh's
 * HM_STATS, 4).  Times are CLOCK_REALTIME ns on the analyzer's clock.
 */
#ifndef ROCELAB_RPMREC_H
#define ROCELAB_RPMREC_H

#include "probe/rec.h"

#include <stdint.h>

#define RPM_REC_MAGIC	 0x4d504c52u /* "RLPM" */
#define RPM_REC_VERSION	 2	     /* 2: links in 32 bits (rec_link_t) */
#define RPM_DEFAULT_PORT 4793	     /* analyzer TCP port (Hostmesh's is 4790) */
#define RPM_UNKNOWN_NS	 UINT32_MAX

enum rpm_rec_type { RPM_REC_HELLO = 16, RPM_REC_PROBE = 17, RPM_REC_PATH = 19, RPM_REC_FLOW = 20 };

struct rpm_hello {
	struct rec_hello_head head; /* RPM_REC_MAGIC, RPM_REC_VERSION */
	uint32_t timeout_us;
	uint32_t reserved;
} __attribute__((packed));

/* Flags of a probe record. */
#define RPM_F_KERNEL 0x01 /* T2 and T5 are kernel timestamps (else app time) */
#define RPM_F_HW     0x02 /* T2 and T5 are RNIC completion timestamps */

/* One probe of the agent's host: its fate and what its six timestamps gave. */
struct rpm_probe_rec {
	uint64_t t1_ns;				  /* T1, sent */
	uint32_t rtt_ns, prober_ns, responder_ns; /* RPM_UNKNOWN_NS: not measured */
	uint16_t dst_host;			  /* the responder (inventory index) */
	uint8_t src_rnic, dst_rnic;
	uint8_t list;	/* enum rpm_list */
	uint8_t status; /* enum rpm_status */
	uint8_t flags;
	uint8_t ttl; /* the probe's IP TTL on arrival, as the responder echoed it (0: no ACK) */
	/* the 5-tuple's UDP source port as the prober named it (over udp the wire's;
	 * verbs on rxe puts its QP's on the wire); the probe's IP ID (0: unknown) */
	uint16_t sport, ip_id;
	/* how late it was sent after it was due (the agent's timer: issue 64, the rig
	 * measured), microseconds; 0 from agents before it */
	uint32_t late_us;
} __attribute__((packed));

/*
 * The path of one 5-tuple from an RNIC of the agent's host (src RNIC, dst
 * host:RNIC, sport; UDP 4791) as last traced: a probe's forward path, or
 * the path of the ACKs the host sent back on that tuple (the reverse path
 * of the prober's probes with that sport).  sport names the tuple as the
 * probe records do; the trace itself went out on the port the transport
 * puts on the wire for it.
 */
struct rpm_path_rec {
	uint64_t t_ns;
	uint16_t sport, dst_host;
	uint8_t src_rnic, dst_rnic;
	uint8_t n_hops, complete, n_links, reserved[3];
	uint32_t hops[REC_MAX_HOPS];	 /* hop addresses (network order), 0: no answer */
	rec_link_t links[REC_MAX_LINKS]; /* inventory link indexes, source RNIC first */
} __attribute__((packed));

/*
 * A service flow the agent's host sends (svc.h): what it sent since the
 * flow's last record (about a second), and whether it has ended (idle).
 * Its probes are those of list RPM_SERVICE with the flow's sport.
 */
struct rpm_flow_rec {
	uint64_t t_ns;
	uint16_t dst_host;
	uint8_t src_rnic, dst_rnic;
	uint16_t sport;
	uint8_t ended, reserved;
	uint32_t pkts, bytes; /* since its last record */
	uint32_t span_ms;     /* the time they were counted over */
	uint32_t qpn;	      /* its destination QP (BTH) */
} __attribute__((packed));

#endif
