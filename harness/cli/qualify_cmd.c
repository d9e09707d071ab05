// SPDX-License-Identifier: MIT
/* 'rocelab qualify', 'verify' and 'report'. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/run/runner.h"
#include "reports/pages.h"
#include "reports/qualify.h"

#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char qualify_help[] =
    "usage: rocelab qualify --rules RULES [-i INVENTORY] [--suite DIR] [--key KEY]\n"
    "                       [-o OUTDIR] [--seed N] [--db FILE | --no-history] [--fan-out N]\n"
    "Run a qualification suite (every DIR/*.yaml; default the shipped\n"
    "scenarios/qualification) as 'rocelab run' does, then check RULES against its\n"
    "results, e.g.\n"
    "    rules:\n"
    "      - scenario: rnic-flap            # or \"*\": every scenario of the suite\n"
    "        require: [time_to_detect_s <= 5, precision >= 0.9, verdict == pass]\n"
    "Fields: time_to_detect_s, precision, false_positives, rank, detected, localized,\n"
    "class_ok, duration_s, verdict, or any metric a component reports\n"
    "(goodput-vs-optimal ...).  Rules and scenarios are validated before anything runs.\n"
    "--fan-out N: on a lab reached over SSH, at most N hosts at once (as 'rocelab run').\n"
    "OUTDIR (default rocelab-results/qualify-TIME) gets the run's files, rules.yaml,\n"
    "copies of the inventory and scenarios (inputs/), qualification.json (each rule:\n"
    "value, pass or fail; DUT identity, inventory fingerprint, the binary's sha256,\n"
    "the signing time) and MANIFEST, the sha256 of every file, signed with KEY (ssh-keygen\n"
    "-Y sign: a private key, or a public key whose private half ssh-agent holds) as\n"
    "MANIFEST.sig with the public key as signer.pub.  'rocelab verify OUTDIR' checks it.\n"
    "exit: 0 every rule holds; 1 a rule does not; 2 bad input (nothing ran);\n"
    "3 the lab or a fault could not be set up, or signing failed.\n";

static const char verify_help[] =
    "usage: rocelab verify DIR [--signers ALLOWED_SIGNERS]\n"
    "Check a signed qualification folder: the signature of DIR/MANIFEST by a key you\n"
    "trust (ssh-keygen -Y verify; the signing key's fingerprint is printed), then every\n"
    "file's sha256, no file missing and none added, then the qualification's verdict.\n"
    "  --signers FILE  the keys trusted, an allowed_signers file (ssh-keygen(1));\n"
    "                  default: $ROCELAB_LIB_DIR/allowed_signers (/var/lib/rocelab).\n"
    "                  The key the folder carries (signer.pub) vouches for nothing.\n"
    "exit: 0 verified, the qualification passed; 1 verified, the qualification failed;\n"
    "2 bad use; 3 NOT verified: no trusted signer, a bad signature, a file changed,\n"
    "missing or added, or not a signed folder.\n";

struct qual_opts {
	const char *rules, *suite, *key, *out, *seed, *db, *fanout;
	bool no_history;
};

static int qual_opt(int c, const char *arg, void *ctx)
{
	struct qual_opts *q = ctx;

	switch (c) {
	case 'R':
		q->rules = arg;
		return 0;
	case 'S':
		q->suite = arg;
		return 0;
	case 'K':
		q->key = arg;
		return 0;
	case 'o':
		q->out = arg;
		return 0;
	case 's':
		q->seed = arg;
		return 0;
	case 'D':
		q->db = arg;
		return 0;
	case 'H':
		q->no_history = true;
		return 0;
	case 'F':
		q->fanout = arg;
		return 0;
	}
	return 1;
}

/* The suite's scenario files, sorted; validated, and every rule's scenario among them. */
static int qual_suite(const char *dir, const char *inv, const struct qrules *q, glob_t *g)
{
	char pat[PATH_MAX + 8], builtin[PATH_MAX], (*names)[SCN_NAME_MAX + 1];
	FILE *quiet = fopen("/dev/null", "we"); /* the run itself reports bad scenarios */
	int bad = 0, unloaded = 0;

	snprintf(pat, sizeof(pat), "%s/*.yaml", dir);
	if (!quiet || glob(pat, 0, NULL, g) || !g->gl_pathc) {
		rl_err("qualify: --suite %s: no *.yaml scenario in it", dir);
		if (quiet)
			fclose(quiet);
		return RL_EXIT_USAGE;
	}
	lab_builtin_inventory(builtin, sizeof(builtin));
	names = rl_xcalloc(g->gl_pathc, sizeof(*names));
	for (size_t k = 0; k < g->gl_pathc; k++) {
		struct scenario *s = scenario_load(g->gl_pathv[k], inv, builtin, 0, quiet);

		if (s)
			snprintf(names[k], sizeof(names[k]), "%s", s->name);
		unloaded += !s;
		scenario_free(s);
	}
	fclose(quiet);
	/* A scenario with errors: the run says which, and runs nothing. */
	for (size_t i = 0; i < q->n && !unloaded; i++) {
		bool found = !strcmp(q->r[i].scenario, "*");

		for (size_t k = 0; k < g->gl_pathc && !found; k++)
			found = !strcmp(names[k], q->r[i].scenario);
		if (!found) {
			fprintf(stderr, "%s:%u:%u: scenario '%s' is not in the suite %s\n", q->path,
				q->r[i].sline, q->r[i].scol, q->r[i].scenario, dir);
			bad++;
		}
	}
	free(names);
	return bad ? RL_EXIT_USAGE : 0;
}

