// SPDX-License-Identifier: MIT
/*
 * IEEE 802.1Qbb PFC frames through packet sockets.  The layout (IEEE
 * 802.1Qbb-2011 clause 36.1.3, MAC control frame of IEEE 802.3 annex 31D):
 *
 *   0  destination 01:80:C2:00:00:01      6  source (the sender's MAC)
 *  12  EtherType 0x8808 (MAC control)    14  opcode 0x0101
 *  16  class-enable vector: 0x00, then bits e7..e0
 *  18  time[0] .. time[7], 2 bytes each, big endian, in quanta
 *  34  zero padding to the 60-byte minimum (the FCS follows on the wire)
 *
 * sonic-mgmt sends its PFC storms the same way, from a packet socket
 * (tests/common/helpers/pfc_gen.py); that script writes only time[0..6],
 * one field short.
 */
#define _GNU_SOURCE
#include "harness/lab/pfc.h"

#include "harness/lib/common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

void pfc_frame_build(uint8_t out[PFC_FRAME_LEN], const struct pfc_frame *f)
{
	memset(out, 0, PFC_FRAME_LEN);
	memcpy(out, pfc_dst, 6);
	memcpy(out + 6, f->src, 6);
	out[12] = PFC_ETHERTYPE >> 8;
	out[13] = PFC_ETHERTYPE & 0xff;
	out[14] = PFC_OPCODE >> 8;
	out[15] = PFC_OPCODE & 0xff;
	out[17] = f->enable;
	for (int i = 0; i < 8; i++) {
		out[18 + 2 * i] = (uint8_t)(f->quanta[i] >> 8);
		out[19 + 2 * i] = (uint8_t)(f->quanta[i] & 0xff);
	}
}

int pfc_frame_parse(const uint8_t *p, size_t n, struct pfc_frame *f)
{
	if (n < 34 || p[12] != (PFC_ETHERTYPE >> 8) || p[13] != (PFC_ETHERTYPE & 0xff))
		return -EINVAL;
	if (memcmp(p, pfc_dst, 6) || p[14] != (PFC_OPCODE >> 8) || p[15] != (PFC_OPCODE & 0xff) ||
	    p[16] != 0)
		return -EPROTO;
	memcpy(f->src, p + 6, 6);
	f->enable = p[17];
	for (int i = 0; i < 8; i++)
		f->quanta[i] = (uint16_t)(p[18 + 2 * i] << 8 | p[19 + 2 * i]);
	return 0;
}

/* A packet socket bound to ifname for MAC control frames. */
static int mac_control_socket(const char *ifname)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(PFC_ETHERTYPE)};
	int fd, r;

	if (!(sll.sll_ifindex = (int)if_nametoindex(ifname)))
		return -errno;
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(PFC_ETHERTYPE));
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static bool mac_zero(const uint8_t m[6])
{
	static const uint8_t zero[6];

	return !memcmp(m, zero, 6);
}

long long pfc_storm_here(const char *ifname, const struct pfc_frame *f, unsigned pps, long long ms,
			 unsigned long long max_frames, volatile sig_atomic_t *stop)
{
	struct pfc_frame fr = *f;
	uint8_t frame[PFC_FRAME_LEN];
	unsigned long long start = rl_now_ns(),
			   end = ms > 0 ? start + (unsigned long long)ms * 1000000ULL : 0;
	long long sent = 0;
	int fd = mac_control_socket(ifname);

	if (fd < 0)
		return fd;
	if (mac_zero(fr.src)) { /* from the netdev's own address, as its NIC would send */
		struct ifreq ifr = {0};

		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
			memcpy(fr.src, ifr.ifr_hwaddr.sa_data, 6);
	}
	pfc_frame_build(frame, &fr);
	while (!(stop && *stop)) {
		unsigned long long now = rl_now_ns();
		long long due = (long long)((now - start) / 1000 * pps / 1000000ULL) + 1;

		if ((end && now >= end) || (max_frames && (unsigned long long)sent >= max_frames))
			break;
		if (max_frames && (unsigned long long)due > max_frames)
			due = (long long)max_frames;
		for (; sent < due; sent++)
			if (send(fd, frame, sizeof(frame), 0) < 0) {
				if (errno == ENOBUFS || errno == EAGAIN)
					break; /* the queue is full: the next tick catches up */
				sent = -errno;
				goto out;
			}
		/* the next frame's time, at most a millisecond away */
		struct timespec ts = {0, 1000000000L / (long)(pps ? pps : 1)};

		if (ts.tv_nsec > 1000000L)
			ts.tv_nsec = 1000000L;
		nanosleep(&ts, NULL);
	}
out:
	close(fd);
	return sent;
}

int pfc_count_here(const char *ifname, int prio, long long ms, struct pfc_count *c)
{
	unsigned long long start = rl_now_ns(), end = start + (unsigned long long)ms * 1000000ULL;
	uint8_t buf[2048];
	int fd = mac_control_socket(ifname);

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return fd;
	for (unsigned long long now; (now = rl_now_ns()) < end;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct pfc_frame f;
		ssize_t n;
		int r;

		if (poll(&pf, 1, (int)((end - now) / 1000000ULL) + 1) <= 0)
			continue;
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		r = pfc_frame_parse(buf, (size_t)n, &f);
		if (r) {
			c->malformed++;
			continue;
		}
		c->frames++;
		if (prio >= 0 && prio < 8 && (f.enable >> prio & 1) && f.quanta[prio]) {
			c->paused++;
			c->quanta = f.quanta[prio];
		}
	}
	c->secs = (double)(rl_now_ns() - start) / 1e9;
	close(fd);
	return 0;
}
