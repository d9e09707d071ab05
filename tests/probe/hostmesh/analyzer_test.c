// SPDX-License-Identifier: MIT
/* The analyzer on synthetic records over the built-in virtual lab: each fault pattern, its verdict.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/pathmap.h"
#include "tests/probe/fixture.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The path host:rnicS -> railS -> spineK -> railD -> host:rnicD (all 1-based names). */
static void mkpath(struct hm_path *p, int host, int s, int d, int k)
{
	char a[32];

	memset(p, 0, sizeof(*p));
	p->src = (uint8_t)(s - 1);
	p->dst = (uint8_t)(d - 1);
	p->sport = (uint16_t)(50000 + k);
	p->complete = 1;
	p->n_links = 4;
	p->n_hops = 3;
	snprintf(a, sizeof(a), "host%d:rnic%d", host, s);
	p->links[0] = link_at(a);
	snprintf(a, sizeof(a), "rail%d:swp%d", s, 4 + k);
	p->links[1] = link_at(a);
	snprintf(a, sizeof(a), "rail%d:swp%d", d, 4 + k);
	p->links[2] = link_at(a);
	snprintf(a, sizeof(a), "host%d:rnic%d", host, d);
	p->links[3] = link_at(a);
}

static int now_w; /* the window being fed */

/*
 * What happens to a probe: 0 ok, 1 timeout, 2 slow (30 ms), 3 a busy lab's 2 ms, 4 its send failed,
 * 5 its host slow to process it (8 ms), 6 sent 5 ms late (its agent's timer), 7 slow (30 ms)
 * timed by the kernel at both ends (the others by clock_gettime: flags 0).
 */
typedef int (*fate_fn)(int host, int s, int d, int spine, int i);

/* Feed `windows` 2-s windows of probes: every pair, every spine, 3 probes each. */
static int evidence_windows; /* 0: the default */

static char *run_cfg(fate_fn fate, int windows, double alpha)
{
	struct az_cfg cfg;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct az *az;

	az_defaults(&cfg);
	if (alpha)
		cfg.slow_alpha = alpha;
	cfg.window_ms = 2000;
	cfg.rnic_hold_ms = 4000;
	cfg.min_votes = 3; /* the ACL pattern gives 3 abnormal probes a window */
	if (evidence_windows)
		cfg.evidence_windows = evidence_windows;
	az = az_new(inv, &cfg, f);
	for (int h = 1; h <= 4; h++)
		for (int s = 1; s <= 4; s++)
			for (int d = 1; d <= 4; d++)
				for (int k = 1; k <= 4 && s != d; k++) {
					struct hm_path p;

					mkpath(&p, h, s, d, k);
					p.t_ns = T0;
					az_path(az, (size_t)h - 1, &p);
				}
	for (int w = 0; w < windows; w++) {
		for (int i = 0; i < 3 && (now_w = w, 1); i++)
			for (int h = 1; h <= 4; h++)
				for (int s = 1; s <= 4; s++)
					for (int d = 1; d <= 4; d++)
						for (int k = 1; k <= 4 && s != d; k++) {
							int x = fate(h, s, d, k, i);
							struct hm_probe p = {
							    .t_send_ns =
								T0 + (uint64_t)w * 2 * SEC +
								(uint64_t)(i + 1) * SEC / 4,
							    .sport = (uint16_t)(50000 + k),
							    .src = (uint8_t)(s - 1),
							    .dst = (uint8_t)(d - 1),
							    .status = x == 1   ? HM_TIMEOUT
								      : x == 4 ? HM_SEND_ERROR
									       : HM_OK,
							    .flags = x == 7 ? HM_F_TX_KERNEL |
										  HM_F_RX_KERNEL
									    : 0,
							    .net_ns = x == 2 || x == 7 ? 30000000
								      : x == 3	       ? 2000000
										       : 12000,
							    .proc_ns = x == 5 ? 8000000 : 15000,
							    .late_10us = x == 6 ? 500 : 0,
							};
							az_probe(az, (size_t)h - 1, &p);
						}
		/* The analyzer closes a window 1.5 s after its end, while the next one fills. */
		az_tick(az, T0 + (uint64_t)(w + 1) * 2 * SEC + 1600000000ULL);
	}
	az_flush(az);
	az_free(az);
	fclose(f);
	return out;
}

static char *run(fate_fn fate, int windows)
{
	return run_cfg(fate, windows, 0);
}

