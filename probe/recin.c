// SPDX-License-Identifier: MIT
/* An analyzer's record intake: agents' streams over TCP, or record files (recin.h). */
#define _GNU_SOURCE
#include "probe/recin.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"
#include "probe/pathmap.h"
#include "probe/recout.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void rec_stream_init(struct rec_stream *s, const char *peer)
{
	s->host = -1;
	s->transport = NULL;
	s->len = 0;
	snprintf(s->peer, sizeof(s->peer), "%.47s", peer);
}

static int take_hello(const struct rec_intake *in, const struct inventory *inv,
		      struct rec_stream *s, const uint8_t *body)
{
	struct rec_hello_head m;
	const struct inv_host *h;

	if (s->host >= 0) {
		rl_err("analyze: %s: a second hello; dropping the stream", s->peer);
		return -1;
	}
	memcpy(&m, body, sizeof(m));
	m.host[sizeof(m.host) - 1] = '\0';
	if (m.magic != in->magic || m.version != in->version) {
		rl_err("analyze: %s: not a %s record stream (version %u)%s", s->peer, in->title,
		       m.version, in->hint);
		return -1;
	}
	h = inventory_host(inv, m.host);
	if (!h || m.inv_fingerprint != inventory_fingerprint(inv)) {
		rl_err("analyze: %s: agent of host '%s' uses another inventory than '%s'; give "
		       "both the same -i",
		       s->peer, m.host, inv->name);
		return -1;
	}
	s->host = (int)(h - inv->hosts);
	s->transport = m.transport ? "verbs" : "udp";
	rl_info("analyze: %s agent %s (%s, %u RNICs, %s transport) connected", in->title, m.host,
		s->peer, m.n_rnics, s->transport);
	return 0;
}

static const struct rec_kind *kind_of(const struct rec_intake *in, const struct rec_frame *h)
{
	for (size_t i = 0; i < in->n_kinds; i++)
		if (in->kinds[i].type == h->type)
			return h->len >= in->kinds[i].size && in->kinds[i].size <= REC_MAX_FRAME
				   ? &in->kinds[i]
				   : NULL;
	return NULL;
}

int rec_take(const struct rec_intake *in, void *az, const struct inventory *inv,
	     struct rec_stream *s)
{
	size_t off = 0;
	int r = 0;

	while (!r && s->len - off >= sizeof(struct rec_frame)) {
		struct rec_frame h;
		const uint8_t *body;
		const struct rec_kind *k;
		struct rec_stats st;

		memcpy(&h, s->buf + off, sizeof(h));
		if (h.len > REC_MAX_FRAME) {
			rl_err("analyze: %s: a frame of %u bytes, more than %u: not a %s record "
			       "stream; dropping it",
			       s->peer, h.len, REC_MAX_FRAME, in->title);
			return -1;
		}
		if (s->len - off < sizeof(h) + h.len)
			break;
		body = s->buf + off + sizeof(h);
		off += sizeof(h) + h.len;
		if (h.type == in->hello_type && h.len >= in->hello_size) {
			r = take_hello(in, inv, s, body);
		} else if (s->host < 0) {
			rl_err("analyze: %s: records before the hello (a %s agent's starts with "
			       "one); dropping the stream",
			       s->peer, in->title);
			r = -1;
		} else if ((k = kind_of(in, &h))) {
			_Alignas(max_align_t) uint8_t rec[REC_MAX_FRAME];

			memcpy(rec, body, k->size);
			k->take(az, (size_t)s->host, rec);
		} else if (h.type == REC_STATS && rec_stats_read(body, h.len, &st)) {
			in->stats(az, (size_t)s->host, s->transport, &st);
		}
		/* other frame types, and records shorter than theirs: skipped by length */
	}
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
	return r;
}

struct conn {
	int fd;
	unsigned long long since; /* accepted at (monotonic ns) */
	struct rec_stream st;
};

/*
 * Bounds on connections (input from the network): at most two per host of the
 * inventory and 16 more, and a hello within 10 s, or the connection is closed.
 */
#define HELLO_WITHIN_NS (10ULL * 1000000000ULL)
static size_t max_conns(const struct inventory *inv)
{
	return 2 * inv->n_hosts + 16;
}

int recin_replay(const struct rec_sink *k, const struct inventory *inv, char **files, int n)
{
	for (int i = 0; i < n; i++) {
		struct rec_stream *c = rl_xcalloc(1, sizeof(*c));
		int fd = strcmp(files[i], "-") ? open(files[i], O_RDONLY | O_CLOEXEC) : dup(0);
		ssize_t r;

		rec_stream_init(c, files[i]);
		if (fd < 0) {
			rl_err("analyze: cannot read %s: %s", files[i], strerror(errno));
			free(c);
			return RL_EXIT_USAGE;
		}
		while ((r = read(fd, c->buf + c->len, sizeof(c->buf) - c->len)) > 0) {
			c->len += (size_t)r;
			if (k->take(k->ctx, inv, c)) {
				close(fd);
				free(c);
				return RL_EXIT_USAGE;
			}
		}
		close(fd);
		if (c->len)
			rl_warn("analyze: %s ends in a cut frame (%zu bytes ignored)", files[i],
				c->len);
		free(c);
	}
	k->flush(k->ctx);
	return 0;
}

