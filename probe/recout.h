/* SPDX-License-Identifier: MIT */
/*
 * An agent's record stream out (hmrec.h's framing): a bounded buffer, sent
 * to an analyzer over TCP with reconnects, or written to a file.  Every
 * stream starts with the caller's hello frame.  Never blocks the probing
 * loop: what cannot be sent waits in the buffer, what does not fit in it is
 * counted in dropped.
 */
#ifndef ROCELAB_RECOUT_H
#define ROCELAB_RECOUT_H

#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECOUT_HELLO_MAX 512

struct recout {
	uint8_t *buf;
	size_t cap, start, end, frame;
	int conn, outfd;
	unsigned conns; /* sockets conn has had: a new one may reuse a closed one's number */
	bool connecting, connected;
	unsigned long long next_connect; /* monotonic ns */
	struct sockaddr_in az;
	const char *az_spec; /* the analyzer as given, or NULL */
	const char *who;     /* "agent", for messages */
	uint8_t hello[RECOUT_HELLO_MAX];
	size_t hello_len;
	unsigned long long dropped; /* records lost: buffer full, or cut by a disconnect */
	/* Records wait up to linger_ns to go out together (0: each at once); the oldest
	 * waiting was queued at waiting (monotonic ns). */
	unsigned long long linger_ns, waiting;
	unsigned long long seen; /* the analyzer was last connected, or the stream opened (ns) */
};

/* "A.B.C.D[:PORT]" with port default_port when none is given; -EINVAL when malformed. */
int recout_parse_addr(const char *spec, uint16_t default_port, struct sockaddr_in *sa);

/*
 * Records go to the analyzer at analyzer (parsed already into *az), or to
 * the file out ("-": stdout), or nowhere when both are NULL; hello (one
 * whole frame, header included) starts each stream.  0, or -errno with err
 * filled.
 */
int recout_open(struct recout *o, const char *who, const struct sockaddr_in *az,
		const char *analyzer, const char *out, size_t cap, const void *hello,
		size_t hello_len, char *err, size_t errlen);
void recout_close(struct recout *o);

/*
 * Let records wait up to ms (0, the default: none) and go out in one write
 * or send: a write for each record cost more than the record.  A quarter of
 * the buffer goes at once.  recout_service() must be called within ms.
 */
void recout_linger(struct recout *o, unsigned ms);

/* When the records waiting are due to go (monotonic ns; ULLONG_MAX: none wait). */
unsigned long long recout_due(const struct recout *o);

/* Queue one frame (sent now when it can be). */
void recout_emit(struct recout *o, uint16_t type, const void *body, uint16_t len);

/* Connect when due, and send what waits; call every loop turn. */
void recout_service(struct recout *o);

/* The connection's pollfd when there is one (false: none). */
bool recout_pollfd(const struct recout *o, struct pollfd *p);

/* The connection's poll() events. */
void recout_event(struct recout *o, short revents);

/*
 * An agent's counters (rec.h) as of realtime t_ns, with its peak RSS, CPU
 * time and the records this stream dropped filled in, queued as a frame of
 * type REC_STATS; what it sent besides (traces' packets, bytes) added to the
 * frame only.
 */
struct rec_stats;
void recout_stats(struct recout *o, struct rec_stats *st, uint64_t t_ns, uint64_t more_pkts,
		  uint64_t more_bytes);

/*
 * Whether the analyzer has been away orphan_ms (0: never) at monotonic now.
 * Started on a host over SSH, an agent is on its own: a run killed with -9
 * cannot stop it.  Its analyzer gone that long, it stops itself; this says
 * so on stderr.  Never with records going to a file or nowhere.
 */
bool recout_orphaned(struct recout *o, long long orphan_ms, unsigned long long now);

/* Last words: send what waits, for up to a second. */
void recout_finish(struct recout *o);

#endif
