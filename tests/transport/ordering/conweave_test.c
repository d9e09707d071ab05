// SPDX-License-Identifier: MIT
/*
 * The ConWeave-style reorderer (conweave.h) in exact sequences, as
 * conweave-ns3's RouteInput() takes packets at the source and destination
 * ToRs: an epoch's RTT_REQUEST, its reply in time or late, the TAIL, the
 * new path, NOTIFY's pause, and the destination's VOQ released behind the
 * TAIL or when it is overdue.
 */
#include "transport/ordering/conweave.h"

#include <criterion/criterion.h>

#define US 1000ULL

static struct cw_cfg cfg(unsigned n_paths)
{
	struct cw_cfg c;

	cw_cfg_default(&c, n_paths, 8 * US);
	return c;
}

/* conweave-ns3's parameters at its 8 µs base RTT. */
Test(conweave, defaults_are_conweave_ns3s)
{
	struct cw_cfg c = cfg(4);

	cr_assert_eq(c.reply_extra_ns, 4 * US);
	cr_assert_eq(c.pause_ns, 8 * US);
	cr_assert_eq(c.expiry_ns, 1000 * US);
	cr_assert_eq(c.flush_extra_ns, 32 * US);
	cr_assert_eq(c.default_wait_ns, 500 * US);
}

/*
 * An epoch whose reply comes in time stays on its path and starts the next
 * epoch; a late one makes the next packet the old path's TAIL and moves the
 * rest; the TAIL's CLEAR ends that epoch.
 */
Test(conweave, source_tor_epochs_tail_and_reroute)
{
	struct cw_cfg c = cfg(4);
	struct cw_paths p = {0};
	struct cw_stats st = {0};
	struct cw_tx t;
	struct cw_tag g;
	uint64_t rng = 1;
	unsigned path;

	cw_tx_init(&t);
	path = cw_tx_route(&t, &c, &p, 100 * US, &rng, &g, &st);
	cr_assert_eq(g.flag, CW_INIT);
	cr_assert_eq(g.epoch, 1);
	cr_assert_eq(g.phase, 0);
	cr_assert_eq(st.reroutes, 0, "a new connection's first path is no reroute");
	cr_assert_eq(cw_tx_route(&t, &c, &p, 101 * US, &rng, &g, &st), path);
	cr_assert_eq(g.flag, CW_DATA);
	/* the reply in time (before 100 + 8 + 4 µs): the next packet starts epoch 2 there */
	cw_tx_reply(&t, 1, CW_INIT, 110 * US);
	cr_assert_eq(cw_tx_route(&t, &c, &p, 111 * US, &rng, &g, &st), path);
	cr_assert_eq(g.flag, CW_INIT);
	cr_assert_eq(g.epoch, 2);
	/* no reply by 111 + 12 µs: the next packet is the TAIL, on the old path */
	cr_assert_eq(cw_tx_route(&t, &c, &p, 120 * US, &rng, &g, &st), path);
	cr_assert_eq(g.flag, CW_DATA);
	cr_assert_eq(cw_tx_route(&t, &c, &p, 124 * US, &rng, &g, &st), path);
	cr_assert_eq(g.flag, CW_TAIL);
	cr_assert_eq(g.phase, 0);
	cr_assert_eq(g.tail_ns, 124 * US);
	cr_assert_eq(st.reroutes, 1);
	unsigned moved = cw_tx_route(&t, &c, &p, 125 * US, &rng, &g, &st);

	cr_assert_eq(moved, t.path);
	cr_assert_eq(g.phase, 1);
	cr_assert_eq(g.flag, CW_DATA);
	cr_assert_eq(g.tail_ns, 124 * US, "the TAIL's send time travels with the new path");
	/* the late RTT_REPLY changes nothing; the CLEAR ends the epoch */
	cw_tx_reply(&t, 2, CW_INIT, 126 * US);
	cr_assert_eq(cw_tx_route(&t, &c, &p, 127 * US, &rng, &g, &st), moved);
	cr_assert_eq(g.epoch, 2);
	cw_tx_reply(&t, 1, CW_TAIL, 128 * US);
	cr_assert_eq(cw_tx_route(&t, &c, &p, 129 * US, &rng, &g, &st), moved);
	cr_assert_eq(g.epoch, 2, "an older epoch's CLEAR is not this one's");
	cw_tx_reply(&t, 2, CW_TAIL, 130 * US);
	cr_assert_eq(cw_tx_route(&t, &c, &p, 131 * US, &rng, &g, &st), moved);
	cr_assert_eq(g.epoch, 3);
	cr_assert_eq(g.flag, CW_INIT);
	cr_assert_eq(g.tail_ns, 0);
	/* idle past the expiry: a new epoch, and a new path */
	cw_tx_route(&t, &c, &p, 131 * US + c.expiry_ns + 1, &rng, &g, &st);
	cr_assert_eq(g.flag, CW_INIT);
	cr_assert_eq(g.epoch, 4);
	cr_assert_eq(st.reroutes, 2);
}

