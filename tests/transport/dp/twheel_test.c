// SPDX-License-Identifier: MIT
/*
 * The timer wheel against a plain list: every timer fires once, never
 * before its deadline and at the first run after it, whatever the wheel's
 * turns; tw_next() is exact within a turn; callbacks re-arm and cancel.
 */
#include "transport/dp/twheel.h"

#include <criterion/criterion.h>

#define N 300

struct probe {
	struct tw_timer t;
	uint64_t at, fired_at;
	unsigned fires;
};

static void on_fire(void *ctx, uint64_t now)
{
	struct probe *p = ctx;

	p->fires++;
	p->fired_at = now;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

Test(twheel, fires_once_never_early_at_the_first_run_after)
{
	static struct probe p[N];
	struct twheel w;
	uint64_t seed = 7, now = 1000000, prev = now;

	tw_init(&w, now, 64000);
	for (int i = 0; i < N; i++) {
		tw_timer_init(&p[i].t, on_fire, &p[i]);
		/* Within a turn, across several turns, and some already past. */
		p[i].at = now - 5000 + rnd(&seed) % (5 * TW_SLOTS * 64000ULL);
		tw_arm(&w, &p[i].t, p[i].at);
	}
	cr_assert_eq(w.n, N);
	while (w.n) {
		uint64_t next = tw_next(&w), want = TW_NEVER;

		for (int i = 0; i < N; i++)
			if (!p[i].fires && p[i].at < want)
				want = p[i].at;
		/* Exact within this turn, never beyond the earliest deadline. */
		cr_assert_leq(next, want);
		if (want / 64000 < w.cur + TW_SLOTS)
			cr_assert_eq(next, want, "tw_next %llu, earliest %llu",
				     (unsigned long long)next, (unsigned long long)want);
		prev = now;
		now += 1 + rnd(&seed) % 900000; /* steps of up to 14 ticks */
		tw_run(&w, now);
		for (int i = 0; i < N; i++) {
			if (p[i].at <= now)
				cr_assert_eq(p[i].fires, 1, "timer %d (at %llu) not fired by %llu",
					     i, (unsigned long long)p[i].at,
					     (unsigned long long)now);
			else
				cr_assert_eq(p[i].fires, 0, "timer %d fired early", i);
			if (p[i].fires && p[i].fired_at == now)
				cr_assert_gt(p[i].at, p[i].at <= prev ? 0 : prev);
		}
	}
	cr_assert_eq(tw_next(&w), TW_NEVER);
}

Test(twheel, a_long_sleep_fires_everything_due)
{
	struct probe a = {0}, b = {0};
	struct twheel w;

	tw_init(&w, 0, 1000);
	tw_timer_init(&a.t, on_fire, &a);
	tw_timer_init(&b.t, on_fire, &b);
	tw_arm(&w, &a.t, 500);
	tw_arm(&w, &b.t, 7ULL * TW_SLOTS * 1000 + 3);
	cr_assert_eq(tw_next(&w), 500);
	cr_assert_eq(tw_run(&w, 10ULL * TW_SLOTS * 1000), 2);
	cr_assert_eq(a.fires + b.fires, 2);
	cr_assert_eq(w.n, 0);
}

struct chain {
	struct twheel *w;
	struct tw_timer t, victim;
	unsigned fires, victim_fires;
};

static void on_chain(void *ctx, uint64_t now)
{
	struct chain *c = ctx;

	/* Re-arm itself 250 ns on, three times; cancel the victim on the first fire. */
	if (++c->fires < 4)
		tw_arm(c->w, &c->t, now + 250);
	tw_cancel(c->w, &c->victim);
}

static void on_victim(void *ctx, uint64_t now)
{
	(void)now;
	((struct chain *)ctx)->victim_fires++;
}

Test(twheel, callbacks_rearm_and_cancel)
{
	struct twheel w;
	struct chain c = {.w = &w};

	tw_init(&w, 0, 100);
	tw_timer_init(&c.t, on_chain, &c);
	tw_timer_init(&c.victim, on_victim, &c);
	tw_arm(&w, &c.t, 1000);
	tw_arm(&w, &c.victim, 1050);
	cr_assert_eq(tw_run(&w, 1100), 1, "the victim was cancelled before its turn");
	cr_assert(tw_armed(&c.t));
	cr_assert_eq(tw_next(&w), 1350);
	tw_run(&w, 1349);
	cr_assert_eq(c.fires, 1);
	/* Each fire re-arms 250 ns after the run's time, and fires once a run. */
	tw_run(&w, 5000);
	tw_run(&w, 5249);
	cr_assert_eq(c.fires, 2);
	tw_run(&w, 5250);
	tw_run(&w, 5500);
	cr_assert_eq(c.fires, 4);
	cr_assert_not(tw_armed(&c.t));
	cr_assert_eq(c.victim_fires, 0);
	/* Moving an armed timer keeps one copy. */
	tw_arm(&w, &c.victim, 9000);
	tw_arm(&w, &c.victim, 8000);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(tw_next(&w), 8000);
}
