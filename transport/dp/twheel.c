// SPDX-License-Identifier: MIT
/* A hashed timer wheel: O(1) arm, cancel and fire, the time passed in. */
#include "transport/dp/twheel.h"

#include <string.h>

#define MASK (TW_SLOTS - 1)

void tw_init(struct twheel *w, uint64_t now, uint64_t tick_ns)
{
	memset(w, 0, sizeof(*w));
	w->tick_ns = tick_ns ? tick_ns : 1;
	w->cur = now / w->tick_ns;
}

void tw_timer_init(struct tw_timer *t, void (*fn)(void *ctx, uint64_t now), void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->ctx = ctx;
}

void tw_cancel(struct twheel *w, struct tw_timer *t)
{
	uint32_t s = t->slot;

	if (!t->pprev)
		return;
	*t->pprev = t->next;
	if (t->next)
		t->next->pprev = t->pprev;
	t->next = NULL;
	t->pprev = NULL;
	w->n--;
	if (!w->slot[s])
		w->busy[s / 64] &= ~(1ULL << (s % 64));
}

void tw_arm(struct twheel *w, struct tw_timer *t, uint64_t at)
{
	uint64_t tick = at / w->tick_ns;
	uint32_t s;

	tw_cancel(w, t);
	/* A deadline past (or within the tick the wheel is at) fires on the next run. */
	s = (uint32_t)((tick < w->cur ? w->cur : tick) & MASK);
	t->at = at;
	t->slot = s;
	t->next = w->slot[s];
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = &w->slot[s];
	w->slot[s] = t;
	w->busy[s / 64] |= 1ULL << (s % 64);
	w->n++;
}

/* The earliest timer of slot s due at now, or NULL. */
static struct tw_timer *due(struct twheel *w, uint32_t s, uint64_t now)
{
	struct tw_timer *best = NULL;

	for (struct tw_timer *t = w->slot[s]; t; t = t->next)
		if (t->at <= now && (!best || t->at < best->at))
			best = t;
	return best;
}

unsigned tw_run(struct twheel *w, uint64_t now)
{
	uint64_t end = now / w->tick_ns, t0 = w->cur;
	unsigned fired = 0;

	if (end < t0)
		end = t0;
	/* More than a turn behind: every slot once holds whatever is due. */
	if (end - t0 >= TW_SLOTS)
		t0 = end - TW_SLOTS + 1;
	for (uint64_t tick = t0; tick <= end; tick++) {
		uint32_t s = (uint32_t)(tick & MASK);
		struct tw_timer *t;

		/* A callback arming a timer in the past lands in the slot now being run. */
		w->cur = tick;
		if (!(w->busy[s / 64] >> (s % 64) & 1))
			continue;
		while ((t = due(w, s, now))) {
			tw_cancel(w, t);
			fired++;
			t->fn(t->ctx, now);
		}
	}
	return fired;
}

uint64_t tw_next(const struct twheel *w)
{
	uint64_t best = TW_NEVER;

	if (!w->n)
		return TW_NEVER;
	for (uint64_t k = 0; k < TW_SLOTS; k++) {
		uint32_t s = (uint32_t)((w->cur + k) & MASK);
		bool this_turn = false;

		if (!(w->busy[s / 64] >> (s % 64) & 1)) {
			/* Skip the rest of an empty 64-slot word at once. */
			if (!(w->busy[s / 64] >> (s % 64)))
				k += 63 - s % 64;
			continue;
		}
		for (const struct tw_timer *t = w->slot[s]; t; t = t->next) {
			if (t->at < best)
				best = t->at;
			this_turn |= t->at / w->tick_ns <= w->cur + k;
		}
		/* Slots come in tick order: a timer of this turn here is the earliest. */
		if (this_turn)
			return best;
	}
	return best;
}
