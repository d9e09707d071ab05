// SPDX-License-Identifier: MIT
/*
 * Eunomia's HD bitmap, memory controller and receiver agent: exact
 * sequences (../shared/briefs/mp-rdma-eunomia.md F.8), a property test over
 * random reorderings, and random connection lifecycles on the controller.
 */
#include "transport/ordering/eunomia.h"
#include "transport/ordering/gbn.h"
#include "transport/ordering/staticbm.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct eu_rx *rx_new(unsigned cap_rows)
{
	struct eu_rx *rx = malloc(sizeof(*rx));
	struct eu_cfg cfg;

	cr_assert_not_null(rx);
	eu_cfg_default(&cfg);
	if (cap_rows)
		cfg.cap_rows = cap_rows;
	cr_assert_eq(eu_rx_init(rx, &cfg), 0);
	return rx;
}

static bool mc_empty(const struct eu_mc *mc)
{
	for (unsigned i = 0; i < EU_MC_BLOCKS / 64; i++)
		if (mc->alloc[i])
			return false;
	return mc->used == 0;
}

/* One packet; its reply and acknowledgement checked. */
static struct eu_result data(struct eu_rx *rx, struct eu_conn *c, uint32_t seq, bool last,
			     enum eu_reply want, uint32_t ack)
{
	struct eu_result r;

	cr_assert_eq(eu_rx_data(rx, c, seq, 0, last, &r), 0, "seq %u", seq);
	cr_assert_eq(r.reply, want, "seq %u: reply %d, not %d", seq, r.reply, want);
	cr_assert_eq(r.ack, ack, "seq %u: ack %u, not %u", seq, r.ack, ack);
	return r;
}

Test(eunomia, config_out_of_range_is_refused)
{
	struct eu_rx rx;
	struct eu_cfg cfg = {.cap_rows = 0};

	cr_assert_eq(eu_rx_init(&rx, &cfg), -EINVAL);
	cfg.cap_rows = EU_CAP_ROWS + 1;
	cr_assert_eq(eu_rx_init(&rx, &cfg), -EINVAL);
}

Test(eunomia, an_in_order_flow_allocates_nothing)
{
	struct eu_rx *rx = rx_new(0);
	struct eu_conn c;
	struct eu_result r;

	eu_conn_init(&c);
	for (uint32_t s = 0; s < 100; s++) {
		r = data(rx, &c, s, s == 99, EU_ACK, s + 1);
		cr_assert_eq(r.deliver_from, s);
		cr_assert_eq(r.deliver_to, s + 1);
		cr_assert_eq(eu_conn_bytes(rx, &c), 4);
		cr_assert_eq(rx->mc.used, 0);
	}
	cr_assert(r.completed);
	cr_assert_eq(rx->mc.high_water, 0);
	cr_assert_eq(eu_rx_data(rx, &c, 100, 0, false, &r), -EINVAL, "a completed connection");
	free(rx);
}

/*
 * The brief's sequence: expected 0; 5 creates the bitmap (24 metadata
 * blocks at the tail, one row at the head); 20 adds a linear row while Tail
 * stays 15; 256 is beyond the cap; filling 0..31 moves Head to 32 and
 * merges (C = 2); the last packet in order frees every block.
 */
