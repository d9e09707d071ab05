// SPDX-License-Identifier: MIT
/*
 * Eunomia's HD bitmap and receiver agent (eunomia.txt, sections 3.3 and
 * 3.5; ../shared/briefs/mp-rdma-eunomia.md C.2, C.7).
 *
 * The bitmap is a list of 16-bit rows.  The first C rows are the circular
 * portion, read from Head's position round the ring; rows C..D-1, added
 * when a sequence beyond Tail comes, are the linear portion, whose bit 0 is
 * Tail + 1.  Adding rows never moves a bit.  While there is no linear
 * portion Tail moves with Head (Tail = Head + 16 C - 1); once there is one,
 * Tail stays, and when Head passes Tail (the circular portion is flushed)
 * the linear rows join the ring: C = D, Head's position is where its bit
 * was in the linear portion, and the old circular rows, all clear, are the
 * ring's wrap-around.  Each step is O(1) but the flush, which clears the
 * run of bits it delivers.
 */
#include "transport/ordering/eunomia.h"

#include <errno.h>
#include <string.h>

_Static_assert(sizeof(struct eu_meta) == 2 * EU_META_BLOCKS,
	       "the metadata is the FPGA's 24 blocks of two bytes");

void eu_cfg_default(struct eu_cfg *cfg)
{
	cfg->cap_rows = EU_CAP_ROWS;
}

int eu_rx_init(struct eu_rx *rx, const struct eu_cfg *cfg)
{
	if (cfg->cap_rows < 1 || cfg->cap_rows > EU_CAP_ROWS)
		return -EINVAL;
	memset(rx, 0, sizeof(*rx));
	rx->cfg = *cfg;
	eu_mc_init(&rx->mc);
	return 0;
}

void eu_conn_init(struct eu_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->dba = -1;
}

static void meta_load(const struct eu_rx *rx, int dba, struct eu_meta *m)
{
	memcpy(m, &rx->mc.master[dba], sizeof(*m));
}

static void meta_store(struct eu_rx *rx, int dba, const struct eu_meta *m)
{
	memcpy(&rx->mc.master[dba], m, sizeof(*m));
}

size_t eu_conn_bytes(const struct eu_rx *rx, const struct eu_conn *c)
{
	struct eu_meta m;

	if (c->dba < 0)
		return EU_DBA_BYTES;
	meta_load(rx, c->dba, &m);
	return EU_DBA_BYTES + sizeof(m) + 2u * m.d_rows;
}

int eu_conn_meta(const struct eu_rx *rx, const struct eu_conn *c, struct eu_meta *m)
{
	if (c->dba < 0)
		return -ENOENT;
	meta_load(rx, c->dba, m);
	return 0;
}

static unsigned head_pos(const struct eu_meta *m)
{
	return m->head_row * EU_BLOCK_BITS + m->head_bit;
}

static void set_head_pos(struct eu_meta *m, unsigned pos)
{
	m->head_row = (uint8_t)(pos / EU_BLOCK_BITS);
	m->head_bit = (uint8_t)(pos % EU_BLOCK_BITS);
}

/* The flat bit (row x 16 + bit) of seq, Head <= seq; where it would be when beyond D rows. */
static unsigned flat_of(const struct eu_meta *m, uint32_t seq)
{
	if (seq <= m->tail)
		return (head_pos(m) + (seq - m->head)) % (m->c_rows * EU_BLOCK_BITS);
	return m->c_rows * EU_BLOCK_BITS + (seq - m->tail - 1);
}

static uint16_t *row_of(struct eu_rx *rx, const struct eu_meta *m, unsigned flat)
{
	return &rx->mc.master[m->rows[flat / EU_BLOCK_BITS]];
}

static bool test_bit(struct eu_rx *rx, const struct eu_meta *m, unsigned flat)
{
	return *row_of(rx, m, flat) >> (flat % EU_BLOCK_BITS) & 1;
}

/* Rows up to n, each a fresh block cleared (a freed block keeps its old bits); -ENOSPC. */
static int grow(struct eu_rx *rx, struct eu_meta *m, unsigned n)
{
	while (m->d_rows < n) {
		int b = eu_mc_row_alloc(&rx->mc);

		if (b < 0)
			return b;
		rx->mc.master[b] = 0;
		m->rows[m->d_rows++] = (uint16_t)b;
	}
	return 0;
}

/* Clear the run of received bits from Head; Head ends on the first missing sequence. */
static void flush(struct eu_rx *rx, struct eu_meta *m)
{
	for (;;) {
		unsigned flat = flat_of(m, m->head);

		if (flat >= m->d_rows * EU_BLOCK_BITS || !test_bit(rx, m, flat))
			break;
		*row_of(rx, m, flat) &= (uint16_t) ~(1u << (flat % EU_BLOCK_BITS));
		m->head++;
		if (m->d_rows > m->c_rows && m->head > m->tail) {
			/* the circular portion is flushed: the linear rows join the ring */
			set_head_pos(m, m->c_rows * EU_BLOCK_BITS + (m->head - m->tail - 1));
			m->c_rows = m->d_rows;
		} else {
			set_head_pos(m, (flat + 1) % (m->c_rows * EU_BLOCK_BITS));
		}
		if (m->d_rows == m->c_rows) /* no linear portion: Tail moves with Head */
			m->tail = m->head + m->c_rows * EU_BLOCK_BITS - 1;
	}
}

