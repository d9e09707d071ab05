// SPDX-License-Identifier: MIT
/*
 * 'rocelab run': scenarios validated, planned (--dry-run) or run on a lab
 * (runner.c), their results written through the run sink
 */
#define _GNU_SOURCE
#include "harness/run/runner.h"

#include "harness/lab/dut.h"
#include "harness/lib/state.h"
#include "harness/lib/version.h"
#include "harness/run/registry.h"
#include "injectors/deadman.h"
#include "injectors/nos/links.h"
#include "probe/observe.h"

#include <dirent.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

static const char run_help[] =
    "usage: rocelab run [-i INVENTORY] [-o OUTDIR] [--seed N] [--keep-lab] [--dry-run] "
    "[--recover]\n"
    "                   [--retries N] [--db FILE] [--no-history] [--baseline RUN|last]\n"
    "                   [--openmetrics FILE] [--strict] [--fan-out N]\n"
    "                   SCENARIO...\n"
    "\n"
    "Run scenarios: bring the virtual lab up when needed, start the components under\n"
    "test (e.g. Hostmesh's analyzer and an agent per host), run baseline, inject and\n"
    "verify the faults, run the fault phase (with the scenario's load), revert, run\n"
    "recovery, and grade what each component saw against the injected truth.  Every\n"
    "scenario is validated before anything starts.\n"
    "\n"
    "  -i INVENTORY   run every scenario on this inventory (default: the scenario's own,\n"
    "                 else the built-in virtual lab)\n"
    "  -o OUTDIR      results.json, junit.xml, OUTDIR/<scenario>/report.{png,html}\n"
    "                 and logs; a new or empty directory, never one an earlier run\n"
    "                 wrote to (default: rocelab-results/RUN_ID, and\n"
    "                 rocelab-results/latest pointing to it)\n"
    "  --seed N       seed of the targets given by role and of the agents' source-port\n"
    "                 pools (default: from the clock; results.json records it)\n"
    "  --keep-lab     leave a lab this run brought up running\n"
    "  --recover      when the pre-flight or a post-flight check finds the lab not as\n"
    "                 its inventory says, revert the journal ('rocelab revert') and\n"
    "                 check again (default: stop; the scenario is invalid)\n"
    "  --retries N    run a scenario that failed again, up to N times (0-3; default 0):\n"
    "                 a pass on a later run counts as a pass and is reported as flaky\n"
    "                 (results.json: attempts, failed_attempts; junit.xml: system-err),\n"
    "                 each failed run's files kept in <scenario>.attemptN\n"
    "  -n, --dry-run  resolve and validate every scenario and print what it would do\n"
    "                 (targets picked, components, each fault's commands per device\n"
    "                 and their undo, load, expectation), touching nothing\n"
    "  --db FILE      the run history every run is recorded in (SQLite; default\n"
    "                 $ROCELAB_DB, else " STATE_LIB_DIR_DEFAULT "/history.sqlite);\n"
    "                 'rocelab history' lists it, 'rocelab compare' compares two runs\n"
    "  --no-history   record nothing\n"
    "  --baseline RUN compare with RUN (an id, a unique prefix of one, last or last~N,\n"
    "                 of this lab) once recorded: a regression ('rocelab compare'\n"
    "                 explains them) fails the run (exit 1) and shows in junit.xml\n"
    "  --strict       a scenario this lab has nothing for (a target by role with no\n"
    "                 candidate here) refuses the run (default: it is skipped, said\n"
    "                 why, and the rest of the suite runs)\n"
    "  --openmetrics FILE  the results as OpenMetrics too, FILE written at once (e.g.\n"
    "                 node-exporter's textfile folder: 'rocelab export --help' says what)\n"
    "  --fan-out N    on a lab reached over SSH, reach at most N hosts at once (pre-flight,\n"
    "                 agents and rigs started and stopped, liveness; 1-256, default 16);\n"
    "                 a host that fails is named, each of them, not only the first\n"
    "\n"
    "Before the first scenario (pre-flight) and after each (post-flight), every host's\n"
    "RNICs must be up with their addresses, and traffic from each must leave by it.\n"
    "\n"
    "exit: 0 all passed; 1 a scenario failed, or the run regressed against its baseline;\n"
    "2 bad input (nothing started);\n"
    "3 a scenario was invalid (its fault or lab could not be set up or verified),\n"
    "or with --dry-run a fault that this lab's dialects cannot do.\n";