Test(eunomia, the_briefs_sequence)
{
	struct eu_rx *rx = rx_new(0);
	struct eu_conn c;
	struct eu_meta m;
	struct eu_result r;
	uint32_t next = 0;

	eu_conn_init(&c);
	r = data(rx, &c, 5, false, EU_SACK, 0);
	cr_assert_eq(r.seq, 5);
	cr_assert_eq(r.deliver_to - r.deliver_from, 0);
	cr_assert_eq(c.dba, EU_MC_BLOCKS - EU_META_BLOCKS, "metadata from the tail");
	cr_assert(eu_mc_in_use(&rx->mc, 0), "the row from the head");
	cr_assert_eq(rx->mc.used, EU_META_BLOCKS + 1);
	cr_assert_eq(eu_conn_bytes(rx, &c), 4 + 48 + 2);
	cr_assert_eq(eu_conn_meta(rx, &c, &m), 0);
	cr_assert_eq(m.head, 0);
	cr_assert_eq(m.tail, 15);
	cr_assert_eq(m.c_rows, 1);

	data(rx, &c, 20, false, EU_SACK, 0);
	cr_assert_eq(eu_conn_meta(rx, &c, &m), 0);
	cr_assert_eq(m.tail, 15, "growing leaves Tail where it was");
	cr_assert_eq(m.c_rows, 1);
	cr_assert_eq(m.d_rows, 2);
	cr_assert_eq(eu_conn_bytes(rx, &c), 4 + 48 + 4);

	r = data(rx, &c, 256, false, EU_NACK, 0);
	cr_assert_eq(r.seq, 256);
	cr_assert_eq(rx->cap_drops, 1);
	data(rx, &c, 255, false, EU_SACK, 0); /* Head + 255: the cap's last bit */
	cr_assert_eq(eu_conn_meta(rx, &c, &m), 0);
	cr_assert_eq(m.d_rows, EU_CAP_ROWS);

	for (uint32_t s = 0; s < 32; s++) {
		if (s == 5 || s == 20)
			continue;
		/* each in order now: Head jumps the ones held (5 at 4, 20 at 19) */
		r = data(rx, &c, s, false, EU_ACK, s == 4 ? 6 : s == 19 ? 21 : s + 1);
		cr_assert_eq(r.deliver_from, next, "delivered from where it stopped");
		next = r.deliver_to;
	}
	cr_assert_eq(next, 32);
	cr_assert_eq(eu_conn_meta(rx, &c, &m), 0);
	cr_assert_eq(m.head, 32);
	cr_assert_eq(m.c_rows, EU_CAP_ROWS, "merged: the linear rows joined the ring");
	cr_assert_eq(m.tail, 32 + 256 - 1, "and Tail moves with Head again");

	for (uint32_t s = 32; s < 254; s++)
		data(rx, &c, s, false, EU_ACK, s + 1);
	r = data(rx, &c, 254, false, EU_ACK, 256);
	cr_assert_eq(r.deliver_from, 254);
	cr_assert_eq(r.deliver_to, 256, "255 was held until 254 came");
	r = data(rx, &c, 256, true, EU_ACK, 257);
	cr_assert(r.completed);
	cr_assert_eq(c.dba, -1);
	cr_assert(mc_empty(&rx->mc), "garbage collection frees every block");
	cr_assert_eq(eu_conn_bytes(rx, &c), 4);
	free(rx);
}

Test(eunomia, duplicates_are_acknowledged_never_delivered)
{
	struct eu_rx *rx = rx_new(0);
	struct eu_conn c;
	struct eu_result r;

	eu_conn_init(&c);
	data(rx, &c, 0, false, EU_ACK, 1);
	r = data(rx, &c, 0, false, EU_ACK, 1);
	cr_assert(r.duplicate);
	cr_assert_eq(r.deliver_to - r.deliver_from, 0);
	data(rx, &c, 3, false, EU_SACK, 1);
	r = data(rx, &c, 3, false, EU_SACK, 1);
	cr_assert(r.duplicate, "a second 3 inside the window");
	r = data(rx, &c, 0, false, EU_ACK, 1);
	cr_assert(r.duplicate, "below Head, with a bitmap");
	cr_assert_eq(rx->duplicates, 3);
	free(rx);
}

Test(eunomia, a_connection_whose_first_packet_is_late_starts_at_its_head)
{
	struct eu_rx *rx = rx_new(0);
	struct eu_conn c;
	struct eu_result r;

	eu_conn_init(&c);
	cr_assert_eq(eu_rx_data(rx, &c, 1005, 1000, false, &r), 0);
	cr_assert_eq(r.reply, EU_SACK);
	cr_assert_eq(r.ack, 1000, "Head from the packet's metadata");
	cr_assert_eq(eu_rx_data(rx, &c, 1000, 1000, false, &r), 0);
	cr_assert_eq(r.reply, EU_ACK);
	cr_assert_eq(r.ack, 1001);
	free(rx);
}

/*
 * How far ahead a sequence may be: Head + the cap while the bitmap is all
 * circular; Tail + the rows left while it has a linear portion (Tail stays
 * put then, so the window is smaller until the merge).  Cap 2 rows: 32 bits.
 */
