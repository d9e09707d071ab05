// SPDX-License-Identifier: MIT
/*
 * The ECN marker's virtual queue (injectors/bpf/ecn_vq.h), driven with
 * exact times: the step the BPF program runs on every packet of a port.
 */
#include "injectors/bpf/ecn_vq.h"

#include <criterion/criterion.h>
#include <stdint.h>

#define US 1000ULL
#define MS 1000000ULL

static struct ecn_vq vq(uint64_t rate_bps, uint64_t k, uint64_t cap)
{
	return (struct ecn_vq){.rate_bps = rate_bps, .k = k, .cap = cap};
}

/* The queue in bytes, marking past k, the TBF's drops taking no room. */
Test(ecn_vq, exact_sequence)
{
	struct ecn_vq q = vq(1000000, 3000, 5000); /* 1 MB/s: 1 byte a microsecond */
	uint64_t t = 10 * MS;

	cr_assert_not(ecn_vq_step(&q, t, 1000));
	cr_assert_not(ecn_vq_step(&q, t, 1000));
	cr_assert_not(ecn_vq_step(&q, t, 1000), "3000 queued is not more than k");
	cr_assert(ecn_vq_step(&q, t, 1000));
	cr_assert(ecn_vq_step(&q, t, 1000));
	cr_assert_eq(q.bytes, 5000);
	cr_assert(ecn_vq_step(&q, t, 1000), "over the cap: dropped, marked as it stands");
	cr_assert_eq(q.bytes, 5000);
	/* 1.5 ms drains 1500 */
	cr_assert(ecn_vq_step(&q, t + 1500 * US, 1000));
	cr_assert_eq(q.bytes, 4500);
	/* a time before the last (the other CPU's clock): no time passed */
	cr_assert(ecn_vq_step(&q, t + 1000 * US, 64));
	cr_assert_eq(q.bytes, 4564);
	cr_assert_eq(q.last_ns, t + 1500 * US);
	/* a third of a byte three times drains one byte, not none */
	t += 1500 * US;
	for (int i = 1; i <= 3; i++)
		ecn_vq_step(&q, t + (uint64_t)i * 333 + (i == 3), 0);
	cr_assert_eq(q.bytes, 4563);
	/* idle for a second: empty */
	cr_assert_not(ecn_vq_step(&q, t + 2000 * MS, 100));
	cr_assert_eq(q.bytes, 100);
	cr_assert_eq(q.rem, 0);
}

/*
 * A port kept busy just below its rate (50 Mbit/s, 1098-byte frames in
 * batches of 8, 1.1 us apart, as a sender's batched sends arrive) for
 * a minute never marks: its TBF holds next to nothing.  Truncating each
 * gap's drain to whole bytes lost up to a byte a packet and marked every
 * packet within seconds.  Just above the rate it fills and marks.
 */
static unsigned long long marks_at(double share, uint64_t seconds, uint64_t *most)
{
	const uint64_t rate = 6250000, len = 1098, batch = 8;
	struct ecn_vq q = vq(rate, 62500 + 10000, 62500 + 312500);
	uint64_t gap = (uint64_t)((double)(batch * len) * 1e9 / ((double)rate * share));
	unsigned long long marks = 0;

	*most = 0;
	for (uint64_t t = 1 * MS; t < seconds * 1000 * MS; t += gap) {
		for (uint64_t i = 0; i < batch; i++)
			marks += (unsigned long long)ecn_vq_step(&q, t + i * 1100, len);
		if (q.bytes > *most)
			*most = q.bytes;
	}
	return marks;
}

Test(ecn_vq, no_drift_at_the_rate)
{
	uint64_t most;

	cr_assert_eq(marks_at(0.9999, 60, &most), 0, "marks at 99.99%% of the rate");
	cr_assert_leq(most, 8 * 1098, "queue %llu bytes at 99.99%% of the rate",
		      (unsigned long long)most);
	cr_assert_gt(marks_at(1.01, 60, &most), 0, "no mark at 101%% of the rate");
}
