// SPDX-License-Identifier: MIT
/* The run history: runs recorded from results.json, listed, resolved and compared. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "reports/history.h"

#include <criterion/criterion.h>
#include <libgen.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static char dir[] = "/tmp/rocelab-history-test.XXXXXX";
static char db[PATH_MAX];
static char err[512];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/sub/history.sqlite", dir); /* its folder is made */
}

static void teardown(void)
{
	rl_rm_rf(dir);
}

TestSuite(history, .init = setup, .fini = teardown);

/*
 * A run's results.json as 'rocelab run' writes it: a detection scenario
 * (ttd, rank, precision), a silent one (false positives) and one with a
 * metric whose expectation says higher is better.
 */
static json_t *run(const char *id, const char *lab, double started, const char *flap_verdict,
		   double ttd, int rank, double precision, int fp, double goodput)
{
	return json_pack(
	    "{s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:f,s:f,s:s,s:["
	    "{s:s,s:s,s:s,s:b,s:f,s:i,s:f,s:i,s:{s:{s:s,s:{}}}},"
	    "{s:s,s:s,s:s,s:b,s:n,s:n,s:n,s:i,s:{}},"
	    "{s:s,s:s,s:s,s:b,s:n,s:n,s:n,s:i,s:{s:{s:{s:{s:f,s:s,s:s},s:{s:f,s:s}}}}}]}",
	    "schema_version", 2, "run_id", id, "lab", lab, "lab_kind", "vlab", "inventory",
	    "lab.yaml", "inventory_sha256", "ab12", "seed", 7, "started", started, "ended",
	    started + 60, "rocelab", "test", "scenarios",
	    /* rnic-flap */
	    "name", "rnic-flap", "verdict", flap_verdict, "reason",
	    strcmp(flap_verdict, "pass") ? "detected after 9.0 s, later than 8.0 s" : "",
	    "detected", 1, "time_to_detect_s", ttd, "rank", rank, "precision", precision,
	    "false_positives", 0, "components", "hostmesh", "verdict", flap_verdict, "metrics",
	    /* no-fault */
	    "name", "no-fault", "verdict", fp ? "fail" : "pass", "reason", "", "detected", 0,
	    "time_to_detect_s", "rank", "precision", "false_positives", fp, "components",
	    /* mp-rdma */
	    "name", "lossy-paths", "verdict", "pass", "reason", "", "detected", 0,
	    "time_to_detect_s", "rank", "precision", "false_positives", 0, "components", "mprdma",
	    "metrics", "goodput-vs-optimal", "value", goodput, "unit", "ratio", "better", "higher",
	    "reorder-degree", "value", 3.0, "unit", "pkts");
}

static void record(json_t *r)
{
	cr_assert_eq(history_record(db, r, "/results/x", err, sizeof(err)), 0, "%s", err);
	json_decref(r);
}

static json_t *compare(const char *a, const char *b)
{
	static const struct history_margins m = HISTORY_MARGINS_DEFAULT;
	json_t *c = history_compare(db, a, b, &m, err, sizeof(err));

	cr_assert_not_null(c, "%s", err);
	return c;
}

/* "scenario/what" of each regression, space separated. */
static const char *whats(const json_t *c, const char *key, char *buf, size_t len)
{
	const json_t *x;
	size_t i, o = 0;

	buf[0] = '\0';
	json_array_foreach(json_object_get(c, key), i, x) o +=
	    (size_t)snprintf(buf + o, len - o, "%s%s/%s", i ? " " : "",
			     json_string_value(json_object_get(x, "scenario")),
			     json_string_value(json_object_get(x, "what")));
	return buf;
}

