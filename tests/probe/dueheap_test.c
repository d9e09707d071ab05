// SPDX-License-Identifier: MIT
/*
 * The due-time heap (dueheap.h): its root is what a scan keeping the first
 * smallest would pick, through builds, pops and pushes with keys changed
 * while out, against that scan over the same entries.
 */
#include "probe/dueheap.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>

#define A 40
#define B 16

static unsigned long long keys[A][B];

static unsigned long long key(const void *ctx, struct dh_ent e)
{
	(void)ctx;
	return keys[e.a][e.b];
}

/* The scan: the smallest key among in[], the first in (a, b) order on a tie. */
static struct dh_ent scan(bool in[A][B])
{
	struct dh_ent best = {UINT32_MAX, UINT32_MAX};
	unsigned long long k = ULLONG_MAX;

	for (uint32_t a = 0; a < A; a++)
		for (uint32_t b = 0; b < B; b++)
			if (in[a][b] && keys[a][b] < k)
				k = keys[a][b], best = (struct dh_ent){a, b};
	return best;
}

Test(dueheap, the_root_is_what_a_scan_would_pick)
{
	static bool in[A][B];
	struct dh_ent all[A * B];
	struct dueheap d;
	size_t n = 0;

	srandom(7);
	for (uint32_t a = 0; a < A; a++)
		for (uint32_t b = 0; b < B; b++) {
			keys[a][b] = (unsigned long long)(random() % 50); /* many ties */
			in[a][b] = true;
			all[n++] = (struct dh_ent){a, b};
		}
	dh_init(&d, key, NULL);
	dh_build(&d, all, n);
	cr_assert_eq(d.n, A * B);
	for (unsigned step = 0; step < 20000; step++) {
		struct dh_ent want = scan(in), got;

		cr_assert_eq(d.h[0].a, want.a, "step %u", step);
		cr_assert_eq(d.h[0].b, want.b, "step %u", step);
		got = dh_pop(&d);
		in[got.a][got.b] = false;
		/* traced now (a later time), or put back as it was */
		if (random() % 4)
			keys[got.a][got.b] = 50 + step + (unsigned long long)(random() % 100);
		dh_push(&d, got);
		in[got.a][got.b] = true;
	}
	/* out, then in again after a rebuild with keys reset (new ports: never traced) */
	for (uint32_t b = 0; b < B; b++)
		keys[3][b] = 0;
	dh_build(&d, all, n);
	cr_assert_eq(d.h[0].a, 3);
	cr_assert_eq(d.h[0].b, 0);
	for (size_t i = 0; i < n; i++) {
		struct dh_ent want = scan(in), got = dh_pop(&d);

		cr_assert(got.a == want.a && got.b == want.b, "pop %zu", i);
		in[got.a][got.b] = false;
	}
	cr_assert_eq(d.n, 0);
	dh_free(&d);
}
