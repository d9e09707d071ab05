// SPDX-License-Identifier: MIT
/*
 * The udp probe transport: RoCEv2 UD SEND packets (BTH + DETH + payload +
 * ICRC) built in user space and sent through a raw IPv4 socket bound to the
 * RNIC's address and netdev, so the kernel routes them exactly like the RNIC's
 * own traffic (per-RNIC policy routing) and the agent picks the UDP source
 * port and IP ID of every packet.  Probes are received on a raw UDP socket
 * bound to the netdev with a classic BPF filter (UDP 4791, probe-sized), which
 * gives the whole IPv4 header (TTL, TOS/ECN, IP ID) and lets the ICRC be
 * checked.  A plain UDP socket holds port 4791 so the kernel does not answer
 * probes with ICMP port unreachable.  Timestamps: SO_TIMESTAMPING software
 * timestamps where the kernel gives them, else clock_gettime, labelled.
 *
 * An RNIC only ever transmits on its own port, toward the next hop its route
 * names.  A raw socket would happily loop a packet for another local address
 * through lo, or guess the destination is on-link, when the RNIC's route is
 * missing.  So before sending, the transport asks the kernel (RTM_GETROUTE,
 * cached until a route, rule or link notification says something
 * changed) where the packet would go; unless it leaves the RNIC's
 * netdev as unicast through a gateway (or stays in the RNIC's own subnet),
 * the probe is not sent (-ENETUNREACH): the RNIC could not deliver it either.
 */
#define _GNU_SOURCE
#include "probe/ptrans.h"

#include "harness/lib/common.h"
#include "probe/roce.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/filter.h>
#include <linux/net_tstamp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TX_KEYS	   256	     /* outstanding send completions remembered per port */
#define PROBE_MAX  256	     /* largest packet the receive filter lets through */
#define RX_SOCKBUF (4 << 20) /* receive socket buffer: a burst of about 4000 probes */

#define ROUTE_CACHE    64
#define ROUTE_TTL_NS   10000000000ULL /* safety net: changes are seen through notifications */
#define ROUTE_WATCH_NS 100000000ULL   /* look for route/rule/link changes this often */

struct route_ent {
	struct in_addr dst;
	unsigned long long checked; /* monotonic ns, 0: empty */
	int verdict;		    /* 0 or -ENETUNREACH */
};

struct pt_port {
	int tx, rx, hold, nl, watch;
	unsigned long long watched;
	int ifindex;
	uint32_t mask; /* network order */
	uint32_t nl_seq;
	struct route_ent routes[ROUTE_CACHE];
	struct in_addr addr;
	uint8_t tos;
	uint32_t qkey, qpn;
	uint16_t next_id;
	/*
	 * Send timestamps come back with the packet itself and are matched by its
	 * IP ID: a key counter (OPT_ID) drifts when the kernel timestamps a packet
	 * and then fails the send (a full veth backlog: ENOBUFS).
	 */
	uint16_t tx_ids[TX_KEYS];
	uint64_t cookies[TX_KEYS];
	bool tx_kernel_ts; /* the kernel accepted TX software timestamping */
	uint32_t rx_drops; /* the receive socket's drop count (SO_RXQ_OVFL), last seen */
	bool port_shared;  /* UDP 4791 is held by a RoCE stack in this namespace */
};

const char *pt_ts_name(enum pt_ts t)
{
	switch (t) {
	case PT_TS_KERNEL:
		return "kernel-software";
	case PT_TS_HW:
		return "hardware";
	default:
		return "clock_gettime";
	}
}

static int fail(char *err, size_t len, const char *what, const struct pt_cfg *cfg)
{
	int e = errno;

	snprintf(err, len, "udp transport on %s (%s): %s: %s", cfg->netdev, inet_ntoa(cfg->addr),
		 what, strerror(e));
	return -e;
}

static int bind_dev(int fd, const char *dev)
{
	return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, (socklen_t)strlen(dev) + 1);
}