Test(eunomia, the_window_is_the_cap_from_head_or_tail)
{
	struct eu_rx *rx = rx_new(2);
	struct eu_conn c;
	struct eu_meta m;

	eu_conn_init(&c);
	for (uint32_t s = 0; s < 40; s++)
		data(rx, &c, s, false, EU_ACK, s + 1);
	data(rx, &c, 40 + 32, false, EU_NACK, 40); /* no bitmap yet: Head + 32 */
	data(rx, &c, 40 + 31, false, EU_SACK, 40); /* Tail 55, a linear row: up to 71 */
	data(rx, &c, 41, false, EU_SACK, 40);
	data(rx, &c, 40, false, EU_ACK, 42);
	data(rx, &c, 72, false, EU_NACK, 42); /* Tail + 16, not Head + 32 */
	cr_assert_eq(eu_conn_meta(rx, &c, &m), 0);
	cr_assert_eq(m.tail, 55);
	for (uint32_t s = 42; s < 71; s++)
		data(rx, &c, s, false, EU_ACK, s == 70 ? 72 : s + 1);
	cr_assert_eq(eu_conn_meta(rx, &c, &m), 0);
	cr_assert_eq(m.c_rows, 2, "merged when Head passed 55");
	cr_assert_eq(m.tail, 72 + 31);
	data(rx, &c, 72 + 31, false, EU_SACK, 72);
	data(rx, &c, 72 + 32, false, EU_NACK, 72);
	cr_assert_eq(rx->cap_drops, 3);
	free(rx);
}

/*
 * The controller gives metadata from the tail and rows from the head, and
 * when it has no room the packet is dropped with a NACK: 40 reordering
 * connections take 40 x 25 of the 1024 blocks, the 41st cannot start.
 */
Test(eunomia, controller_layout_and_exhaustion)
{
	struct eu_rx *rx = rx_new(0);
	struct eu_conn c[41];

	for (int i = 0; i < 41; i++)
		eu_conn_init(&c[i]);
	for (int i = 0; i < 40; i++) {
		data(rx, &c[i], 1, false, EU_SACK, 0);
		cr_assert_eq(c[i].dba, EU_MC_BLOCKS - EU_META_BLOCKS * (i + 1));
		cr_assert(eu_mc_in_use(&rx->mc, (unsigned)i), "row %d", i);
	}
	data(rx, &c[40], 1, false, EU_NACK, 0); /* its metadata fits, its row does not */
	cr_assert_eq(rx->alloc_failures, 1);
	cr_assert_eq(c[40].dba, -1);
	cr_assert_eq(rx->mc.used, 40 * 25, "nothing kept of the attempt");
	data(rx, &c[0], 255, false, EU_SACK, 0); /* 15 of the 24 blocks left */
	data(rx, &c[1], 255, false, EU_NACK, 0); /* 9 more rows, not 15 */
	cr_assert_eq(rx->alloc_failures, 2);
	cr_assert_eq(rx->mc.used, EU_MC_BLOCKS);
	cr_assert_eq(eu_conn_bytes(rx, &c[1]), 4 + 48 + 2 * 10, "the rows it got stay its own");
	data(rx, &c[40], 0, false, EU_ACK, 1); /* in order needs no memory */
	free(rx);
}

/* A small xorshift64* so the reorderings are the same on every run. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/*
 * 10^5 random swaps of arrival positions up to 64 apart over a 10^4-packet
 * flow (a packet moves ~170 places on average, some beyond the window), and
 * 200 late duplicates: whatever is NACKed is sent again after the rest, as
 * the sender's recovery would.  The application sees
 * exactly 0..N-1 in order and one completion, and every block comes back.
 */
