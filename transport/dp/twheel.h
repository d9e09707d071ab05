/* SPDX-License-Identifier: MIT */
/*
 * A hashed timer wheel (Varghese and Lauck): arming, cancelling and firing
 * cost O(1) however many timers an endpoint holds (one a flow's sender,
 * the receiver's held ACKs, the stats tick).  Pure: the time is passed in.
 *
 * Timers are intrusive: the caller owns struct tw_timer (zeroed before the
 * first use) and keeps it alive while it is armed.  A timer fires at or
 * after its deadline, never before, once; a callback may arm or cancel any
 * timer, itself included.
 */
#ifndef ROCELAB_TWHEEL_H
#define ROCELAB_TWHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TW_SLOTS 1024u /* a power of two */
#define TW_NEVER UINT64_MAX

struct tw_timer {
	struct tw_timer *next, **pprev; /* pprev NULL: not armed */
	uint64_t at;			/* ns */
	uint32_t slot;			/* where it hangs while armed */
	void (*fn)(void *ctx, uint64_t now);
	void *ctx;
};

struct twheel {
	uint64_t tick_ns;
	uint64_t cur; /* the tick up to which the wheel ran */
	struct tw_timer *slot[TW_SLOTS];
	uint64_t busy[TW_SLOTS / 64]; /* which slots hold a timer */
	size_t n;
};

/* tick_ns: the wheel's resolution (64 µs serves a 176 µs packet time). */
void tw_init(struct twheel *w, uint64_t now, uint64_t tick_ns);
void tw_timer_init(struct tw_timer *t, void (*fn)(void *ctx, uint64_t now), void *ctx);
/* Arm t at 'at' (moved when armed already; a time past fires on the next tw_run()). */
void tw_arm(struct twheel *w, struct tw_timer *t, uint64_t at);
void tw_cancel(struct twheel *w, struct tw_timer *t);
static inline bool tw_armed(const struct tw_timer *t)
{
	return t->pprev != NULL;
}
/* Fire every timer due at now, earliest first (within a turn); how many fired. */
unsigned tw_run(struct twheel *w, uint64_t now);
/*
 * The earliest deadline armed, or TW_NEVER: exact within the next turn of
 * the wheel, a lower bound (the start of a later turn) beyond it.
 */
uint64_t tw_next(const struct twheel *w);

#endif
