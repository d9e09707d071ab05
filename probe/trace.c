// SPDX-License-Identifier: MIT
/* Traceroute of one exact UDP 5-tuple, matching ICMP errors by the header they quote. */
#define _GNU_SOURCE
#include "probe/trace.h"

#include "harness/lib/common.h"

#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
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

int trace_udp(const struct trace_req *req, struct trace_hop *hops, int *n)
{
	struct sockaddr_in src = {
	    .sin_family = AF_INET, .sin_addr = req->src, .sin_port = htons(req->sport)};
	struct sockaddr_in dst = {
	    .sin_family = AF_INET, .sin_addr = req->dst, .sin_port = htons(req->dport)};
	int max_ttl = req->max_ttl > 0 ? req->max_ttl : 8;
	int timeout = req->timeout_ms > 0 ? req->timeout_ms : 300;
	int one = 1, ret = -EHOSTUNREACH;
	int us, rs;

	*n = 0;
	if (max_ttl > TRACE_MAX_HOPS)
		max_ttl = TRACE_MAX_HOPS;
	rs = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (rs < 0)
		return -errno;
	us = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (us < 0) {
		ret = -errno;
		goto close_raw;
	}
	setsockopt(us, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(us, (struct sockaddr *)&src, sizeof(src)) < 0) {
		ret = -errno;
		goto close_udp;
	}
	for (int ttl = 1; ttl <= max_ttl; ttl++) {
		struct trace_hop *h = &hops[(*n)++];
		char payload[32] = "rocelab-trace";
		unsigned long long t0 = rl_now_ns(), deadline;

		memset(h, 0, sizeof(*h));
		h->ttl = ttl;
		if (setsockopt(us, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)) < 0 ||
		    sendto(us, payload, sizeof(payload), 0, (struct sockaddr *)&dst, sizeof(dst)) <
			0) {
			ret = -errno;
			goto close_udp;
		}
		deadline = t0 + (unsigned long long)timeout * 1000000ULL;
		for (;;) {
			unsigned long long now = rl_now_ns();
			struct pollfd p = {.fd = rs, .events = POLLIN};
			uint8_t pkt[1500];
			int type;

			if (now >= deadline || rl_interrupted)
				break;
			if (poll(&p, 1, (int)((deadline - now) / 1000000ULL) + 1) <= 0)
				continue;
			ssize_t len = recv(rs, pkt, sizeof(pkt), 0);

			if (len > 0 && trace_match_icmp(pkt, (size_t)len, req, &h->addr, &type)) {
				h->rtt_ms = (double)(rl_now_ns() - t0) / 1e6;
				h->reached = type == ICMP_DEST_UNREACH;
				break;
			}
		}
		if (h->reached) {
			ret = 0;
			break;
		}
		if (rl_interrupted) {
			ret = -EINTR;
			break;
		}
	}
close_udp:
	close(us);
close_raw:
	close(rs);
	return ret;
}