/* Accept IPv4 without options carrying UDP to port 4791, at most PROBE_MAX bytes. */
static int attach_filter(int fd)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x45, 0, 7),
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 5),
	    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 22),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCEV2_UDP_PORT, 0, 3),
	    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),
	    BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, PROBE_MAX, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, 0xffff),
	    BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {.len = ARRAY_SIZE(code), .filter = code};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static void udp_close(struct pt_port *p)
{
	if (!p)
		return;
	if (p->tx >= 0)
		close(p->tx);
	if (p->rx >= 0)
		close(p->rx);
	if (p->hold >= 0)
		close(p->hold);
	if (p->nl >= 0)
		close(p->nl);
	if (p->watch >= 0)
		close(p->watch);
	free(p);
}

static int udp_open(const struct pt_cfg *cfg, struct pt_port **out, char *err, size_t errlen)
{
	struct pt_port *p = rl_xcalloc(1, sizeof(*p));
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = cfg->addr};
	int tsflags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	int rxflags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	int small = 1, one = 1, rxbuf = RX_SOCKBUF, r;

	p->tx = p->rx = p->hold = p->nl = p->watch = -1;
	p->addr = cfg->addr;
	p->tos = cfg->tos;
	p->qkey = cfg->qkey ? cfg->qkey : ROCE_DEFAULT_QKEY;
	p->qpn = cfg->qpn ? cfg->qpn : 0x100;
	p->next_id = (uint16_t)(1 + (unsigned)random() % 0xfffe);
	if (!cfg->netdev || !*cfg->netdev || !if_nametoindex(cfg->netdev)) {
		snprintf(err, errlen, "udp transport: no netdev '%s' in this namespace",
			 cfg->netdev ? cfg->netdev : "");
		free(p);
		return -ENODEV;
	}

	/* Send: raw IPv4 with our own header (IPPROTO_RAW implies IP_HDRINCL). */
	p->tx = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_RAW);
	if (p->tx < 0 || bind(p->tx, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    bind_dev(p->tx, cfg->netdev) < 0) {
		r = fail(err, errlen, "raw send socket (needs CAP_NET_RAW)", cfg);
		goto out;
	}
	p->tx_kernel_ts = !cfg->send_only && setsockopt(p->tx, SOL_SOCKET, SO_TIMESTAMPING,
							&tsflags, sizeof(tsflags)) == 0;

	/* Receive: raw UDP on the netdev, filtered in the kernel. */
	if (cfg->send_only)
		goto no_rx;
	p->rx = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (p->rx < 0 || bind(p->rx, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    bind_dev(p->rx, cfg->netdev) < 0 || attach_filter(p->rx) < 0) {
		r = fail(err, errlen, "raw receive socket", cfg);
		goto out;
	}
	setsockopt(p->rx, SOL_SOCKET, SO_TIMESTAMPING, &rxflags, sizeof(rxflags));
	/*
	 * A probe lost in a full socket would read as a network timeout: take a
	 * large buffer (beyond rmem_max with CAP_NET_ADMIN) and count what is lost.
	 */
	if (setsockopt(p->rx, SOL_SOCKET, SO_RCVBUFFORCE, &rxbuf, sizeof(rxbuf)) < 0)
		setsockopt(p->rx, SOL_SOCKET, SO_RCVBUF, &rxbuf, sizeof(rxbuf));
	setsockopt(p->rx, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));

	/* Hold UDP 4791 (never read, smallest buffer): no ICMP port unreachable. */
	sa.sin_port = htons(ROCEV2_UDP_PORT);
	p->hold = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->hold < 0 || bind_dev(p->hold, cfg->netdev) < 0 ||
	    bind(p->hold, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/*
		 * Held by a RoCE stack here already, which keeps ICMP quiet: the caller
		 * says so, or the kernel's Soft-RoCE is loaded (it binds 4791 at load).
		 */
		if (errno != EADDRINUSE ||
		    !(cfg->share_port || access("/sys/module/rdma_rxe", F_OK) == 0)) {
			r = fail(err, errlen, "UDP port 4791 (is another agent running?)", cfg);
			goto out;
		}
		close(p->hold);
		p->hold = -1;
		p->port_shared = true;
	}
	if (p->hold >= 0)
		setsockopt(p->hold, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
no_rx:
	p->ifindex = (int)if_nametoindex(cfg->netdev);
	p->mask = htonl(cfg->prefix_len > 0 && cfg->prefix_len < 32 ? ~0u << (32 - cfg->prefix_len)
								    : ~0u);
	p->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (p->nl < 0) {
		r = fail(err, errlen, "rtnetlink socket", cfg);
		goto out;
	}
	/* Route, rule and link changes invalidate the cached routing answers. */
	p->watch = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (p->watch >= 0) {
		struct sockaddr_nl snl = {.nl_family = AF_NETLINK,
					  .nl_groups =
					      RTMGRP_IPV4_ROUTE | RTMGRP_IPV4_RULE | RTMGRP_LINK};
		int big = 1 << 16;

		setsockopt(p->watch, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
		if (bind(p->watch, (struct sockaddr *)&snl, sizeof(snl)) < 0) {
			close(p->watch);
			p->watch = -1;
		}
	}
	*out = p;
	return 0;
out:
	udp_close(p);
	return r;
}

static int udp_fds(struct pt_port *p, int *fds, int max)
{
	int n = 0;

	if (max < 2)
		return -ENOSPC;
	if (p->rx >= 0)
		fds[n++] = p->rx;
	fds[n++] = p->tx;
	return n;
}

/* Would the kernel send src -> dst out of our netdev as unicast?  0 or -ENETUNREACH. */
static int route_query(struct pt_port *p, struct in_addr dst)
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
static void route_watch(struct pt_port *p, unsigned long long now)
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

static int route_check(struct pt_port *p, struct in_addr dst)
{
	unsigned long long now = rl_now_ns();
	struct route_ent *e = &p->routes[(ntohl(dst.s_addr) * 2654435761u) % ROUTE_CACHE];

	route_watch(p, now);
	if (e->checked && e->dst.s_addr == dst.s_addr && now - e->checked < ROUTE_TTL_NS)
		return e->verdict;
	e->dst = dst;
	e->checked = now;
	e->verdict = route_query(p, dst);
	return e->verdict;
}

static int udp_send(struct pt_port *p, const struct pt_dst *dst, uint16_t sport, uint8_t ttl,
		    const void *payload, size_t len, uint64_t cookie, uint16_t *sport_used,
		    uint16_t *ip_id)
{
	struct roce_ip ip = {.src = p->addr,
			     .dst = dst->addr,
			     .sport = sport,
			     .dport = ROCEV2_UDP_PORT,
			     .ttl = ttl,
			     .tos = p->tos};
	struct roce_ud ud = {.dst_qpn = dst->qpn,
			     .qkey = p->qkey,
			     .src_qpn = p->qpn,
			     .psn = (uint32_t)cookie & 0xffffff};
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = dst->addr};
	uint8_t pkt[PROBE_MAX];
	ssize_t n;

	if (route_check(p, dst->addr))
		return -ENETUNREACH;
	/* The kernel replaces IP ID 0 with its own (and the ICRC would break): skip it. */
	if (p->next_id == 0)
		p->next_id = 1;
	ip.id = p->next_id++;
	n = roce_build_ud(pkt, sizeof(pkt), &ip, &ud, payload, len);
	if (n < 0)
		return (int)n;
	if (sendto(p->tx, pkt, (size_t)n, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	if (p->tx_kernel_ts) {
		p->tx_ids[ip.id % TX_KEYS] = ip.id;
		p->cookies[ip.id % TX_KEYS] = cookie;
	}
	*sport_used = sport;
	*ip_id = ip.id;
	return 0;
}

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

/* The IP ID of a looped-back sent packet (from the link-layer header on, or the IP header on). */
static int looped_ip_id(const struct pt_port *p, const uint8_t *b, size_t n)
{
	for (size_t off = 0; off <= 14 && off + 20 <= n; off += 14) {
		const uint8_t *ip = b + off;

		if ((ip[0] >> 4) == 4 && ip[9] == IPPROTO_UDP && !memcmp(ip + 12, &p->addr, 4))
			return ip[4] << 8 | ip[5];
	}
	return -1;
}

static void drain_tx(struct pt_port *p, const struct pt_events *ev, void *ctx)
{
	for (;;) {
		uint8_t pkt[128];
		char ctrl[512];
		struct iovec iov = {pkt, sizeof(pkt)};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = ctrl,
				   .msg_controllen = sizeof(ctrl)};
		struct scm_timestamping *tss = NULL;
		struct sock_extended_err *ee = NULL;
		ssize_t n = recvmsg(p->tx, &m, MSG_ERRQUEUE | MSG_DONTWAIT);
		int id;

		if (n < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING)
				tss = (struct scm_timestamping *)CMSG_DATA(c);
			else if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR)
				ee = (struct sock_extended_err *)CMSG_DATA(c);
		}
		if (!tss || !ee || ee->ee_origin != SO_EE_ORIGIN_TIMESTAMPING || !ev->tx_done)
			continue;
		id = looped_ip_id(p, pkt, (size_t)n);
		if (id > 0 && p->tx_ids[id % TX_KEYS] == id) {
			p->tx_ids[id % TX_KEYS] = 0;
			ev->tx_done(ctx, p->cookies[id % TX_KEYS], ts_ns(&tss->ts[0]),
				    PT_TS_KERNEL);
		}
	}
}

