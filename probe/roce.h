/* SPDX-License-Identifier: MIT */
/* RoCEv2 wire format: IPv4 + UDP 4791 + BTH + DETH + payload + ICRC, as a UD SEND carries it. */
#ifndef ROCELAB_ROCE_H
#define ROCELAB_ROCE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ROCE_IP_LEN   20
#define ROCE_UDP_LEN  8
#define ROCE_BTH_LEN  12
#define ROCE_DETH_LEN 8
#define ROCE_ICRC_LEN 4

#define ROCE_OP_UD_SEND_ONLY 0x64 /* UD transport (0x60) | SEND Only (0x04) */
#define ROCE_DEFAULT_PKEY    0xffff
#define ROCE_DEFAULT_QKEY    0x52434c42u /* "RCLB": rocelab's probe Q_Key */

/* The IPv4/UDP fields of one packet (host byte order). */
struct roce_ip {
	struct in_addr src, dst;
	uint16_t sport, dport;
	uint16_t id;
	uint8_t ttl, tos;
};

/* The InfiniBand transport fields of a UD SEND (host byte order). */
struct roce_ud {
	uint8_t opcode;
	uint16_t pkey;
	uint32_t dst_qpn, psn; /* 24 bits each */
	uint32_t qkey;
	uint32_t src_qpn;  /* 24 bits */
	uint8_t fecn_becn; /* byte 4 of the BTH as received: FECN 0x80, BECN 0x40 */
};

/* The Base Transport Header's fields (host byte order). */
struct roce_bth {
	uint8_t opcode;
	uint16_t pkey;	       /* 0: the default */
	uint32_t dst_qpn, psn; /* 24 bits each */
	bool ack_req;
	uint8_t fecn_becn; /* parsed: byte 4 as received */
};

/* Bytes a packet of hlen extension-header and len payload bytes takes from the IPv4 header on. */
size_t roce_packet_len(size_t hlen, size_t len);

/*
 * Build an IPv4 RoCEv2 packet: IPv4 (DF), UDP (checksum 0), BTH, the hlen
 * bytes of extension headers at hdr, payload [0, len) padded to 4 bytes,
 * ICRC.  Returns its length, or -ENOSPC.
 */
ssize_t roce_build(uint8_t *buf, size_t cap, const struct roce_ip *ip, const struct roce_bth *bth,
		   const void *hdr, size_t hlen, const void *payload, size_t len);

/*
 * Parse an IPv4 RoCEv2 packet with opcode (0: any) and at least hlen bytes
 * of extension headers: checks lengths, the UDP port, the pad count and
 * the ICRC.  rest points after the BTH, rlen counts the extension headers
 * and the payload without its pad.  0, or -EMSGSIZE (truncated), -EPROTO
 * (not RoCEv2, or another opcode), -EBADMSG (a bad ICRC).
 */
int roce_parse(const uint8_t *pkt, size_t len, uint8_t opcode, size_t hlen, struct roce_ip *ip,
	       struct roce_bth *bth, const uint8_t **rest, size_t *rlen);

/* Bytes a UD SEND of len payload bytes takes from the IPv4 header on. */
size_t roce_ud_packet_len(size_t len);

/*
 * Build a complete IPv4 packet holding a RoCEv2 UD SEND Only of payload
 * [0, len) into buf: header checksum, UDP checksum 0 (allowed for RoCEv2),
 * payload padded to 4 bytes, ICRC.  Returns its length, or -ENOSPC.
 */
ssize_t roce_build_ud(uint8_t *buf, size_t cap, const struct roce_ip *ip, const struct roce_ud *ud,
		      const void *payload, size_t len);

/*
 * Parse an IPv4 packet holding a RoCEv2 UD SEND: checks lengths, the UDP
 * port, opcode, pad count and the ICRC.  On success fills ip, ud and the
 * payload span and returns 0; otherwise a negative reason (-EBADMSG for
 * a bad ICRC, -EPROTO for anything not a UD SEND, -EMSGSIZE for truncation).
 */
int roce_parse_ud(const uint8_t *pkt, size_t len, struct roce_ip *ip, struct roce_ud *ud,
		  const uint8_t **payload, size_t *plen);

/* The ICRC of an IPv4 RoCEv2 packet of len bytes whose last 4 bytes hold (or will hold) it
 * (0 when len cannot hold its headers). */
uint32_t roce_icrc(const uint8_t *pkt, size_t len);

/*
 * Write the ICRC into the last 4 bytes of the IPv4 packet at pkt, as long
 * as its header's total length says (nothing when that is out of [24, cap]).
 */
void roce_seal(uint8_t *pkt, size_t cap);

/* n (1..8) bytes of v at p, big-endian as IBA and IP fields are; and back. */
void roce_put_be(uint8_t *p, uint64_t v, unsigned n);
uint64_t roce_get_be(const uint8_t *p, unsigned n);

/* Standard Internet checksum of an IPv4 header. */
uint16_t roce_ip_checksum(const uint8_t *hdr, size_t len);

#endif
