/* SPDX-License-Identifier: MIT */
/* 5-tuple path tracing: UDP probes with rising TTL, ICMP errors read from a raw socket. */
#ifndef ROCELAB_TRACE_H
#define ROCELAB_TRACE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_HOPS 16

struct trace_hop {
	int ttl;
	struct in_addr addr; /* who answered; 0.0.0.0 when nobody did in time */
	bool reached;	     /* the destination answered (port unreachable) */
	double rtt_ms;
};

struct trace_req {
	struct in_addr src, dst;
	uint16_t sport, dport;
	int max_ttl;	/* default 8 */
	int timeout_ms; /* per hop, default 300 */
	int max_misses; /* stop after this many hops in a row did not answer (0: never) */
	int gap_us;	/* trace_udp_many(): between one round's probes, under 1 s (0: none) */
};

/* Does the ICMP error in pkt (from its IPv4 header on) quote req's probe? Fills *from, *type. */
bool trace_match_icmp(const uint8_t *pkt, size_t len, const struct trace_req *req,
		      struct in_addr *from, int *type);

/*
 * Trace the path of one UDP 5-tuple from the current network namespace
 * (trace_udp_many() of one): hops (TRACE_MAX_HOPS of them) gets [0..*n),
 * and it returns 0 (the destination answered), -EHOSTUNREACH (it did not
 * within max_ttl or max_misses), or another -errno.  Needs CAP_NET_RAW.
 */
int trace_udp(const struct trace_req *req, struct trace_hop *hops, int *n);

/*
 * Trace n 5-tuples at once, TTL by TTL: each round's probes leave
 * req[0].gap_us apart (0: together) and wait up to req[0].timeout_ms after
 * the last for their answers, so n traces take at most req[0].max_ttl
 * rounds.  The gap keeps a round from queueing on a slow link: 64 probes of
 * 78 bytes back to back hold a 1.25 Mbit/s link for 32 ms.  hops[i], n_hops[i] and ret[i] as
 * trace_udp() fills and returns them for req[i].  0, or -errno when a
 * socket could not be opened or a probe not sent (then ret[] says nothing).
 * Needs CAP_NET_RAW and a file descriptor per 5-tuple.
 */
int trace_udp_many(const struct trace_req *req, size_t n, struct trace_hop (*hops)[TRACE_MAX_HOPS],
		   int *n_hops, int *ret);

#endif
