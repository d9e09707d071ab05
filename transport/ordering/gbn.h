/* SPDX-License-Identifier: MIT */
/*
 * A receiver without ordering support, as rxe and RoCE RNICs before
 * Eunomia: only the expected sequence is taken; the first packet past a
 * gap is answered with one NAK (a sequence error) and every later one is
 * dropped silently until the gap fills, so the sender goes back N
 * (Eunomia Fig. 1(c): reordering alone triggers these recoveries).  Same
 * replies as eunomia.h: EU_NACK is the NAK.
 */
#ifndef ROCELAB_GBN_H
#define ROCELAB_GBN_H

#include "transport/ordering/eunomia.h"

struct gbn_conn {
	uint32_t expected;
	bool started, nak_sent, completed;
};

void gbn_conn_init(struct gbn_conn *c);

/* As eu_rx_data(); -EINVAL after completion. */
int gbn_data(struct gbn_conn *c, uint32_t seq, uint32_t head_meta, bool last,
	     struct eu_result *res);

#endif
