// SPDX-License-Identifier: MIT
/* The run's fault to its injector and the injector's word back: one schema (handoff.h). */
#define _GNU_SOURCE
#include "injectors/cmd/handoff.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Every kind, with options other than its defaults where it has any, arrives as it left. */
Test(handoff, every_kind_arrives_as_it_left)
{
	static const char *const set[][3] = {
	    {"link-flap", "period", "20s"},
	    {"link-flap", "count", "3"},
	    {"acl-error", "from", "h1:rnic1"},
	    {"acl-error", "to", "h2:rnic1"},
	    {"pfc-misconfig", "priority", "4"},
	    {"ipid-drop", "ids", "1,7,65535"},
	    {"ipid-drop", "roce-only", NULL},
	    {"link-degrade", "rate", "500kbit"},
	    {"packet-corruption", "rate", "0.1%"},
	    {"pfc-storm", "quanta", "100"},
	    {"buffer-alpha", "profile", "pg_lossless_100000_5m_profile"},
	    {"ecn-misconfig", "off", NULL},
	    {"cpu-hog", "min-delay", "250ms"},
	};
	const struct fault_kind_ops *k;

	for (size_t i = 0; (k = fault_kind_at(i)); i++) {
		struct fault_spec a, b;
		char why[512], va[OPT_VALUE_MAX], vb[OPT_VALUE_MAX], *line;

		fault_spec_init(&a, k);
		cr_assert_eq(fault_spec_set(&a, "target", "sw1:swp3", why, sizeof(why)), 0);
		a.hold = true;
		a.hold_ms = 8000; /* a run's fault phase */
		cr_assert_eq(fault_spec_set(&a, "deadman", "5s", why, sizeof(why)), 0);
		for (size_t j = 0; j < ARRAY_SIZE(set); j++)
			if (!strcmp(set[j][0], k->name))
				cr_assert_eq(
				    fault_spec_set(&a, set[j][1], set[j][2], why, sizeof(why)), 0,
				    "%s %s: %s", k->name, set[j][1], why);
		cr_assert_not_null(line = fault_handoff_write(&a), "%s", k->name);
		cr_assert_eq(strchr(line, '\n'), line + strlen(line) - 1, "one line: %s", line);
		cr_assert_eq(fault_handoff_read(line, &b, why, sizeof(why)), 0, "%s: %s", line,
			     why);
		cr_assert_eq(b.kind, k);
		cr_assert_str_eq(b.target, "sw1:swp3");
		cr_assert(b.hold && !b.for_ms);
		cr_assert_eq(b.hold_ms, 8000, "the run's hold, so a flap starts no cycle past it");
		cr_assert_eq(b.deadman_ms, 5000, "the devices' timers keep the lease asked");
		for (const struct opt_desc *d = k->opts; d->type != OPT_END; d++)
			cr_assert_str_eq(fault_spec_value(&b, d->name, vb, sizeof(vb)),
					 fault_spec_value(&a, d->name, va, sizeof(va)), "%s --%s",
					 k->name, d->name);
		free(line);
	}
}

/* What arrives is checked as the command line is: each wrong line refused, saying why. */
Test(handoff, a_wrong_line_is_refused_saying_why)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
	    {"link-flap --target sw1:swp3", "not a JSON object"},
	    {"{\"schema\":2,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\"}", "schema 1"},
	    {"{\"schema\":1,\"kind\":\"reboot\",\"target\":\"sw1\"}", "no fault kind"},
	    {"{\"schema\":1,\"kind\":\"link-flap\"}", "gives no target"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"options\":{\"mod\":"
	     "\"3\"}}",
	     "link-flap has no option 'mod'"},
	    /* the common options are the line's own keys, never options */
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"options\":{\"target\":"
	     "\"sw2:swp1\"}}",
	     "no option 'target'"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"options\":{\"count\":"
	     "3}}",
	     "not text"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"options\":{\"period\":"
	     "\"1x\"}}",
	     "period '1x'"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"for_ms\":-5}",
	     "not a duration"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"hold_ms\":8000}",
	     "not a held fault's duration"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"hold\":true,"
	     "\"hold_ms\":-1}",
	     "not a held fault's duration"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"deadman_ms\":100}",
	     "not a lease rocelab takes"},
	    {"{\"schema\":1,\"kind\":\"link-flap\",\"target\":\"sw1:swp3\",\"hold\":true,\"for_"
	     "ms\":"
	     "1000}",
	     "not both"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct fault_spec s;
		char why[512] = "";

		cr_assert_eq(fault_handoff_read(bad[i].line, &s, why, sizeof(why)), -EINVAL, "%s",
			     bad[i].line);
		cr_assert(strstr(why, bad[i].why), "%s: %s", bad[i].line, why);
	}
}

