/* SPDX-License-Identifier: MIT */
/*
 * Eunomia, the receiver ordering layer (../shared/papers/eunomia.txt): the
 * hybrid-dynamic (HD) bitmap, the memory controller that holds it as the
 * paper's FPGA lays it out, and the receiver agent's ACK/SACK/NACK,
 * in-order delivery and garbage collection.  Pure state machines: no I/O,
 * no clock, no allocation after eu_rx_init(), so tests assert exact values.
 *
 * Sequence numbers are 32-bit and grow within a connection (a connection is
 * finite and shorter than 2^31 packets); the wire carries them with the
 * 33 bits of metadata Eunomia adds (Head and the last-packet bit).
 *
 * Functions return 0 or -errno.
 */
#ifndef ROCELAB_EUNOMIA_H
#define ROCELAB_EUNOMIA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The paper's evaluated layout (section 3.4, 4): 16-bit rows, 256 bits at most. */
#define EU_BLOCK_BITS 16
#define EU_CAP_ROWS   16
/* The FPGA's master array: 1024 two-byte blocks; a connection's metadata takes 24 of them. */
#define EU_MC_BLOCKS   1024
#define EU_META_BLOCKS 24
/* What a connection that never reorders costs: its Dynamic BM Address. */
#define EU_DBA_BYTES 4

/*
 * The memory controller (section 4, "master_array", "block_alloc_bitmap"):
 * metadata blocks are found searching back from the tail of the master
 * array, bitmap rows forward from its head, so the two kinds do not
 * fragment each other.  Freeing clears allocation bits only.
 */
struct eu_mc {
	uint16_t master[EU_MC_BLOCKS];
	uint64_t alloc[EU_MC_BLOCKS / 64]; /* bit i: block i in use */
	unsigned used, high_water;	   /* blocks in use now, and at most */
};

void eu_mc_init(struct eu_mc *mc);
/* The first of EU_META_BLOCKS free consecutive blocks, nearest the tail; -ENOSPC. */
int eu_mc_meta_alloc(struct eu_mc *mc);
/* One free block, nearest the head; -ENOSPC. */
int eu_mc_row_alloc(struct eu_mc *mc);
/* Give back n blocks from idx (each must be in use: a double free aborts). */
void eu_mc_release(struct eu_mc *mc, unsigned idx, unsigned n);
/* Is block idx in use? */
bool eu_mc_in_use(const struct eu_mc *mc, unsigned idx);

/*
 * A connection's HD bitmap state (Table 7), 48 bytes, kept in its 24
 * metadata blocks: Head (the first missing sequence), Tail (the highest the
 * circular portion holds), Last (EU_NO_LAST until the last packet came),
 * where Head sits in the circular portion, the circular (C) and all (D)
 * rows, and each row's block in logical order.
 */
#define EU_NO_LAST UINT32_MAX
struct eu_meta {
	uint32_t head, tail, last;
	uint8_t head_row, head_bit, c_rows, d_rows;
	uint16_t rows[EU_CAP_ROWS];
};

/* Per connection on the NIC: the transport's expected sequence and the DBA. */
struct eu_conn {
	uint32_t expected; /* the next in-order sequence (transport's ePSN) */
	int16_t dba;	   /* the metadata's first block, or -1 (NULL: in order) */
	bool started, completed;
};

struct eu_cfg {
	unsigned cap_rows; /* rows a bitmap may grow to: 1..EU_CAP_ROWS (16: 256 bits) */
};

/*
 * ACK: in order; SACK: tracked out of order; NACK: dropped, the sender told;
 * DROP: dropped silently (only a receiver without ordering support, gbn.h).
 */
enum eu_reply { EU_ACK, EU_SACK, EU_NACK, EU_DROP };

/* What one data packet did. */
struct eu_result {
	enum eu_reply reply;
	uint32_t ack; /* cumulative: every sequence below is in order */
	uint32_t seq; /* SACK: the out-of-order sequence; NACK: the one dropped */
	uint32_t deliver_from, deliver_to; /* now in order for the application: [from, to) */
	bool duplicate;			   /* seen before: nothing new */
	bool completed;			   /* everything up to Last is in order: completion */
};

/* A receiver NIC: one controller for all its connections. */
struct eu_rx {
	struct eu_cfg cfg;
	struct eu_mc mc;
	unsigned long long acks, sacks, nacks, cap_drops, alloc_failures, duplicates;
};

/* The paper's defaults: 16 rows of 16 bits. */
void eu_cfg_default(struct eu_cfg *cfg);
/* 0, or -EINVAL when cfg is out of range. */
int eu_rx_init(struct eu_rx *rx, const struct eu_cfg *cfg);
void eu_conn_init(struct eu_conn *c);

/*
 * One data packet of connection c: its sequence, the connection's first
 * sequence (the Head metadata every packet carries) and the last-packet
 * bit.  Fills res; 0, or -EINVAL for a packet of a completed connection.
 */
int eu_rx_data(struct eu_rx *rx, struct eu_conn *c, uint32_t seq, uint32_t head_meta, bool last,
	       struct eu_result *res);

/*
 * The connection ended without completing (its sender gave up, a run
 * stopped): what it holds goes back to the controller and it starts anew.
 */
void eu_conn_reset(struct eu_rx *rx, struct eu_conn *c);

/* Ordering memory the connection holds now: EU_DBA_BYTES, + 48 + 2 per row when reordering. */
size_t eu_conn_bytes(const struct eu_rx *rx, const struct eu_conn *c);

/* The connection's bitmap state (a copy), or -ENOENT when it has none. */
int eu_conn_meta(const struct eu_rx *rx, const struct eu_conn *c, struct eu_meta *m);

#endif