/* " name=value" for each parameter of a component. */
static void print_params(const struct opt_desc *tab, const void *cfg)
{
	char v[OPT_VALUE_MAX];

	for (; tab->type != OPT_END; tab++)
		printf(" %s=%s", tab->name, opt_human(tab, cfg, v, sizeof(v)));
}

/*
 * A plan's transcript, indented; a long input (an nft set of thousands of IP
 * IDs) shows its first and last lines and how many there are.
 */
static bool plan_input(const char *line)
{
	return line && line[0] == ' ' && strstr(line, "| ") == line + strspn(line, " ");
}

static void print_plan(char *text)
{
	enum { HEAD = 8, TAIL = 2 };
	char *lines[TAIL];
	size_t run = 0;

	for (char *line = strtok(text, "\n"), *next; line; line = next) {
		next = strtok(NULL, "\n");
		if (!plan_input(line)) {
			printf("    %s\n", line);
			continue;
		}
		if (run < HEAD)
			printf("    %s\n", line);
		else
			lines[(run - HEAD) % TAIL] = line;
		run++;
		if (plan_input(next))
			continue;
		if (run > HEAD + TAIL)
			printf("      | ... (%zu lines in all)\n", run);
		for (size_t i = run > HEAD + TAIL ? run - TAIL : HEAD; i < run && run > HEAD; i++)
			printf("    %s\n", lines[(i - HEAD) % TAIL]);
		run = 0;
	}
}

/*
 * What a scenario would do, resolved against its inventory, touching
 * nothing: phases, components and their parameters, each fault's plan
 * (device, backend, command, undo) at its time, the load, the expectation.
 * Returns -EOPNOTSUPP when a fault cannot be planned on this lab's dialects.
 */
/* What a dry run of a suite would do, summed over its scenarios (issue 58). */
struct dry_sum {
	size_t scenarios, planned, refused, emulated, skipped;
	char devices[4096]; /* " NAME NAME ...": the devices any plan touches */
};

/* dev into d->devices (" a b c") once; what does not fit is left out. */
static void dry_device(struct dry_sum *d, const char *dev)
{
	char word[INV_NAME_MAX + 3], padded[sizeof(d->devices) + 1];
	size_t len = strlen(d->devices);

	snprintf(word, sizeof(word), " %s ", dev);
	snprintf(padded, sizeof(padded), "%s ", d->devices);
	if (!strstr(padded, word) && len + strlen(dev) + 1 < sizeof(d->devices))
		snprintf(d->devices + len, sizeof(d->devices) - len, " %s", dev);
}

/* A component's own expectation, as its grade will read it. */
static void dry_expect(const struct scn_expect *e, const char *indent)
{
	char a[32];

	if (e->silent)
		printf("%sexpect: no verdict at all, at most %d false positive(s)\n", indent,
		       e->max_false_positives);
	else if (e->cls[0] || !e->n_metrics)
		printf("%sexpect: %s on %s within %s%s, in the top %d, at most %d false "
		       "positive(s)",
		       indent, e->cls[0] ? e->cls : "a verdict", e->target,
		       rl_format_duration_ms(e->within_ms, a, sizeof(a)),
		       e->within_from == WITHIN_DESIGN	? " (its parameters' design time)"
		       : e->within_from == WITHIN_PHASE ? " (the fault phase)"
							: "",
		       e->top_k, e->max_false_positives);
	if (!e->silent && (e->cls[0] || !e->n_metrics)) {
		if (e->min_precision > 0)
			printf(", precision at least %.2f", e->min_precision);
		putchar('\n');
	}
	for (size_t i = 0; i < e->n_metrics; i++)
		printf("%sexpect: %s %s\n", indent, e->metrics[i].name, e->metrics[i].text);
	if (e->blind[0])
		printf("%sknown blind: %s (a failure is reported as skipped)\n", indent, e->blind);
}