struct seen {
	int verdicts, rnic, link, sw, congestion, proc;
	long long app_timed; /* the first verdict's */
	char first_target[160], first_class[32], app_hosts[64];
	bool unique;
};

static struct seen scan(const char *out)
{
	struct seen s = {0};
	const char *line = out;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		json_t *j = json_loadb(line, nl ? (size_t)(nl - line) : strlen(line), 0, NULL);
		const char *type = json_string_value(json_object_get(j, "type"));

		cr_assert_not_null(j, "not JSON: %.80s", line);
		if (type && !strcmp(type, "verdict")) {
			const char *cls = json_string_value(json_object_get(j, "class"));

			if (!s.verdicts++) {
				snprintf(s.first_target, sizeof(s.first_target), "%s",
					 json_string_value(json_object_get(j, "target")));
				snprintf(s.first_class, sizeof(s.first_class), "%s", cls);
				s.unique = json_is_true(json_object_get(j, "unique"));
				s.app_timed = json_integer_value(json_object_get(j, "app_timed"));
				json_t *hs = json_object_get(j, "app_timed_hosts"), *e;
				size_t k;

				json_array_foreach(hs, k, e)
				    snprintf(s.app_hosts + strlen(s.app_hosts),
					     sizeof(s.app_hosts) - strlen(s.app_hosts), "%s%s",
					     k ? "," : "", json_string_value(e));
			}
			s.rnic += !strcmp(cls, "rnic");
			s.link += !strcmp(cls, "switch-link");
			s.sw += !strcmp(cls, "switch");
			s.congestion += !strcmp(cls, "congestion");
			s.proc += !strcmp(cls, "host-processing");
		}
		json_decref(j);
		line = nl ? nl + 1 : NULL;
	}
	return s;
}

static int healthy(int h, int s, int d, int k, int i)
{
	(void)h, (void)s, (void)d, (void)k, (void)i;
	return 0;
}

/* spine2 lost its link to rail2: everything it forwards toward rail2 is dropped. */
static int uplink_down(int h, int s, int d, int k, int i)
{
	(void)h, (void)s, (void)i;
	return k == 2 && d == 2;
}

static int rnic_dead(int h, int s, int d, int k, int i)
{
	(void)k, (void)i;
	return h == 1 && (s == 2 || d == 2);
}

/* host1:rnic2 lost its route: what it sends fails in it, what it is sent arrives. */
static int route_lost(int h, int s, int d, int k, int i)
{
	(void)d, (void)k, (void)i;
	return h == 1 && s == 2 ? 4 : 0;
}

/* An ACL on one RNIC pair through spine2 that drops only two probes a window. */
static int weak_acl(int h, int s, int d, int k, int i)
{
	return h == 1 && s == 1 && d == 2 && k == 2 && i < 2;
}

/* ... dropped in the first window only, then lifted. */
static int weak_acl_once(int h, int s, int d, int k, int i)
{
	return now_w == 0 && weak_acl(h, s, d, k, i);
}

/* One probe lost a window, each time on another pair, host and spine: chance, not a fault. */
static int scattered(int h, int s, int d, int k, int i)
{
	int w = now_w % 4;

	return i == 0 && h == 1 + w && s == 1 + w && d == 1 + (w + 1) % 4 && k == 1 + (w + 2) % 4;
}

static int acl_pair(int h, int s, int d, int k, int i)
{
	(void)i;
	return h == 1 && s == 1 && d == 2 && k == 2;
}

static int congested(int h, int s, int d, int k, int i)
{
	(void)h, (void)d, (void)i;
	return k == 3 && s == 3 ? 2 : 0;
}

/* host2's CPU overloaded: every probe, or one of each three, waits 8 ms for its agent. */
static int busy_host(int h, int s, int d, int k, int i)
{
	(void)s, (void)d, (void)k, (void)i;
	return h == 2 ? 5 : 0;
}

static int busy_host_third(int h, int s, int d, int k, int i)
{
	(void)s, (void)d, (void)k;
	return h == 2 && i == 0 ? 5 : 0;
}

TestSuite(analyzer, .init = setup, .fini = teardown);