/*
 * A NOTIFY pauses its path for one base RTT: of two paths with one paused, a
 * reroute never lands on it (it stays where it was when both samples are).
 */
Test(conweave, notify_pauses_a_path)
{
	struct cw_cfg c = cfg(2);
	struct cw_paths p = {0};
	struct cw_stats st = {0};
	struct cw_tag g;
	uint64_t rng = 7;
	unsigned off = 0;

	for (unsigned i = 0; i < 50; i++) {
		struct cw_tx t;
		uint64_t now = 1000 * US * (i + 1);
		unsigned start;

		cw_tx_init(&t);
		start = cw_tx_route(&t, &c, &p, now, &rng, &g, &st);
		cw_tx_notify(&p, &c, 1, now + 13 * US);
		cr_assert_eq(p.paused_until[1], now + 21 * US);
		cw_tx_route(&t, &c, &p, now + 13 * US, &rng, &g, &st); /* the TAIL: late */
		cr_assert_eq(g.flag, CW_TAIL);
		cr_assert(t.path == 0 || start == 1, "reroute %u onto the paused path", i);
		off += start == 1 && t.path == 0;
	}
	cr_assert_gt(off, 5, "moved off the paused path %u times", off);
	cw_tx_notify(&p, &c, 9, 0); /* no such path: ignored */
}

/*
 * The destination ToR: the new path's packets before the TAIL wait in the
 * VOQ until the TAIL passes; without the TAIL, until the predicted flush.
 */
Test(conweave, destination_tor_holds_until_the_tail)
{
	struct cw_cfg c = cfg(4);
	struct cw_stats st = {0};
	struct cw_rx r;
	enum cw_flag reply;

	cw_rx_init(&r);
	/* epoch 1's INIT at 100 µs, sent at 90 */
	cr_assert_eq(cw_rx_data(&r, &c,
				&(struct cw_tag){.epoch = 1, .flag = CW_INIT, .tx_ns = 90 * US},
				100 * US, &reply, &st),
		     CW_PASS);
	cr_assert_eq(reply, CW_INIT);
	/* a rerouted packet (phase 1, the TAIL sent at 94 µs) overtakes the TAIL */
	struct cw_tag moved = {.epoch = 1, .phase = 1, .tx_ns = 95 * US, .tail_ns = 94 * US};

	cr_assert_eq(cw_rx_data(&r, &c, &moved, 102 * US, &reply, &st), CW_HOLD);
	cr_assert_eq(reply, CW_DATA);
	cr_assert(r.reordering);
	/* the old path's last arrival (100) + the send gap (94 - 90) + 32 µs */
	cr_assert_eq(r.flush_at, (100 + 4 + 32) * US);
	cr_assert_eq(cw_rx_data(&r, &c, &moved, 103 * US, &reply, &st), CW_HOLD);
	/* an old-path packet on time: passes, and moves the flush to its arrival + gap + 32 */
	cr_assert_eq(cw_rx_data(&r, &c, &(struct cw_tag){.epoch = 1, .tx_ns = 93 * US}, 104 * US,
				&reply, &st),
		     CW_PASS);
	cr_assert_eq(r.flush_at, (104 + 1 + 32) * US);
	/* the TAIL: passes, the VOQ behind it, a CLEAR back */
	cr_assert_eq(
	    cw_rx_data(
		&r, &c,
		&(struct cw_tag){.epoch = 1, .flag = CW_TAIL, .tx_ns = 94 * US, .tail_ns = 94 * US},
		105 * US, &reply, &st),
	    CW_PASS_FLUSH);
	cr_assert_eq(reply, CW_TAIL);
	cw_rx_flushed(&r, true, &st);
	cr_assert_eq(st.held, 2);
	cr_assert_eq(st.flush_tail, 1);
	cr_assert_eq(cw_rx_data(&r, &c, &moved, 106 * US, &reply, &st), CW_PASS);
	/* an older epoch's straggler passes, nothing asked */
	cr_assert_eq(cw_rx_data(&r, &c, &(struct cw_tag){.epoch = 0, .flag = CW_INIT}, 107 * US,
				&reply, &st),
		     CW_PASS);
	cr_assert_eq(reply, CW_DATA);

	/* epoch 2 begins with a rerouted packet: no timestamp of the old path, the default wait */
	cr_assert_eq(cw_rx_data(&r, &c,
				&(struct cw_tag){.epoch = 2, .phase = 1, .tail_ns = 200 * US},
				210 * US, &reply, &st),
		     CW_HOLD);
	cr_assert_eq(r.flush_at, 210 * US + c.default_wait_ns + c.flush_extra_ns);
	cw_rx_flushed(&r, false, &st);
	cr_assert_eq(st.flush_timeout, 1);
	cr_assert(!r.reordering);
}
