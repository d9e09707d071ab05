// SPDX-License-Identifier: MIT
/* The raw send, raw receive and UDP 4791 holding sockets of an RNIC, and their receive metadata. */
#define _GNU_SOURCE
#include "probe/rawsock.h"

#include "harness/lib/common.h"
#include "probe/rtcheck.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(char *err, size_t len, const char *what, const struct rawsock_cfg *c)
{
	int e = errno;

	snprintf(err, len, "%s on %s (%s): %s: %s", c->who, c->netdev, inet_ntoa(c->addr), what,
		 strerror(e));
	return -e;
}

static int bind_dev(int fd, const char *dev)
{
	return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, (socklen_t)strlen(dev) + 1);
}

static void set_buf(int fd, int force, int plain, int bytes)
{
	/* Beyond rmem_max/wmem_max with CAP_NET_ADMIN, else as much as allowed. */
	if (bytes > 0 && setsockopt(fd, SOL_SOCKET, force, &bytes, sizeof(bytes)) < 0)
		setsockopt(fd, SOL_SOCKET, plain, &bytes, sizeof(bytes));
}

void rawsock_close(struct rawsock *s)
{
	if (s->tx >= 0)
		close(s->tx);
	if (s->rx >= 0)
		close(s->rx);
	if (s->hold >= 0)
		close(s->hold);
	rtcheck_free(s->rt);
	*s = (struct rawsock){.tx = -1, .rx = -1, .hold = -1};
}

int rawsock_open(struct rawsock *s, const struct rawsock_cfg *c, char *err, size_t errlen)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = c->addr};
	int rxflags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	int one = 1, small = 1, r;

	*s = (struct rawsock){.tx = -1, .rx = -1, .hold = -1};
	if (!c->netdev || !*c->netdev || !if_nametoindex(c->netdev)) {
		snprintf(err, errlen, "%s: no netdev '%s' in this namespace", c->who,
			 c->netdev ? c->netdev : "");
		return -ENODEV;
	}
	/* Send: raw IPv4 with our own header (IPPROTO_RAW implies IP_HDRINCL). */
	s->tx = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_RAW);
	if (s->tx < 0 || bind(s->tx, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    bind_dev(s->tx, c->netdev) < 0) {
		r = fail(err, errlen, "raw send socket (needs CAP_NET_RAW)", c);
		goto clean;
	}
	set_buf(s->tx, SO_SNDBUFFORCE, SO_SNDBUF, c->sndbuf);
	if (!c->filter)
		goto route;

	/* Receive: raw UDP on the netdev, filtered in the kernel. */
	s->rx = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s->rx < 0 || bind(s->rx, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    bind_dev(s->rx, c->netdev) < 0 ||
	    setsockopt(s->rx, SOL_SOCKET, SO_ATTACH_FILTER, c->filter, sizeof(*c->filter)) < 0) {
		r = fail(err, errlen, "raw receive socket", c);
		goto clean;
	}
	s->rx_kernel_ts =
	    setsockopt(s->rx, SOL_SOCKET, SO_TIMESTAMPING, &rxflags, sizeof(rxflags)) == 0;
	/* A packet lost in a full socket is ours, not the network's: count it. */
	set_buf(s->rx, SO_RCVBUFFORCE, SO_RCVBUF, c->rcvbuf);
	setsockopt(s->rx, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));

	/* Hold UDP 4791 (never read, smallest buffer): no ICMP port unreachable. */
	sa.sin_port = htons(ROCEV2_UDP_PORT);
	s->hold = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->hold < 0 || bind_dev(s->hold, c->netdev) < 0 ||
	    bind(s->hold, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* Held already by whoever the caller allows, which keeps ICMP as quiet. */
		if (errno != EADDRINUSE ||
		    !(c->share_port || access("/sys/module/rdma_rxe", F_OK) == 0)) {
			r = fail(err, errlen, "UDP port 4791 (is another agent running?)", c);
			goto clean;
		}
		close(s->hold);
		s->hold = -1;
		s->port_shared = true;
	} else {
		setsockopt(s->hold, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	}
route:
	s->rt = rtcheck_new(c->addr, (int)if_nametoindex(c->netdev), c->prefix_len);
	if (!s->rt) {
		r = fail(err, errlen, "rtnetlink socket", c);
		goto clean;
	}
	return 0;
clean:
	rawsock_close(s);
	return r;
}

void rawsock_rx_meta(struct msghdr *m, uint64_t *rx_ns, bool *kernel, uint32_t *ovfl)
{
	*kernel = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_TIMESTAMPING) {
			const struct scm_timestamping *t = (const void *)CMSG_DATA(c);

			if (t->ts[0].tv_sec) {
				*rx_ns = (uint64_t)t->ts[0].tv_sec * 1000000000ULL +
					 (uint64_t)t->ts[0].tv_nsec;
				*kernel = true;
			}
		} else if (c->cmsg_type == SO_RXQ_OVFL) {
			memcpy(ovfl, CMSG_DATA(c), sizeof(*ovfl));
		}
	}
}