/* OUTDIR/qualification.json and the table on stdout; how many rules failed. */
/*
 * What the verdict depends on, signed with it: copies of the inventory and of each
 * scenario file in OUT/inputs/.  The names copied, as a new JSON array.
 */
static json_t *qual_inputs(const char *out, const json_t *root, const glob_t *g)
{
	char dir[PATH_MAX + 320], path[256];
	const char *inv = json_string_value(json_object_get(root, "inventory"));
	json_t *names = json_array();
	size_t len;
	char *text;

	snprintf(dir, sizeof(dir), "%s/inputs/scenarios", out);
	if (rl_mkdir_p(dir, 0755)) {
		rl_err("qualify: %s: %s", dir, strerror(errno));
		return names;
	}
	for (size_t i = 0; i <= g->gl_pathc; i++) {
		const char *from = i < g->gl_pathc ? g->gl_pathv[i] : inv;
		char base[PATH_MAX];

		if (!from)
			continue;
		snprintf(base, sizeof(base), "%s", from);
		if (i < g->gl_pathc)
			snprintf(path, sizeof(path), "inputs/scenarios/%.200s", basename(base));
		else
			snprintf(path, sizeof(path), "inputs/inventory.yaml");
		if (!(text = rl_read_file(from, &len))) {
			rl_err("qualify: cannot copy %s into the signed folder: %s", from,
			       rl_read_strerror(errno));
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/%s", out, path);
		if (rl_write_file_mode(dir, text, len, 0644))
			rl_err("qualify: cannot write %s", dir);
		else
			json_array_append_new(names, json_string(path));
		free(text);
	}
	return names;
}

static size_t qual_summary(const char *out, const struct qrules *q, const json_t *root,
			   json_t *inputs)
{
	static const char *const keep[] = {
	    "run_id", "lab",	 "lab_kind", "inventory", "inventory_sha256",
	    "seed",   "rocelab", "started",  "ended",	  "dut"};
	char path[PATH_MAX], sha[65] = "", v[32];
	size_t failed, i;
	json_t *rules = qualify_check(q, root, &failed), *sum = json_object(), *x;

	json_object_set_new(sum, "schema_version", json_integer(1));
	for (i = 0; i < ARRAY_SIZE(keep); i++)
		json_object_set(sum, keep[i], json_object_get(root, keep[i]));
	if (rl_sha256_file(q->path, sha))
		sha[0] = '\0';
	json_object_set_new(sum, "rules_file", json_string(q->path));
	json_object_set_new(sum, "rules_sha256", json_string(sha));
	/* the binary that graded, and when it signed: part of what a signature vouches for */
	if (rl_sha256_file("/proc/self/exe", sha))
		sha[0] = '\0';
	json_object_set_new(sum, "rocelab_sha256", json_string(sha));
	json_object_set_new(
	    sum, "signed_at",
	    json_string(rl_utc((double)time(NULL), "%Y-%m-%dT%H:%M:%SZ", v, sizeof(v))));
	json_object_set_new(sum, "inputs", inputs);
	json_object_set_new(sum, "passed", json_boolean(!failed));
	json_object_set_new(sum, "failed", json_integer((json_int_t)failed));
	json_object_set_new(sum, "rules", rules);
	snprintf(path, sizeof(path), "%s/qualification.json", out);
	if (json_dump_file(sum, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		rl_err("qualify: cannot write %s", path);
	printf("%-24s %-32s %-10s %s\n", "SCENARIO", "RULE", "VALUE", "RESULT");
	json_array_foreach(rules, i, x)
	{
		const json_t *val = json_object_get(x, "value");

		if (json_is_number(val))
			snprintf(v, sizeof(v), "%.4g", json_number_value(val));
		else if (json_is_string(val))
			snprintf(v, sizeof(v), "%s", json_string_value(val));
		else if (json_is_boolean(val))
			snprintf(v, sizeof(v), "%s", json_is_true(val) ? "true" : "false");
		else
			snprintf(v, sizeof(v), "-");
		printf("%-24s %-32s %-10s %s%s%s\n",
		       json_string_value(json_object_get(x, "scenario")),
		       json_string_value(json_object_get(x, "rule")), v,
		       json_is_true(json_object_get(x, "pass")) ? "pass" : "FAIL",
		       *json_string_value(json_object_get(x, "why")) ? ": " : "",
		       json_string_value(json_object_get(x, "why")));
	}
	printf("qualification: %zu of %zu rule checks hold; summary in %s\n",
	       json_array_size(rules) - failed, json_array_size(rules), path);
	json_decref(sum);
	return failed;
}

int cmd_qualify(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"rules", required_argument, NULL, 'R'},
	    {"suite", required_argument, NULL, 'S'},
	    {"key", required_argument, NULL, 'K'},
	    {"output", required_argument, NULL, 'o'},
	    {"seed", required_argument, NULL, 's'},
	    {"db", required_argument, NULL, 'D'},
	    {"no-history", no_argument, NULL, 'H'},
	    {"fan-out", required_argument, NULL, 'F'},
	    {0},
	};
	struct opts o = {0};
	struct qual_opts q = {0};
	struct qrules rules;
	char suite[PATH_MAX], out[PATH_MAX], path[PATH_MAX], ts[32], err[512];
	glob_t g = {0};
	json_t *root, *inputs;
	json_error_t je;
	size_t failed;
	unsigned fanout = 0;
	int r;

	o.shorts = "o:";
	if ((r = cli_parse_opts(argc, argv, &o, extra, qual_opt, &q)))
		return r;
	if (o.help)
		return fputs(qualify_help, stdout), 0;
	if (optind != argc)
		return usage_error("qualify: unexpected argument '%s'", argv[optind]);
	if (!q.rules)
		return usage_error("qualify: give --rules RULES (what must hold)");
	if (q.fanout && runner_fanout_parse(q.fanout, &fanout))
		return usage_error("qualify: --fan-out '%s': give 1 to %d", q.fanout,
				   LAB_FANOUT_MAX);
	if (q.key && access(q.key, R_OK))
		return usage_error("qualify: --key %s: %s", q.key, strerror(errno));
	if (qualify_rules_load(q.rules, &rules, stderr))
		return RL_EXIT_USAGE;
	if (!q.suite)
		q.suite = rl_data_path("scenarios/qualification", suite, sizeof(suite));
	if ((r = qual_suite(q.suite, o.inventory, &rules, &g)) || g.gl_pathc > 40) {
		if (!r)
			rl_err("qualify: --suite %s: %zu scenarios; at most 40", q.suite,
			       g.gl_pathc);
		globfree(&g);
		qualify_rules_free(&rules);
		return r ? r : RL_EXIT_USAGE;
	}
	if (!q.out) {
		snprintf(out, sizeof(out), "rocelab-results/qualify-%s",
			 rl_utc((double)time(NULL), "%Y%m%dT%H%M%SZ", ts, sizeof(ts)));
		q.out = out;
	}
	{
		struct run_request rq = {.inventory = o.inventory,
					 .outdir = q.out,
					 .db = q.db,
					 .no_history = q.no_history,
					 /* a signed qualification is of the whole suite, or none */
					 .strict = true,
					 .fanout = fanout,
					 .seed = (unsigned)time(NULL),
					 .scenarios = (const char *const *)g.gl_pathv,
					 .n = g.gl_pathc};

		if (q.seed && runner_seed_parse(q.seed, &rq.seed)) {
			globfree(&g);
			qualify_rules_free(&rules);
			return usage_error("qualify: --seed '%s' is not a number", q.seed);
		}
		r = cli_run(&rq);
	}
	snprintf(path, sizeof(path), "%s/results.json", q.out);
	if (!(root = json_load_file(path, 0, &je))) {
		rl_err("qualify: the run wrote no results (%s): nothing to qualify", je.text);
		qualify_rules_free(&rules);
		globfree(&g);
		return r ? r : RL_EXIT_SETUP;
	}
	inputs = qual_inputs(q.out, root, &g);
	globfree(&g);
	snprintf(path, sizeof(path), "%s/rules.yaml", q.out);
	{
		size_t len;
		char *text = rl_read_file(q.rules, &len);

		if (!text || rl_write_file_mode(path, text, len, 0644))
			rl_err("qualify: cannot copy %s to %s", q.rules, path);
		free(text);
	}
	failed = qual_summary(q.out, &rules, root, inputs);
	json_decref(root);
	qualify_rules_free(&rules);
	if (qualify_manifest(q.out, err, sizeof(err)) < 0) {
		rl_err("qualify: manifest: %s", err);
		return RL_EXIT_SETUP;
	}
	if (!q.key)
		rl_warn("qualify: %s/MANIFEST is not signed: give --key KEY to sign it", q.out);
	else if (qualify_sign(q.out, q.key, err, sizeof(err))) {
		rl_err("qualify: signing: %s", err);
		return RL_EXIT_SETUP;
	} else
		printf("signed: %s/MANIFEST.sig ('rocelab verify %s' checks it)\n", q.out, q.out);
	return failed ? RL_EXIT_FAIL : r == RL_EXIT_SETUP ? RL_EXIT_SETUP : RL_EXIT_OK;
}

int cmd_verify(int argc, char **argv)
{
	static const struct option extra[] = {{"signers", required_argument, NULL, 'G'}, {0}};
	struct opts o = {0};
	const char *signers = NULL;
	int r = cli_parse_opts(argc, argv, &o, extra, cli_set_str, &signers);

	if (r)
		return r;
	if (o.help)
		return fputs(verify_help, stdout), 0;
	if (argc - optind != 1)
		return usage_error("verify: give one DIR");
	r = qualify_verify(argv[optind], signers, stdout);
	if (r == QV_PASSED || r == QV_FAILED)
		printf("verified: %s is as it was signed, by a key trusted here; the "
		       "qualification %s\n",
		       argv[optind], r == QV_PASSED ? "passed" : "FAILED");
	else
		printf("NOT verified: %s\n", argv[optind]);
	return r == QV_PASSED ? RL_EXIT_OK : r == QV_FAILED ? RL_EXIT_FAIL : RL_EXIT_SETUP;
}

static const char report_help[] =
    "usage: rocelab report DIR\n"
    "Re-render a results folder of 'rocelab run': write each scenario's plot scripts again\n"
    "from their descriptions (report.plot.json) and draw them (gnuplot, in a private folder\n"
    "with the data copied in), inline the plots into its report.html again, and rewrite\n"
    "DIR/index.html (the suite's page) from DIR/results.json.  A results folder is\n"
    "untrusted: no script found in it is run, no link in it is followed, every field\n"
    "is escaped.\n"
    "exit: 0; 2 bad use; 3 not a results folder, or gnuplot failed.\n";

int cmd_report(int argc, char **argv)
{
	struct opts o = {0};
	char err[PATH_MAX + 128];
	int r = cli_parse_opts(argc, argv, &o, NULL, NULL, NULL);

	if (r)
		return r;
	if (o.help)
		return fputs(report_help, stdout), 0;
	if (argc - optind != 1)
		return usage_error("report: give one DIR");
	if ((r = pages_rerender(argv[optind], err, sizeof(err))) < 0) {
		rl_err("report: %s", err);
		return RL_EXIT_SETUP;
	}
	printf("%s: %d scenario report(s) redrawn; %s/index.html\n", argv[optind], r, argv[optind]);
	return RL_EXIT_OK;
}