Test(analyzer, a_host_slow_on_most_probes_is_host_processing)
{
	char *out = run(busy_host, 2);
	struct seen s = scan(out);

	cr_assert_eq(s.proc, 2, "one a window: %s", out);
	cr_assert_eq(s.verdicts, 2, "and nothing else: %s", out);
	cr_assert_str_eq(s.first_target, "host2");
	cr_assert(strstr(out, "\"proc_slow_hosts\":[{\"host\":\"host2\",\"probes\":144,"
			      "\"slow\":144}]"),
		  "%s", out);
	free(out);
	/* A third of its probes slow: not most of them. */
	out = run(busy_host_third, 2);
	s = scan(out);
	cr_assert_eq(s.verdicts, 0, "%s", out);
	cr_assert(strstr(out, "{\"host\":\"host2\",\"probes\":144,\"slow\":48}"), "%s", out);
	free(out);
}

Test(analyzer, silent_on_a_healthy_fabric)
{
	char *out = run(healthy, 3);
	struct seen s = scan(out);

	cr_assert_eq(s.verdicts, 0, "%s", out);
	cr_assert(strstr(out, "\"type\":\"window\""));
	free(out);
}

Test(analyzer, uplink_fault_is_that_link_not_the_rnics)
{
	char *out = run(uplink_down, 2);
	struct seen s = scan(out);

	/* Every rail2 RNIC loses a quarter of its probes: the paper's rule alone would blame them.
	 */
	cr_assert_eq(s.rnic, 0, "%s", out);
	cr_assert_eq(s.link, 2, "%s", out);
	cr_assert_str_eq(s.first_target, "rail2:swp6--spine2:swp2");
	cr_assert(s.unique);
	free(out);
}

Test(analyzer, dead_rnic_is_blamed_alone)
{
	char *out = run(rnic_dead, 2);
	struct seen s = scan(out);

	cr_assert_eq(s.rnic, 2, "one verdict per window, for host1:rnic2 only:\n%s", out);
	cr_assert_str_eq(s.first_target, "host1:rnic2");
	cr_assert_eq(s.link + s.sw, 0, "its timeouts are RNIC problems:\n%s", out);
	free(out);
}

/* Send failures never left the RNIC: its own problem, though its uplinks carry probes to it. */
Test(analyzer, send_failures_are_the_rnics)
{
	char *out = run(route_lost, 2);
	struct seen s = scan(out);
	const char *w = strstr(out, "\"type\":\"window\"");

	cr_assert_eq(s.rnic, 2, "one verdict per window, for host1:rnic2 only:\n%s", out);
	cr_assert_str_eq(s.first_target, "host1:rnic2");
	cr_assert_eq(s.link + s.sw + s.congestion, 0, "never voted over the fabric:\n%s", out);
	/* 3 probes to each of 3 peers over 4 spines: 36 failed sends a window, all RNIC drops */
	cr_assert_not_null(w);
	cr_assert_not_null(strstr(w, "\"send_errors\":36,\"rnic_drops\":36,\"switch_drops\":0"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "\"timeouts\":36,\"send_errors\":36"), "%s", out);
	free(out);
}

/*
 * Two timeouts a window, below min-votes: each window alone says nothing, the
 * windows together name spine2 once they are beyond chance, for as long as
 * the fault lasts and no longer.
 */
Test(analyzer, weak_persistent_loss_adds_up_over_windows)
{
	char *out;
	struct seen s;

	evidence_windows = 1;
	out = run(weak_acl, 4);
	s = scan(out);
	cr_assert_eq(s.verdicts, 0, "each window alone is below min-votes:\n%s", out);
	free(out);
	evidence_windows = 0;
	out = run(weak_acl, 4);
	s = scan(out);
	/* 4 timeouts of 2 windows are beyond chance (log10 p -4.6); with evidence-alpha 1e-6 it
	 * takes 6 of 3 windows (-7.6) */
	cr_assert_eq(s.sw, 3, "windows 2, 3 and 4:\n%s", out);
	cr_assert_eq(s.verdicts, 3, "%s", out);
	cr_assert_str_eq(s.first_target, "spine2");
	cr_assert_not_null(strstr(out, "\"evidence_windows\":2,"), "%s", out);
	free(out);
	out = run(weak_acl_once, 4);
	s = scan(out);
	cr_assert_eq(s.verdicts, 0, "lifted after one window: the evidence stays out:\n%s", out);
	free(out);
}

/* Single losses on other elements each window add up to nothing (the binomial test). */
Test(analyzer, scattered_single_losses_are_chance)
{
	char *out = run(scattered, 8);
	struct seen s = scan(out);

	cr_assert_eq(s.verdicts, 0, "%s", out);
	free(out);
}

