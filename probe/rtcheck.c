// SPDX-License-Identifier: MIT
/* Whether the kernel sends an RNIC's packet out of its own netdev: RTM_GETROUTE, cached. */
#define _GNU_SOURCE
#include "probe/rtcheck.h"

#include "harness/lib/common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * A port probes hundreds of targets (an 8-RNIC host of a 16 x 8 lab: 127 an
 * RNIC), some every 26 s: with 64 slots and a 10 s life nearly every probe
 * asked the kernel first, a netlink round trip each.  1024 slots (24 KB, only
 * those used touched) and a minute.
 */
#define ROUTE_CACHE_BITS 10
#define ROUTE_CACHE	 (1u << ROUTE_CACHE_BITS)
#define ROUTE_TTL_NS	 60000000000ULL /* safety net: changes are seen through notifications */
#define ROUTE_WATCH_NS	 100000000ULL	/* look for route/rule/link changes this often */

struct route_ent {		    /* 16 bytes: a port's 1,024 answers in four pages */
	unsigned long long checked; /* monotonic ns, 0: empty */
	struct in_addr dst;
	int verdict; /* 0 or -ENETUNREACH */
};

struct rtcheck {
	int nl, watch;
	unsigned long long watched;
	int ifindex;
	uint32_t mask; /* network order */
	uint32_t nl_seq;
	struct in_addr addr;
	struct route_ent routes[ROUTE_CACHE];
};

struct rtcheck *rtcheck_new(struct in_addr addr, int ifindex, int prefix_len)
{
	struct rtcheck *p = rl_xcalloc(1, sizeof(*p));
	struct sockaddr_nl snl = {.nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV4_RULE | RTMGRP_LINK};
	int big = 1 << 16, e;

	p->addr = addr;
	p->ifindex = ifindex;
	p->mask = htonl(prefix_len > 0 && prefix_len < 32 ? ~0u << (32 - prefix_len) : ~0u);
	p->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (p->nl < 0) {
		e = errno;
		free(p);
		errno = e;
		return NULL;
	}
	/* Route, rule and link changes invalidate the cached answers. */
	p->watch = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (p->watch >= 0) {
		setsockopt(p->watch, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
		if (bind(p->watch, (struct sockaddr *)&snl, sizeof(snl)) < 0) {
			close(p->watch);
			p->watch = -1;
		}
	}
	return p;
}

void rtcheck_free(struct rtcheck *p)
{
	if (!p)
		return;
	close(p->nl);
	if (p->watch >= 0)
		close(p->watch);
	free(p);
}

/* Would the kernel send src -> dst out of our netdev as unicast?  0 or -ENETUNREACH. */
static int route_query(struct rtcheck *p, struct in_addr dst)
{
	struct {
		struct nlmsghdr n;
		struct rtmsg r;
		char attrs[64];
	} req = {0};
	struct rtattr *ra;
	char buf[4096];
	int oif = 0, type = -1;
	bool gw = false;
	ssize_t len;

	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.n.nlmsg_type = RTM_GETROUTE;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = ++p->nl_seq;
	req.r.rtm_family = AF_INET;
	req.r.rtm_dst_len = 32;
	req.r.rtm_src_len = 32;
	ra = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.n.nlmsg_len));
	ra->rta_type = RTA_DST;
	ra->rta_len = RTA_LENGTH(4);
	memcpy(RTA_DATA(ra), &dst, 4);
	req.n.nlmsg_len = NLMSG_ALIGN(req.n.nlmsg_len) + RTA_ALIGN(ra->rta_len);
	ra = (struct rtattr *)((char *)&req + req.n.nlmsg_len);
	ra->rta_type = RTA_SRC;
	ra->rta_len = RTA_LENGTH(4);
	memcpy(RTA_DATA(ra), &p->addr, 4);
	req.n.nlmsg_len += RTA_ALIGN(ra->rta_len);
	ra = (struct rtattr *)((char *)&req + req.n.nlmsg_len);
	ra->rta_type = RTA_OIF;
	ra->rta_len = RTA_LENGTH(4);
	memcpy(RTA_DATA(ra), &p->ifindex, 4);
	req.n.nlmsg_len += RTA_ALIGN(ra->rta_len);
	if (send(p->nl, &req, req.n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		len = recv(p->nl, buf, sizeof(buf), 0);
		if (len < 0)
			return errno == EINTR ? -EINTR : -errno;
		for (struct nlmsghdr *n = (struct nlmsghdr *)buf; NLMSG_OK(n, (unsigned)len);
		     n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_seq != p->nl_seq)
				continue;
			if (n->nlmsg_type == NLMSG_ERROR)
				return -ENETUNREACH; /* no route at all */
			if (n->nlmsg_type != RTM_NEWROUTE)
				continue;
			struct rtmsg *r = NLMSG_DATA(n);
			int alen = (int)RTM_PAYLOAD(n);

			type = r->rtm_type;
			for (struct rtattr *a = RTM_RTA(r); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
				if (a->rta_type == RTA_OIF)
					memcpy(&oif, RTA_DATA(a), 4);
				else if (a->rta_type == RTA_GATEWAY)
					gw = true;
			if (!gw && (dst.s_addr & p->mask) != (p->addr.s_addr & p->mask))
				return -ENETUNREACH; /* the kernel only guessed "on-link" */
			return type == RTN_UNICAST && oif == p->ifindex ? 0 : -ENETUNREACH;
		}
	}
}

/* Forget every cached answer when the kernel announced a change (or cannot tell us). */
static void route_watch(struct rtcheck *p, unsigned long long now)
{
	char buf[8192];
	bool changed = p->watch < 0;

	if (now - p->watched < ROUTE_WATCH_NS)
		return;
	p->watched = now;
	for (;;) {
		ssize_t n = recv(p->watch, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0) {
			changed |= errno == ENOBUFS; /* overrun: assume anything changed */
			break;
		}
		changed = true;
	}
	if (changed && p->watch >= 0)
		memset(p->routes, 0, sizeof(p->routes));
	else if (p->watch < 0)
		for (size_t i = 0; i < ROUTE_CACHE; i++) /* no notifications: 1 s answers */
			if (p->routes[i].checked &&
			    now - p->routes[i].checked > ROUTE_WATCH_NS * 10)
				p->routes[i].checked = 0;
}

int rtcheck_dst(struct rtcheck *p, struct in_addr dst)
{
	unsigned long long now = rl_now_ns();
	struct route_ent *e =
	    &p->routes[(ntohl(dst.s_addr) * 2654435761u) >> (32 - ROUTE_CACHE_BITS)];

	route_watch(p, now);
	if (e->checked && e->dst.s_addr == dst.s_addr && now - e->checked < ROUTE_TTL_NS)
		return e->verdict;
	e->dst = dst;
	e->checked = now;
	e->verdict = route_query(p, dst);
	return e->verdict;
}
