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
#include "harness/lib/inventory.h"
#include "probe/rawsock.h"
#include "probe/roce.h"
#include "probe/rtcheck.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/filter.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TX_KEYS	   256	     /* outstanding send completions remembered per port */
#define PROBE_MAX  256	     /* largest packet the receive filter lets through */
#define RX_SOCKBUF (4 << 20) /* receive socket buffer: a burst of about 4000 probes */

struct pt_port {
	struct rawsock s;
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
	/*
	 * Send timestamps asked for a send at a time (a control message), so a
	 * send that needs none (an ACK2, a trace's answer: cookie 0) leaves
	 * nothing in the error queue to read or to wake the agent (issue 59); a
	 * kernel that refuses the control message stamps every send, as before.
	 */
	bool tx_per_send;
	/*
	 * Send timestamps expected since the error queue was last found empty:
	 * the queue is read until they are in, with no read to find it empty,
	 * and poll() reads it only when one is expected.  A timestamp that comes
	 * later (a qdisc held the packet) makes the socket readable: poll_tx()
	 * with none expected reads until the queue is empty.
	 */
	unsigned tx_out;
	uint32_t rx_drops; /* the receive socket's drop count (SO_RXQ_OVFL), last seen */
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

void pt_udp_filter(struct sock_filter *f, uint32_t qpn)
{
	/* The QPN ranges pt_sibling_qpn() calls the other monitor's (0x1xx, 0x2xx, or both). */
	uint32_t s1 = pt_sibling_qpn(qpn, 0x100) ? 1 : 2, s2 = pt_sibling_qpn(qpn, 0x200) ? 2 : 1;
	const struct sock_filter code[PT_UDP_FILTER_LEN] = {
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x45, 0, 13),
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 11),
	    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 22),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCEV2_UDP_PORT, 0, 9),
	    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),
	    BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, PROBE_MAX, 7, 0),
	    /* too short for a BTH: up to the transport, which counts it malformed */
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 36, 0, 5),
	    /* the BTH's destination QP (bytes 33-35): the other monitor's is not for us */
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 33),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 34),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, s1, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, s2, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, 0xffff),
	    BPF_STMT(BPF_RET | BPF_K, 0),
	};

	memcpy(f, code, sizeof(code));
}

static void udp_close(struct pt_port *p)
{
	if (!p)
		return;
	rawsock_close(&p->s);
	free(p);
}

static int udp_open(const struct pt_cfg *cfg, struct pt_port **out, char *err, size_t errlen)
{
	struct pt_port *p = rl_xcalloc(1, sizeof(*p));
	struct sock_filter code[PT_UDP_FILTER_LEN];
	struct sock_fprog filter = {.len = PT_UDP_FILTER_LEN, .filter = code};
	struct rawsock_cfg rc = {.who = "udp transport",
				 .netdev = cfg->netdev,
				 .addr = cfg->addr,
				 .prefix_len = cfg->prefix_len,
				 .filter = cfg->send_only ? NULL : &filter,
				 /*
				  * A probe lost in a full socket would read as a network
				  * timeout: a large buffer, and what is lost counted.
				  */
				 .rcvbuf = RX_SOCKBUF,
				 .share_port = cfg->share_port};
	int tsflags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	int r;

	p->addr = cfg->addr;
	p->tos = cfg->tos;
	p->qkey = cfg->qkey ? cfg->qkey : ROCE_DEFAULT_QKEY;
	p->qpn = cfg->qpn ? cfg->qpn : 0x100;
	pt_udp_filter(code, p->qpn);
	p->next_id = (uint16_t)(1 + (unsigned)random() % 0xfffe);
	r = rawsock_open(&p->s, &rc, err, errlen);
	if (r) {
		free(p);
		return r;
	}
	/* Reported on the socket; recorded per send (udp_send()), or on every send. */
	tsflags &= ~SOF_TIMESTAMPING_TX_SOFTWARE;
	p->tx_kernel_ts = !cfg->send_only && setsockopt(p->s.tx, SOL_SOCKET, SO_TIMESTAMPING,
							&tsflags, sizeof(tsflags)) == 0;
	p->tx_per_send = p->tx_kernel_ts;
	*out = p;
	return 0;
}