Test(history, two_like_runs_compare_clean_and_a_worse_third_regresses)
{
	char id[40], buf[1024];
	json_t *c;

	record(run("20261121T010000Z-aaaa", "vlab", 1000, "pass", 4.0, 1, 1.0, 0, 0.95));
	/* Within the margins: 1.8 s later (< 2 s), precision 0.2 lower, goodput 8% lower. */
	record(run("20261122T010000Z-bbbb", "vlab", 2000, "pass", 5.8, 1, 0.8, 0, 0.88));
	c = compare("20261121T010000Z-aaaa", "20261122T010000Z-bbbb");
	cr_assert_eq(json_array_size(json_object_get(c, "regressions")), 0, "%s",
		     whats(c, "regressions", buf, sizeof(buf)));
	cr_assert_eq(json_integer_value(json_object_get(c, "compared")), 3);
	json_decref(c);

	record(run("20261123T010000Z-cccc", "vlab", 3000, "fail", 9.0, 2, 0.5, 2, 0.78));
	cr_assert_eq(history_resolve(db, "vlab", "last", id, sizeof(id), err, sizeof(err)), 0);
	cr_assert_str_eq(id, "20261123T010000Z-cccc");
	c = compare("20261122T010000Z-bbbb", id);
	cr_assert_str_eq(whats(c, "regressions", buf, sizeof(buf)),
			 "rnic-flap/verdict rnic-flap/time_to_detect_s rnic-flap/rank "
			 "rnic-flap/precision no-fault/verdict no-fault/false_positives "
			 "lossy-paths/metric mprdma/goodput-vs-optimal");
	/* What a person reads: the scenario, the change, the reason. */
	{
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		cr_assert_eq(history_print_compare(c, f), 7);
		fclose(f);
		cr_assert(strstr(out, "  REGRESSED  rnic-flap: pass -> fail: detected after 9.0 s, "
				      "later than 8.0 s\n"),
			  "%s", out);
		cr_assert(strstr(out, "  REGRESSED  rnic-flap: time to detect 5.8 s -> 9.0 s\n"),
			  "%s", out);
		cr_assert(strstr(out, "  REGRESSED  no-fault: false positives 0 -> 2\n"), "%s",
			  out);
		cr_assert(strstr(out, "  REGRESSED  lossy-paths: mprdma/goodput-vs-optimal 0.88 -> "
				      "0.78 ratio (higher is better)\n"),
			  "%s", out);
		cr_assert(strstr(out, "\n7 regression(s)\n"), "%s", out);
		free(out);
	}
	json_decref(c);
	/* Backwards, the same differences are improvements (a metric without "better" is not). */
	c = compare("20261123T010000Z-cccc", "20261122T010000Z-bbbb");
	cr_assert_eq(json_array_size(json_object_get(c, "regressions")), 0);
	cr_assert_str_eq(whats(c, "improved", buf, sizeof(buf)),
			 "rnic-flap/verdict rnic-flap/time_to_detect_s no-fault/verdict "
			 "no-fault/false_positives lossy-paths/metric mprdma/goodput-vs-optimal");
	json_decref(c);
}

Test(history, runs_resolve_by_prefix_last_and_last_n_per_lab)
{
	char id[40];
	json_t *l;

	record(run("20261121T010000Z-aaaa", "vlab", 1000, "pass", 4, 1, 1, 0, 1));
	record(run("20261121T020000Z-bbbb", "other", 1500, "pass", 4, 1, 1, 0, 1));
	record(run("20261122T010000Z-cccc", "vlab", 2000, "pass", 4, 1, 1, 0, 1));
	cr_assert_eq(history_resolve(db, NULL, "last", id, sizeof(id), err, sizeof(err)), 0);
	cr_assert_str_eq(id, "20261122T010000Z-cccc");
	cr_assert_eq(history_resolve(db, NULL, "last~1", id, sizeof(id), err, sizeof(err)), 0);
	cr_assert_str_eq(id, "20261121T020000Z-bbbb");
	cr_assert_eq(history_resolve(db, "vlab", "last~1", id, sizeof(id), err, sizeof(err)), 0);
	cr_assert_str_eq(id, "20261121T010000Z-aaaa");
	cr_assert_eq(history_resolve(db, "vlab", "last~2", id, sizeof(id), err, sizeof(err)),
		     -ENOENT);
	cr_assert(strstr(err, "no run last~2 of lab vlab in "), "%s", err);
	cr_assert_eq(history_resolve(db, NULL, "20261122", id, sizeof(id), err, sizeof(err)), 0);
	cr_assert_str_eq(id, "20261122T010000Z-cccc");
	cr_assert_eq(history_resolve(db, NULL, "20261121", id, sizeof(id), err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "names more than one run"), "%s", err);
	cr_assert_eq(history_resolve(db, NULL, "last~x", id, sizeof(id), err, sizeof(err)),
		     -EINVAL);
	/* Lists: newest first, per lab, per scenario. */
	cr_assert_not_null(l = history_list(db, "vlab", NULL, 10, err, sizeof(err)), "%s", err);
	cr_assert_eq(json_array_size(l), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(l, 0), "run_id")),
			 "20261122T010000Z-cccc");
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(l, 0), "passed")), 3);
	json_decref(l);
	cr_assert_not_null(l = history_list(db, NULL, "rnic-flap", 10, err, sizeof(err)));
	cr_assert_eq(json_array_size(l), 3);
	cr_assert_eq(json_real_value(json_object_get(json_array_get(l, 0), "time_to_detect_s")),
		     4.0);
	json_decref(l);
}

