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