static int udp_fds(struct pt_port *p, int *fds, int max)
{
	int n = 0;

	if (max < 2)
		return -ENOSPC;
	if (p->s.rx >= 0)
		fds[n++] = p->s.rx;
	fds[n++] = p->s.tx;
	return n;
}

/* One packet out; with stamp, its send timestamp asked for. */
static ssize_t send_stamped(struct pt_port *p, const void *pkt, size_t n,
			    const struct sockaddr_in *sa, bool stamp)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctrl = {0};
	struct iovec iov = {(void *)pkt, n};
	struct msghdr m = {
	    .msg_name = (void *)sa, .msg_namelen = sizeof(*sa), .msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	uint32_t rec = SOF_TIMESTAMPING_TX_SOFTWARE;
	ssize_t r;

	if (!stamp || !p->tx_per_send)
		return sendto(p->s.tx, pkt, n, 0, (const struct sockaddr *)sa, sizeof(*sa));
	m.msg_control = ctrl.buf;
	m.msg_controllen = sizeof(ctrl.buf);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SO_TIMESTAMPING;
	c->cmsg_len = CMSG_LEN(sizeof(rec));
	memcpy(CMSG_DATA(c), &rec, sizeof(rec));
	r = sendmsg(p->s.tx, &m, 0);
	if (r < 0 && errno == EINVAL) {
		/* An older kernel: every send stamped, from now on. */
		int all = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;

		if (setsockopt(p->s.tx, SOL_SOCKET, SO_TIMESTAMPING, &all, sizeof(all)))
			return -1;
		p->tx_per_send = false;
		return sendto(p->s.tx, pkt, n, 0, (const struct sockaddr *)sa, sizeof(*sa));
	}
	return r;
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

	if (rtcheck_dst(p->s.rt, dst->addr))
		return -ENETUNREACH;
	/* The kernel replaces IP ID 0 with its own (and the ICRC would break): skip it. */
	if (p->next_id == 0)
		p->next_id = 1;
	ip.id = p->next_id++;
	n = roce_build_ud(pkt, sizeof(pkt), &ip, &ud, payload, len);
	if (n < 0)
		return (int)n;
	if (send_stamped(p, pkt, (size_t)n, &sa, p->tx_kernel_ts && cookie) < 0)
		return -errno;
	if (p->tx_kernel_ts && (cookie || !p->tx_per_send)) {
		p->tx_ids[ip.id % TX_KEYS] = ip.id;
		p->cookies[ip.id % TX_KEYS] = cookie;
		p->tx_out++;
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
	for (bool all = !p->tx_out; all || p->tx_out;) {
		uint8_t pkt[128];
		char ctrl[512];
		struct iovec iov = {pkt, sizeof(pkt)};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = ctrl,
				   .msg_controllen = sizeof(ctrl)};
		struct scm_timestamping *tss = NULL;
		struct sock_extended_err *ee = NULL;
		ssize_t n = recvmsg(p->s.tx, &m, MSG_ERRQUEUE | MSG_DONTWAIT);
		int id;

		if (n < 0) {
			p->tx_out = 0;
			return;
		}
		if (p->tx_out)
			p->tx_out--;
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

/* One received packet: a probe for this port's QP to rx(), anything else counted by bad(). */
static void udp_rx_one(struct pt_port *p, const struct pt_events *ev, void *ctx, struct msghdr *m,
		       size_t n)
{
	struct roce_ip ip;
	struct roce_ud ud;
	struct pt_rx rx = {.rx_ts = PT_TS_APP, .rx_ns = rl_realtime_ns()};
	bool kernel;
	int r;

	rawsock_rx_meta(m, &rx.rx_ns, &kernel, &p->rx_drops);
	if (kernel)
		rx.rx_ts = PT_TS_KERNEL;
	r = roce_parse_ud(m->msg_iov[0].iov_base, n, &ip, &ud, &rx.payload, &rx.len);
	if (!r && (ip.dst.s_addr != p->addr.s_addr || ud.dst_qpn != p->qpn || ud.qkey != p->qkey))
		/* RoCEv2, but not for this port's probe QP: another monitor's, or foreign */
		r = ip.dst.s_addr == p->addr.s_addr && ud.qkey == p->qkey &&
			    pt_sibling_qpn(p->qpn, ud.dst_qpn)
			? -EXDEV
			: -ENOENT;
	if (r) {
		if (ev->bad)
			ev->bad(ctx, r);
		return;
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

/*
 * Send timestamps first (when a send may have left one), then up to 256
 * packets, RX_BATCH a system call: a batch that comes back short means the
 * socket is empty, with no further read to find it so.
 */
#define RX_BATCH 8
static int udp_poll(struct pt_port *p, const struct pt_events *ev, void *ctx)
{
	uint8_t pkt[RX_BATCH][2048];
	char ctrl[RX_BATCH][256];
	struct iovec iov[RX_BATCH];
	struct mmsghdr mm[RX_BATCH];

	if (p->tx_kernel_ts && p->tx_out)
		drain_tx(p, ev, ctx);
	for (int budget = p->s.rx < 0 ? 0 : 256; budget > 0; budget -= RX_BATCH) {
		int n;

		for (int i = 0; i < RX_BATCH; i++) {
			iov[i] = (struct iovec){pkt[i], sizeof(pkt[i])};
			mm[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i],
							     .msg_iovlen = 1,
							     .msg_control = ctrl[i],
							     .msg_controllen = sizeof(ctrl[i])}};
		}
		n = recvmmsg(p->s.rx, mm, RX_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		for (int i = 0; i < n; i++)
			udp_rx_one(p, ev, ctx, &mm[i].msg_hdr, mm[i].msg_len);
		if (n < RX_BATCH)
			return 0;
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
		 p->s.port_shared ? ", UDP 4791 shared with the kernel's RoCE stack" : "");
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

const struct pt_ops pt_auto_ops = {.name = "auto"};

static const struct pt_ops *const all[] = {&pt_udp_ops, &pt_verbs_ops, &pt_auto_ops};

struct pt_cfg pt_rnic_cfg(const struct inv_rnic *r, uint8_t tos)
{
	return (struct pt_cfg){.netdev = r->netdev,
			       .ibdev = r->ibdev,
			       .addr = r->addr.addr,
			       .prefix_len = r->addr.len,
			       .gid_index = r->gid_index,
			       .tos = tos};
}

const struct pt_ops *pt_resolve(const struct pt_ops *t, const struct inv_host *h, char *how,
				size_t howlen)
{
	struct pt_port *port;
	struct pt_cfg c;
	char err[256];

	if (t != &pt_auto_ops) {
		snprintf(how, howlen, "%s transport", t->name);
		return t;
	}
	if (!h || !h->n_rnics) {
		snprintf(how, howlen, "udp transport (auto: no RNIC to try verbs on)");
		return &pt_udp_ops;
	}
	c = pt_rnic_cfg(&h->rnics[0], 0);
	c.sports = 1;
	if (!pt_verbs_ops.open(&c, &port, err, sizeof(err))) {
		pt_verbs_ops.close(port);
		snprintf(how, howlen, "verbs transport (auto: %s has an RDMA device)", c.netdev);
		return &pt_verbs_ops;
	}
	snprintf(how, howlen, "udp transport (auto: %s)", err);
	return &pt_udp_ops;
}

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

int pt_opt_parse(const struct opt_desc *d, const char *v, void *field, char *err, size_t errlen)
{
	const struct pt_ops *t = pt_find(v);

	(void)d;
	if (!t) {
		snprintf(err, errlen, "transport '%s': known transports: %s", v, pt_names());
		return -EINVAL;
	}
	*(const struct pt_ops **)field = t;
	return 0;
}

const char *pt_opt_print(const void *field, char *buf, size_t len)
{
	snprintf(buf, len, "%s", (*(const struct pt_ops *const *)field)->name);
	return buf;
}