Test(analyzer, pair_acl_is_the_switch_the_good_probes_avoid)
{
	char *out = run(acl_pair, 2);
	struct seen s = scan(out);

	cr_assert_eq(s.sw, 2, "%s", out);
	cr_assert_str_eq(s.first_class, "switch");
	cr_assert_str_eq(s.first_target, "spine2");
	cr_assert_eq(s.rnic, 0);
	free(out);
}

Test(analyzer, high_latency_is_a_congestion_hotspot)
{
	char *out = run(congested, 2);
	struct seen s = scan(out);

	cr_assert_eq(s.congestion, 2, "%s", out);
	cr_assert_str_eq(s.first_target, "rail3:swp7--spine3:swp3");
	cr_assert_eq(s.rnic + s.link + s.sw, 0);
	free(out);
}

/* The same hotspot, its probes timed by the kernel but host1's (rxe: clock_gettime). */
static int congested_kernel_timed(int h, int s, int d, int k, int i)
{
	int x = congested(h, s, d, k, i);

	return x == 2 && h != 1 ? 7 : x;
}

/*
 * A latency verdict says how many of its votes a host's clock_gettime timed,
 * and whose: that time holds the agent's own scheduling, which the grader
 * holds against the host's measured CPU pressure.
 */
Test(analyzer, a_latency_verdict_says_which_votes_a_hosts_clock_timed)
{
	char *out = run(congested_kernel_timed, 2);
	struct seen s = scan(out);

	cr_assert_eq(s.congestion, 2, "%s", out);
	cr_assert_str_eq(s.first_target, "rail3:swp7--spine3:swp3");
	cr_assert_eq(s.app_timed, 9, "host1's 3 peers x 3 probes of 36: %s", out);
	cr_assert_str_eq(s.app_hosts, "host1");
	free(out);
	out = run(congested, 2);
	s = scan(out);
	cr_assert_eq(s.app_timed, 36, "%s", out);
	cr_assert_str_eq(s.app_hosts, "host1,host2,host3,host4");
	free(out);
}

/* The same link's probes slow in one instant only: a stall, not a queue that stays full. */
static int stalled(int h, int s, int d, int k, int i)
{
	return i == 1 ? congested(h, s, d, k, i) : 0;
}

Test(analyzer, a_burst_of_slow_probes_is_not_congestion)
{
	char *out = run(stalled, 2);
	struct seen s = scan(out);

	cr_assert_eq(s.verdicts, 0, "12 slow probes a window, all sent at once: %s", out);
	cr_assert(strstr(out, "\"slow_probes\":12"), "they were counted: %s", out);
	free(out);
}

Test(analyzer, ignores_records_it_cannot_place)
{
	struct az_cfg cfg;
	struct az_totals t;
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	struct az *az;
	struct hm_path p;
	struct hm_probe bad = {.t_send_ns = T0, .src = 1, .dst = 1};

	az_defaults(&cfg);
	az = az_new(inv, &cfg, f);
	mkpath(&p, 1, 1, 2, 1);
	p.links[2] = 60000; /* no such link */
	az_path(az, 0, &p);
	az_probe(az, 0, &bad); /* to itself */
	bad.dst = 9;
	az_probe(az, 0, &bad);	/* no such RNIC */
	az_probe(az, 99, &bad); /* no such host */
	az_totals(az, &t);
	cr_assert_eq(t.probes, 0);
	cr_assert_eq(t.paths, 0);
	cr_assert_eq(t.unknown_rnic, 3);
	az_free(az);
	fclose(f);
	free(out);
}

/*
 * Eight slow probes a window, spread over it: the machine is busy.  No link
 * stands out, and the rail switch that is on half of all paths is on five of
 * them, which meets min-share; against the rest of the fabric its slow share
 * is everyone's.
 */
static int busy_machine(int h, int s, int d, int k, int i)
{
	static const int slow[][5] = {
	    {1, 1, 2, 1, 0}, {2, 3, 1, 2, 1}, {3, 1, 4, 3, 2},
	    {4, 2, 1, 4, 0}, {1, 3, 4, 1, 1}, {2, 2, 4, 2, 2},
	};

	for (size_t j = 0; j < ARRAY_SIZE(slow); j++)
		if (slow[j][0] == h && slow[j][1] == s && slow[j][2] == d && slow[j][3] == k &&
		    slow[j][4] == i)
			return 2;
	return 0;
}

Test(analyzer, slowness_everywhere_is_not_a_hotspot)
{
	char *out = run_cfg(busy_machine, 3, 1.0);
	struct seen s = scan(out);

	cr_assert_gt(s.congestion, 0,
		     "without the test against the rest of the fabric, the "
		     "busy machine is read as congestion: %s",
		     out);
	free(out);
	out = run(busy_machine, 3);
	s = scan(out);
	cr_assert_eq(s.verdicts, 0, "%s", out);
	free(out);
}