static int dry_run(const struct scenario *s, struct dry_sum *sum)
{
	struct topo *topo = topo_build(s->inv, false, NULL);
	char a[32], b[32], c[32], why[256], owner[16];
	int ret = 0;

	sum->scenarios++;
	printf("scenario %s (%s) on lab %s (%s)\n", s->name, s->path, s->inv->name, s->inv_path);
	printf("  seed %u: its targets by role and the agents' source ports ('run --seed %u' "
	       "picks the same)\n",
	       s->seed, s->seed);
	printf("  phases: baseline %s, fault %s, recovery %s\n",
	       rl_format_duration_ms(s->baseline_ms, a, sizeof(a)),
	       rl_format_duration_ms(s->fault_ms, b, sizeof(b)),
	       rl_format_duration_ms(s->recovery_ms, c, sizeof(c)));
	for (size_t i = 0; i < s->n_comps; i++) {
		const struct scn_component *sc = &s->comps[i];
		struct observe *ob;
		struct observe_cover cv;
		size_t n_pairs;
		ssize_t el;

		printf("  component %s:", sc->ops->name);
		print_params(sc->ops->params, sc->cfg);
		putchar('\n');
		if (s->n_comps > 1 || s->n_variants > 1) /* each graded on its own */
			dry_expect(&sc->expect, "    ");
		/* What it can localize here, and the truth's class (issue 64; rocelab observe). */
		if (!(ob = component_observe(sc->ops, sc->cfg, s->inv, s->seed, &n_pairs)))
			continue;
		observe_cover(ob, &cv);
		printf(
		    "    observes %zu of %zu links between switches, %zu of %zu RNICs and %zu of "
		    "%zu switches alone (%zu probe paths)\n",
		    cv.fabric.alone, cv.fabric.total, cv.access.alone, cv.access.total,
		    cv.switches.alone, cv.switches.total, ob->n_paths);
		el = sc->expect.target[0] ? observe_element_of(ob, sc->expect.target) : -1;
		if (el >= 0) {
			size_t k = ob->class_of[el];
			char names[400];

			observe_class_names(ob, k, names, sizeof(names));
			if (!ob->cls_seen[k])
				printf("    the truth %s is on none of its probe paths: "
				       "unobservable\n",
				       sc->expect.target);
			else if (ob->cls_size[k] > 1)
				printf("    the truth %s: graded against its class of %zu (%s)\n",
				       sc->expect.target, ob->cls_size[k], names);
			else
				printf("    the truth %s: identifiable alone\n", sc->expect.target);
		}
		observe_free(ob);
	}
	fault_deadman_owner(owner, sizeof(owner)); /* this machine's id, read once */
	for (size_t i = 0; i < s->n_fabric + s->n_faults; i++) {
		bool fab = i < s->n_fabric;
		const struct scn_fault *f = fab ? &s->fabric[i] : &s->faults[i - s->n_fabric];
		struct fault_plan plan;
		struct fault_spec held;
		struct opt_store st = {0};
		const char *argv[64];
		size_t n = 0;

		if (fab)
			printf("  fabric %zu for the whole scenario: rocelab inject", i + 1);
		else
			printf("  fault %zu at +%s for %s: rocelab inject", i - s->n_fabric + 1,
			       rl_format_duration_ms(f->at_ms, a, sizeof(a)),
			       f->for_ms ? rl_format_duration_ms(f->for_ms, b, sizeof(b))
					 : "the rest of the fault phase");
		if (!fault_spec_argv(&f->spec, argv, &n, ARRAY_SIZE(argv), &st))
			for (size_t k = 0; k < n; k++)
				printf(" %s", argv[k]);
		opt_store_free(&st);
		putchar('\n');
		if (f->role[0])
			printf("    target %s, picked with seed %u\n", f->role, s->seed);
		/*
		 * Table names get the journal's ids when the faults are applied; the
		 * run holds each fault (runner.c), so its devices' timers are shown.
		 */
		held = f->spec;
		held.hold = true;
		if (fault_plan_build(s->inv, topo, &held, (unsigned)i + 1, &plan, why,
				     sizeof(why)) ||
		    fault_plan_deadman(&plan, s->inv, &held, (unsigned)i + 1, owner, why,
				       sizeof(why))) {
			printf("    cannot be planned: %s\n", why);
			ret = -EOPNOTSUPP;
			sum->refused++;
			continue;
		}
		sum->planned++;
		sum->emulated += plan.emulated;
		for (size_t k = 0; k < plan.n_acts; k++)
			dry_device(sum, plan.acts[k].device);
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		fault_plan_format(&plan, m);
		fclose(m);
		print_plan(text);
		free(text);
		fault_plan_clear(&plan);
	}
	for (size_t i = 0; i < s->n_loads; i++) {
		const struct scn_load *l = &s->loads[i];

		char share[160];

		scn_load_share_text(l, share, sizeof(share));
		if (l->kind == LOAD_INCAST) {
			printf("  load %sincast to %s at %llu Mbit/s%s, priority %d, from",
			       l->rc ? "RC WRITE " : "", l->to, l->rate_mbps, share, l->priority);
			for (size_t k = 0; k < l->n_from; k++)
				printf("%s %s", k ? "," : "", l->from[k]);
			if (l->across[0])
				printf(", each on source ports traced across %s", l->across);
			putchar('\n');
		} else
			printf("  load stream across %s at %llu Mbit/s%s, priority %d\n", l->across,
			       l->rate_mbps, share, l->priority);
	}
	for (size_t i = 0; i < s->n_services; i++) {
		const struct scn_service *v = &s->services[i];

		printf("  service %s: %s -> %s at %llu Mbit/s", v->name, v->from, v->to,
		       v->rate_mbps);
		if (v->port[0])
			printf(", on a source port whose path %s %s",
			       v->avoids ? "avoids" : "crosses", v->port);
		if (v->slow_to > 0)
			printf(", slowed to %.0f%% at +%s of the fault phase", v->slow_to * 100,
			       rl_format_duration_ms(v->slow_at_ms, a, sizeof(a)));
		if (v->want_impacted >= 0)
			printf("; expect: %s", v->want_impacted ? "impacted" : "never impacted");
		if (v->want_network >= 0)
			printf("%s%snetwork-related", v->want_impacted >= 0 ? ", " : "; expect: ",
			       v->want_network ? "" : "not ");
		putchar('\n');
	}
	dry_expect(&s->expect, "  ");
	topo_free(topo);
	return ret;
}