Test(history, a_run_recorded_twice_or_a_bad_record_changes_nothing)
{
	json_t *r = run("20261121T010000Z-aaaa", "vlab", 1000, "pass", 4, 1, 1, 0, 1), *l;

	cr_assert_eq(history_record(db, r, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(history_record(db, r, NULL, err, sizeof(err)), -EEXIST);
	cr_assert(strstr(err, "run 20261121T010000Z-aaaa is in "), "%s", err);
	json_decref(r);
	/* A scenario without its verdict: the whole run rolls back. */
	r = run("20261122T010000Z-bbbb", "vlab", 2000, "pass", 4, 1, 1, 0, 1);
	json_object_del(json_array_get(json_object_get(r, "scenarios"), 2), "verdict");
	cr_assert_neq(history_record(db, r, NULL, err, sizeof(err)), 0);
	json_decref(r);
	cr_assert_not_null(l = history_list(db, NULL, NULL, 0, err, sizeof(err)));
	cr_assert_eq(json_array_size(l), 1);
	json_decref(l);
	r = json_pack("{s:s}", "run_id", "x");
	cr_assert_eq(history_record(db, r, NULL, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not the results of a run"), "%s", err);
	json_decref(r);
	/* Nothing recorded yet: a clear error, and no file is made by reading. */
	snprintf(db, sizeof(db), "%s/none.sqlite", dir);
	cr_assert_null(history_list(db, NULL, NULL, 0, err, sizeof(err)));
	cr_assert(strstr(err, "no run history at ") && strstr(err, "rocelab run"), "%s", err);
	cr_assert_neq(access(db, F_OK), 0);
}

/*
 * A history import is another person's results folder: names that would end a line of a
 * trend's gnuplot script, or name a folder above, are refused and nothing is recorded.
 */
Test(history, an_import_with_names_that_are_no_names_records_nothing)
{
	static const char *const bad[] = {"x\n!touch /tmp/m", "x`id`", "..", "a/b",
					  "x' ; system('id')"};
	json_t *r, *l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = run("20261121T010000Z-aaaa", "vlab", 1000, "pass", 4, 1, 1, 0, 1);
		json_object_set_new(json_array_get(json_object_get(r, "scenarios"), 1), "name",
				    json_string(bad[i]));
		cr_assert_eq(history_record(db, r, NULL, err, sizeof(err)), -EINVAL, "%s", bad[i]);
		cr_assert(strstr(err, "scenarios[1].name is not a scenario's name"), "%s", err);
		json_decref(r);
		r = run("20261121T010000Z-aaaa", bad[i], 1000, "pass", 4, 1, 1, 0, 1);
		cr_assert_eq(history_record(db, r, NULL, err, sizeof(err)), -EINVAL, "lab %s",
			     bad[i]);
		json_decref(r);
	}
	r = run("20261121T010000Z-aaaa", "vlab", 1000, "pass", 4, 1, 1, 0, 1);
	cr_assert_eq(history_record(db, r, NULL, err, sizeof(err)), 0, "%s", err);
	json_decref(r);
	cr_assert_not_null(l = history_list(db, NULL, NULL, 0, err, sizeof(err)));
	cr_assert_eq(json_array_size(l), 1, "only the good run");
	json_decref(l);
}

/*
 * Issue 64: the truth's rank against its identifiability class and the class's size are
 * recorded beside the exact rank and listed as RANK/SIZE; a history of schema 1 (before
 * them) gains the columns when the next run is recorded, its old rows reading null.
 */
Test(history, the_class_rank_is_recorded_and_a_schema_1_history_takes_it)
{
	sqlite3 *d;
	json_t *r, *rows;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	/* schema 1, with one run in it */
	{
		char folder[PATH_MAX];

		snprintf(folder, sizeof(folder), "%s", db);
		cr_assert_eq(rl_mkdir_p(dirname(folder), 0755), 0);
	}
	cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_exec(
		d,
		"CREATE TABLE runs(run_id TEXT PRIMARY KEY, lab TEXT NOT NULL, lab_kind TEXT,"
		" inventory TEXT, inventory_sha256 TEXT, seed INTEGER, version TEXT, started REAL "
		"NOT"
		" NULL, ended REAL, outdir TEXT, dut TEXT);"
		"CREATE TABLE results(run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE "
		"CASCADE,"
		" scenario TEXT NOT NULL, verdict TEXT NOT NULL, reason TEXT, detected INTEGER,"
		" time_to_detect_s REAL, rank INTEGER, precision REAL, false_positives INTEGER,"
		" PRIMARY KEY(run_id, scenario));"
		"CREATE TABLE metrics(run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE "
		"CASCADE,"
		" scenario TEXT NOT NULL, component TEXT NOT NULL, name TEXT NOT NULL, value REAL,"
		" unit TEXT, better TEXT, PRIMARY KEY(run_id, scenario, component, name));"
		"INSERT INTO runs(run_id, lab, started) VALUES('20261120T010000Z-0000', 'vlab', "
		"500);"
		"INSERT INTO results(run_id, scenario, verdict, rank) "
		"VALUES('20261120T010000Z-0000',"
		" 'rnic-flap', 'pass', 1);"
		"PRAGMA user_version = 1;",
		NULL, NULL, NULL),
	    SQLITE_OK, "%s", sqlite3_errmsg(d));
	sqlite3_close(d);
	/* read as it is, before any run is recorded: the class columns read null */
	rows = history_list(db, NULL, "rnic-flap", 0, err, sizeof(err));
	cr_assert_not_null(rows, "%s", err);
	cr_assert(json_is_null(json_object_get(json_array_get(rows, 0), "class_size")));
	json_decref(rows);
	/* a run whose rnic-flap truth was in a class of 2, ranked 2 exactly and 1 against it */
	r = run("20261121T010000Z-aaaa", "vlab", 1000, "pass", 4.0, 2, 1.0, 0, 0.95);
	json_object_set_new(json_array_get(json_object_get(r, "scenarios"), 0), "observability",
			    json_pack("{s:b,s:i,s:b,s:s,s:i}", "observable", 1, "class_size", 2,
				      "exact", 0, "class",
				      "host1:rnic1--rail1:swp1, "
				      "host1:rnic2--rail2:swp1",
				      "rank_class", 1));
	record(r);
	rows = history_list(db, NULL, "rnic-flap", 0, err, sizeof(err));
	cr_assert_not_null(rows, "%s", err);
	cr_assert_eq(json_array_size(rows), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(rows, 0), "rank_class")), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(rows, 0), "class_size")), 2);
	cr_assert(json_is_null(json_object_get(json_array_get(rows, 1), "rank_class")),
		  "the old row: null");
	f = open_memstream(&out, &len);
	history_print_list(rows, "rnic-flap", f);
	fclose(f);
	cr_assert(strstr(out, " RANK CLASS "), "%s", out);
	cr_assert(strstr(out, "    2   1/2 "), "%s", out);
	free(out);
	json_decref(rows);
}

