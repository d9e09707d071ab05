// SPDX-License-Identifier: MIT
/* An agent's record stream out: buffer, TCP with reconnects, or a file (recout.h). */
#define _GNU_SOURCE
#include "probe/recout.h"

#include "harness/lib/common.h"
#include "probe/rec.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NS_PER_MS 1000000ULL

int recout_parse_addr(const char *spec, uint16_t default_port, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	unsigned long port = default_port;

	snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	if (colon) {
		char *end;

		port = strtoul(colon + 1, &end, 10);
		if (*end || port == 0 || port > 65535)
			return -EINVAL;
	}
	*sa = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

static void compact(struct recout *o)
{
	if (!o->start)
		return;
	memmove(o->buf, o->buf + o->start, o->end - o->start);
	o->end -= o->start;
	o->frame -= o->start;
	o->start = 0;
}

/* After sending up to start, move frame to the frame that holds start. */
static void advance(struct recout *o)
{
	while (o->frame < o->start) {
		struct rec_frame h;

		memcpy(&h, o->buf + o->frame, sizeof(h));
		if (o->frame + sizeof(h) + h.len > o->start)
			break;
		o->frame += sizeof(h) + h.len;
	}
}

/* The hello, whole, before anything else on a new stream (waits up to a second per stall). */
static void hello(struct recout *o, int fd)
{
	size_t off = 0;

	while (off < o->hello_len) {
		ssize_t w = write(fd, o->hello + off, o->hello_len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			if (errno == EAGAIN) {
				struct pollfd p = {.fd = fd, .events = POLLOUT};

				if (poll(&p, 1, 1000) > 0)
					continue;
			}
			return;
		}
		off += (size_t)w;
	}
}

static void disconnect(struct recout *o, const char *why)
{
	if (o->connected)
		rl_warn("%s: lost the analyzer (%s); buffering records, retrying", o->who, why);
	close(o->conn);
	o->conn = -1;
	o->connected = o->connecting = false;
	o->next_connect = rl_now_ns() + 1000 * NS_PER_MS;
	/* A frame cut in the middle is dropped: the next connection starts clean. */
	if (o->start > o->frame) {
		struct rec_frame h;

		memcpy(&h, o->buf + o->frame, sizeof(h));
		o->start = o->frame = o->frame + sizeof(h) + h.len;
		o->dropped++;
	}
}

static void try_connect(struct recout *o)
{
	if (o->conn >= 0 || !o->az_spec || rl_now_ns() < o->next_connect)
		return;
	o->conn = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (o->conn < 0)
		return;
	o->conns++;
	if (connect(o->conn, (struct sockaddr *)&o->az, sizeof(o->az)) == 0) {
		o->connected = true;
		hello(o, o->conn);
	} else if (errno == EINPROGRESS) {
		o->connecting = true;
	} else {
		disconnect(o, strerror(errno));
	}
}

static void flush(struct recout *o)
{
	int fd = o->outfd >= 0 ? o->outfd : o->connected ? o->conn : -1;

	while (fd >= 0 && o->start < o->end) {
		ssize_t w = o->outfd >= 0 ? write(fd, o->buf + o->start, o->end - o->start)
					  : send(fd, o->buf + o->start, o->end - o->start,
						 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0) {
			if (o->outfd >= 0) {
				rl_err("%s: writing records: %s", o->who, strerror(errno));
				o->outfd = -1;
			} else {
				disconnect(o, strerror(errno));
			}
			return;
		}
		o->start += (size_t)w;
		advance(o);
	}
	if (o->start == o->end) {
		o->start = o->end = o->frame = 0;
		o->waiting = 0;
	}
}

/* Whether what waits should go now. */
static bool flush_due(const struct recout *o)
{
	return o->end > o->start && (!o->linger_ns || o->end - o->start >= o->cap / 4 ||
				     rl_now_ns() - o->waiting >= o->linger_ns);
}

void recout_linger(struct recout *o, unsigned ms)
{
	o->linger_ns = (unsigned long long)ms * NS_PER_MS;
}

unsigned long long recout_due(const struct recout *o)
{
	return o->end > o->start ? o->waiting + o->linger_ns : ULLONG_MAX;
}

int recout_open(struct recout *o, const char *who, const struct sockaddr_in *az,
		const char *analyzer, const char *out, size_t cap, const void *hello_frame,
		size_t hello_len, char *err, size_t errlen)
{
	*o = (struct recout){
	    .conn = -1, .outfd = -1, .who = who, .az_spec = analyzer, .seen = rl_now_ns()};
	if (hello_len > sizeof(o->hello)) {
		snprintf(err, errlen, "a hello of %zu bytes", hello_len);
		return -EMSGSIZE;
	}
	memcpy(o->hello, hello_frame, hello_len);
	o->hello_len = hello_len;
	if (az)
		o->az = *az;
	o->cap = cap;
	o->buf = rl_xcalloc(1, cap);
	if (out) {
		o->outfd = strcmp(out, "-")
			       ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
			       : dup(STDOUT_FILENO);
		if (o->outfd < 0) {
			int e = errno;

			snprintf(err, errlen, "cannot write records to %s: %s", out, strerror(e));
			return -e;
		}
		hello(o, o->outfd);
	}
	return 0;
}

void recout_close(struct recout *o)
{
	if (o->conn >= 0)
		close(o->conn);
	if (o->outfd >= 0)
		close(o->outfd);
	free(o->buf);
	o->buf = NULL;
	o->conn = o->outfd = -1;
}

void recout_emit(struct recout *o, uint16_t type, const void *body, uint16_t len)
{
	struct rec_frame h = {type, len};

	if (o->end + sizeof(h) + len > o->cap)
		compact(o);
	if (o->end + sizeof(h) + len > o->cap) {
		o->dropped++;
		return;
	}
	if (o->end == o->start)
		o->waiting = rl_now_ns();
	memcpy(o->buf + o->end, &h, sizeof(h));
	memcpy(o->buf + o->end + sizeof(h), body, len);
	o->end += sizeof(h) + len;
	if (o->outfd >= 0 && flush_due(o))
		flush(o);
}

void recout_service(struct recout *o)
{
	try_connect(o);
	if ((o->connected || o->outfd >= 0) && flush_due(o))
		flush(o);
}

bool recout_pollfd(const struct recout *o, struct pollfd *p)
{
	if (o->conn < 0)
		return false;
	*p = (struct pollfd){.fd = o->conn,
			     .events =
				 (short)(POLLIN | (o->connecting || flush_due(o) ? POLLOUT : 0))};
	return true;
}

void recout_event(struct recout *o, short revents)
{
	if (o->connecting && (revents & (POLLOUT | POLLERR | POLLHUP))) {
		int e = 0;
		socklen_t l = sizeof(e);

		getsockopt(o->conn, SOL_SOCKET, SO_ERROR, &e, &l);
		o->connecting = false;
		if (e) {
			disconnect(o, strerror(e));
			return;
		}
		o->connected = true;
		rl_info("%s: streaming to the analyzer at %s", o->who, o->az_spec);
		hello(o, o->conn);
	} else if (revents & (POLLIN | POLLHUP | POLLERR)) {
		char junk[256];
		ssize_t r = recv(o->conn, junk, sizeof(junk), MSG_DONTWAIT);

		if (r == 0 || (r < 0 && errno != EAGAIN))
			disconnect(o, r == 0 ? "closed" : strerror(errno));
	}
}

void recout_finish(struct recout *o)
{
	if (o->outfd >= 0) { /* a file: what lingers goes now */
		flush(o);
		return;
	}
	for (int tries = 0; tries < 20 && o->start < o->end && o->connected; tries++) {
		flush(o);
		if (o->start < o->end) {
			struct pollfd p = {.fd = o->conn, .events = POLLOUT};

			poll(&p, 1, 50);
		}
	}
}

void recout_stats(struct recout *o, struct rec_stats *st, uint64_t t_ns, uint64_t more_pkts,
		  uint64_t more_bytes)
{
	struct rec_stats f;

	st->t_ns = t_ns;
	st->rss_kb = rl_peak_rss_kb();
	st->dropped_records = o->dropped;
	st->cpu_us = rl_cpu_us();
	f = *st;
	f.tx_pkts += more_pkts;
	f.tx_bytes += more_bytes;
	recout_emit(o, REC_STATS, &f, sizeof(f));
}

bool recout_orphaned(struct recout *o, long long orphan_ms, unsigned long long now)
{
	if (o->connected || !o->az_spec || orphan_ms <= 0) {
		o->seen = now;
		return false;
	}
	if (now - o->seen < (unsigned long long)orphan_ms * 1000000ULL)
		return false;
	rl_err("%s: no analyzer at %s for %lld s: the run that started this agent is gone; "
	       "exiting",
	       o->who, o->az_spec, orphan_ms / 1000);
	return true;
}