/* ", N not placed on this lab (skipped)" into buf. */
static const char *unplaced_s(size_t n, char *buf, size_t len)
{
	snprintf(buf, len, ", %zu not placed on this lab (skipped)", n);
	return buf;
}

/* The closing summary of a dry run: what the suite would plan, refuse and touch. */
static void dry_summary(const struct dry_sum *d)
{
	printf("dry run: %zu scenario(s)", d->scenarios);
	if (d->skipped)
		printf(" and %zu skipped (nothing on this lab for a target by role)", d->skipped);
	printf(": %zu fault(s) planned, %zu this lab cannot do, %zu emulated; devices touched:%s\n",
	       d->planned, d->refused, d->emulated, d->devices[0] ? d->devices : " none");
}

/* "20261123T170538Z-1a2b": the start (UTC) and 16 random bits, unique across runs on a lab. */
static void run_id(double started, char *buf, size_t len)
{
	unsigned short r = 0;
	char ts[24];

	if (getentropy(&r, sizeof(r)))
		r = (unsigned short)(getpid() ^ (unsigned)(started * 1e6));
	snprintf(buf, len, "%s-%04x", rl_utc(started, "%Y%m%dT%H%M%SZ", ts, sizeof(ts)), r);
}

/*
 * Issue 58: what did not pass, one line each, for the person who reads the
 * end of a nightly first: the verdict, the scenario, the component that
 * gave it (of several), why, and its report.
 */