/*
 * A busier lab: every probe takes 2 ms; from the fifth window a hotspot on
 * spine3-rail3.  A healthy window joins the baseline when the next one is
 * healthy too: the third window's closing raises the threshold.
 */
static int busy_lab(int h, int s, int d, int k, int i)
{
	return now_w >= 4 && congested(h, s, d, k, i) ? 2 : 3;
}

Test(analyzer, a_busier_lab_raises_the_slow_threshold_to_its_healthy_tail)
{
	char *out = run(busy_lab, 6);
	struct seen s = scan(out);
	const char *t = out;

	for (int w = 0; w < 6; w++) {
		t = strstr(t, "\"slow_threshold_us\":");
		cr_assert_not_null(t);
		t += strlen("\"slow_threshold_us\":");
		if (w < 4)
			cr_assert(!strncmp(t, "1000.0,", 7), "the paper's floor first: %s", out);
		else
			cr_assert(!strncmp(t, "4030.", 5),
				  "then twice the healthy windows' p99 of 2 ms: %s", out);
	}
	cr_assert_eq(s.congestion, 2, "the hotspot of windows 5 and 6 alone: %s", out);
	cr_assert_str_eq(s.first_target, "rail3:swp7--spine3:swp3");
	cr_assert_eq(s.verdicts, 2);
	free(out);
}

/* Three healthy windows, the onset (its slow probes in one instant), then the hotspot. */
static int onset(int h, int s, int d, int k, int i)
{
	return now_w < 3 ? 0 : now_w == 3 ? stalled(h, s, d, k, i) : congested(h, s, d, k, i);
}

Test(analyzer, a_fault_onset_stays_out_of_the_healthy_baseline)
{
	char *out = run(onset, 6);
	struct seen s = scan(out);
	const char *r = strstr(out, "\"reference_share\":");

	cr_assert_eq(s.congestion, 2, "the onset is no verdict, the hotspot is: %s", out);
	cr_assert_not_null(r);
	/* with the onset window in, the link's own share would be 12.5 of 217 probes */
	cr_assert_lt(strtod(r + strlen("\"reference_share\":"), NULL), 0.005, "%s", out);
	free(out);
}

/* Input from the network is bounded: records past the bounds are refused and counted. */
Test(analyzer, bounds_what_agents_can_make_it_keep)
{
	struct az_cfg cfg;
	struct az_totals t;
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	struct az *az;
	struct hm_path p;
	struct hm_probe pr = {.t_send_ns = T0, .src = 0, .dst = 1};
	struct rec_stats st = {.t_ns = T0};
	size_t paths = 0;

	az_defaults(&cfg);
	az = az_new(inv, &cfg, f);
	az_tick(az, T0);
	az_probe(az, 0, &pr); /* now */
	pr.t_send_ns = T0 + 3600 * SEC;
	az_probe(az, 0, &pr); /* an hour ahead: a window for it would close the others */
	for (int i = 0; i < 10; i++) {
		st.t_ns = T0 + (uint64_t)i * SEC / 10;
		az_agent_stats(az, 0, "udp", &st); /* ten in a second: one line */
	}
	/* 5-tuples: 2048 per RNIC pair (16 RNICs, 4 per host) and 64 more a host, then refused */
	mkpath(&p, 1, 1, 2, 1);
	for (size_t h = 0; h < 4; h++)
		for (uint8_t s = 0; s < 4; s++)
			for (uint32_t k = 0; k < 65536; k++) {
				p.src = s;
				p.dst = (uint8_t)((s + 1) % 4);
				p.sport = (uint16_t)k;
				p.t_ns = T0 + k;
				az_path(az, h, &p);
				paths++;
			}
	az_totals(az, &t);
	cr_assert_eq(t.probes, 1);
	cr_assert_eq(t.paths, 4 * (4 * 4 * 2048 + 64), "%llu paths kept",
		     (unsigned long long)t.paths);
	cr_assert_eq(t.refused, 1 + 9 + paths - t.paths, "%llu refused",
		     (unsigned long long)t.refused);
	fflush(f);
	cr_assert(strstr(out, "\"type\":\"agent\""), "%s", out);
	cr_assert_null(strstr(strstr(out, "\"type\":\"agent\"") + 1, "\"type\":\"agent\""),
		       "one agent line a second: %s", out);
	az_free(az);
	fclose(f);
	free(out);
}

