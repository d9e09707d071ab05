// SPDX-License-Identifier: MIT
/* R-Pingmesh's service flows from the host's outgoing RoCEv2 packets (svc.h). */
#define _GNU_SOURCE
#include "probe/rpingmesh/svc.h"

#include "harness/lib/common.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/roce.h"
#include "probe/rpingmesh/rpm.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ETH_HLEN_ 14

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int rpm_svc_parse(const uint8_t *frame, size_t len, struct rpm_svc_pkt *p)
{
	const uint8_t *ip = frame + ETH_HLEN_, *udp, *bth, *pl;
	size_t ihl;
	uint32_t qpn;

	if (len < ETH_HLEN_ + 20)
		return -EMSGSIZE;
	if (frame[12] != 0x08 || frame[13] != 0x00 || (ip[0] >> 4) != 4 || ip[9] != IPPROTO_UDP)
		return 0;
	if ((ip[6] & 0x1f) || ip[7])
		return 0; /* a fragment past the first: no UDP header */
	if (ip[8] < RPM_SVC_MIN_TTL)
		return 0; /* a path trace's probe (rocelab trace, transport paths), not a flow */
	ihl = (size_t)(ip[0] & 0xf) * 4;
	if (ihl < 20)
		return 0;
	if (len < ETH_HLEN_ + ihl + 8 + ROCE_BTH_LEN)
		return -EMSGSIZE;
	udp = ip + ihl;
	bth = udp + 8;
	if ((udp[2] << 8 | udp[3]) != ROCEV2_UDP_PORT)
		return 0;
	qpn = be32(bth + 4) & 0xffffff;
	/* The monitors' own packets: to their QPs, or carrying their payloads. */
	if (qpn >> 8 == 1 || qpn >> 8 == 2)
		return 0;
	pl = bth + ROCE_BTH_LEN + ROCE_DETH_LEN;
	if ((size_t)(pl + 4 - frame) <= len &&
	    (be32(pl) == RPM_MAGIC || be32(pl) == __builtin_bswap32(HM_PAYLOAD_MAGIC)))
		return 0;
	memcpy(&p->src, ip + 12, 4);
	memcpy(&p->dst, ip + 16, 4);
	p->sport = (uint16_t)(udp[0] << 8 | udp[1]);
	p->qpn = qpn;
	/* The IP header's length: a filter cuts what it passes to its snap length. */
	p->len = (uint32_t)(ETH_HLEN_ + (size_t)(ip[2] << 8 | ip[3]));
	return 1;
}

struct rpm_flow *rpm_svc_add(struct rpm_svc *s, uint8_t src_rnic, const struct rpm_svc_pkt *p,
			     unsigned long long now, bool *is_new)
{
	struct rpm_flow *free_f = NULL;

	*is_new = false;
	for (size_t i = 0; i < RPM_SVC_MAX; i++) {
		struct rpm_flow *f = &s->f[i];

		if (!f->used) {
			if (!free_f)
				free_f = f;
			continue;
		}
		if (f->src_rnic == src_rnic && f->dst == p->dst && f->sport == p->sport) {
			f->last = now;
			f->pkts++;
			f->bytes += p->len;
			f->qpn = p->qpn;
			return f;
		}
	}
	if (!free_f) {
		s->full++;
		return NULL;
	}
	*free_f = (struct rpm_flow){.used = true,
				    .src_rnic = src_rnic,
				    .dst = p->dst,
				    .sport = p->sport,
				    .qpn = p->qpn,
				    .first = now,
				    .last = now,
				    .rep_t = now,
				    .pkts = 1,
				    .bytes = p->len};
	*is_new = true;
	return free_f;
}

size_t rpm_svc_expire(struct rpm_svc *s, unsigned long long now,
		      void (*ended)(void *, const struct rpm_flow *), void *ctx)
{
	size_t n = 0;

	for (size_t i = 0; i < RPM_SVC_MAX; i++) {
		struct rpm_flow *f = &s->f[i];

		if (!f->used || now - f->last < s->idle_ns)
			continue;
		if (ended)
			ended(ctx, f);
		f->used = false;
		n++;
	}
	return n;
}

int rpm_svc_open(const char *netdev, char *err, size_t errlen)
{
	/*
	 * Outgoing IPv4 UDP to 4791, first fragments, whose BTH destination QP is not
	 * a monitor's (0x1xx, 0x2xx): the first 128 bytes; the rest dropped in the kernel.
	 */
	static struct sock_filter code[] = {
	    /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
	    /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 15),
	    /* 2 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
	    /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 13),
	    /* 4 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
	    /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 11),
	    /* 6 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),
	    /* 7 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 9, 0),
	    /* 8 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
	    /* 9 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 16),
	    /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCEV2_UDP_PORT, 0, 6),
	    /* 11 */ BPF_STMT(BPF_LD | BPF_B | BPF_IND, 27),
	    /* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
	    /* 13 */ BPF_STMT(BPF_LD | BPF_B | BPF_IND, 28),
	    /* 14 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 2, 0),
	    /* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 1, 0),
	    /* 16 */ BPF_STMT(BPF_RET | BPF_K, 128),
	    /* 17 */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {.len = sizeof(code) / sizeof(code[0]), .filter = code};
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
	int fd, e;

	sll.sll_ifindex = (int)if_nametoindex(netdev);
	if (!sll.sll_ifindex) {
		e = errno;
		snprintf(err, errlen, "no netdev %s here: %s", netdev, strerror(e));
		return -e;
	}
	/* Protocol 0 until bound, so nothing arrives before the filter is on; bound to ETH_P_ALL,
	 * the only taps that see what the host sends. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "a packet socket: %s", strerror(e));
		return -e;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		e = errno;
		snprintf(err, errlen, "a packet socket on %s: %s", netdev, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}
