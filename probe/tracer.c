// SPDX-License-Identifier: MIT
/* An agent's path tracer: TTL-limited probes of a 5-tuple, ICMP answers by IP ID (tracer.h). */
#define _GNU_SOURCE
#include "probe/tracer.h"

#include "harness/lib/common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int tracer_open(struct tracer *t, double rate, long long timeout_ms, unsigned long long now)
{
	*t = (struct tracer){.rate = rate,
			     .tokens = 1,
			     .last_refill = now,
			     .timeout_ns = (unsigned long long)timeout_ms * 1000000ULL};
	t->icmp = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
	return t->icmp < 0 ? -errno : 0;
}

void tracer_close(struct tracer *t)
{
	if (t->icmp >= 0)
		close(t->icmp);
	t->icmp = -1;
}

void tracer_icmp(struct tracer *t)
{
	for (int budget = 64; t->icmp >= 0 && budget > 0; budget--) {
		uint8_t pkt[1500];
		ssize_t len = recv(t->icmp, pkt, sizeof(pkt), MSG_DONTWAIT);
		const struct ip *outer, *inner;
		const struct icmphdr *ic;
		const struct udphdr *u;
		size_t ohl, ihl;

		if (len < 0)
			return;
		outer = (const struct ip *)pkt;
		ohl = (size_t)outer->ip_hl * 4;
		if ((size_t)len < ohl + 8 + 20 + 8)
			continue;
		ic = (const struct icmphdr *)(pkt + ohl);
		if (ic->type != ICMP_TIME_EXCEEDED)
			continue;
		inner = (const struct ip *)(pkt + ohl + 8);
		ihl = (size_t)inner->ip_hl * 4;
		if (inner->ip_p != IPPROTO_UDP || (size_t)len < ohl + 8 + ihl + 8)
			continue;
		u = (const struct udphdr *)(pkt + ohl + 8 + ihl);
		if (ntohs(u->dest) != ROCEV2_UDP_PORT)
			continue;
		for (int j = 0; j < TR_MAX_JOBS; j++) {
			struct tr_job *job = &t->jobs[j];

			if (!job->used || ntohs(u->source) != job->wire_sport ||
			    inner->ip_src.s_addr != job->src.s_addr ||
			    inner->ip_dst.s_addr != job->dst.s_addr)
				continue;
			for (int k = 0; k < job->n_sent; k++)
				if (job->ids[k] && job->ids[k] == ntohs(inner->ip_id))
					job->hops[k] = outer->ip_src;
		}
	}
}

void tracer_reached(struct tracer *t, uint64_t key, int ttl)
{
	for (int j = 0; j < TR_MAX_JOBS; j++) {
		struct tr_job *job = &t->jobs[j];

		if (job->used && job->key == key && (!job->reached_ttl || ttl < job->reached_ttl))
			job->reached_ttl = ttl;
	}
}

bool tracer_busy(const struct tracer *t, uint64_t key)
{
	for (int j = 0; j < TR_MAX_JOBS; j++)
		if (t->jobs[j].used && t->jobs[j].key == key)
			return true;
	return false;
}

void tracer_reap(struct tracer *t, unsigned long long now, void (*done)(void *, struct tr_job *),
		 void *ctx)
{
	for (int j = 0; j < TR_MAX_JOBS; j++) {
		struct tr_job *job = &t->jobs[j];
		bool all = job->used && job->reached_ttl > 0;

		for (int k = 0; all && k < job->reached_ttl - 1; k++)
			all = job->hops[k].s_addr != 0;
		if (job->used && (all || now - job->start > t->timeout_ns)) {
			done(ctx, job);
			job->used = false;
		}
	}
}

struct tr_job *tracer_job(struct tracer *t, unsigned long long now)
{
	double cap = t->rate > 1 ? t->rate : 1;

	t->tokens += t->rate * (double)(now - t->last_refill) / 1e9;
	if (t->tokens > cap)
		t->tokens = cap;
	t->last_refill = now;
	if (t->icmp < 0 || t->tokens < 1)
		return NULL;
	for (int j = 0; j < TR_MAX_JOBS; j++)
		if (!t->jobs[j].used)
			return &t->jobs[j];
	return NULL;
}

void tracer_start(struct tracer *t, struct tr_job *j, uint64_t key, const struct pt_ops *ops,
		  struct pt_port *port, struct in_addr src, const struct pt_dst *dst,
		  uint16_t wire_sport, int top, uint64_t cookie,
		  size_t (*payload)(void *ctx, int ttl, uint8_t *buf), void *ctx,
		  unsigned long long now)
{
	*j = (struct tr_job){.used = true,
			     .key = key,
			     .src = src,
			     .dst = dst->addr,
			     .wire_sport = wire_sport,
			     .start = now};
	if (top > REC_MAX_HOPS)
		top = REC_MAX_HOPS;
	for (int ttl = 1; ttl <= top; ttl++) {
		uint8_t buf[64];
		size_t len = payload(ctx, ttl, buf);
		uint16_t used, ipid = 0;

		if (ops->send(port, dst, wire_sport, (uint8_t)ttl, buf, len, cookie, &used, &ipid))
			break;
		t->tx_pkts++;
		t->tx_bytes += REC_WIRE_BYTES(len);
		j->ids[ttl - 1] = ipid;
		j->n_sent = ttl;
	}
	t->tokens -= 1;
}

int tracer_hops(const struct tr_job *j)
{
	int n = j->reached_ttl ? j->reached_ttl - 1 : j->n_sent;

	if (n > REC_MAX_HOPS)
		n = REC_MAX_HOPS;
	if (!j->reached_ttl) /* keep the answered prefix */
		while (n > 0 && !j->hops[n - 1].s_addr)
			n--;
	return n;
}