static void print_not_passed(const struct scn_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct scn_result *r = &res[i];
		const char *comp = NULL;

		if (r->g.verdict == RV_PASS || runner_known_blind(r))
			continue;
		for (size_t k = 0; r->n_comps > 1 && k < r->n_comps && !comp; k++)
			if (r->comps[k].g.verdict == r->g.verdict)
				comp = r->comps[k].sc->ops->name;
		/* the reason may quote a device's output: printed as text, never obeyed */
		rl_fprintf_text(stderr, "run:   %s %s%s%s: %s (%s/report.html)\n",
				r->g.verdict == RV_FAIL ? "FAIL" : "INVALID", r->test_name,
				comp ? " " : "", comp ? comp : "",
				r->g.reason[0] ? r->g.reason : "no reason given", r->dir);
	}
}

/*
 * Where this run's results go, into out: OUTDIR as given when it is new or
 * empty (a run never mixes its files with an earlier run's, nor appends to
 * its logs); without -o, rocelab-results/RUN_ID and a 'latest' link to it.
 */
static int pick_outdir(const char *given, const char *id, char *out, size_t len)
{
	DIR *d;
	struct dirent *e;

	if (!given) {
		char link[PATH_MAX];

		snprintf(out, len, "rocelab-results/%s", id);
		if (rl_mkdir_p(out, 0755)) {
			rl_err("run: cannot create %s: %s", out, strerror(errno));
			return RL_EXIT_SETUP;
		}
		snprintf(link, sizeof(link), "rocelab-results/latest");
		if ((unlink(link) && errno != ENOENT) || symlink(id, link))
			rl_warn("run: cannot point %s to %s: %s", link, id, strerror(errno));
		rl_info("run: results in %s (and rocelab-results/latest)", out);
		return 0;
	}
	if ((size_t)snprintf(out, len, "%s", given) >= len) {
		rl_err("run: -o %.40s...: a path of at most %zu characters", given, len - 1);
		return RL_EXIT_USAGE;
	}
	if ((d = opendir(given))) {
		while ((e = readdir(d)) && (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")))
			;
		if (e) {
			rl_err("run: -o %s holds files already ('%s' ...): a run writes only into "
			       "a new "
			       "or empty directory, so that its results and logs are its own; give "
			       "another, or leave out -o for rocelab-results/RUN_ID",
			       given, e->d_name);
			closedir(d);
			return RL_EXIT_USAGE;
		}
		closedir(d);
		return 0;
	}
	if (errno != ENOENT) {
		rl_err("run: -o %s: %s", given, strerror(errno));
		return RL_EXIT_USAGE;
	}
	if (rl_mkdir_p(given, 0755)) {
		rl_err("run: cannot create %s: %s", given, strerror(errno));
		return RL_EXIT_SETUP;
	}
	return 0;
}

int runner_seed_parse(const char *v, unsigned *seed)
{
	char *end;
	unsigned long x = strtoul(v, &end, 10);

	if (*end || end == v || x > 0xffffffffUL)
		return -EINVAL;
	*seed = (unsigned)x;
	return 0;
}

int runner_fanout_parse(const char *v, unsigned *n)
{
	char *end;
	long x = strtol(v, &end, 10);

	if (*end || end == v || x < 1 || x > LAB_FANOUT_MAX)
		return -EINVAL;
	*n = (unsigned)x;
	return 0;
}

int cmd_run(int argc, char **argv, const struct run_sink *sink)
{
	static const struct option lo[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"seed", required_argument, NULL, 's'},
	    {"keep-lab", no_argument, NULL, 'k'},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"recover", no_argument, NULL, 'r'},
	    {"retries", required_argument, NULL, 'R'},
	    {"db", required_argument, NULL, 'D'},
	    {"baseline", required_argument, NULL, 'B'},
	    {"no-history", no_argument, NULL, 'H'},
	    {"openmetrics", required_argument, NULL, 'M'},
	    {"strict", no_argument, NULL, 'S'},
	    {"fan-out", required_argument, NULL, 'F'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct run_request q = {.seed = (unsigned)time(NULL)};
	int o;

	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":i:o:nvh", lo, NULL)) != -1) {
		switch (o) {
		case 'i':
			q.inventory = optarg;
			break;
		case 'n':
			q.dry_run = true;
			break;
		case 'r':
			q.recover = true;
			break;
		case 'R': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 3)
				return rl_usage_error("run", "--retries '%s': give 0 to 3", optarg);
			q.retries = (int)v;
			break;
		}
		case 'o':
			q.outdir = optarg;
			break;
		case 'F':
			if (runner_fanout_parse(optarg, &q.fanout))
				return rl_usage_error("run", "--fan-out '%s': give 1 to %d", optarg,
						      LAB_FANOUT_MAX);
			break;
		case 's':
			if (runner_seed_parse(optarg, &q.seed))
				return rl_usage_error("run", "--seed '%s' is not a number", optarg);
			break;
		case 'k':
			q.keep_lab = true;
			break;
		case 'D':
			q.db = optarg;
			break;
		case 'B':
			q.baseline = optarg;
			break;
		case 'H':
			q.no_history = true;
			break;
		case 'M':
			q.openmetrics = optarg;
			break;
		case 'S':
			q.strict = true;
			break;
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			return fputs(run_help, stdout), 0;
		case ':':
			return rl_usage_error("run", "option '%s' needs a value", argv[optind - 1]);
		default:
			return rl_usage_error("run", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		return rl_usage_error("run", "give at least one SCENARIO file");
	q.scenarios = (const char *const *)argv + optind;
	q.n = (size_t)(argc - optind);
	return runner_request(&q, sink);
}

