// SPDX-License-Identifier: MIT
/*
 * Every monitor's record intake (probe/recin.h's rec_take) with a monitor
 * that exists only here: its hello checked, its records handed over by
 * type and aligned, what it does not know skipped, bad streams dropped.
 * A third monitor needs no more than this table.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "probe/pathmap.h"
#include "probe/recin.h"

#include <criterion/criterion.h>
#include <stdalign.h>
#include <string.h>

#define TM_MAGIC 0x4d545452u /* "RTTM" */
#define TM_HELLO 40
#define TM_REC	 41

struct tm_hello {
	struct rec_hello_head head;
	uint32_t its_own;
} __attribute__((packed));

struct tm_rec {
	uint64_t t_ns;
	uint32_t value, pad;
} __attribute__((packed));

static struct inventory *inv;
static struct {
	size_t recs, stats, host;
	uint32_t last;
	const char *transport;
} got;

static void take_rec(void *az, size_t host, const void *body)
{
	const struct tm_rec *r = body;

	cr_assert_eq(az, &got, "the analyzer it was given");
	cr_assert_eq((uintptr_t)body % alignof(struct tm_rec), 0, "a record is aligned");
	got.recs++;
	got.host = host;
	got.last = r->value;
}

static void take_stats(void *az, size_t host, const char *transport, const struct rec_stats *st)
{
	(void)az;
	(void)host;
	got.stats++;
	got.transport = transport;
	cr_assert_eq(st->probes, 77);
}

static const struct rec_kind kinds[] = {{TM_REC, sizeof(struct tm_rec), take_rec}};
static const struct rec_intake intake = {
    .title = "Testmesh",
    .hint = "",
    .magic = TM_MAGIC,
    .version = 3,
    .hello_type = TM_HELLO,
    .hello_size = sizeof(struct tm_hello),
    .kinds = kinds,
    .n_kinds = 1,
    .stats = take_stats,
};

static void setup(void)
{
	inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	cr_assert_not_null(inv);
	memset(&got, 0, sizeof(got));
}

static void teardown(void)
{
	inventory_free(inv);
}

static size_t put(struct rec_stream *s, uint16_t type, const void *body, uint16_t len)
{
	struct rec_frame h = {type, len};

	memcpy(s->buf + s->len, &h, sizeof(h));
	memcpy(s->buf + s->len + sizeof(h), body, len);
	s->len += sizeof(h) + len;
	return sizeof(h) + len;
}

static struct tm_hello hello_of(const char *host)
{
	struct tm_hello h = {.head = {.magic = TM_MAGIC,
				      .version = 3,
				      .n_rnics = 4,
				      .transport = 1,
				      .inv_fingerprint = inventory_fingerprint(inv)}};

	snprintf(h.head.host, sizeof(h.head.host), "%s", host);
	return h;
}

TestSuite(recin, .init = setup, .fini = teardown);

Test(recin, records_go_to_the_monitor_by_type_after_its_hello)
{
	static struct rec_stream s;
	struct tm_hello h = hello_of("host2");
	struct tm_rec r = {.t_ns = 1, .value = 42};
	struct rec_stats st = {.probes = 77};
	static const uint8_t other[64];

	rec_stream_init(&s, "test");
	put(&s, TM_HELLO, &h, sizeof(h));
	put(&s, TM_REC, &r, sizeof(r));	     /* its body at 60: not 8-aligned in buf */
	put(&s, 99, other, sizeof(other));   /* not this monitor's: skipped */
	put(&s, TM_REC, &r, sizeof(r) - 1);  /* too short: skipped */
	put(&s, REC_STATS, &st, sizeof(st)); /* the agent's counters */
	cr_assert_eq(rec_take(&intake, &got, inv, &s), 0);
	cr_assert_eq(s.len, 0, "every whole frame taken");
	cr_assert_eq(s.host, 1, "host2 is the inventory's second");
	cr_assert_str_eq(s.transport, "verbs");
	cr_assert_eq(got.recs, 1);
	cr_assert_eq(got.last, 42);
	cr_assert_eq(got.host, 1);
	cr_assert_eq(got.stats, 1);
	cr_assert_str_eq(got.transport, "verbs");
}

Test(recin, a_partial_frame_waits_for_the_rest)
{
	static struct rec_stream s;
	struct tm_hello h = hello_of("host1");
	struct tm_rec r = {.value = 7};
	size_t n;

	rec_stream_init(&s, "test");
	put(&s, TM_HELLO, &h, sizeof(h));
	n = put(&s, TM_REC, &r, sizeof(r));
	s.len -= 3;
	cr_assert_eq(rec_take(&intake, &got, inv, &s), 0);
	cr_assert_eq(got.recs, 0);
	cr_assert_eq(s.len, n - 3, "the partial frame stays");
	s.len += 3; /* its last bytes arrive (they are still in buf past len) */
	cr_assert_eq(rec_take(&intake, &got, inv, &s), 0);
	cr_assert_eq(got.recs, 1);
	cr_assert_eq(got.last, 7);
}

Test(recin, bad_streams_are_dropped)
{
	static struct rec_stream s;
	struct tm_hello h = hello_of("host1"), other = hello_of("host1"),
			stranger = hello_of("nohost");
	struct tm_rec r = {0};

	rec_stream_init(&s, "test");
	put(&s, TM_REC, &r, sizeof(r));
	cr_assert_eq(rec_take(&intake, &got, inv, &s), -1, "a record before the hello");

	rec_stream_init(&s, "test");
	put(&s, TM_HELLO, &h, sizeof(h));
	put(&s, TM_HELLO, &h, sizeof(h));
	cr_assert_eq(rec_take(&intake, &got, inv, &s), -1, "a second hello");

	other.head.magic = 0x4d484c52u; /* another monitor's */
	rec_stream_init(&s, "test");
	put(&s, TM_HELLO, &other, sizeof(other));
	cr_assert_eq(rec_take(&intake, &got, inv, &s), -1, "another monitor's stream");

	other = hello_of("host1");
	other.head.inv_fingerprint ^= 1;
	rec_stream_init(&s, "test");
	put(&s, TM_HELLO, &other, sizeof(other));
	cr_assert_eq(rec_take(&intake, &got, inv, &s), -1, "another inventory's agent");

	rec_stream_init(&s, "test");
	put(&s, TM_HELLO, &stranger, sizeof(stranger));
	cr_assert_eq(rec_take(&intake, &got, inv, &s), -1, "a host not in the inventory");

	rec_stream_init(&s, "test");
	memcpy(s.buf, &(struct rec_frame){TM_HELLO, REC_MAX_FRAME + 1}, sizeof(struct rec_frame));
	s.len = sizeof(struct rec_frame);
	cr_assert_eq(rec_take(&intake, &got, inv, &s), -1, "a frame longer than any record");
	cr_assert_eq(got.recs, 0);
}
