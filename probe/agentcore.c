// SPDX-License-Identifier: MIT
/* What every monitor's agent keeps and does alike (agentcore.h). */
#include "probe/agentcore.h"

#include "harness/lib/common.h"
#include "harness/lib/topo.h"
#include "probe/pathmap.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define NS_PER_MS 1000000ULL

int agent_core_setup(struct agent_core *c, const struct inventory *inv, struct agent_cfg *cfg,
		     uint16_t port, size_t lo, size_t hi, const char *why)
{
	unsigned long long now = rl_now_ns();
	const char *host = cfg->host, *analyzer = cfg->analyzer;
	unsigned seed = cfg->seed;

	c->h = inventory_host(inv, host);
	cfg->transport = pt_resolve(cfg->transport, c->h, c->how, sizeof(c->how));
	c->cfg = cfg;
	c->inv = inv;
	c->start = now;
	c->out.conn = c->out.outfd = c->tr.icmp = -1;
	if (!c->h) {
		rl_err("agent: host '%s' is not in inventory '%s'", host, inv->name);
		return RL_EXIT_USAGE;
	}
	c->host = (size_t)(c->h - inv->hosts);
	c->n = c->h->n_rnics;
	if (c->n < lo || c->n > hi) {
		rl_err("agent: host %s has %zu RNICs; %s", c->h->name, c->n, why);
		return RL_EXIT_USAGE;
	}
	if (analyzer && recout_parse_addr(analyzer, port, &c->az)) {
		rl_err("agent: --analyzer '%s' is not ADDR[:PORT] with an IPv4 address", analyzer);
		return RL_EXIT_USAGE;
	}
	c->topo = topo_build(inv, false, NULL);
	if (!c->topo)
		rl_warn("agent: inventory %s has no routed plan; paths cannot be mapped to links",
			inv->name);
	srandom(seed ? seed : (unsigned)(now ^ (unsigned long long)getpid()));
	c->nonce = (uint32_t)random() ^ (uint32_t)(rl_realtime_ns() >> 7);
	c->rx_seen = rl_xcalloc(c->n + 1, sizeof(*c->rx_seen));
	return 0;
}

int agent_core_open(struct agent_core *c, const void *hello, size_t hello_len,
		    unsigned long long now)
{
	const struct agent_cfg *cfg = c->cfg;
	char err[256];
	int r = tracer_open(&c->tr, cfg->trace_rate, cfg->trace_timeout_ms, now);

	if (r)
		rl_warn("agent: no raw ICMP socket (%s): paths will not be traced", strerror(-r));
	if (recout_open(&c->out, "agent", &c->az, cfg->analyzer, cfg->out, cfg->buffer_bytes, hello,
			hello_len, err, sizeof(err))) {
		rl_err("agent: %s", err);
		return RL_EXIT_SETUP;
	}
	c->next_stats = now + AGENT_STATS_NS;
	return 0;
}

struct pt_cfg agent_core_port_cfg(const struct agent_core *c, size_t i, uint32_t qpn)
{
	struct pt_cfg p = pt_rnic_cfg(&c->h->rnics[i], (uint8_t)(c->cfg->dscp << 2));

	p.qpn = qpn;
	p.share_port = true;
	return p;
}

void agent_core_teardown(struct agent_core *c)
{
	tracer_close(&c->tr);
	recout_close(&c->out);
	topo_free(c->topo);
	free(c->rx_seen);
	c->topo = NULL;
	c->rx_seen = NULL;
}

void agent_core_hello(const struct agent_core *c, struct rec_hello_head *h, uint32_t magic,
		      uint16_t version, const struct pt_ops *transport)
{
	memset(h, 0, sizeof(*h));
	h->magic = magic;
	h->version = version;
	h->n_rnics = (uint8_t)c->n;
	h->transport = strcmp(transport->name, "udp") ? 1 : 0;
	snprintf(h->host, sizeof(h->host), "%s", c->h->name);
	h->inv_fingerprint = inventory_fingerprint(c->inv);
}

void agent_core_traces(struct agent_core *c, unsigned long long now,
		       void (*done)(void *ctx, struct tr_job *j),
		       bool (*next)(void *ctx, struct tr_job *j, unsigned long long now), void *ctx)
{
	struct tr_job *j;

	tracer_reap(&c->tr, now, done, ctx);
	while (now >= c->trace_idle_until && (j = tracer_job(&c->tr, now)))
		if (!next(ctx, j, now)) {
			/* All fresh: look again in a second (rotation resets tuples to "never"). */
			c->trace_idle_until = now + 1000000000ULL;
			break;
		}
}

void agent_core_trace(struct agent_core *c, struct tr_job *j, uint64_t key, const struct pt_ops *t,
		      struct pt_port *probe_port, struct pt_port *tracer_port, struct in_addr src,
		      const struct pt_dst *dst, uint16_t sport, int top,
		      size_t (*payload)(void *ctx, int ttl, uint8_t *buf), void *pctx,
		      unsigned long long now)
{
	uint16_t wire = t->wire_sport ? t->wire_sport(probe_port, sport) : sport;

	tracer_start(&c->tr, j, key, tracer_port ? &pt_udp_ops : t,
		     tracer_port ? tracer_port : probe_port, src, dst, wire, top,
		     AGENT_TRACE_COOKIE, payload, pctx, now);
	c->st.traces++;
}

void agent_core_bad(struct agent_core *c, int reason)
{
	if (reason == -EXDEV) /* the other monitor's probe, beside us on this RNIC */
		return;
	if (reason == -ENOENT)
		c->st.foreign++;
	else
		c->st.malformed++;
}

