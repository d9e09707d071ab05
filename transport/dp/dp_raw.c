// SPDX-License-Identifier: MIT
/*
 * The raw-socket datapath: packets built in user space leave through a raw
 * IPv4 socket (IPPROTO_RAW) bound to the RNIC's address and netdev, so the
 * kernel routes them like the RNIC's own traffic and each keeps the UDP
 * source port, IP ID and DSCP its builder chose (the kernel only fills an IP
 * ID of 0, which the builders never use).  Packets for our QPN arrive on a
 * raw UDP socket bound to the netdev behind a classic BPF filter (IPv4
 * without options, UDP 4791, BTH destination QPN), with the kernel's
 * software receive timestamp and the socket's overflow count.  sendmmsg()
 * and recvmmsg() move up to DP_BATCH packets a call.
 */
#define _GNU_SOURCE
#include "transport/dp/dp.h"

#include "harness/lib/common.h"
#include "probe/rawsock.h"
#include "probe/roce.h"
#include "probe/rtcheck.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SOCKBUF_DEFAULT (8 << 20)
#define CTRL_LEN	256

struct dp_port {
	struct rawsock s;
	struct in_addr addr;
	uint32_t qpn, span;
	struct sock_filter code[12];
	struct sock_fprog filter;
	struct dp_stats st;
	uint8_t buf[DP_BATCH][DP_PKT_MAX];
	char ctrl[DP_BATCH][CTRL_LEN];
};

/* IPv4 without options, UDP to 4791, BTH destination QPN (bytes 33..35) in qpn's span. */
static void make_filter(struct dp_port *p)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x45, 0, 9),
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 7),
	    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 22),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCEV2_UDP_PORT, 0, 5),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 32), /* out of the packet: dropped */
	    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xffffff),
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, p->qpn, 0, 2),
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, p->qpn + p->span, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, DP_PKT_MAX),
	    BPF_STMT(BPF_RET | BPF_K, 0),
	};

	_Static_assert(sizeof(code) == sizeof(p->code), "filter size");
	memcpy(p->code, code, sizeof(code));
	p->filter = (struct sock_fprog){.len = ARRAY_SIZE(p->code), .filter = p->code};
}

static void raw_close(struct dp_port *p)
{
	if (!p)
		return;
	rawsock_close(&p->s);
	free(p);
}

static int raw_open(const struct dp_cfg *cfg, struct dp_port **out, char *err, size_t errlen)
{
	struct dp_port *p = rl_xcalloc(1, sizeof(*p));
	int buf = cfg->sockbuf > 0 ? cfg->sockbuf : SOCKBUF_DEFAULT, r;
	struct rawsock_cfg rc = {.who = "raw datapath",
				 .netdev = cfg->netdev,
				 .addr = cfg->addr,
				 .prefix_len = cfg->prefix_len,
				 .filter = &p->filter,
				 .rcvbuf = buf,
				 .sndbuf = buf,
				 /* beside a Hostmesh agent, which holds UDP 4791 as well */
				 .share_port = true};

	p->addr = cfg->addr;
	p->qpn = cfg->qpn & 0xffffff;
	p->span = cfg->qpn_span ? cfg->qpn_span : 1;
	if (p->qpn + p->span > 0x1000000) {
		snprintf(err, errlen, "QPNs 0x%x and %u more: past the 24-bit QPN space", p->qpn,
			 p->span - 1);
		free(p);
		return -EINVAL;
	}
	make_filter(p);
	r = rawsock_open(&p->s, &rc, err, errlen);
	if (r) {
		free(p);
		return r;
	}
	*out = p;
	return 0;
}

static int raw_fd(struct dp_port *p)
{
	return p->s.rx;
}

static int raw_send(struct dp_port *p, const struct dp_tx *tx, unsigned n)
{
	struct mmsghdr m[DP_BATCH];
	struct iovec iov[DP_BATCH];
	struct sockaddr_in sa[DP_BATCH];
	int sent;

	unsigned k = 0;

	if (n > DP_BATCH)
		n = DP_BATCH;
	for (unsigned i = 0; i < n; i++) {
		/* Packets of one batch go to few destinations: the check is cached. */
		if (rtcheck_dst(p->s.rt, tx[i].dst)) {
			p->st.tx_unroutable++;
			continue;
		}
		sa[k] = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr = tx[i].dst};
		iov[k] = (struct iovec){(void *)tx[i].pkt, tx[i].len};
		m[k] = (struct mmsghdr){.msg_hdr = {.msg_name = &sa[k],
						    .msg_namelen = sizeof(sa[k]),
						    .msg_iov = &iov[k],
						    .msg_iovlen = 1}};
		k++;
	}
	if (!k)
		return n ? -ENETUNREACH : 0;
	sent = sendmmsg(p->s.tx, m, k, MSG_DONTWAIT);
	if (sent < 0) {
		if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR)
			return -errno;
		sent = 0;
	}
	for (int i = 0; i < sent; i++)
		p->st.tx_bytes += iov[i].iov_len;
	p->st.tx += (unsigned)sent;
	p->st.tx_full += k - (unsigned)sent;
	return sent;
}

static int raw_recv(struct dp_port *p, struct dp_rx *rx, unsigned max)
{
	struct mmsghdr m[DP_BATCH];
	struct iovec iov[DP_BATCH];
	struct timespec now;
	int got;

	if (max > DP_BATCH)
		max = DP_BATCH;
	for (unsigned i = 0; i < max; i++) {
		iov[i] = (struct iovec){p->buf[i], DP_PKT_MAX};
		m[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i],
						    .msg_iovlen = 1,
						    .msg_control = p->ctrl[i],
						    .msg_controllen = CTRL_LEN}};
	}
	got = recvmmsg(p->s.rx, m, max, MSG_DONTWAIT, NULL);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	clock_gettime(CLOCK_REALTIME, &now);
	for (int i = 0; i < got; i++) {
		struct msghdr *h = &m[i].msg_hdr;

		rx[i] = (struct dp_rx){.pkt = p->buf[i],
				       .len = m[i].msg_len,
				       .rx_ns = (uint64_t)now.tv_sec * 1000000000ULL +
						(uint64_t)now.tv_nsec};
		rawsock_rx_meta(h, &rx[i].rx_ns, &rx[i].kernel_ts, &p->st.rx_overflow);
		p->st.rx_bytes += rx[i].len;
	}
	p->st.rx += (unsigned)got;
	return got;
}

static void raw_stats(struct dp_port *p, struct dp_stats *st)
{
	*st = p->st;
}

static const char *raw_describe(struct dp_port *p, char *buf, size_t len)
{
	char qpns[40];

	if (p->span > 1)
		snprintf(qpns, sizeof(qpns), "QPNs 0x%x-0x%x", p->qpn, p->qpn + p->span - 1);
	else
		snprintf(qpns, sizeof(qpns), "QPN 0x%x", p->qpn);
	snprintf(buf, len, "raw datapath on %s: %s, %s receive timestamps, UDP 4791 %s",
		 inet_ntoa(p->addr), qpns, p->s.rx_kernel_ts ? "kernel software" : "clock_gettime",
		 p->s.port_shared ? "held by another socket here" : "held");
	return buf;
}

const struct dp_ops dp_raw_ops = {
    .name = "raw",
    .open = raw_open,
    .close = raw_close,
    .fd = raw_fd,
    .send = raw_send,
    .recv = raw_recv,
    .stats = raw_stats,
    .describe = raw_describe,
};