static size_t put_frame(uint8_t *b, uint16_t type, const void *body, uint16_t len)
{
	struct rec_frame h = {type, len};

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), body, len);
	return sizeof(h) + len;
}

/* A stream that is not a well-behaved agent's is dropped, with what was wrong said. */
Test(analyzer, drops_streams_that_break_the_frame_rules)
{
	struct az_cfg cfg;
	struct hm_hello hi = {.head = {.magic = HM_MAGIC,
				       .version = HM_VERSION,
				       .n_rnics = 4,
				       .host = "host1",
				       .inv_fingerprint = inventory_fingerprint(inv)}};
	struct hm_probe pr = {.t_send_ns = T0, .src = 0, .dst = 1};
	static struct rec_stream s;
	static const uint8_t zeros[HM_MAX_FRAME];
	FILE *null = fopen("/dev/null", "we");
	struct az_totals t;
	struct az *az;

	az_defaults(&cfg);
	az = az_new(inv, &cfg, null);
	rec_stream_init(&s, "test");
	s.len = put_frame(s.buf, HM_HELLO, &hi, sizeof(hi));
	s.len += put_frame(s.buf + s.len, HM_PROBE, &pr, sizeof(pr));
	cr_assert_eq(hm_stream_take(az, inv, &s), 0, "a hello, then a probe");
	cr_assert_eq(s.len, 0);
	s.len = put_frame(s.buf, HM_HELLO, &hi, sizeof(hi));
	cr_assert_eq(hm_stream_take(az, inv, &s), -1, "a second hello");

	rec_stream_init(&s, "test");
	s.len = put_frame(s.buf, HM_PROBE, &pr, sizeof(pr));
	cr_assert_eq(hm_stream_take(az, inv, &s), -1, "a probe before the hello");

	rec_stream_init(&s, "test");
	s.len = put_frame(s.buf, HM_HELLO, &hi, sizeof(hi));
	s.len += put_frame(s.buf + s.len, 9, zeros, HM_MAX_FRAME);
	cr_assert_eq(hm_stream_take(az, inv, &s), 0, "an unknown frame type is skipped");
	memcpy(s.buf, &(struct rec_frame){HM_PROBE, HM_MAX_FRAME + 1}, sizeof(struct rec_frame));
	s.len = 4;
	cr_assert_eq(hm_stream_take(az, inv, &s), -1, "a frame longer than HM_MAX_FRAME");
	az_totals(az, &t);
	cr_assert_eq(t.probes, 1);
	az_free(az);
	fclose(null);
}

/* In the second window, every probe host 2 sends is 5 ms late: its timer, not the network. */
static int late_sender(int h, int s, int d, int k, int i)
{
	(void)s, (void)d, (void)k, (void)i;
	return now_w == 1 && h == 2 ? 6 : 0;
}

/*
 * Issue 64: the rig measured.  Each window says how late the agents sent
 * (send_late_us), which is no fault of the network: no verdict.  The
 * analyzer writes each traced path once (4 hosts x 12 pairs x 4 spines).
 */
Test(analyzer, send_lateness_is_measured_per_window_and_blames_nothing)
{
	char *out = run(late_sender, 3), *line, *save = NULL;
	int w = 0, paths = 0;
	double p99[3] = {-1, -1, -1}, p50[3] = {-1, -1, -1};

	cr_assert_eq(scan(out).verdicts, 0, "%s", out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL), *l;
		const char *type = json_string_value(json_object_get(j, "type"));

		cr_assert_not_null(type, "%s", line);
		if (!strcmp(type, "path"))
			paths++;
		if (!strcmp(type, "window") && w < 3) {
			l = json_object_get(j, "send_late_us");
			cr_assert(json_is_object(l), "%s", line);
			p50[w] = json_number_value(json_object_get(l, "p50"));
			p99[w++] = json_number_value(json_object_get(l, "p99"));
		}
		json_decref(j);
	}
	cr_assert_eq(w, 3);
	cr_assert_eq(paths, 192, "each traced path once");
	cr_assert_float_eq(p99[0], 0, 1e-9);
	cr_assert(p99[1] > 4800 && p99[1] < 5200, "a quarter of the probes 5 ms late: %.1f us",
		  p99[1]);
	cr_assert_float_eq(p50[1], 0, 1e-9, "the rest on time");
	cr_assert_float_eq(p99[2], 0, 1e-9);
	free(out);
}