Test(eunomia, any_reordering_delivers_exactly_once_in_order)
{
	enum { N = 10000, SWAPS = 100000, W = 64, ROOM = 20 * N };
	struct eu_rx *rx = rx_new(0);
	uint32_t *order = malloc(sizeof(uint32_t) * ROOM);
	unsigned long long nacks = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	cr_assert_not_null(order);
	for (int flow = 0; flow < 4; flow++) {
		size_t n = N, completions = 0, maxbytes = 0;
		uint32_t next = 0;
		struct eu_conn c;

		eu_conn_init(&c);
		for (uint32_t i = 0; i < N; i++)
			order[i] = i;
		for (int k = 0; k < SWAPS; k++) {
			uint32_t i = (uint32_t)(rnd(&seed) % N), d = (uint32_t)(rnd(&seed) % W);
			uint32_t j = i + d < N ? i + d : N - 1, t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (int k = 0; k < 200; k++) /* duplicates, late */
			order[n++] = (uint32_t)(rnd(&seed) % N);
		for (size_t i = 0; i < n; i++) {
			struct eu_result r;
			uint32_t s = order[i];

			if (c.completed)
				break;
			cr_assert_eq(eu_rx_data(rx, &c, s, 0, s == N - 1, &r), 0);
			if (r.reply == EU_NACK) {
				cr_assert(n < ROOM);
				order[n++] = s; /* recovery sends it again */
				nacks++;
			}
			if (r.deliver_to > r.deliver_from) {
				cr_assert_eq(r.deliver_from, next, "flow %d: a gap or a repeat",
					     flow);
				next = r.deliver_to;
			}
			completions += r.completed;
			if (eu_conn_bytes(rx, &c) > maxbytes)
				maxbytes = eu_conn_bytes(rx, &c);
		}
		cr_assert_eq(next, N, "flow %d: delivered up to %u", flow, next);
		cr_assert_eq(completions, 1);
		cr_assert(mc_empty(&rx->mc));
		cr_assert_leq(maxbytes, 4 + 48 + 2 * EU_CAP_ROWS);
		cr_assert_gt(maxbytes, 4, "the flow did reorder");
	}
	cr_assert_gt(nacks, 0, "some packets came beyond the window");
	cr_assert_gt(rx->sacks, 0);
	free(order);
	free(rx);
}

/*
 * 10^6 random lifecycles on the controller against a shadow of who holds
 * what: no block is ever given twice, counts agree, and once every
 * connection is gone the allocation bitmap is empty (ASan checks the rest).
 */
Test(eunomia, controller_lifecycles_never_double_allocate)
{
	enum { LIVE = 48, LIFECYCLES = 1000000 };
	struct eu_mc *mc = malloc(sizeof(*mc));
	static uint8_t owner[EU_MC_BLOCKS];
	struct {
		int meta, rows[EU_CAP_ROWS], n;
	} live[LIVE];
	uint64_t seed = 42;
	unsigned used = 0;
	long done = 0, refused = 0;

	cr_assert_not_null(mc);
	eu_mc_init(mc);
	memset(owner, 0, sizeof(owner));
	for (int i = 0; i < LIVE; i++)
		live[i].meta = -1;
	while (done < LIFECYCLES) {
		int i = (int)(rnd(&seed) % LIVE);

		if (live[i].meta < 0) {
			int m = eu_mc_meta_alloc(mc), want = 1 + (int)(rnd(&seed) % EU_CAP_ROWS);

			if (m < 0) {
				cr_assert_lt(++refused, LIFECYCLES, "freed blocks never come back");
				continue;
			}
			for (int b = m; b < m + EU_META_BLOCKS; b++)
				cr_assert_eq(owner[b]++, 0, "block %d given twice", b);
			live[i].meta = m;
			live[i].n = 0;
			used += EU_META_BLOCKS;
			while (live[i].n < want) {
				int r = eu_mc_row_alloc(mc);

				if (r < 0)
					break;
				cr_assert_eq(owner[r]++, 0, "block %d given twice", r);
				live[i].rows[live[i].n++] = r;
				used++;
			}
		} else {
			eu_mc_release(mc, (unsigned)live[i].meta, EU_META_BLOCKS);
			for (int b = live[i].meta; b < live[i].meta + EU_META_BLOCKS; b++)
				owner[b]--;
			for (int k = 0; k < live[i].n; k++) {
				eu_mc_release(mc, (unsigned)live[i].rows[k], 1);
				owner[live[i].rows[k]]--;
			}
			used -= EU_META_BLOCKS + (unsigned)live[i].n;
			live[i].meta = -1;
			done++;
		}
		cr_assert_eq(mc->used, used);
	}
	for (int i = 0; i < LIVE; i++)
		if (live[i].meta >= 0) {
			eu_mc_release(mc, (unsigned)live[i].meta, EU_META_BLOCKS);
			for (int k = 0; k < live[i].n; k++)
				eu_mc_release(mc, (unsigned)live[i].rows[k], 1);
		}
	cr_assert(mc_empty(mc));
	cr_assert_gt(refused, 0, "the controller was driven to exhaustion");
	cr_assert_leq(mc->high_water, EU_MC_BLOCKS);
	free(mc);
}

/* Table 1 and section 4: 4 B idle, 48 + 2 per row (+4) reordering, 41 B a static 256-bit one. */
Test(eunomia, memory_accounting)
{
	cr_assert_eq(sbm_bytes(256), 41);
	cr_assert_eq(sbm_bytes(64), 17);
	cr_assert_eq(EU_DBA_BYTES + 48 + 2 * EU_CAP_ROWS, 84);
	cr_assert_eq(sizeof(struct eu_meta), 48);
}

/*
 * The static bitmaps on the same packets as Eunomia: the same replies
 * while reordering stays inside 64 (MP-RDMA's) or 256 bits, a NACK where
 * the static one has no bit, and the same in-order delivery.
 */
Test(eunomia, static_bitmaps_reply_as_eunomia_within_their_size)
{
	static const uint32_t seqs[] = {0, 3, 2, 1, 63, 64, 70, 4, 5, 6, 7};
	struct eu_rx *rx = rx_new(0);
	struct eu_conn e;
	struct sbm_conn s64, s256;

	eu_conn_init(&e);
	cr_assert_eq(sbm_conn_init(&s64, 64), 0);
	cr_assert_eq(sbm_conn_init(&s256, 256), 0);
	cr_assert_eq(sbm_conn_init(&s64, 65), -EINVAL);
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		struct eu_result a, b, c;

		cr_assert_eq(eu_rx_data(rx, &e, seqs[i], 0, false, &a), 0);
		cr_assert_eq(sbm_data(&s256, 256, seqs[i], 0, false, &b), 0);
		cr_assert_eq(sbm_data(&s64, 64, seqs[i], 0, false, &c), 0);
		cr_assert_eq(a.reply, b.reply, "seq %u", seqs[i]);
		cr_assert_eq(a.ack, b.ack, "seq %u", seqs[i]);
		cr_assert_eq(a.deliver_to, b.deliver_to, "seq %u", seqs[i]);
		if (seqs[i] == 70)
			cr_assert_eq(c.reply, EU_NACK, "seq %u: beyond 64 bits of Head 4", seqs[i]);
		else
			cr_assert_eq(c.reply, a.reply, "seq %u", seqs[i]);
	}
	cr_assert_eq(s256.head, 8);
	free(rx);
}

