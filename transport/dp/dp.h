/* SPDX-License-Identifier: MIT */
/*
 * A transport's datapath on one RNIC: whole IPv4 packets the caller built
 * (RoCEv2 with its own UDP source port, IP ID and DSCP per packet) sent in
 * batches, and the RoCEv2 packets addressed to one QPN received in batches
 * with the kernel's receive time.  Probes keep probe/ptrans.h; data needs
 * batching and full-size packets, hence this sibling.
 *
 * One backend today, raw sockets (dp_raw.c); a verbs backend (MP-RDMA
 * inside UD SENDs) would be a second ops table.  Functions return 0 (or a
 * count) or -errno, with err filled where given.
 */
#ifndef ROCELAB_DP_H
#define ROCELAB_DP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DP_BATCH   64	/* packets a send or receive call moves at most */
#define DP_PKT_MAX 2048 /* the largest packet received */

struct dp_cfg {
	const char *netdev;  /* the RNIC's netdev: sockets bound to it */
	struct in_addr addr; /* the RNIC's address */
	int prefix_len;	     /* its subnet (the rail), 32 when unknown */
	uint32_t qpn;	     /* receive RoCEv2 packets to this QPN only (24 bits) */
	uint32_t qpn_span;   /* or to the span of QPNs from it (0: 1) */
	int sockbuf;	     /* socket buffers, bytes (0: 8 MiB) */
};

/* A packet to send: from the IPv4 header on, checksums and ICRC done. */
struct dp_tx {
	const uint8_t *pkt;
	size_t len;
	struct in_addr dst;
};

/* A packet received: valid until the next recv() on the port. */
struct dp_rx {
	const uint8_t *pkt; /* from the IPv4 header on */
	size_t len;
	uint64_t rx_ns; /* CLOCK_REALTIME: the kernel's receive time, else clock_gettime */
	bool kernel_ts;
};

struct dp_stats {
	unsigned long long tx, tx_bytes, tx_full, tx_unroutable, rx, rx_bytes;
	uint32_t rx_overflow; /* packets the receive socket dropped (SO_RXQ_OVFL) */
};

struct dp_port;

struct dp_ops {
	const char *name;
	int (*open)(const struct dp_cfg *cfg, struct dp_port **out, char *err, size_t errlen);
	void (*close)(struct dp_port *p);
	/* The file descriptor that becomes readable when packets arrive. */
	int (*fd)(struct dp_port *p);
	/*
	 * Send n packets (at most DP_BATCH).  Returns how many the kernel took:
	 * fewer when its queue is full (counted in tx_full; the transport's loss
	 * recovery sees them as lost, and a run with any is rig-limited).  A
	 * packet to a destination the RNIC has no route to is not sent (counted
	 * in tx_unroutable: the RNIC could not send it either); -ENETUNREACH
	 * when that was every one.
	 */
	int (*send)(struct dp_port *p, const struct dp_tx *tx, unsigned n);
	/* Receive up to max (at most DP_BATCH) without waiting; how many. */
	int (*recv)(struct dp_port *p, struct dp_rx *rx, unsigned max);
	void (*stats)(struct dp_port *p, struct dp_stats *st);
	/* One line for logs: backend, timestamps, how UDP 4791 is held. */
	const char *(*describe)(struct dp_port *p, char *buf, size_t len);
};

extern const struct dp_ops dp_raw_ops;

#endif
