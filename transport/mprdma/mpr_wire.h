/* SPDX-License-Identifier: MIT */
/*
 * MP-RDMA on the wire (../shared/briefs/mp-rdma-eunomia.md D.2): RoCEv2
 * packets built and parsed with probe/roce.c, so the lab's switches, nft
 * rules and fault injectors see real RoCEv2 (UDP 4791, BTH, ICRC).
 *
 * Data (1084 bytes from IPv4 on, 1098 on a veth wire with Ethernet):
 *   IPv4 (DF, DSCP as configured, ECT(0); a CE on arrival is the fabric's
 *   mark) | UDP sport = the VP, dport 4791 | BTH RC SEND Only (0x04), AckReq,
 *   PSN = the PSN's low 24 bits | MPX-D 16 bytes | payload | ICRC.
 *   MPX-D: flags (ReTx 0x01, Sync 0x02, Tail 0x04, Probe 0x08, Completion 0x10:
 *   a tail whose message asks for a completion, as a SEND's opcode would), the PSN's
 *   high 8 bits, the connection's number (16: a spraying workload's, which
 *   runs many on a QP each in turn; 0 for MP-RDMA's one), the message's
 *   first PSN (32: Eunomia's Head), tx_ns (64).
 *
 * ACK and NACK (64 bytes from IPv4 on, 78 on the wire):
 *   IPv4 (not ECT) | UDP sport = the echoed VP, dport 4791 | BTH RC
 *   Acknowledge (0x11), PSN = SACK's low 24 bits | AETH: syndrome 0x1f (ACK,
 *   no credit count) or 0x60 (NAK, PSN sequence error), MSN = AACK's low 24
 *   bits | MPX-A 16 bytes | ICRC.
 *   MPX-A: the echoed VP (16), flags (ECE 0x01, ReTx 0x02, SyncFail 0x04,
 *   NACK 0x08), SACK's high 8 bits, AACK (32), the echoed tx_ns (64).
 *   A NACK's missing PSN is not carried: the receiver (mpr_rcv.c) NACKs
 *   either its rcv_nxt, which is the AACK, or a synchronise packet that came
 *   early, which is the SACK; mpr_wire_ack() refuses any other.
 *
 * Multi-byte fields are big-endian, as IBA's are.  Functions return a
 * length or 0, or -errno: -ENOSPC (no room), -EINVAL (a NACK the format
 * cannot say), -EMSGSIZE (truncated), -EPROTO (not this format), -EBADMSG
 * (a bad ICRC).
 */
#ifndef ROCELAB_MPR_WIRE_H
#define ROCELAB_MPR_WIRE_H

#include "probe/roce.h"
#include "transport/mprdma/mprdma.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MPR_WIRE_MPXD_LEN    16
#define MPR_WIRE_ACK_HDR     20 /* AETH 4 + MPX-A 16 */
#define MPR_WIRE_PAYLOAD     1024
#define ROCE_OP_RC_SEND_ONLY 0x04
#define ROCE_OP_RC_ACK	     0x11
#define MPR_WIRE_ECT0	     0x2 /* the IP TOS's ECN field */
#define MPR_WIRE_CE	     0x3

/* One end's view of the connection: where its packets go. */
struct mpr_wire_ep {
	struct in_addr src, dst;
	uint32_t dst_qpn; /* the peer's QPN (24 bits) */
	uint8_t dscp;	  /* 26 (priority 3) by default, so pfc faults hit it */
	uint8_t ttl;	  /* 0: 64 */
};

/* A data packet of len payload bytes; ip_id fresh for every packet (the datapath's). */
ssize_t mpr_wire_data(uint8_t *buf, size_t cap, const struct mpr_wire_ep *ep, uint16_t ip_id,
		      const struct mpr_pkt *p, const void *payload, size_t len);
/* p->ce from the IP ECN field; ip holds the addresses, VP and IP ID. */
int mpr_wire_parse_data(const uint8_t *pkt, size_t len, struct roce_ip *ip, uint32_t *dst_qpn,
			struct mpr_pkt *p, const uint8_t **payload, size_t *plen);

ssize_t mpr_wire_ack(uint8_t *buf, size_t cap, const struct mpr_wire_ep *ep, uint16_t ip_id,
		     const struct mpr_ack *a);
int mpr_wire_parse_ack(const uint8_t *pkt, size_t len, struct roce_ip *ip, uint32_t *dst_qpn,
		       struct mpr_ack *a);

/* Bytes an MP-RDMA packet takes on an Ethernet wire: data of len payload bytes, or an ACK. */
#define MPR_WIRE_ETH 14
size_t mpr_wire_frame_len(size_t len, bool ack);

/* The payload a PSN carries (a function of the PSN, so the receiver checks what it placed). */
void mpr_wire_pattern(uint32_t psn, uint8_t *buf, size_t len);
bool mpr_wire_pattern_ok(uint32_t psn, const uint8_t *buf, size_t len);

#endif
