// SPDX-License-Identifier: MIT
/* What every monitor's agent keeps and does alike (agentcore.h). */
#include "probe/agentcore.h"

#include "harness/lib/common.h"
#include "harness/lib/topo.h"
#include "probe/pathmap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int agent_core_setup(struct agent_core *c, const struct inventory *inv, const char *host,
		     const char *analyzer, uint16_t port, unsigned seed, size_t lo, size_t hi,
		     const char *why)
{
	unsigned long long now = rl_now_ns();

	c->inv = inv;
	c->out.conn = c->out.outfd = c->tr.icmp = -1;
	if (!(c->h = inventory_host(inv, host))) {
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

int agent_core_open(struct agent_core *c, double rate, long long timeout_ms, const char *analyzer,
		    const char *out, size_t buffer, const void *hello, size_t hello_len,
		    unsigned long long now)
{
	char err[256];
	int r = tracer_open(&c->tr, rate, timeout_ms, now);

	if (r)
		rl_warn("agent: no raw ICMP socket (%s): paths will not be traced", strerror(-r));
	if (recout_open(&c->out, "agent", &c->az, analyzer, out, buffer, hello, hello_len, err,
			sizeof(err))) {
		rl_err("agent: %s", err);
		return RL_EXIT_SETUP;
	}
	c->next_stats = now + AGENT_STATS_NS;
	return 0;
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
