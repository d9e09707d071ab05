/* SPDX-License-Identifier: MIT */
/*
 * What every monitor's agent keeps and does alike: its host and RNICs, the
 * routed plan its traces map onto, its path tracer, its record stream to
 * the analyzer and the counters it reports there.  A monitor's agent holds
 * one as its member c and does its own probing around it.
 */
#ifndef ROCELAB_AGENTCORE_H
#define ROCELAB_AGENTCORE_H

#include "harness/lib/inventory.h"
#include "probe/monitor.h"
#include "probe/ptrans.h"
#include "probe/rec.h"
#include "probe/recout.h"
#include "probe/tracer.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

struct topo;

struct agent_core {
	const struct inventory *inv;
	const struct inv_host *h;
	size_t host, n; /* the host's inventory index, its RNICs */
	struct topo *topo;
	uint32_t nonce; /* this run's, in every probe */
	struct sockaddr_in az;
	struct tracer tr;
	struct recout out;
	struct rec_stats st;
	uint32_t *rx_seen;	     /* per RNIC: the transport's receive overflows as last read */
	const struct agent_cfg *cfg; /* the monitor's options' common part */
	char how[320];		     /* why its transport is what it is */
	unsigned long long start;    /* when it was set up (monotonic ns) */
	unsigned long long trace_idle_until; /* nothing to trace before this (monotonic ns) */
	unsigned long long next_stats;	     /* its counters go to the analyzer then (monotonic) */
};

/* Agents report their counters this often (and first, and as their last words). */
#define AGENT_STATS_NS (5000ULL * 1000000ULL)

/* A probe's send completion cookie with this bit is a trace's, not a probe's. */
#define AGENT_TRACE_COOKIE (1ULL << 63)

/*
 * The agent for cfg->host of inv, cfg's transport resolved ("auto": what
 * this host has, why in c->how): its RNICs (between lo and hi, else
 * refused with why, "Hostmesh probes between 2 to 64 RNICs of one host"),
 * the analyzer at cfg->analyzer (ADDR[:PORT], default port), the routed
 * plan, the random seed (0: from the clock and pid) and the run's nonce.
 * 0, or an exit status with the reason said.  Undo with
 * agent_core_teardown(), also after a failure.
 */
int agent_core_setup(struct agent_core *c, const struct inventory *inv, struct agent_cfg *cfg,
		     uint16_t port, size_t lo, size_t hi, const char *why);
void agent_core_teardown(struct agent_core *c);

/*
 * Its path tracer (cfg->trace_rate traces a second, each answered within
 * trace_timeout_ms) and its record stream (to the analyzer, or the file
 * out; buffer_bytes while the analyzer is away), which starts with hello
 * (a whole frame).  Without a raw ICMP socket nothing is traced, said; a
 * stream that cannot be opened is said and is RL_EXIT_SETUP.  0.
 */
int agent_core_open(struct agent_core *c, const void *hello, size_t hello_len,
		    unsigned long long now);

/*
 * What a monitor's agent does in agent_core_run()'s loop, around what every
 * agent does there (the path traces, the counters, the record stream, the
 * analyzer's absence).  a is the monitor's agent, holding the core.
 */
struct agent_loop {
	/*
	 * Sets a up for host cfg names in inv with its monitor's options cfg
	 * (agent_core_main()'s copy, its to keep until the end;
	 * agent_core_setup() and agent_core_open() among it): 0, or an exit
	 * status with the reason said.
	 */
	int (*setup)(void *a, const struct inventory *inv, void *cfg);
	size_t agent_size;	   /* the monitor's agent: its struct agent_core first */
	void (*teardown)(void *a); /* also after a failed setup */
	/* Its probing due at monotonic now; returns when it next must wake, next at the latest. */
	unsigned long long (*tick)(void *a, unsigned long long now, unsigned long long next);
	void (*trace_done)(void *a, struct tr_job *j); /* agent_core_traces()' done and next */
	bool (*trace_next)(void *a, struct tr_job *j, unsigned long long now);
	void (*rotate)(void *a, unsigned long long now); /* its source ports, every rotate_ms */
	void (*stats)(void *a);				 /* its counters to the analyzer */
	/* After the record stream is served: its own connections (NULL: none), as tick. */
	unsigned long long (*service)(void *a, unsigned long long now, unsigned long long next);
	/* Waits for its sockets (the tracer's and the stream's too) until monotonic next, at the
	 * latest, and takes what came. */
	void (*wait)(void *a, unsigned long long now, unsigned long long next);
	void (*last)(void *a); /* its last words, before the counters (NULL: none) */
	/* What its summary line adds to every agent's counters (NULL: nothing). */
	void (*summary)(const void *a, char *buf, size_t len);
};

