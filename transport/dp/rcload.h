/* SPDX-License-Identifier: MIT */
/*
 * A load in RDMA terms (issue 61): RDMA WRITEs on reliable-connected QPs over rdma-core, as
 * perftest's ib_write_bw sends them, from RNICs to one RNIC (an RC incast).  The receiver
 * (rcl_serve) listens on TCP at its RNIC's address; each sending flow connects there from its own
 * RNIC's address, and the two exchange what an RC connection needs as one text line each way,
 * as ibv_rc_pingpong does (libibverbs/examples/rc_pingpong.c): QPN, first PSN and path MTU, and
 * from the receiver its buffer's address, length and rkey.  A peer's GID is its TCP address
 * (RoCEv2, ::ffff:a.b.c.d), never taken from its line.
 *
 * What a WRITE costs the wire is the RNIC's business (rxe, mlx5 ...): this is the real verbs
 * path, the RNIC's own congestion control and retransmission included, where the UDP loads
 * (harness/lab/traffic.h) are datagrams a socket sends.
 */
#ifndef ROCELAB_RCLOAD_H
#define ROCELAB_RCLOAD_H

#include "probe/ptrans.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RCL_PORT     18515 /* perftest's default TCP port for the exchange */
#define RCL_SIZE_MAX 65536 /* the largest WRITE (ib_write_bw's default size) */
#define RCL_FLOWS    64
/*
 * The QP's local ACK timeout, 4.096 us << it: 18 (1.07 s), NCCL's NCCL_IB_TIMEOUT (14 in its
 * early releases, 18, now 20: src/transport/net_ib).  ibv_rc_pingpong's 14 (67 ms) is shorter
 * than an incast's queue can hold a WRITE: in the VM tier's incast into an emulated 10 Mbit/s
 * line (164 ms of queue) its QPs retransmitted what was only waiting, the receiver counted 674
 * duplicates, RED dropped 2,122 packets and 3.9 Mbit/s got through, where in runs without a
 * spurious timeout 9.4 did.
 */
#define RCL_TIMEOUT 18

/* One line of the exchange: the sender's has no rkey, addr or len (0). */
struct rcl_msg {
	uint32_t qpn, psn; /* 24 bits each */
	unsigned mtu;	   /* the path MTU its port runs: 256, 512, 1024, 2048 or 4096 */
	uint32_t rkey, len;
	uint64_t addr;
};

/* The line for m (the receiver's when reply), with its newline; its length. */
int rcl_format(const struct rcl_msg *m, bool reply, char *buf, size_t len);
/*
 * A peer's line (its newline taken off or not) into m: 0, or -EINVAL with what was wrong in
 * err.  A network peer's text: every field checked, nothing else accepted.
 */
int rcl_parse(const char *line, bool reply, struct rcl_msg *m, char *err, size_t errlen);

struct rcl_serve_cfg {
	struct pt_cfg rnic; /* the receiving RNIC (its netdev, ibdev, address, gid_index) */
	int timeout;	    /* its QPs' ACK timeout exponent (0: RCL_TIMEOUT) */
	uint16_t port;	    /* TCP port of the exchange (0: RCL_PORT) */
	long long ms;	    /* serve this long, or until SIGTERM (rl_signals_install()) */
	/* a connecting peer's address: whether to serve it (NULL: any) */
	bool (*peer_ok)(struct in_addr a, void *ctx);
	void *ctx;
};

/*
 * Receive RC WRITEs for c->ms: each connection that says a valid line gets a QP of its own,
 * destroyed when it closes.  Logs each peer (stderr).  The number of peers served, or -errno
 * with why in err (no device, the port taken ...).
 */
int rcl_serve(const struct rcl_serve_cfg *c, char *err, size_t errlen);

/* One sending flow: from an RNIC to the receiver's address. */
struct rcl_flow {
	struct pt_cfg src;
	struct in_addr dst;
};

struct rcl_send_cfg {
	const struct rcl_flow *flows;
	size_t n;
	uint16_t port;		/* (0: RCL_PORT) */
	int size;		/* bytes a WRITE, 1 to RCL_SIZE_MAX */
	unsigned long long pps; /* WRITEs a second a flow (0: as fast as its queue allows) */
	long long ms;
	uint8_t tos;	 /* DSCP << 2 | ECN of the QP's packets (the GRH traffic class) */
	int depth;	 /* WRITEs a flow keeps outstanding at most (0: 64) */
	int timeout;	 /* the QPs' ACK timeout exponent (0: RCL_TIMEOUT) */
	int progress_fd; /* "sent FLOW SECONDS COUNT REFUSED" lines every 100 ms (-1: none) */
};

/*
 * Send for c->ms (or until SIGTERM): each flow's WRITEs at its pace, COUNT in its lines the
 * WRITEs completed (acknowledged by the receiver), REFUSED the ones due while its send queue
 * was full (the receiver or the network holding it back, as a socket's EAGAIN).  The WRITEs
 * completed, or -errno with why in err; a flow whose WRITE completed in error stops, and makes
 * the result -EIO once the others ended.
 */
long long rcl_send(const struct rcl_send_cfg *c, char *err, size_t errlen);

#endif
