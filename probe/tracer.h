/* SPDX-License-Identifier: MIT */
/*
 * An agent's path tracer: probes of one 5-tuple sent with TTL 1, 2, ...,
 * the switches' ICMP time-exceeded answers matched by the quoted IP ID, a
 * token bucket for the switches' ICMP budget, and a few traces in flight at
 * once.  What to trace and what a trace's packets carry are the caller's
 * (each monitor names its tuples with a key of its own); this is the
 * mechanism both monitors share.
 */
#ifndef ROCELAB_TRACER_H
#define ROCELAB_TRACER_H

#include "probe/ptrans.h"
#include "probe/rec.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#define TR_MAX_JOBS 8

struct tr_job {
	bool used;
	uint64_t key;		  /* the caller's name for the 5-tuple */
	struct in_addr src, dst;  /* its addresses */
	uint16_t wire_sport;	  /* the UDP source port its packets really carry */
	unsigned long long start; /* monotonic ns */
	int n_sent;
	uint16_t ids[REC_MAX_HOPS];	   /* IP ID of the packet sent with TTL i + 1 */
	struct in_addr hops[REC_MAX_HOPS]; /* who answered it, 0.0.0.0: nobody yet */
	int reached_ttl;		   /* smallest TTL that reached the destination, 0: none */
};

struct tracer {
	int icmp; /* raw ICMP socket, -1 when there is none (no traces) */
	double rate, tokens;
	unsigned long long last_refill, timeout_ns;
	struct tr_job jobs[TR_MAX_JOBS];
	uint64_t tx_pkts, tx_bytes; /* what its traces sent, bytes as on the wire */
};

/* rate traces a second at most, timeout_ms to wait for a trace's answers.  0 or -errno. */
int tracer_open(struct tracer *t, double rate, long long timeout_ms, unsigned long long now);
void tracer_close(struct tracer *t);

/* Read the ICMP answers waiting on t->icmp. */
void tracer_icmp(struct tracer *t);

/* The destination's agent says TTL ttl of key's trace reached it. */
void tracer_reached(struct tracer *t, uint64_t key, int ttl);

/* Whether key is being traced now. */
bool tracer_busy(const struct tracer *t, uint64_t key);

/* Hand each trace that is complete or past its timeout to done(), and free its job. */
void tracer_reap(struct tracer *t, unsigned long long now, void (*done)(void *, struct tr_job *),
		 void *ctx);

/* A free job if the budget allows a trace now (tokens refilled to now), else NULL. */
struct tr_job *tracer_job(struct tracer *t, unsigned long long now);

/*
 * Start trace key in job j (from tracer_job()): TTL 1..top from port (ops)
 * to dst with source port wire_sport; payload(ctx, ttl, buf) writes each
 * packet's payload (up to 64 bytes) and returns its length.  Spends a token.
 */
void tracer_start(struct tracer *t, struct tr_job *j, uint64_t key, const struct pt_ops *ops,
		  struct pt_port *port, struct in_addr src, const struct pt_dst *dst,
		  uint16_t wire_sport, int top, uint64_t cookie,
		  size_t (*payload)(void *ctx, int ttl, uint8_t *buf), void *ctx,
		  unsigned long long now);

/*
 * The hops of a finished job to map (pathmap_links()): up to the one before
 * the destination when it was reached, else the answered prefix.
 */
int tracer_hops(const struct tr_job *j);

#endif
