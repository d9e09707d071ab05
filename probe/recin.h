/* SPDX-License-Identifier: MIT */
/*
 * An analyzer's record intake (rec.h's frames), for every monitor: agents'
 * streams over TCP (bounded: connections, a hello within 10 s) or record
 * files replayed, each stream's bytes handed to the monitor's take().
 */
#ifndef ROCELAB_RECIN_H
#define ROCELAB_RECIN_H

#include "harness/lib/inventory.h"
#include "probe/rec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One agent's stream as it arrives: take() consumes the whole frames of buf[0..len). */
struct rec_stream {
	int host;	       /* -1 until the hello */
	const char *transport; /* the agent's probe transport, from its hello ("udp", "verbs") */
	size_t len;
	char peer[48];
	uint8_t buf[65536];
};

void rec_stream_init(struct rec_stream *s, const char *peer);

/* A monitor's analyzer as the intake drives it. */
struct rec_sink {
	void *ctx;
	/* The whole frames in s: 0, or -1 when the stream is to be dropped (said on stderr). */
	int (*take)(void *ctx, const struct inventory *inv, struct rec_stream *s);
	/* Close what can no longer get records at realtime now_ns; at the end, everything. */
	void (*tick)(void *ctx, uint64_t now_ns);
	void (*flush)(void *ctx);
};

/* A frame body longer than this is not of a record stream (the longest, agent stats, is 104). */
#define REC_MAX_FRAME 1024

/* One type of record a monitor's analyzer takes: its frame type, its size, and what takes it. */
struct rec_kind {
	uint16_t type;
	uint16_t size;
	/* body: size bytes, aligned; host: the stream's (inventory index) */
	void (*take)(void *az, size_t host, const void *body);
};

/* A monitor's record stream as its analyzer takes it. */
struct rec_intake {
	const char *title; /* "Hostmesh": in what the analyzer says of streams */
	const char *hint;  /* after "not a ... record stream": where such a stream goes instead */
	uint32_t magic;
	uint16_t version;
	uint16_t hello_type, hello_size; /* its hello begins with struct rec_hello_head */
	const struct rec_kind *kinds;	 /* what it takes, besides hello and the counters */
	size_t n_kinds;
	/* the agent's counters (REC_STATS frames), with the transport its hello named */
	void (*stats)(void *az, size_t host, const char *transport, const struct rec_stats *st);
};

/*
 * The whole frames of s into the monitor's analyzer az: the hello first
 * (its monitor, version and inventory checked), then records by type,
 * types it does not know skipped by length.  0, or -1 when the stream is
 * to be dropped (said on stderr).  The rest of a frame stays in s.
 */
int rec_take(const struct rec_intake *in, void *az, const struct inventory *inv,
	     struct rec_stream *s);

/* A listening socket on "ADDR[:PORT]" (default_port): the fd, or -errno with err filled. */
int recin_listen(const char *spec, uint16_t default_port, char *err, size_t errlen);

/* Take agents' streams on lfd until duration_ms (0: SIGINT/SIGTERM); then flush.  0. */
int recin_serve(const struct rec_sink *k, const struct inventory *inv, int lfd,
		long long duration_ms);

/* Replay record files ("-": stdin) one after another, then flush: 0, or RL_EXIT_USAGE. */
int recin_replay(const struct rec_sink *k, const struct inventory *inv, char **files, int n);

/* An agent's stats frame body of len bytes (REC_STATS_MIN_LEN at least) into st. */
bool rec_stats_read(const void *body, size_t len, struct rec_stats *st);

/*
 * Its JSON line for the analyzer's output, {"type":"agent","host":...}, the
 * same for every monitor: the components read overhead from these.  One a
 * second per host at most: *last is the time of the host's last line (0:
 * none), and false says this one was not printed.
 */
struct out;
bool rec_stats_line(struct out *o, const char *host, const char *transport,
		    const struct rec_stats *s, uint64_t *last);

#endif