/* The receiver without ordering support: one NAK a gap, the rest dropped until it fills. */
Test(eunomia, gbn_naks_once_a_gap_and_drops_the_rest)
{
	static const struct {
		uint32_t seq;
		enum eu_reply reply;
		uint32_t ack;
	} want[] = {{0, EU_ACK, 1}, {1, EU_ACK, 2}, {3, EU_NACK, 2}, {4, EU_DROP, 2},
		    {2, EU_ACK, 3}, {1, EU_ACK, 3}, {3, EU_ACK, 4},  {6, EU_NACK, 4}};
	struct gbn_conn c;
	struct eu_result r;

	gbn_conn_init(&c);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_eq(gbn_data(&c, want[i].seq, 0, false, &r), 0);
		cr_assert_eq(r.reply, want[i].reply, "step %zu", i);
		cr_assert_eq(r.ack, want[i].ack, "step %zu", i);
	}
	cr_assert_eq(gbn_data(&c, 4, 0, true, &r), 0);
	cr_assert(r.completed);
	cr_assert_eq(gbn_data(&c, 5, 0, false, &r), -EINVAL);
}

/*
 * The effect behind Eunomia's Fig. 1(c): the same mild reordering (200
 * swaps up to 16 apart in 10^4 packets, nothing lost) costs Eunomia no
 * NACK and no drop, while the receiver without ordering support NAKs at
 * the first swap and drops what follows the gap: without the sender going
 * back N (not modelled here) it never completes.
 */
Test(eunomia, reordering_alone_makes_gbn_recover_and_eunomia_not)
{
	enum { N = 10000 };
	static uint32_t order[N];
	struct eu_rx *rx = rx_new(0);
	struct eu_conn e;
	struct gbn_conn g;
	uint64_t seed = 7;
	unsigned naks = 0, dropped = 0;

	for (uint32_t i = 0; i < N; i++)
		order[i] = i;
	for (int k = 0; k < 200; k++) {
		uint32_t i = (uint32_t)(rnd(&seed) % (N - 16)),
			 j = i + 1 + (uint32_t)(rnd(&seed) % 15);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	eu_conn_init(&e);
	gbn_conn_init(&g);
	for (uint32_t i = 0; i < N; i++) {
		struct eu_result a, b;

		cr_assert_eq(eu_rx_data(rx, &e, order[i], 0, order[i] == N - 1, &a), 0);
		cr_assert_neq(a.reply, EU_NACK, "packet %u", order[i]);
		if (!g.completed) {
			cr_assert_eq(gbn_data(&g, order[i], 0, order[i] == N - 1, &b), 0);
			naks += b.reply == EU_NACK;
			dropped += b.reply == EU_NACK || b.reply == EU_DROP;
		}
	}
	cr_assert(e.completed, "Eunomia delivered all of it");
	cr_assert_eq(rx->nacks, 0);
	cr_assert_geq(naks, 1);
	cr_assert_gt(dropped, N / 2, "%u of %u dropped", dropped, N);
	cr_assert(!g.completed, "GBN lost what it dropped, waiting for the sender to go back");
	free(rx);
}
