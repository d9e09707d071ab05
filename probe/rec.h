/* SPDX-License-Identifier: MIT */
/*
 * The framing of every monitor's record stream (agent to analyzer, over TCP
 * or in a file): a sequence of frames {u16 type, u16 length, body}, the
 * first a hello.  Little-endian, fixed-size bodies; a reader skips types it
 * does not know by length, so old analyzers read newer agents.  Each
 * monitor numbers its own types: Hostmesh 1-15 (hostmesh/hmrec.h),
 * R-Pingmesh 16-31 (rpingmesh/rpmrec.h).
 */
#ifndef ROCELAB_REC_H
#define ROCELAB_REC_H

#include <stdint.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "records are little-endian; add byte swapping for this target"
#endif

#define REC_MAX_HOPS  8			 /* switch hops a traced path holds */
#define REC_MAX_LINKS (REC_MAX_HOPS + 2) /* and its links, both RNICs' included */

struct rec_frame {
	uint16_t type, len;
} __attribute__((packed));

#endif