/*
 * A monitor's agent (l->agent_size bytes, zeroed) for inv with its
 * options cfg (cfg_size bytes, copied): set up, then until the options'
 * duration_ms after its setup (0: until SIGINT/SIGTERM), its source ports
 * rotated every rotate_ms; then its last words, its counters and the
 * records still buffered go out, its summary is said and it is torn down.
 * 0, an exit status of its setup, or RL_EXIT_SETUP when the analyzer was
 * away orphan_ms (0: never).
 */
int agent_core_main(const struct agent_loop *l, const struct inventory *inv, const void *cfg,
		    size_t cfg_size);

/* Whether the counters are due at monotonic now (then the next are AGENT_STATS_NS later). */
static inline bool agent_core_stats_due(struct agent_core *c, unsigned long long now)
{
	if (now < c->next_stats)
		return false;
	c->next_stats = now + AGENT_STATS_NS;
	return true;
}

/*
 * RNIC i's probe port as its transport opens it: its netdev, RDMA device,
 * address and GID index, the options' DSCP, QP number qpn, UDP 4791 shared
 * (the other monitor's agent may hold it already).
 */
struct pt_cfg agent_core_port_cfg(const struct agent_core *c, size_t i, uint32_t qpn);

/* The head of the agent's hello: its monitor's magic and version, its host, RNICs, transport. */
void agent_core_hello(const struct agent_core *c, struct rec_hello_head *h, uint32_t magic,
		      uint16_t version, const struct pt_ops *transport);

/*
 * The agent's path traces as its tracer has room: finished ones to
 * done(ctx, job); then next(ctx, job, now) starts one on each free job
 * until it finds no 5-tuple in need (false), after which none is looked for
 * for a second (new 5-tuples: set trace_idle_until to 0).
 */
void agent_core_traces(struct agent_core *c, unsigned long long now,
		       void (*done)(void *ctx, struct tr_job *j),
		       bool (*next)(void *ctx, struct tr_job *j, unsigned long long now),
		       void *ctx);

/*
 * Trace the 5-tuple key from src to dst on job j: from the RNIC's tracer
 * socket when it has one (else its probe port, through t), on the UDP port
 * its probes from sport leave with (the same 5-tuple, the same path), TTL 1
 * to top, each packet's payload from payload(pctx, ttl, buf).
 */
void agent_core_trace(struct agent_core *c, struct tr_job *j, uint64_t key, const struct pt_ops *t,
		      struct pt_port *probe_port, struct pt_port *tracer_port, struct in_addr src,
		      const struct pt_dst *dst, uint16_t sport, int top,
		      size_t (*payload)(void *ctx, int ttl, uint8_t *buf), void *pctx,
		      unsigned long long now);

/* A packet the transport could not take as a probe of this run (pt_events.on_bad). */
void agent_core_bad(struct agent_core *c, int reason);

/*
 * The agent's counters as of realtime t_ns, with the receive overflows of
 * RNIC i's port (port(ctx, i)) summed and said once per growth (what: the
 * packets those losses count as), queued to the analyzer with the tracer's
 * packets added.
 */
void agent_core_stats(struct agent_core *c, const struct pt_ops *t,
		      struct pt_port *(*port)(void *ctx, size_t i), void *ctx, const char *what,
		      uint64_t t_ns);

/*
 * An agent's sockets in one epoll set: a wake-up is one system call, not a
 * poll over every descriptor (a poll over 34 descriptors cost 26 us a call
 * here).  A connection in it (fd -1: none), as agent_watch_conn() put it.
 */
struct agent_conn_watch {
	int fd;
	uint32_t events;
	unsigned gen;
};

/* fd in epfd for EPOLLIN, owner its event's data: 0 or -errno. */
int agent_watch(int epfd, int fd, uint64_t owner);

/*
 * A new epoll set in *epfd (-1 until made) with the sockets that stay for
 * the agent's life: RNIC s's probe port's (port(ctx, s) of transport t,
 * owner s) and the tracer's ICMP socket (owner icmp).  0 or -errno.
 */
int agent_core_watch(struct agent_core *c, const struct pt_ops *t,
		     struct pt_port *(*port)(void *ctx, size_t i), void *ctx, uint64_t icmp,
		     int *epfd);

/*
 * A connection's socket in epfd as p asks (NULL: none), or as it was, its
 * events owner's.  Connections come and go, and a new socket may take a
 * closed one's number: gen (its connection's count) tells them apart.  A
 * socket is in the set until it is closed, which takes it out.
 */
void agent_watch_conn(int epfd, struct agent_conn_watch *w, uint64_t owner, const struct pollfd *p,
		      unsigned gen);

/* An epoll event's bits as poll's revents. */
short agent_poll_revents(uint32_t events);

#endif
