/* SPDX-License-Identifier: MIT */
/*
 * The static L-bit reordering bitmap Eunomia is compared with: one circular
 * bitmap of fixed size a connection, allocated whether it reorders or not
 * (256 bits: the paper's section 4 baseline, 41 B; 64 bits: MP-RDMA's
 * receiver).  Same replies as Eunomia's receiver (eunomia.h) on the same
 * packets, so the two run side by side.
 */
#ifndef ROCELAB_STATICBM_H
#define ROCELAB_STATICBM_H

#include "transport/ordering/eunomia.h"

#define SBM_BITS_MAX 256

struct sbm_conn {
	uint32_t head, last; /* first missing sequence; the last one, or EU_NO_LAST */
	uint16_t head_idx;   /* Head's bit in the ring */
	uint64_t bits[SBM_BITS_MAX / 64];
	bool started, completed;
};

/* bits: 1..SBM_BITS_MAX, a multiple of 8; -EINVAL otherwise. */
int sbm_conn_init(struct sbm_conn *c, unsigned bits);

/* Bytes a connection holds: bits/8 + Head, Last and Head's index (41 at 256 bits). */
size_t sbm_bytes(unsigned bits);

/* As eu_rx_data(): one data packet, its reply in res; -EINVAL after completion. */
int sbm_data(struct sbm_conn *c, unsigned bits, uint32_t seq, uint32_t head_meta, bool last,
	     struct eu_result *res);

#endif