/* The suite's page sets a failure against the scenario's last good run on the same lab. */
Test(history, each_scenario_gets_its_last_good_run_on_the_same_lab)
{
	json_t *c = run("20261124T010000Z-dddd", "vlab", 4000, "fail", 9.0, 2, 0.5, 2, 0.9);
	const json_t *sc = json_object_get(c, "scenarios"), *lg;

	record(run("20261121T010000Z-aaaa", "vlab", 1000, "pass", 4.0, 1, 1.0, 1, 0.95));
	record(run("20261122T010000Z-bbbb", "vlab", 2000, "pass", 5.5, 1, 1.0, 1, 0.95));
	record(run("20261123T010000Z-cccc", "vlab", 3000, "fail", 9.0, 1, 1.0, 1, 0.95));
	record(run("20261123T020000Z-eeee", "other", 3500, "pass", 1.0, 1, 1.0, 0, 0.95));
	cr_assert_eq(history_record(db, c, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(history_last_good(db, c, err, sizeof(err)), 0, "%s", err);
	/* rnic-flap failed in cccc: its last good run is bbbb, of this lab, with its time */
	lg = json_object_get(json_array_get(sc, 0), "last_good");
	cr_assert_str_eq(json_string_value(json_object_get(lg, "run_id")), "20261122T010000Z-bbbb");
	cr_assert_float_eq(json_number_value(json_object_get(lg, "time_to_detect_s")), 5.5, 1e-9);
	cr_assert_eq(json_number_value(json_object_get(lg, "started")), 2000);
	/* no-fault failed on every run of this lab (a false positive each) */
	lg = json_object_get(json_array_get(sc, 1), "last_good");
	cr_assert(json_is_null(lg), "%s", json_dumps(lg, 0));
	/* never the run itself: lossy-paths passed in this run, and in cccc before it */
	lg = json_object_get(json_array_get(sc, 2), "last_good");
	cr_assert_str_eq(json_string_value(json_object_get(lg, "run_id")), "20261123T010000Z-cccc");
	json_decref(c);
}
