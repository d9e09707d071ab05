/* SPDX-License-Identifier: MIT */
/*
 * One receiver NIC of a kind Eunomia is compared with, over many
 * connections, on the same traffic: Eunomia's HD bitmap (eunomia.h), a
 * static 256- or 64-bit bitmap (staticbm.h) or no ordering support
 * (gbn.h).  The NIC-wide ordering memory is counted as the paper's section
 * 4 counts it: Eunomia's 4-byte DBA per live connection plus its metadata
 * and rows while one reorders; a static bitmap's whole size per live
 * connection; nothing for go-back-N.  A connection is live from its first
 * packet to its completion.  A NIC may also hold QPs that carry no
 * connection now (qps): each keeps its DBA, or its whole static bitmap in
 * its QP context.  Storage is allocated once, in ord_rx_new().
 */
#ifndef ROCELAB_ORDRX_H
#define ROCELAB_ORDRX_H

#include "transport/ordering/eunomia.h"
#include "transport/ordering/gbn.h"
#include "transport/ordering/staticbm.h"

enum ord_kind { ORD_EUNOMIA, ORD_STATIC256, ORD_STATIC64, ORD_GBN, ORD_KINDS };

/* "eunomia", "static256", "static64", "gbn". */
const char *ord_kind_name(enum ord_kind k);
/* The kind named, or -EINVAL. */
int ord_kind_parse(const char *name);

struct ord_conn {
	union {
		struct eu_conn eu;
		struct sbm_conn sbm;
		struct gbn_conn gbn;
	};
	bool live; /* first packet seen, not yet completed */
};

struct ord_rx {
	enum ord_kind kind;
	unsigned n_conns, live;
	/*
	 * The QPs the NIC holds, live or idle (0, as ord_rx_new() leaves it:
	 * only the live connections count).  A QP between two connections
	 * costs Eunomia its 4-byte DBA and a static bitmap all of it.
	 */
	unsigned qps;
	struct eu_rx eu; /* the NIC's controller and counters (every kind counts here) */
	struct ord_conn *conn;
};

/* A receiver of kind for n connections (0..n-1); NULL and errno (EINVAL, ENOMEM). */
struct ord_rx *ord_rx_new(enum ord_kind kind, unsigned n);
void ord_rx_free(struct ord_rx *rx);

/*
 * One data packet of connection conn, as eu_rx_data(); the counters in
 * rx->eu (acks, sacks, nacks, cap_drops, alloc_failures, duplicates) count
 * for every kind; go-back-N's cap_drops are the packets it dropped past a gap.  -EINVAL: no such
 * connection, or it completed.
 */
int ord_rx_data(struct ord_rx *rx, unsigned conn, uint32_t seq, uint32_t head_meta, bool last,
		struct eu_result *res);

/*
 * Connection conn starts anew (a new flow on the QP): what it held is
 * given back, complete or not.  -EINVAL: no such connection.
 */
int ord_rx_reset(struct ord_rx *rx, unsigned conn);

/*
 * The ordering memory the NIC holds now, in bytes: all of it (total), and
 * the bitmaps alone (the paper's Figs. 9(c), 10 and 18(c) count these);
 * and what a static 256-bit bitmap would hold for the same live
 * connections, or for all qps when more (41 B and 32 B each).  Eunomia's
 * total passes the static one's when most live connections reorder: its
 * 48 B of metadata (the paper's Fig. 9(d), above about 60% of them).
 */
struct ord_mem {
	size_t total, bitmap, static_total, static_bitmap;
};
void ord_rx_mem(const struct ord_rx *rx, struct ord_mem *m);

#endif
