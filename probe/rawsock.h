/* SPDX-License-Identifier: MIT */
/*
 * The sockets an RNIC's packets built in user space go through, shared by
 * the udp probe transport and the transports' raw datapath: a raw IPv4 send
 * socket (IPPROTO_RAW: our own header, so our source port, IP ID and TOS)
 * and a raw UDP receive socket, both bound to the RNIC's address and netdev;
 * the receive side behind the caller's classic BPF filter, with kernel
 * software receive timestamps, a large buffer and SO_RXQ_OVFL; a plain UDP
 * socket holding port 4791 so the kernel answers nothing with ICMP; and the
 * route check (probe/rtcheck.h).
 */
#ifndef ROCELAB_RAWSOCK_H
#define ROCELAB_RAWSOCK_H

#include <linux/filter.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct rtcheck;

struct rawsock_cfg {
	const char *who;     /* "udp transport", "raw datapath": the start of error messages */
	const char *netdev;  /* the RNIC's netdev */
	struct in_addr addr; /* its address */
	int prefix_len;	     /* its subnet, 32 when unknown */
	const struct sock_fprog *filter; /* the receive filter; NULL: send only */
	int rcvbuf, sndbuf;		 /* bytes (0: the kernel's default) */
	/*
	 * UDP 4791 may be held already: by another process of ours (a Hostmesh
	 * agent beside a transport) or a RoCE stack.  Otherwise a held port is
	 * an error, unless Soft-RoCE is loaded (it binds 4791 at load).
	 */
	bool share_port;
};

struct rawsock {
	int tx, rx, hold; /* -1: none */
	bool port_shared; /* UDP 4791 was held by someone else */
	bool rx_kernel_ts;
	struct rtcheck *rt;
};

/* 0, or -errno with "WHO on NETDEV (ADDR): what: why" in err; nothing left open then. */
int rawsock_open(struct rawsock *s, const struct rawsock_cfg *c, char *err, size_t errlen);
void rawsock_close(struct rawsock *s);

/*
 * From a message received on s->rx: the kernel's receive time (CLOCK_REALTIME
 * ns; *rx_ns unchanged and *kernel false when it gave none) and the socket's
 * drop count so far (*ovfl unchanged when absent).
 */
void rawsock_rx_meta(struct msghdr *m, uint64_t *rx_ns, bool *kernel, uint32_t *ovfl);

#endif