/* The verdict line and the drift lines, written as 'inject -j' prints them and read back. */
Test(handoff, the_outcome_is_read_as_it_was_written)
{
	struct fault_outcome o = {.id = 7, .applied_at = 1700000000.25, .emulated = true},
			     got = {0};
	char *buf = NULL, *l;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	snprintf(o.kind, sizeof(o.kind), "pfc-misconfig");
	snprintf(o.target, sizeof(o.target), "rail1:swp5");
	snprintf(o.outcome, sizeof(o.outcome), "applied");
	snprintf(o.evidence, sizeof(o.evidence), "incast: \"quoted\" and `ticks` $(x)");
	snprintf(o.note, sizeof(o.note), "emulated: HTB");
	fault_outcome_print(f, &o, true);
	fault_drift_print(f, 7, false, 1, "rail1:swp5 PFC 3 was on");
	fault_drift_print(f, 7, false, 1, "rail2:swp1 speed");
	fclose(f);
	l = strtok(buf, "\n");
	cr_assert_eq(fault_outcome_read(l, &got), 0, "%s", l);
	cr_assert_eq(got.id, 7);
	cr_assert_str_eq(got.kind, "pfc-misconfig");
	cr_assert_str_eq(got.target, "rail1:swp5");
	cr_assert_str_eq(got.outcome, "applied");
	cr_assert_float_eq(got.applied_at, 1700000000.25, 1e-6);
	cr_assert_str_eq(got.evidence, o.evidence);
	cr_assert(got.emulated);
	cr_assert_str_eq(got.note, "emulated: HTB");
	cr_assert(!got.drift_said);
	for (int i = 0; i < 2; i++) {
		l = strtok(NULL, "\n");
		cr_assert_eq(fault_outcome_read(l, &got), 0, "%s", l);
	}
	cr_assert(got.drift_said && !got.reverted);
	cr_assert_eq(got.drift_count, 2);
	cr_assert_str_eq(got.drift, "rail1:swp5 PFC 3 was on; rail2:swp1 speed");
	cr_assert_eq(fault_outcome_read("fault 7 link-flap: applied", &got), -EINVAL);
	cr_assert_eq(fault_outcome_read("{\"id\": 3}", &got), -EINVAL);
	free(buf);
}

/* What a kind measured arrives whole, with its fault's id; other lines are not taken for it. */
Test(handoff, a_measured_line_is_read_as_it_was_written)
{
	json_t *m = json_pack("{s:{s:s, s:I, s:f, s:n, s:s}}", "pfcwd", "mode", "on",
			      "detection_ms", (json_int_t)200, "tripped_after_s", 0.25,
			      "restored_by_s", "grade", "fail"),
	       *got;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fault_measured_print(f, 9, m);
	fclose(f);
	cr_assert_not_null(got = fault_measured_read(buf), "%s", buf);
	cr_assert_eq(json_integer_value(json_object_get(got, "fault")), 9);
	json_object_del(got, "fault");
	cr_assert(json_equal(got, m), "%s", buf);
	json_decref(got);
	cr_assert_null(fault_measured_read("{\"id\": 9, \"counters\": {\"deltas\": {}}}"));
	cr_assert_null(fault_measured_read("{\"measured\": {}}"), "an id is needed");
	cr_assert_null(fault_counters_read(buf), "a measured line is no counters line");
	json_decref(m);
	free(buf);
}

/* ... and as a person reads it: what was set, the bounds, the grade and why. */
Test(handoff, a_measured_pfc_watchdog_reads_as_set_against_done)
{
	json_t *ok = json_pack("{s:{s:s, s:I, s:I, s:f, s:f, s:f, s:f, s:s}}", "pfcwd", "mode",
			       "on", "detection_ms", (json_int_t)200, "restoration_ms",
			       (json_int_t)400, "tripped_after_s", 0.0, "tripped_by_s", 0.25,
			       "restored_after_s", 0.0, "restored_by_s", 0.91, "grade", "pass"),
	       *late = json_pack("{s:{s:s, s:I, s:n, s:s, s:s}}", "pfcwd", "mode", "off",
				 "detection_ms", (json_int_t)200, "tripped_by_s", "grade", "fail",
				 "why", "stopped (pfcwd off), it read 'stormed'");
	struct sbuf b = {0};

	fault_measured_text(ok, &b);
	cr_assert_str_eq(b.p, "PFC watchdog (pfcwd on, detection 200 ms, restoration 400 ms), "
			      "tripped by 0.25 s, gave the queue back by 0.91 s: pass\n");
	sb_free(&b);
	fault_measured_text(late, &b);
	cr_assert_str_eq(b.p, "PFC watchdog (pfcwd off, detection 200 ms), did not trip: fail: "
			      "stopped (pfcwd off), it read 'stormed'\n");
	sb_free(&b);
	fault_measured_text(json_object_get(ok, "pfcwd"), &b);
	cr_assert_null(b.p, "a measure it does not know is not said");
	json_decref(late);
	/* set, its state not read (EOS): no bound said, neither tripped nor not */
	late = json_pack("{s:{s:s, s:I, s:I, s:s, s:s}}", "pfcwd", "mode", "on", "detection_ms",
			 (json_int_t)250, "restoration_ms", (json_int_t)1500, "grade",
			 "not-measured", "why", "its state is not read on this NOS");
	fault_measured_text(late, &b);
	cr_assert_str_eq(b.p, "PFC watchdog (pfcwd on, detection 250 ms, restoration 1500 ms): "
			      "not-measured: its state is not read on this NOS\n");
	sb_free(&b);
	json_decref(ok);
	json_decref(late);
}