void agent_core_stats(struct agent_core *c, const struct pt_ops *t,
		      struct pt_port *(*port)(void *ctx, size_t i), void *ctx, const char *what,
		      uint64_t t_ns)
{
	uint32_t sum = 0;

	for (size_t i = 0; t->rx_overflow && i < c->n; i++) {
		uint32_t v = t->rx_overflow(port(ctx, i));

		/* said once per growth: those losses read as timeouts */
		if (v != c->rx_seen[i])
			rl_warn("agent: %s: the receive socket was full and dropped %u packets "
				"(%u in all): %s lost here count as timeouts",
				c->h->rnics[i].name, v - c->rx_seen[i], v, what);
		c->rx_seen[i] = v;
		sum += v;
	}
	c->st.rx_overflow = sum;
	recout_stats(&c->out, &c->st, t_ns, c->tr.tx_pkts, c->tr.tx_bytes);
}

static int run(struct agent_core *c, const struct agent_loop *l, void *a)
{
	unsigned long long rotate = (unsigned long long)c->cfg->rotate_ms * NS_PER_MS,
			   end =
			       c->cfg->duration_ms
				   ? c->start + (unsigned long long)c->cfg->duration_ms * NS_PER_MS
				   : ULLONG_MAX,
			   next_rotate = rl_now_ns() + rotate;
	char more[128] = "";
	int ret = 0;

	while (!rl_interrupted) {
		unsigned long long now = rl_now_ns(), next = now + 100 * NS_PER_MS;

		if (now >= end)
			break;
		next = l->tick(a, now, next);
		if (c->tr.icmp >= 0)
			agent_core_traces(c, now, l->trace_done, l->trace_next, a);
		if (now >= next_rotate) {
			l->rotate(a, now);
			next_rotate = now + rotate;
		}
		if (agent_core_stats_due(c, now))
			l->stats(a);
		recout_service(&c->out);
		if (l->service)
			next = l->service(a, now, next);
		if (recout_orphaned(&c->out, c->cfg->orphan_ms, now)) {
			ret = RL_EXIT_SETUP;
			break;
		}
		l->wait(a, now, next);
	}
	/* Last words: probes still in flight are not judged; counters and records go out. */
	if (l->last)
		l->last(a);
	l->stats(a);
	recout_finish(&c->out);
	if (l->summary)
		l->summary(a, more, sizeof(more));
	rl_info("agent: %s: %llu probes, %llu timeouts, %llu send errors, %llu traces (%llu "
		"complete), %llu malformed, %llu foreign, %llu records dropped, %u receive "
		"overflows%s",
		c->h->name, (unsigned long long)c->st.probes, (unsigned long long)c->st.timeouts,
		(unsigned long long)c->st.send_errors, (unsigned long long)c->st.traces,
		(unsigned long long)c->st.traces_complete, (unsigned long long)c->st.malformed,
		(unsigned long long)c->st.foreign, (unsigned long long)c->st.dropped_records,
		c->st.rx_overflow, more);
	return ret;
}

int agent_core_main(const struct agent_loop *l, const struct inventory *inv, const void *cfg,
		    size_t cfg_size)
{
	void *a = rl_xcalloc(1, l->agent_size), *own = rl_xcalloc(1, cfg_size);
	int ret;

	memcpy(own, cfg, cfg_size);
	ret = l->setup(a, inv, own);
	if (!ret)
		ret = run(a, l, a); /* its core is its first member */
	l->teardown(a);
	free(own);
	free(a);
	return ret;
}

int agent_watch(int epfd, int fd, uint64_t owner)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = owner};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int agent_core_watch(struct agent_core *c, const struct pt_ops *t,
		     struct pt_port *(*port)(void *ctx, size_t i), void *ctx, uint64_t icmp,
		     int *epfd)
{
	int r = 0;

	if ((*epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -errno;
	for (size_t s = 0; s < c->n && !r; s++) {
		int fds[4], k = t->fds(port(ctx, s), fds, 4);

		for (int i = 0; i < k && !r; i++)
			r = agent_watch(*epfd, fds[i], s);
	}
	if (!r && c->tr.icmp >= 0)
		r = agent_watch(*epfd, c->tr.icmp, icmp);
	return r;
}

void agent_watch_conn(int epfd, struct agent_conn_watch *w, uint64_t owner, const struct pollfd *p,
		      unsigned gen)
{
	struct epoll_event ev = {.events = 0, .data.u64 = owner};

	if (p && p->events & POLLIN)
		ev.events |= EPOLLIN;
	if (p && p->events & POLLOUT)
		ev.events |= EPOLLOUT;
	if (p ? w->fd == p->fd && w->gen == gen && w->events == ev.events : w->fd < 0)
		return;
	/* Nothing to delete: a closed socket left the set (its number may be another's now). */
	w->fd = -1;
	if (!p)
		return;
	if (epoll_ctl(epfd, EPOLL_CTL_MOD, p->fd, &ev) &&
	    epoll_ctl(epfd, EPOLL_CTL_ADD, p->fd, &ev))
		return; /* not watched: tried again next time */
	*w = (struct agent_conn_watch){p->fd, ev.events, gen};
}

short agent_poll_revents(uint32_t events)
{
	return (short)((events & EPOLLIN ? POLLIN : 0) | (events & EPOLLOUT ? POLLOUT : 0) |
		       (events & EPOLLERR ? POLLERR : 0) | (events & EPOLLHUP ? POLLHUP : 0));
}
