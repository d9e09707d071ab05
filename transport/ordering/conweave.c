// SPDX-License-Identifier: MIT
/*
 * The ConWeave-style reorderer (conweave.h), step by step as conweave-ns3's
 * ConWeaveRouting::RouteInput() takes a packet at the source and the
 * destination ToR, and CallbackByVOQFlush() ends a reordering.
 */
#include "transport/ordering/conweave.h"

#include "transport/ordering/xorshift.h"

#define CW_NONE UINT64_MAX

void cw_cfg_default(struct cw_cfg *c, unsigned n_paths, uint64_t base_rtt_ns)
{
	*c = (struct cw_cfg){
	    .n_paths = n_paths,
	    .base_rtt_ns = base_rtt_ns,
	    .reply_extra_ns = base_rtt_ns / 2,	      /* 4 µs at 8 µs */
	    .pause_ns = base_rtt_ns,		      /* 8 µs */
	    .expiry_ns = base_rtt_ns * 125,	      /* 1000 µs */
	    .flush_extra_ns = base_rtt_ns * 4,	      /* 32 µs */
	    .default_wait_ns = base_rtt_ns * 125 / 2, /* 500 µs */
	};
}

void cw_tx_init(struct cw_tx *t)
{
	*t = (struct cw_tx){.reply_at = CW_NONE};
}

/* Two paths at random: the first a NOTIFY has not paused, else the second; false if both are. */
static bool good_path(const struct cw_cfg *c, const struct cw_paths *p, uint64_t now, uint64_t *rng,
		      unsigned *path)
{
	unsigned a = (unsigned)(ord_rand(rng) % c->n_paths),
		 b = (unsigned)(ord_rand(rng) % c->n_paths);

	bool ok_a = p->paused_until[a] <= now, ok_b = p->paused_until[b] <= now;

	*path = ok_a || !ok_b ? a : b; /* neither: the first, for a connection's first path */
	return ok_a || ok_b;
}

unsigned cw_tx_route(struct cw_tx *t, const struct cw_cfg *c, const struct cw_paths *p,
		     uint64_t now, uint64_t *rng, struct cw_tag *tag, struct cw_stats *st)
{
	bool fresh = !t->started, expired = fresh || t->active_ns + c->expiry_ns < now,
	     stabilized = false, timeout = false, found;
	unsigned good, cur;

	if (expired)
		t->stabilized = false;
	else if (t->stabilized) {
		stabilized = true;
		t->stabilized = false;
	}
	t->active_ns = now;
	t->started = true;
	if (expired || stabilized) {
		t->reply_at = now + c->base_rtt_ns + c->reply_extra_ns; /* an RTT_REQUEST */
	} else if (t->reply_at < now) {
		t->reply_at = CW_NONE; /* no reply in time: the old path's TAIL */
		timeout = true;
	}
	if (expired || stabilized) {
		t->epoch++;
		t->phase = 0;
		tag->phase = 0;
	} else if (timeout) {
		t->phase = 1;
		tag->phase = 0; /* the TAIL is the old path's last */
	} else {
		tag->phase = t->phase;
	}
	found = good_path(c, p, now, rng, &good);
	if (fresh)
		t->path = good;
	if (expired) {
		if (found) {
			st->reroutes += !fresh;
			t->path = good;
		}
		cur = t->path;
	} else if (timeout) {
		cur = t->path; /* the TAIL on the old path, what follows on the new one */
		if (found) {
			st->reroutes++;
			t->path = good;
		}
	} else {
		cur = t->path;
	}
	if (expired || stabilized)
		t->tail_ns = 0;
	else if (timeout)
		t->tail_ns = now;
	tag->epoch = t->epoch;
	tag->tx_ns = now;
	tag->tail_ns = t->tail_ns;
	tag->flag = expired || stabilized ? CW_INIT : timeout ? CW_TAIL : CW_DATA;
	return cur;
}

void cw_tx_reply(struct cw_tx *t, uint32_t epoch, enum cw_flag of, uint64_t now)
{
	uint8_t phase = of == CW_TAIL ? 1 : 0;

	if (epoch != t->epoch || phase != t->phase)
		return; /* an older epoch's */
	if (of == CW_INIT && (now >= t->reply_at || t->reply_at == CW_NONE))
		return;	      /* late: the reroute is under way */
	t->stabilized = true; /* in time, or the reroute's reordering resolved (CLEAR) */
	t->reply_at = CW_NONE;
}

void cw_tx_notify(struct cw_paths *p, const struct cw_cfg *c, unsigned path, uint64_t now)
{
	if (path < c->n_paths)
		p->paused_until[path] = now + c->pause_ns;
}

void cw_rx_init(struct cw_rx *r)
{
	*r = (struct cw_rx){.epoch = 1};
}

enum cw_act cw_rx_data(struct cw_rx *r, const struct cw_cfg *c, const struct cw_tag *tag,
		       uint64_t now, enum cw_flag *reply, struct cw_stats *st)
{
	bool ooo = false, tail = tag->flag == CW_TAIL;
	uint64_t gap, flush;

	*reply = CW_DATA;
	if (tag->epoch < r->epoch)
		return CW_PASS; /* an earlier epoch's: straight on */
	if (tag->phase == 0) {
		r->phase0_tx = tag->tx_ns;
		r->phase0_rx = now;
	}
	if (tag->epoch > r->epoch) {
		r->epoch = tag->epoch;
		r->phase = tail ? 1 : 0;
		ooo = tag->phase > r->phase;
		r->cache = tag->phase == 0;
	} else {
		if (tail && !r->reordering)
			r->phase = 1; /* else once the VOQ is flushed */
		else if (!tail && r->phase < tag->phase)
			ooo = true;
		r->cache |= tag->phase == 0;
	}
	if (tail || tag->phase == 1)
		r->tail_ns = tag->tail_ns;
	/* when the TAIL should arrive: the old path's last arrival plus the send-time gap */
	if (r->cache)
		gap = r->tail_ns > r->phase0_tx ? r->tail_ns - r->phase0_tx : 0;
	else
		gap = c->default_wait_ns;
	if (tag->phase == 1)
		flush = (r->cache ? r->phase0_rx : now) + gap + c->flush_extra_ns;
	else
		flush = tail ? now : now + gap + c->flush_extra_ns;
	if (flush < now)
		flush = now;
	if (tag->flag == CW_INIT)
		*reply = CW_INIT;
	else if (tail)
		*reply = CW_TAIL;
	if (tag->phase == 0) {
		if (!r->reordering)
			return CW_PASS;
		r->flush_at = flush; /* the old path still delivers: wait on */
		return tail ? CW_PASS_FLUSH : CW_PASS;
	}
	if (!ooo)
		return CW_PASS;
	if (!r->reordering) {
		r->reordering = true;
		r->flush_at = flush;
	}
	st->held++;
	return CW_HOLD;
}

void cw_rx_flushed(struct cw_rx *r, bool by_tail, struct cw_stats *st)
{
	r->reordering = false;
	r->phase = 1;
	if (by_tail)
		st->flush_tail++;
	else
		st->flush_timeout++;
}