/*
 * A scenario with variants runs once a variant, one after another in the file's order: the
 * first is loaded, the rest are loaded here.  0, or RL_EXIT_USAGE (said) with *n the
 * scenarios *sc holds.
 */
static int expand_variants(const struct run_request *q, const char *builtin, struct scenario ***sc,
			   size_t *n)
{
	size_t total = 0, k = 0;
	struct scenario **all;
	int bad = 0;

	for (size_t i = 0; i < *n; i++)
		total += (*sc)[i]->n_variants > 1 ? (*sc)[i]->n_variants : 1;
	if (total == *n)
		return 0;
	all = rl_xcalloc(total, sizeof(*all));
	for (size_t i = 0; i < *n; i++) {
		struct scenario *s = (*sc)[i];

		all[k++] = s;
		for (unsigned v = 1; v < s->n_variants; v++) {
			all[k] = scenario_load_variant(s->path, q->inventory, builtin, q->seed,
						       stderr, v);
			bad += !all[k++];
		}
	}
	free(*sc);
	*sc = all;
	*n = total;
	if (bad) {
		rl_err("run: %d scenario variant(s) have errors; nothing was started", bad);
		return RL_EXIT_USAGE;
	}
	return 0;
}

int runner_request(const struct run_request *q, const struct run_sink *sink)
{
	const char *outdir = q->outdir;
	char builtin[PATH_MAX], self_exe[PATH_MAX], out[3072]; /* + /<name> in a result's dir */
	struct scenario **sc;
	struct scn_result *res;
	struct run_info ri = {.version = ROCELAB_VERSION,
			      .db = q->db,
			      .baseline = q->baseline,
			      .openmetrics = q->openmetrics,
			      .no_history = q->no_history};
	struct run_opts ro = {.self_exe = self_exe, .seed = q->seed};
	struct lab lab;
	struct run_unplaced *unplaced;
	bool started_lab = false, placed;
	char why[512];
	int bad = 0, ret = RL_EXIT_OK;
	size_t n = q->n, n_unplaced = 0;
	ssize_t k = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (k <= 0) {
		rl_err("run: cannot find my own executable");
		return RL_EXIT_SETUP;
	}
	self_exe[k] = '\0';
	if (!n)
		return rl_usage_error("run", "give at least one SCENARIO file");
	sc = rl_xcalloc(n, sizeof(*sc));
	unplaced = rl_xcalloc(n, sizeof(*unplaced));
	lab_builtin_inventory(builtin, sizeof(builtin));
	/* Everything is validated before anything is touched. */
	for (size_t i = 0, one = SIZE_MAX; i < n; i++) {
		char *said = NULL;
		size_t slen = 0;
		FILE *m = open_memstream(&said, &slen);

		sc[i] =
		    scenario_load(q->scenarios[i], q->inventory, builtin, q->seed, m ? m : stderr);
		placed = sc[i] || errno != ENXIO;
		if (m) {
			fclose(m);
			fputs(said ? said : "", stderr);
		}
		/* Issue 58: a scenario this lab has nothing for is skipped, the rest runs. */
		if (!placed && !q->strict) {
			struct run_unplaced *u = &unplaced[n_unplaced++];
			const char *first = said ? said : "";
			size_t plen = strlen(q->scenarios[i]);

			snprintf(u->file, sizeof(u->file), "%s", q->scenarios[i]);
			if (!strncmp(first, q->scenarios[i], plen) && first[plen] == ':')
				first += plen + 1;
			snprintf(u->why, sizeof(u->why), "%.*s", (int)strcspn(first, "\n"), first);
			rl_warn("run: %s cannot be placed on this lab: skipped (--strict refuses "
				"the run instead)",
				q->scenarios[i]);
			free(said);
			continue;
		}
		free(said);
		bad += !sc[i];
		if (!sc[i])
			continue;
		/* Against the first that loaded: the first given may have had errors. */
		if (one == SIZE_MAX)
			one = i;
		else if (strcmp(sc[i]->inv->name, sc[one]->inv->name)) {
			rl_err("run: %s uses inventory '%s' but %s uses '%s'; run them separately",
			       sc[i]->path, sc[i]->inv->name, sc[one]->path, sc[one]->inv->name);
			bad++;
		}
	}
	if (bad) {
		rl_err("run: %d scenario file(s) have errors; nothing was started", bad);
		ret = RL_EXIT_USAGE;
		goto free_sc;
	}
	/* the skipped out of the way: sc[0..n) the scenarios that run */
	for (size_t i = 0, kept = 0; i < q->n; i++)
		if (sc[i])
			sc[kept++] = sc[i], n = kept;
	if (n_unplaced < q->n && (ret = expand_variants(q, builtin, &sc, &n)))
		goto free_sc;
	if (n_unplaced == q->n) {
		rl_err(
		    "run: no scenario can be placed on this lab (%zu skipped); nothing was started",
		    n_unplaced);
		n = 0;
		ret = RL_EXIT_SETUP;
		goto free_sc;
	}
	ri.unplaced = unplaced;
	ri.n_unplaced = n_unplaced;
	if (ri.baseline && ri.no_history) {
		ret =
		    rl_usage_error("run", "--baseline compares through the run history: leave out "
					  "--no-history");
		goto free_sc;
	}
	if (q->dry_run) {
		struct dry_sum sum = {0};

		for (size_t i = 0; i < n; i++)
			if (dry_run(sc[i], &sum))
				ret = RL_EXIT_SETUP;
		sum.skipped = n_unplaced;
		dry_summary(&sum);
		goto free_sc;
	}
	ri.inv = sc[0]->inv;
	ri.inventory = sc[0]->inv_path;
	if (rl_sha256_file(ri.inventory, ri.inventory_sha256))
		ri.inventory_sha256[0] = '\0';
	if (sink->prepare && (ret = sink->prepare(&ri)))
		goto free_sc;
	/* Results are for CI agents and people to archive and read: 0644, whatever the umask. */
	umask(022);
	ri.started = runner_now_s();
	run_id(ri.started, ri.run_id, sizeof(ri.run_id));
	if ((ret = pick_outdir(outdir, ri.run_id, out, sizeof(out))))
		goto free_sc;
	outdir = out;
	rl_signals_install();
	if ((ret = lab_prepare(sc[0]->inv, sc[0]->inv_path, &started_lab)))
		goto free_sc;
	/* Where agents reach the analyzer: a standing lab says; a virtual one is its bridge. */
	ro.mgmt = sc[0]->inv->kind == INV_LAB_SSH ? sc[0]->inv->controller
						  : inventory_management(sc[0]->inv).addr;
	lab_open(&lab, sc[0]->inv);
	lab.fanout = q->fanout;
	/* One run a lab at a time, from pre-flight to the end: another's --recover would
	 * revert this one's faults, and its faults would spoil this one's grades. */
	if ((ret = state_run_lock(lab.state, sc[0]->inv->name, why, sizeof(why)))) {
		if (ret == -EBUSY)
			rl_err("run: lab %s is in use by %s: wait for it to end, or stop it; "
			       "nothing was started",
			       sc[0]->inv->name, why);
		else
			rl_err("run: cannot take the run lock of lab %s: %s", sc[0]->inv->name,
			       strerror(-ret));
		lab_close(&lab);
		lab_release(started_lab);
		ret = RL_EXIT_SETUP;
		goto free_sc;
	}
	ro.postflight = true;
	ro.recover = q->recover;
	ro.retries = q->retries;
	if ((lab_preflight(&lab, self_exe) || links_check(&lab, "pre-flight", why, sizeof(why))) &&
	    (!q->recover ||
	     runner_recover(&lab, sc[0]->inv_path, "pre-flight", why, sizeof(why)))) {
		rl_err("run: pre-flight checks of %s failed; nothing was changed",
		       sc[0]->inv->name);
		state_run_unlock();
		lab_close(&lab);
		lab_release(started_lab);
		ret = RL_EXIT_SETUP;
		goto free_sc;
	}
	res = rl_xcalloc(n, sizeof(*res));
	{
		double t = runner_now_s();

		ri.dut =
		    lab_dut(&lab); /* what this run tests: kernels, NIC firmware, NOS versions */
		rl_dbg("run: devices under test read in %.2f s", runner_now_s() - t);
	}
	ri.outdir = outdir;
	ri.lab_kind = lab.ops->name;
	ri.clock = lab.clock;
	ri.seed = q->seed;
	for (size_t i = 0; i < n; i++) {
		snprintf(res[i].test_name, sizeof(res[i].test_name), "%s", sc[i]->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(res[j].test_name, res[i].test_name))
				snprintf(res[i].test_name, sizeof(res[i].test_name), "%s#%zu",
					 sc[i]->name, i + 1);
		snprintf(res[i].dir, sizeof(res[i].dir), "%s/%s", outdir, res[i].test_name);
	}
	runner_run(&lab, sc, n, &ro, &ri, sink, res);
	ri.ended = runner_now_s();
	switch (sink->run_done(&ri, res, n)) {
	case 0:
		break;
	case 1: /* worse than its baseline, though each scenario may pass */
		ret = RL_EXIT_FAIL;
		break;
	default:
		ret = RL_EXIT_SETUP;
	}
	{
		size_t pass = 0, fail = 0, inval = 0, blind = 0, flaky = 0;
		char flaky_s[64] = "";

		for (size_t i = 0; i < n; i++) {
			bool b = runner_known_blind(&res[i]);

			pass += res[i].g.verdict == RV_PASS;
			flaky += res[i].g.verdict == RV_PASS && res[i].attempts > 1;
			fail += res[i].g.verdict == RV_FAIL && !b;
			blind += b;
			inval += res[i].g.verdict == RV_INVALID;
		}
		if (flaky)
			snprintf(flaky_s, sizeof(flaky_s), " (%zu flaky: passed on a later run)",
				 flaky);
		fprintf(stderr,
			"run: %zu passed%s, %zu failed, %zu invalid, %zu known blind (skipped)%s; "
			"results in %s/results.json, %s/junit.xml\n",
			pass, flaky_s, fail, inval, blind,
			n_unplaced ? unplaced_s(n_unplaced, why, sizeof(why)) : "", outdir, outdir);
		print_not_passed(res, n);
		for (size_t i = 0; i < n_unplaced; i++)
			rl_fprintf_text(stderr,
					"run:   SKIPPED %s: cannot be placed on this lab: %s\n",
					unplaced[i].file, unplaced[i].why);
		fprintf(stderr, "run: the suite's page: %s/index.html\n", outdir);
		if (!ret)
			ret = fail ? RL_EXIT_FAIL : inval ? RL_EXIT_SETUP : RL_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++)
		runner_result_free(&res[i]);
	free(res);
	json_decref(ri.dut);
	lab_close(&lab);
	state_run_unlock();
	if (!q->keep_lab && lab_release(started_lab) && !ret)
		ret = RL_EXIT_SETUP;
free_sc:
	for (size_t i = 0; i < n; i++)
		scenario_free(sc[i]);
	free(sc);
	free(unplaced);
	return ret;
}