static void free_bitmap(struct eu_rx *rx, struct eu_conn *c, const struct eu_meta *m)
{
	for (unsigned i = 0; i < m->d_rows; i++)
		eu_mc_release(&rx->mc, m->rows[i], 1);
	eu_mc_release(&rx->mc, (unsigned)c->dba, EU_META_BLOCKS);
	c->dba = -1;
}

void eu_conn_reset(struct eu_rx *rx, struct eu_conn *c)
{
	struct eu_meta m;

	if (c->dba >= 0) {
		meta_load(rx, c->dba, &m);
		free_bitmap(rx, c, &m);
	}
	eu_conn_init(c);
}

static void reply(struct eu_rx *rx, struct eu_result *res, enum eu_reply r, uint32_t ack,
		  uint32_t seq)
{
	res->reply = r;
	res->ack = ack;
	res->seq = seq;
	if (r == EU_ACK)
		rx->acks++;
	else if (r == EU_SACK)
		rx->sacks++;
	else
		rx->nacks++;
}

/* The first out-of-order packet: metadata and one row, Head = the expected sequence. */
static int create(struct eu_rx *rx, struct eu_conn *c, struct eu_meta *m)
{
	int meta = eu_mc_meta_alloc(&rx->mc), row;

	if (meta < 0)
		return meta;
	if ((row = eu_mc_row_alloc(&rx->mc)) < 0) {
		eu_mc_release(&rx->mc, (unsigned)meta, EU_META_BLOCKS);
		return row;
	}
	memset(m, 0, sizeof(*m));
	m->head = c->expected;
	m->tail = c->expected + EU_BLOCK_BITS - 1;
	m->last = EU_NO_LAST;
	m->c_rows = m->d_rows = 1;
	m->rows[0] = (uint16_t)row;
	rx->mc.master[row] = 0;
	c->dba = (int16_t)meta;
	return 0;
}

int eu_rx_data(struct eu_rx *rx, struct eu_conn *c, uint32_t seq, uint32_t head_meta, bool last,
	       struct eu_result *res)
{
	const uint32_t cap = rx->cfg.cap_rows * EU_BLOCK_BITS;
	struct eu_meta m;
	unsigned flat;
	uint32_t from;

	memset(res, 0, sizeof(*res));
	if (c->completed)
		return -EINVAL;
	if (!c->started) {
		c->expected =
		    head_meta; /* the connection's first packet: Head is where it begins */
		c->started = true;
	}
	if (c->dba < 0) {
		if (seq == c->expected) { /* in order, no bitmap: what most packets do */
			res->deliver_from = seq;
			res->deliver_to = ++c->expected;
			res->completed = c->completed = last;
			reply(rx, res, EU_ACK, c->expected, seq);
			return 0;
		}
		if (seq < c->expected) {
			res->duplicate = true;
			rx->duplicates++;
			reply(rx, res, EU_ACK, c->expected, seq);
			return 0;
		}
		if (seq - c->expected >= cap) {
			rx->cap_drops++;
			reply(rx, res, EU_NACK, c->expected, seq);
			return 0;
		}
		if (create(rx, c, &m)) {
			rx->alloc_failures++;
			reply(rx, res, EU_NACK, c->expected, seq);
			return 0;
		}
	} else {
		meta_load(rx, c->dba, &m);
	}
	if (seq < m.head) {
		res->duplicate = true;
		rx->duplicates++;
		reply(rx, res, EU_ACK, m.head, seq);
		return 0;
	}
	flat = flat_of(&m, seq);
	if (flat / EU_BLOCK_BITS >= rx->cfg.cap_rows) {
		rx->cap_drops++;
		reply(rx, res, EU_NACK, m.head, seq);
		return 0;
	}
	if (grow(rx, &m, flat / EU_BLOCK_BITS + 1)) {
		meta_store(rx, c->dba, &m); /* the rows it did get stay the connection's */
		rx->alloc_failures++;
		reply(rx, res, EU_NACK, m.head, seq);
		return 0;
	}
	if (test_bit(rx, &m, flat)) {
		res->duplicate = true;
		rx->duplicates++;
		reply(rx, res, EU_SACK, m.head, seq);
		return 0;
	}
	*row_of(rx, &m, flat) |= (uint16_t)(1u << (flat % EU_BLOCK_BITS));
	if (last)
		m.last = seq;
	if (seq != m.head) {
		meta_store(rx, c->dba, &m);
		reply(rx, res, EU_SACK, m.head, seq);
		return 0;
	}
	from = m.head;
	flush(rx, &m);
	res->deliver_from = from;
	res->deliver_to = c->expected = m.head;
	if (m.last != EU_NO_LAST && m.head > m.last) {
		free_bitmap(rx, c, &m); /* garbage collection: the connection is done */
		res->completed = c->completed = true;
	} else {
		meta_store(rx, c->dba, &m);
	}
	reply(rx, res, EU_ACK, c->expected, seq);
	return 0;
}
