// SPDX-License-Identifier: MIT
/* Traceroute of one exact UDP 5-tuple, matching ICMP errors by the header they quote. */
#define _GNU_SOURCE
#include "probe/trace.h"

#include "harness/lib/common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

bool trace_match_icmp(const uint8_t *pkt, size_t len, const struct trace_req *req,
		      struct in_addr *from, int *type)
{
	const struct ip *outer = (const struct ip *)pkt;
	size_t ohl, ihl;

	if (len < sizeof(struct ip))
		return false;
	ohl = (size_t)outer->ip_hl * 4;
	if (ohl < 20 || len < ohl + 8 + 20)
		return false;
	const struct icmphdr *icmp = (const struct icmphdr *)(pkt + ohl);

	if (icmp->type != ICMP_TIME_EXCEEDED && icmp->type != ICMP_DEST_UNREACH)
		return false;
	const struct ip *inner = (const struct ip *)(pkt + ohl + 8);

	ihl = (size_t)inner->ip_hl * 4;
	if (ihl < 20 || len < ohl + 8 + ihl + 8 || inner->ip_p != IPPROTO_UDP)
		return false;
	const struct udphdr *udp = (const struct udphdr *)(pkt + ohl + 8 + ihl);

	if (inner->ip_src.s_addr != req->src.s_addr || inner->ip_dst.s_addr != req->dst.s_addr ||
	    ntohs(udp->source) != req->sport || ntohs(udp->dest) != req->dport)
		return false;
	*from = outer->ip_src;
	*type = icmp->type;
	return true;
}

/* The quoted probe's IP total length: which TTL's probe an answer is about (trace_udp_many). */
static size_t quoted_len(const uint8_t *pkt, size_t len)
{
	const struct ip *outer = (const struct ip *)pkt;
	size_t ohl = (size_t)outer->ip_hl * 4;
	const struct ip *inner = (const struct ip *)(pkt + ohl + 8);

	return len >= ohl + 8 + 20 ? ntohs(inner->ip_len) : 0;
}

#define MANY_PAYLOAD 32 /* + the TTL: each round's probes have their own length */

/* Send round ttl's probe of every trace still going; the number sent, or -errno. */
static int many_send(const struct trace_req *req, size_t n, const int *us, const bool *done,
		     int ttl, struct trace_hop (*hops)[TRACE_MAX_HOPS], int *n_hops,
		     unsigned long long *sent_ns)
{
	char payload[MANY_PAYLOAD + TRACE_MAX_HOPS] = "rocelab-trace";
	long gap_ns = n && req[0].gap_us > 0 && req[0].gap_us < 1000000 ? req[0].gap_us * 1000L : 0;
	int sent = 0;

	for (size_t i = 0; i < n; i++) {
		struct sockaddr_in dst = {
		    .sin_family = AF_INET, .sin_addr = req[i].dst, .sin_port = htons(req[i].dport)};

		if (done[i])
			continue;
		if (sent && gap_ns)
			nanosleep(&(struct timespec){0, gap_ns}, NULL);
		hops[i][ttl - 1] = (struct trace_hop){.ttl = ttl};
		n_hops[i] = ttl;
		sent_ns[i] = rl_now_ns();
		if (setsockopt(us[i], IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)) < 0 ||
		    sendto(us[i], payload, MANY_PAYLOAD + (size_t)ttl, 0, (struct sockaddr *)&dst,
			   sizeof(dst)) < 0)
			return -errno;
		sent++;
	}
	return sent;
}

int trace_udp_many(const struct trace_req *req, size_t n, struct trace_hop (*hops)[TRACE_MAX_HOPS],
		   int *n_hops, int *ret)
{
	int max_ttl = n && req[0].max_ttl > 0 ? req[0].max_ttl : 8;
	int timeout = n && req[0].timeout_ms > 0 ? req[0].timeout_ms : 300;
	int *us = rl_xcalloc(n + 1, sizeof(*us)), *misses = rl_xcalloc(n + 1, sizeof(*misses));
	unsigned long long *sent_ns = rl_xcalloc(n + 1, sizeof(*sent_ns));
	bool *done = rl_xcalloc(n + 1, sizeof(*done));
	int one = 1, r = 0, rs;

	if (max_ttl > TRACE_MAX_HOPS)
		max_ttl = TRACE_MAX_HOPS;
	for (size_t i = 0; i < n; i++) {
		us[i] = -1;
		n_hops[i] = 0;
		ret[i] = -EHOSTUNREACH;
	}
	rs = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (rs < 0)
		r = -errno;
	for (size_t i = 0; !r && i < n; i++) {
		struct sockaddr_in src = {
		    .sin_family = AF_INET, .sin_addr = req[i].src, .sin_port = htons(req[i].sport)};

		us[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (us[i] < 0 ||
		    setsockopt(us[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(us[i], (struct sockaddr *)&src, sizeof(src)) < 0)
			r = -errno;
	}
	for (int ttl = 1; !r && ttl <= max_ttl && !rl_interrupted; ttl++) {
		unsigned long long deadline;
		int pending = many_send(req, n, us, done, ttl, hops, n_hops, sent_ns);

		deadline = rl_now_ns() + (unsigned long long)timeout * 1000000ULL;
		if (pending <= 0) {
			r = pending < 0 ? pending : 0;
			break;
		}
		while (pending > 0 && !rl_interrupted) {
			unsigned long long now = rl_now_ns();
			struct pollfd p = {.fd = rs, .events = POLLIN};
			uint8_t pkt[1500];
			ssize_t len;

			if (now >= deadline)
				break;
			if (poll(&p, 1, (int)((deadline - now) / 1000000ULL) + 1) <= 0)
				continue;
			len = recv(rs, pkt, sizeof(pkt), 0);
			/* only this round's probes: an answer to an earlier TTL is late, not a hop
			 */
			if (len <= 0 ||
			    quoted_len(pkt, (size_t)len) != 28 + MANY_PAYLOAD + (size_t)ttl)
				continue;
			for (size_t i = 0; i < n; i++) {
				struct trace_hop *h = &hops[i][ttl - 1];
				int type;

				if (done[i] || h->addr.s_addr ||
				    !trace_match_icmp(pkt, (size_t)len, &req[i], &h->addr, &type))
					continue;
				h->rtt_ms = (double)(rl_now_ns() - sent_ns[i]) / 1e6;
				h->reached = type == ICMP_DEST_UNREACH;
				pending--;
				break;
			}
		}
		for (size_t i = 0; i < n; i++) {
			const struct trace_hop *h = &hops[i][ttl - 1];

			if (done[i])
				continue;
			misses[i] = h->addr.s_addr ? 0 : misses[i] + 1;
			if (h->reached)
				ret[i] = 0;
			done[i] =
			    h->reached || (req[i].max_misses && misses[i] >= req[i].max_misses);
		}
	}
	if (rl_interrupted && !r)
		r = -EINTR;
	for (size_t i = 0; i < n; i++)
		if (us[i] >= 0)
			close(us[i]);
	if (rs >= 0)
		close(rs);
	free(us);
	free(sent_ns);
	free(misses);
	free(done);
	return r;
}

int trace_udp(const struct trace_req *req, struct trace_hop *hops, int *n)
{
	int ret, r = trace_udp_many(req, 1, (struct trace_hop(*)[TRACE_MAX_HOPS])hops, n, &ret);

	return r ? r : ret;
}
