/* SPDX-License-Identifier: MIT */
/*
 * R-Pingmesh's service tracing by packets (../shared/briefs/r-pingmesh.md
 * E4 "--services packet"; the paper hooks connection setup instead): a
 * packet socket on each RNIC netdev sees the host's outgoing RoCEv2
 * packets (UDP 4791) that are not a monitor's (a destination QP of
 * Hostmesh's 0x1xx or R-Pingmesh's 0x2xx is a probe, an ACK or a trace);
 * each (RNIC, destination address, UDP source port) is a service flow
 * until it has been idle for a while.  The agent probes each flow's outer
 * 5-tuple, so ECMP puts the probes on the service's path.  Packets sent
 * with a low TTL are path traces' (rocelab's own sweeps), not a flow's.
 *
 * The parser and the flow table are pure (no clock reads): unit tests give
 * them frames and times.
 */
#ifndef ROCELAB_RPM_SVC_H
#define ROCELAB_RPM_SVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPM_SVC_MAX	64 /* flows an agent follows at once */
#define RPM_SVC_MIN_TTL 32 /* a packet sent with a lower IP TTL is a path trace's, not a flow's */

/* What one outgoing frame says of a service. */
struct rpm_svc_pkt {
	uint32_t src, dst; /* IPv4, network order */
	uint16_t sport;
	uint32_t qpn; /* BTH destination QP */
	uint32_t len; /* the frame's length on the wire (Ethernet header and IP packet) */
};

/*
 * A frame (Ethernet, the first len bytes of it): 1 and *p when it is a
 * RoCEv2 packet of a service (its length on the wire from its IP header);
 * 0 when it is not RoCEv2 or is a monitor's (counted by the caller);
 * -EMSGSIZE when too little of it was captured.
 */
int rpm_svc_parse(const uint8_t *frame, size_t len, struct rpm_svc_pkt *p);

struct rpm_flow {
	bool used;
	uint8_t src_rnic;
	uint32_t dst; /* network order */
	uint16_t sport;
	uint32_t qpn;
	unsigned long long first, last; /* the caller's clock, ns */
	uint64_t pkts, bytes;		/* so far */
	uint64_t rep_pkts, rep_bytes;	/* as last reported */
	unsigned long long rep_t;	/* when (first: its start) */
};

struct rpm_svc {
	struct rpm_flow f[RPM_SVC_MAX];
	unsigned long long idle_ns; /* a flow idle this long has ended */
	unsigned long long full;    /* packets of new flows left out: the table was full */
};

/* A packet of RNIC src_rnic at now: its flow (*is_new when it starts one), or NULL (full). */
struct rpm_flow *rpm_svc_add(struct rpm_svc *s, uint8_t src_rnic, const struct rpm_svc_pkt *p,
			     unsigned long long now, bool *is_new);

/* The flows idle since now - idle_ns end: each given to ended() first.  How many. */
size_t rpm_svc_expire(struct rpm_svc *s, unsigned long long now,
		      void (*ended)(void *, const struct rpm_flow *), void *ctx);

/*
 * A packet socket on netdev (in this network namespace) that takes the
 * host's outgoing RoCEv2 packets to monitors' QPs out in the kernel (a
 * classic BPF filter) and the first 64 bytes of the rest.  The fd, or
 * -errno with err filled.
 */
int rpm_svc_open(const char *netdev, char *err, size_t errlen);

#endif