int recin_listen(const char *spec, uint16_t default_port, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	int fd, one = 1;

	if (recout_parse_addr(spec, default_port, &sa)) {
		snprintf(err, errlen, "--listen '%s': give an IPv4 address and optionally :PORT",
			 spec);
		return -EINVAL;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 256) < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

/* One connection's turn: false when it is to be closed. */
static bool conn_turn(const struct rec_sink *k, const struct inventory *inv, struct conn *c,
		      short revents)
{
	ssize_t r;

	if (c->st.host < 0 && rl_now_ns() - c->since > HELLO_WITHIN_NS) {
		rl_warn("analyze: %s: no hello within 10 s; closed", c->st.peer);
		return false;
	}
	if (!revents)
		return true;
	r = read(c->fd, c->st.buf + c->st.len, sizeof(c->st.buf) - c->st.len);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (r == 0 && c->st.host >= 0)
		rl_info("analyze: agent %s disconnected", inv->hosts[c->st.host].name);
	if (r <= 0)
		return false;
	c->st.len += (size_t)r;
	return k->take(k->ctx, inv, &c->st) == 0;
}

static void conn_accept(struct conn ***cs, size_t *n, const struct inventory *inv, int lfd)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct conn *c;
	char peer[48];

	if (fd < 0)
		return;
	snprintf(peer, sizeof(peer), "%s:%u", inet_ntoa(sa.sin_addr), ntohs(sa.sin_port));
	if (!inventory_peer_ok(inv, sa.sin_addr)) { /* records only from the lab's hosts */
		rl_warn("analyze: %s is no host of %s: closed", peer, inv->name);
		close(fd);
		return;
	}
	if (*n >= max_conns(inv)) {
		rl_warn("analyze: %s: %zu connections already, more than this inventory's agents "
			"make; closed",
			peer, *n);
		close(fd);
		return;
	}
	c = rl_xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->since = rl_now_ns();
	rec_stream_init(&c->st, peer);
	*RL_PUSH(*cs, *n) = c;
}

int recin_serve(const struct rec_sink *k, const struct inventory *inv, int lfd,
		long long duration_ms)
{
	struct conn **cs = NULL;
	size_t n = 0;
	unsigned long long end =
	    duration_ms ? rl_now_ns() + (unsigned long long)duration_ms * 1000000ULL : ULLONG_MAX;

	while (!rl_interrupted && rl_now_ns() < end) {
		struct pollfd *p = rl_xcalloc(n + 1, sizeof(*p));
		size_t polled = n, keep = 0; /* cs[0..polled) have p[1..polled] */

		p[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (size_t i = 0; i < n; i++)
			p[i + 1] = (struct pollfd){.fd = cs[i]->fd, .events = POLLIN};
		if (poll(p, (nfds_t)n + 1, 200) > 0 && (p[0].revents & POLLIN))
			conn_accept(&cs, &n, inv, lfd);
		for (size_t i = 0; i < n; i++) {
			if (conn_turn(k, inv, cs[i], i < polled ? p[i + 1].revents : 0)) {
				cs[keep++] = cs[i];
				continue;
			}
			close(cs[i]->fd);
			free(cs[i]);
		}
		n = keep;
		free(p);
		k->tick(k->ctx, rl_realtime_ns());
	}
	for (size_t i = 0; i < n; i++) {
		close(cs[i]->fd);
		free(cs[i]);
	}
	free(cs);
	k->flush(k->ctx);
	return 0;
}

bool rec_stats_read(const void *body, size_t len, struct rec_stats *st)
{
	if (len < REC_STATS_MIN_LEN)
		return false;
	memset(st, 0, sizeof(*st));
	memcpy(st, body, len < sizeof(*st) ? len : sizeof(*st));
	return true;
}

bool rec_stats_line(struct out *o, const char *host, const char *transport,
		    const struct rec_stats *s, uint64_t *last)
{
	if (*last && s->t_ns < *last + 1000000000ULL)
		return false; /* agents report every few seconds: not a line per frame */
	*last = s->t_ns;
	out_open_object(o, NULL);
	out_string(o, PRINT_JSON, "type", NULL, "agent");
	out_string(o, PRINT_JSON, "host", NULL, host);
	if (transport)
		out_string(o, PRINT_JSON, "transport", NULL, transport);
	out_float(o, PRINT_JSON, "time", NULL, 3, (double)s->t_ns / 1e9);
	out_uint(o, PRINT_JSON, "probes", NULL, s->probes);
	out_uint(o, PRINT_JSON, "timeouts", NULL, s->timeouts);
	out_uint(o, PRINT_JSON, "send_errors", NULL, s->send_errors);
	out_uint(o, PRINT_JSON, "malformed", NULL, s->malformed);
	out_uint(o, PRINT_JSON, "foreign", NULL, s->foreign);
	out_uint(o, PRINT_JSON, "dropped_records", NULL, s->dropped_records);
	out_uint(o, PRINT_JSON, "traces", NULL, s->traces);
	out_uint(o, PRINT_JSON, "traces_complete", NULL, s->traces_complete);
	out_uint(o, PRINT_JSON, "rx_overflow", NULL, s->rx_overflow);
	out_uint(o, PRINT_JSON, "rss_kb", NULL, s->rss_kb);
	out_uint(o, PRINT_JSON, "cpu_us", NULL, s->cpu_us);
	out_uint(o, PRINT_JSON, "tx_pkts", NULL, s->tx_pkts);
	out_uint(o, PRINT_JSON, "tx_bytes", NULL, s->tx_bytes);
	out_close(o);
	return true;
}