static int udp_poll_tx(struct pt_port *p, const struct pt_events *ev, void *ctx)
{
	if (p->tx_kernel_ts)
		drain_tx(p, ev, ctx);
	return 0;
}

static int udp_poll(struct pt_port *p, const struct pt_events *ev, void *ctx)
{
	udp_poll_tx(p, ev, ctx);
	for (int budget = p->rx < 0 ? 0 : 256; budget > 0; budget--) {
		uint8_t pkt[2048];
		char ctrl[256];
		struct iovec iov = {pkt, sizeof(pkt)};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = ctrl,
				   .msg_controllen = sizeof(ctrl)};
		struct roce_ip ip;
		struct roce_ud ud;
		struct pt_rx rx = {.rx_ts = PT_TS_APP};
		ssize_t n = recvmsg(p->rx, &m, MSG_DONTWAIT);
		int r;

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		rx.rx_ns = rl_realtime_ns();
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
				const struct scm_timestamping *t = (const void *)CMSG_DATA(c);

				if (t->ts[0].tv_sec) {
					rx.rx_ns = ts_ns(&t->ts[0]);
					rx.rx_ts = PT_TS_KERNEL;
				}
			} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
				memcpy(&p->rx_drops, CMSG_DATA(c), sizeof(p->rx_drops));
			}
		}
		r = roce_parse_ud(pkt, (size_t)n, &ip, &ud, &rx.payload, &rx.len);
		if (!r &&
		    (ip.dst.s_addr != p->addr.s_addr || ud.dst_qpn != p->qpn || ud.qkey != p->qkey))
			r = -ENOENT; /* RoCEv2, but not for this port's probe QP */
		if (r) {
			if (ev->bad)
				ev->bad(ctx, r);
			continue;
		}
		rx.src = ip.src;
		rx.sport = ip.sport;
		rx.ip_id = ip.id;
		rx.ttl = ip.ttl;
		rx.tos = ip.tos;
		rx.src_qpn = ud.src_qpn;
		if (ev->rx)
			ev->rx(ctx, &rx);
	}
	return 0;
}

static uint32_t udp_rx_overflow(struct pt_port *p)
{
	return p->rx_drops;
}

static uint32_t udp_qpn(struct pt_port *p)
{
	return p->qpn;
}

static const char *udp_describe(struct pt_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "udp transport on %s: QPN 0x%x, %s send timestamps%s",
		 inet_ntoa(p->addr), p->qpn, p->tx_kernel_ts ? "kernel software" : "clock_gettime",
		 p->port_shared ? ", UDP 4791 shared with the kernel's RoCE stack" : "");
	return buf;
}

const struct pt_ops pt_udp_ops = {
    .name = "udp",
    .traces = true,
    .describe = udp_describe,
    .open = udp_open,
    .close = udp_close,
    .fds = udp_fds,
    .send = udp_send,
    .poll_tx = udp_poll_tx,
    .poll = udp_poll,
    .rx_overflow = udp_rx_overflow,
    .qpn = udp_qpn,
};

static const struct pt_ops *const all[] = {&pt_udp_ops, &pt_verbs_ops};

const char *pt_names(void)
{
	static char names[64];

	if (!names[0])
		for (size_t i = 0; i < ARRAY_SIZE(all); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", all[i]->name);
	return names;
}

const struct pt_ops *pt_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}
