// SPDX-License-Identifier: MIT
/* rocelab inject/revert/faults/load: validate, journal, apply, verify with real evidence, revert.
 */
#define _GNU_SOURCE
#include "injectors/cmd/inject.h"

#include "harness/lab/lab.h"
#include "harness/lab/traffic.h"
#include "harness/lib/common.h"
#include "harness/lib/nl.h"
#include "harness/lib/out.h"
#include "harness/lib/proc.h"
#include "harness/lib/sbuf.h"
#include "harness/lib/state.h"
#include "harness/lib/topo.h"
#include "injectors/cmd/handoff.h"
#include "injectors/counters.h"
#include "injectors/deadman.h"
#include "injectors/effect.h"
#include "injectors/exec.h"
#include "injectors/fault.h"
#include "injectors/journal.h"
#include "injectors/kinds/kinds.h"
#include "injectors/netlink_op.h"
#include "injectors/nos/caps.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char inject_head[] =
    "usage: rocelab inject KIND --target TARGET [--for DURATION | --hold] [options] [-i INV] [-j]\n"
    "\n"
    "Apply a fault, verify it took effect with real evidence, and revert it: after\n"
    "--for DURATION, at SIGINT/SIGTERM with --hold, or by 'rocelab revert' when neither\n"
    "is given. Every fault is journaled (fsync) before it is applied.\n"
    "Without -i the inventory is that of the lab that is up.\n"
    "\n"
    "kinds and their options:\n";

static const char inject_tail[] =
    "\n"
    "--dry-run prints the commands each backend would run (and their undo), changing nothing.\n"
    "--handoff - takes the fault (KIND, its target and options) as one JSON line on standard\n"
    "input instead, as 'rocelab run' hands its faults over (injectors/cmd/handoff.h).\n"
    "With --cue it gets ready first (starts, reads the inventory, logs into the devices\n"
    "the fault touches), prints 'ready', and applies nothing until the line 'go' follows\n"
    "on standard input: a run prepares its faults before the baseline, so that only the\n"
    "fault itself lands at the fault phase's start.\n"
    "In a scenario, a fault's options are the same names without dashes.\n"
    "What the fault's ends counted while it was in effect (read before its first action and\n"
    "before its undo: docs/faults.md, Counters as evidence) is said after the revert; with -j,\n"
    "--counters prints it as one more line, {\"id\", \"counters\"} (a run's injectors always do).\n"
    "\n"
    "exit: 0 applied (and reverted, with --for/--hold); 2 bad input, nothing applied;\n"
    "3 could not be applied or verified (reverted), or the dialect cannot do it.\n";

/* The help is made from the kinds' own tables: usage line, then each option with its default. */
static void inject_help(void)
{
	const struct fault_kind_ops *k;

	fputs(inject_head, stdout);
	for (size_t i = 0; (k = fault_kind_at(i)); i++) {
		struct fault_spec d;
		const char *u = k->usage;

		fault_spec_init(&d, k);
		for (bool first = true; *u; first = false) {
			size_t n = strcspn(u, "\n");

			printf("  %-19s %.*s\n", first ? k->name : "", (int)n, u);
			u += n + (u[n] == '\n');
		}
		opt_help(k->opts, d.opts, 22, stdout);
	}
	fputs(inject_tail, stdout);
}

/* ---- option parsing: the kinds' option tables drive getopt -------------------------- */

struct inject_args {
	const char *inv_path;
	bool json, dry_run, cue;
	bool counters; /* -j: the counters line after the revert (a run's injector: always) */
	struct fault_spec spec;
};

#define bad(...) rl_usage_error("inject", __VA_ARGS__)

enum { O_DRY = 256, O_HANDOFF, O_CUE, O_COUNTERS, O_COMMON = 0x200, O_KIND = 0x300 };

static const struct option own_opts[] = {
    {"inventory", required_argument, NULL, 'i'},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {"verbose", no_argument, NULL, 'v'},
    {"dry-run", no_argument, NULL, O_DRY},
    {"handoff", required_argument, NULL, O_HANDOFF},
    {"cue", no_argument, NULL, O_CUE},
    {"counters", no_argument, NULL, O_COUNTERS},
    {0},
};

#define MAX_LONGOPTS 96

/* The kind named on the command line: getopt over every kind's options, keeping the operand. */
static const char *find_kind(int argc, char **argv)
{
	struct option lo[MAX_LONGOPTS];
	size_t n = opt_longopts(fault_common_opts, O_COMMON, own_opts, lo, MAX_LONGOPTS);
	const struct fault_kind_ops *k;

	for (size_t i = 0; (k = fault_kind_at(i)); i++) {
		struct option more[32];
		size_t m = opt_longopts(k->opts, O_KIND, NULL, more, 32);

		for (size_t j = 0; j < m && n + 1 < MAX_LONGOPTS; j++) {
			bool dup = false;

			for (size_t x = 0; x < n; x++)
				dup |= !strcmp(lo[x].name, more[j].name);
			if (!dup)
				lo[n++] = more[j];
		}
	}
	lo[n] = (struct option){0};
	optind = 0;
	opterr = 0;
	while (getopt_long(argc, argv, "i:jhv", lo, NULL) != -1)
		;
	return optind < argc ? argv[optind] : NULL;
}

/* "--mod" of "--mod=3": which kind has it, for the error. */
static const char *kind_with_opt(const char *arg, char *name, size_t len)
{
	const struct fault_kind_ops *k;

	snprintf(name, len, "%s", arg + strspn(arg, "-"));
	name[strcspn(name, "=")] = '\0';
	for (size_t i = 0; (k = fault_kind_at(i)); i++)
		if (opt_find(k->opts, name))
			return k->name;
	return NULL;
}

/* One of the command's own options (-i, -j, -v, --dry-run) into a: false when c is not one. */
static bool own_opt(int c, struct inject_args *a)
{
	switch (c) {
	case 'i':
		a->inv_path = optarg;
		return true;
	case 'j':
		a->json = true;
		return true;
	case 'v':
		rl_log_level = RL_LOG_DEBUG;
		return true;
	case O_DRY:
		a->dry_run = true;
		return true;
	case O_COUNTERS:
		a->counters = true;
		return true;
	default:
		return false;
	}
}

/* --handoff -: the fault typed on standard input (handoff.h), the command's own options here. */
static int parse_handoff(int argc, char **argv, struct inject_args *a)
{
	char why[512], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:jhv", own_opts, NULL)) != -1) {
		if (own_opt(c, a))
			continue;
		switch (c) {
		case O_HANDOFF:
			if (strcmp(optarg, "-"))
				return bad("--handoff takes '-' (standard input), not '%s'",
					   optarg);
			break;
		case O_CUE:
			a->cue = true;
			break;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("%s: with --handoff the fault and its options come on standard "
				   "input, not on the command line",
				   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("'%s': with --handoff the fault comes on standard input", argv[optind]);
	n = getline(&line, &cap, stdin);
	if (n <= 0 || n > 65536) {
		free(line);
		return bad("--handoff: %s",
			   n <= 0 ? "no line on standard input" : "a line of over 64 KiB");
	}
	r = fault_handoff_read(line, &a->spec, why, sizeof(why));
	free(line);
	a->counters = true; /* the run keeps them in results.json */
	return r ? bad("--handoff: %s", why) : 0;
}

static int parse_inject(int argc, char **argv, struct inject_args *a)
{
	struct fault_spec *s = &a->spec;
	struct option base[MAX_LONGOPTS], lo[MAX_LONGOPTS];
	const struct fault_kind_ops *k;
	const char *kname;
	char why[512], names[256];
	int c;

	for (int i = 1; i < argc; i++) /* help needs no kind */
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			inject_help();
			return -1;
		}
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--handoff", 9))
			return parse_handoff(argc, argv, a);
	kname = find_kind(argc, argv);
	if (!kname)
		return bad("give a fault kind: %s", fault_kind_names(names, sizeof(names)));
	if (!(k = fault_kind_find(kname)))
		return bad("unknown fault kind '%s': one of %s", kname,
			   fault_kind_names(names, sizeof(names)));
	fault_spec_init(s, k);
	opt_longopts(fault_common_opts, O_COMMON, own_opts, base, MAX_LONGOPTS);
	opt_longopts(k->opts, O_KIND, base, lo, MAX_LONGOPTS);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:jhv", lo, NULL)) != -1) {
		const struct opt_desc *d = NULL;

		if (own_opt(c, a))
			continue;
		switch (c) {
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		case O_CUE:
			return bad(
			    "--cue goes with --handoff - (a fault handed over by 'rocelab run')");
		case '?': {
			const char *other = kind_with_opt(argv[optind - 1], why, sizeof(why));

			if (other && strcmp(other, k->name))
				return bad("%s is an option of %s, not of %s (its options: %s)",
					   argv[optind - 1], other, k->name,
					   k->opts[0].type == OPT_END
					       ? "none"
					       : opt_names(k->opts, names, sizeof(names)));
			return bad("unknown option '%s'", argv[optind - 1]);
		}
		default:
			if (c >= O_KIND)
				d = &k->opts[c - O_KIND];
			else if (c >= O_COMMON)
				d = &fault_common_opts[c - O_COMMON];
			if (!d)
				return bad("unknown option '%s'", argv[optind - 1]);
			if (opt_set(d, fault_opt_obj(s, d), d->type == OPT_BOOL ? NULL : optarg,
				    why, sizeof(why)))
				return bad("--%s", why);
		}
	}
	if (optind + 1 < argc)
		return bad("unexpected argument '%s'", argv[optind + 1]);
	if (fault_spec_check(s, why, sizeof(why)))
		return bad("%s", why);
	return 0;
}

/* ---- apply / verify / revert -------------------------------------------------- */

struct injection {
	struct fault_run run; /* what the kind's hooks see */
	struct inventory *inv;
	struct topo *topo;
	struct fault_plan plan;
	struct lab lab;
	double applied_at; /* wall time when the first action took effect (before verification) */
	bool json, counters_line;
	struct fault_counters ctr; /* its ends' counters, read before its first action */
};

/* What its ends counted since its first action: said, a JSON line with -j. */
static void report_counters(struct injection *j, json_t *c)
{
	if (!c)
		return;
	if (j->json) {
		if (j->counters_line)
			fault_counters_print(stdout, j->run.id, c);
	} else {
		struct sbuf b = {0};

		double span = json_number_value(json_object_get(c, "span_s"));

		fault_counters_text(c, 6, &b);
		if (!json_object_size(json_object_get(c, "deltas")))
			rl_info("fault %u: its ends counted nothing in %.1f s", j->run.id, span);
		for (char *l = b.p, *nl; l && *l; l = nl + 1) {
			if (!(nl = strchr(l, '\n')))
				break;
			*nl = '\0';
			rl_info("fault %u: counted in %.1f s: %s", j->run.id, span, l);
		}
		sb_free(&b);
	}
	json_decref(c);
}

/*
 * After an undo: each read-back state compared with what was found, a
 * difference warned (and with --json, a second line {"id", "reverted",
 * "drift_count", "drift"}: only then, so that the verdict stays the one line).
 */
static void report_drift(struct injection *j, bool reverted)
{
	struct sbuf said = {0};
	size_t n = fault_drift(&j->lab, j->plan.acts, j->plan.n_acts, &said);

	if (j->run.left[0]) { /* what the kind's stop found not given back */
		rl_warn("drift: %s", j->run.left);
		sb_printf(&said, "%s%s", said.len ? "; " : "", j->run.left);
		n++;
	}

	if (j->json && n)
		fault_drift_print(stdout, j->run.id, reverted, (unsigned)n, said.p);
	if (j->run.short_of[0]) {
		rl_warn("fault %u did not run as written: %s", j->run.id, j->run.short_of);
		if (j->json)
			fault_short_print(stdout, j->run.id, j->run.short_of);
	}
	sb_free(&said);
}

/*
 * What the kind measured of its fault (effect.h): said after the revert, a
 * JSON line with -j; a PFC watchdog graded against its settings, warned of
 * when it did not act as set.
 */
static void report_measured(struct injection *j)
{
	json_t *wd = json_object_get(j->run.measured, "pfcwd");
	const char *grade = json_string_value(json_object_get(wd, "grade"));
	struct sbuf b = {0};

	if (!j->run.measured)
		return;
	if (j->json)
		fault_measured_print(stdout, j->run.id, j->run.measured);
	fault_measured_text(j->run.measured, &b);
	if (b.p)
		b.p[strcspn(b.p, "\n")] = '\0';
	if (grade && !strcmp(grade, "pass"))
		rl_info("fault %u: the PFC watchdog acted as set: %s", j->run.id, b.p);
	else if (grade)
		rl_warn("fault %u: the PFC watchdog did not act as set: %s", j->run.id, b.p);
	sb_free(&b);
	json_decref(j->run.measured);
	j->run.measured = NULL;
}

static int apply_actions(struct injection *j)
{
	struct fault_run *f = &j->run;

	for (size_t i = 0; i < j->plan.n_acts; i++) {
		unsigned long long t0 = rl_now_ns();
		int r = fault_exec_action(&j->lab, &j->plan.acts[i], false, f->err, sizeof(f->err));

		if (!fault_action_is_deadman(&j->plan.acts[i]))
			f->first_took_ns += rl_now_ns() - t0;
		if (!r && fault_action_is_deadman(&j->plan.acts[i]) && !f->deadman_at)
			f->deadman_at = rl_now_ns(); /* re-armed from here on */

		/*
		 * The fault is live from its first action on: a degraded link end
		 * slows probes while the other end's login is still under way.
		 */
		if (!r && !j->applied_at && !fault_action_is_deadman(&j->plan.acts[i]))
			j->applied_at = (double)rl_realtime_ns() / 1e9;

		if (r) {
			/* A netlink op is atomic; an ssh command chain may have stopped half-way.
			 */
			fault_undo_actions(&j->lab, j->plan.acts,
					   i + (j->plan.acts[i].backend == FB_SSH ||
							j->plan.acts[i].backend == FB_SESSION
						    ? 1
						    : 0));
			return r;
		}
	}
	return 0;
}

/* What the kind's start began (a PFC storm's sender), ended before the actions are undone. */
static void stop_kind(struct injection *j)
{
	if (j->run.spec->kind->stop)
		j->run.spec->kind->stop(&j->run);
}

static int finish_revert(struct injection *j)
{
	json_t *c;
	int r;

	/* while the fault is still in effect: before its kind's stop (a storm's sender, which
	 * then waits for a PFC watchdog the storm tripped to give its queue back) */
	c = fault_counters_end(&j->run, &j->ctr);
	stop_kind(j);
	state_lock();
	r = fault_undo_actions(&j->lab, j->plan.acts, j->plan.n_acts);
	if (!r)
		journal_mark(j->run.id, JS_REVERTED);
	state_unlock();
	if (r)
		rl_err("fault %u could not be fully reverted: run 'rocelab revert'", j->run.id);
	else
		rl_info("fault %u reverted", j->run.id);
	report_drift(j, !r);
	report_counters(j, c);
	report_measured(j);
	return r;
}

static void print_result(struct injection *j, bool json, const char *outcome)
{
	const struct fault_spec *s = j->run.spec;
	struct fault_outcome o = {
	    .id = j->run.id, .applied_at = j->applied_at, .emulated = j->plan.emulated};

	snprintf(o.kind, sizeof(o.kind), "%s", s->kind->name);
	snprintf(o.target, sizeof(o.target), "%s", s->target);
	snprintf(o.outcome, sizeof(o.outcome), "%s", outcome);
	snprintf(o.evidence, sizeof(o.evidence), "%s", j->run.evidence);
	snprintf(o.note, sizeof(o.note), "%s", j->plan.note);
	fault_outcome_print(stdout, &o, json);
}

/*
 * Pre-flight: sw asked what NOS it runs (caps.h), once.  A switch that cannot
 * be asked keeps the inventory's word (else the newest NOS's commands), said;
 * a version it does not know then fails at its first command, before the
 * fault is live.  Whether it runs other than the plan was rendered for.
 */
static bool read_nos_of(struct injection *j, struct inv_switch *sw)
{
	struct inv_nos was = sw->nos;
	char err[320], what[200];

	if (sw->nos.read || sw->dialect == INV_DIALECT_LINUX)
		return false;
	if (nos_caps_read(&j->lab, sw, err, sizeof(err))) {
		nos_rendered_for(sw, what, sizeof(what));
		rl_warn("inject: %s; its commands are those for %s", err, what);
		return false;
	}
	if (was.version[0] && strcmp(was.version, sw->nos.version))
		rl_warn("inject: %s runs %s, not %s as the inventory declares: rendered for what "
			"it runs",
			sw->name, sw->nos.version, was.version);
	if (was.model[0] && strcmp(was.model, sw->nos.model))
		rl_warn("inject: %s is a %s, not a %s as the inventory declares: rendered for what "
			"it is",
			sw->name, sw->nos.model, was.model);
	nos_rendered_for(sw, what, sizeof(what));
	rl_dbg("inject: %s runs %s", sw->name, what);
	return strcmp(was.version, sw->nos.version) || strcmp(was.model, sw->nos.model) ||
	       strcmp(was.buffer_model, sw->nos.buffer_model);
}

/*
 * The fault's plan, for what its switches run: a target switch is asked
 * before the plan is made (its inventory entry may be wrong, and the plan
 * refused for it), the other switches the plan acts on or reads (a storm's
 * switch end) after, and the plan made again when one runs other than it was
 * made for.  A dry run asks none.
 */
static int build_plan(struct injection *j, struct inject_args *a, char *why, size_t whylen)
{
	bool again = false;
	int r;

	if (!a->dry_run && a->spec.tkind == INV_DEV_SWITCH)
		read_nos_of(j, &j->inv->switches[a->spec.tdev]);
	r = fault_plan_build(j->inv, j->topo, &a->spec, j->run.id, &j->plan, why, whylen);
	if (r || a->dry_run)
		return r;
	for (size_t i = 0; i < j->inv->n_switches; i++)
		if (fault_plan_has_nos(&j->plan, j->inv->switches[i].name))
			again |= read_nos_of(j, &j->inv->switches[i]);
	if (!again)
		return 0;
	fault_plan_clear(&j->plan);
	return fault_plan_build(j->inv, j->topo, &a->spec, j->run.id, &j->plan, why, whylen);
}

/* Capabilities that can be read without changing anything are checked before the journal. */
static int precheck(struct injection *j)
{
	const struct fault_spec *s = j->run.spec;
	int r = s->kind->precheck ? s->kind->precheck(&j->run) : 0;

	if (r || (r = fault_nvue_pending(&j->run)))
		return r;
	/* after the kind's precheck, which says better why a device cannot be read */
	if ((r = fault_read_found(&j->lab, &j->plan, j->run.err, sizeof(j->run.err)))) {
		char why[400];

		snprintf(why, sizeof(why), "%.399s", j->run.err);
		snprintf(j->run.err, sizeof(j->run.err),
			 "cannot read the state the fault changes, so nothing was changed: %s",
			 why);
		return r;
	}
	return s->kind->discover ? s->kind->discover(&j->run, &j->plan) : 0;
}

/*
 * ms of the fault's life (0: until a signal), its kind's beat and its
 * devices' dead-man timers re-armed about once a second; a timer that fired
 * (the device reverted the fault itself) ends it.
 */
static void wait_live(struct fault_run *f, long long ms)
{
	void (*beat)(struct fault_run *) = f->spec->kind->beat;
	unsigned long long end =
	    ms ? rl_now_ns() + (unsigned long long)ms * 1000000ULL : ULLONG_MAX;

	if (!beat && !f->deadman_at) {
		if (ms)
			fault_sleep_ms(ms);
		while (!ms && !rl_interrupted)
			pause();
		return;
	}
	for (unsigned long long now;
	     !rl_interrupted && !f->deadman_fired && (now = rl_now_ns()) < end;) {
		if (beat)
			beat(f);
		fault_deadman_beat(f, false);
		fault_sleep_ms(end - now < 1000000000ULL ? (long long)((end - now) / 1000000ULL)
							 : 1000);
	}
}

static int stay_live(struct injection *j)
{
	const struct fault_spec *s = j->run.spec;

	if (s->kind->live) {
		/*
		 * A fault that keeps a schedule (a flap's steps) runs ahead of the
		 * agents and the load, and so do the commands it runs: its steps'
		 * times are the ground truth.  At nice 0 in the VM tier (qemu TCG,
		 * both monitors' agents busy) a flap's up came 1.23-1.40 s late: the
		 * injector woke 0.55 s after its time and 'ip link set up' took
		 * 0.85 s.  The load runs at 19 for the same reason (load_send()).
		 * Not root: it keeps its priority.
		 */
		setpriority(PRIO_PROCESS, 0, -10);
		s->kind->live(&j->run);
		/* a run's hold outlasts the schedule (hold_ms): as it ended, until the signal */
		if (s->hold && !rl_interrupted && !j->run.deadman_fired)
			wait_live(&j->run, 0);
	} else if (s->hold) {
		rl_info("fault %u held; SIGINT, SIGTERM or SIGHUP reverts it", j->run.id);
		wait_live(&j->run, 0);
	} else if (s->for_ms) {
		wait_live(&j->run, s->for_ms);
	} else {
		rl_info("fault %u stays until 'rocelab revert' (no injector lives to keep a "
			"dead-man timer on its devices: give --for or --hold for one)",
			j->run.id);
		return RL_EXIT_OK;
	}
	if (finish_revert(j))
		return RL_EXIT_SETUP;
	/* a device reverted it by its own timer: the fault did not last as written */
	return j->run.deadman_fired ? RL_EXIT_SETUP : RL_EXIT_OK;
}

/* Each device's dead-man timer, armed before its first action (deadman.h); 0 or -errno, said. */
static int deadman(struct injection *j, char *why, size_t whylen)
{
	char owner[16];
	int r = fault_plan_deadman(&j->plan, j->inv, j->run.spec, j->run.id,
				   fault_deadman_owner(owner, sizeof(owner)), why, whylen);

	if (r)
		rl_err("inject: %s", why);
	return r;
}

/* The lab's own journal for new records: where it lives, and the inventory (path, SHA-256). */
static void use_journal_of(const struct lab *l, const char *inv_path)
{
	char abs[PATH_MAX], sha[65] = "";

	if (!realpath(inv_path, abs))
		snprintf(abs, sizeof(abs), "%s", inv_path);
	rl_sha256_file(abs, sha);
	journal_use(l->state, abs, sha);
}

/* Over SSH: log into the target's device and its link's other end now, not at the cue. */
static void login_target(struct injection *j)
{
	const struct fault_spec *s = j->run.spec;
	struct inv_endpoint ep = {s->tkind, s->tdev, s->tport < 0 ? 0 : (size_t)s->tport}, peer;
	char err[384];

	if (lab_can(&j->lab, LAB_CAP_ENTER))
		return; /* the virtual lab: namespaces, no logins */
	if (lab_login(&j->lab, inventory_device_name(j->inv, &ep), err, sizeof(err)))
		rl_dbg("inject: before the cue: %s", err);
	if (s->tport >= 0 && !inventory_peer(j->inv, &ep, &peer) &&
	    lab_login(&j->lab, inventory_device_name(j->inv, &peer), err, sizeof(err)))
		rl_dbg("inject: before the cue: %s", err);
}

/*
 * --cue: what takes time before a fault can be applied is done (this process,
 * the inventory, the lab's topology, the logins), then "ready" on standard
 * output; nothing is locked, journaled, read or changed until the line "go"
 * on standard input.  false when none came (standard input closed, a
 * signal): nothing was applied.
 */
static bool wait_for_cue(struct injection *j)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool go;

	login_target(j);
	fputs("ready\n", stdout);
	fflush(stdout);
	n = getline(&line, &cap, stdin);
	go = n > 0 && !strcmp(line, "go\n") && !rl_interrupted;
	free(line);
	if (!go)
		rl_info("inject: no cue came (%s): nothing was applied",
			rl_interrupted ? "a signal" : "standard input closed");
	return go;
}

int cmd_inject(int argc, char **argv)
{
	struct inject_args a = {0};
	struct injection j = {.run = {.spec = &a.spec, .lab = &j.lab, .plan = &j.plan}};
	char why[512];
	int r = parse_inject(argc, argv, &a), ret = RL_EXIT_SETUP;

	if (r)
		return r < 0 ? RL_EXIT_OK : r;
	j.inv = lab_target_inventory(a.inv_path);
	if (!j.inv) /* a file given with -i that cannot be used is bad input */
		return a.inv_path || errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	j.run.inv = j.inv;
	j.json = a.json;
	j.counters_line = a.counters;
	if (fault_spec_resolve(j.inv, &a.spec, why, sizeof(why))) {
		inventory_free(j.inv);
		return bad("%s", why);
	}
	rl_signals_install();
	lab_open(&j.lab, j.inv);
	j.topo =
	    topo_build(j.inv, false, NULL); /* NULL for labs it cannot plan: no route restore */
	if (a.cue && !wait_for_cue(&j))
		goto close_exec;
	/* A dry run changes nothing, so it needs no lock (and creates no state directory). */
	if (!a.dry_run && state_lock()) {
		rl_err("inject: cannot take the lab lock: %s", strerror(errno));
		goto close_exec;
	}
	/* A fault by hand while a run grades the lab is said (it will be in that run's grades);
	 * not refused: it is how a person reproduces an incident beside a run. */
	if (!a.dry_run && state_run_check(j.lab.state, j.inv->name, why, sizeof(why)) == -EBUSY)
		rl_warn("inject: lab %s is in use by %s: this fault will be in its grades",
			j.inv->name, why);
	use_journal_of(&j.lab, j.inv->path);
	j.run.id = journal_next_id();
	r = build_plan(&j, &a, why, sizeof(why));
	if (r) {
		rl_err("inject: %s", why);
		ret = r == -EOPNOTSUPP ? RL_EXIT_SETUP : RL_EXIT_USAGE;
		goto close_exec;
	}
	if (a.dry_run) {
		if (!deadman(&j, why, sizeof(why)))
			fault_plan_format(&j.plan, stdout);
		ret = RL_EXIT_OK;
		goto close_exec;
	}
	if ((r = precheck(&j))) {
		rl_err("inject: %s", j.run.err);
		goto close_exec;
	}
	/* after discover, which may replace the actions: the timers undo what is applied */
	if ((r = deadman(&j, why, sizeof(why))))
		goto close_exec;
	if ((r = journal_append(&j.plan, j.run.id))) {
		rl_err("inject: cannot write the journal: %s", strerror(-r));
		goto close_exec;
	}
	if (j.plan.emulated && j.plan.note[0]) /* else the evidence says what is emulated */
		rl_info("fault %u: %s", j.run.id, j.plan.note);
	if (a.spec.for_ms || a.spec.hold || a.spec.kind->live) { /* else no end here to read */
		fault_counters_ends(j.inv, &a.spec, &j.ctr);
		fault_counters_begin(&j.run, &j.ctr);
	}
	if ((r = apply_actions(&j))) {
		rl_err("fault %u could not be applied: %s", j.run.id, j.run.err);
		journal_mark(j.run.id, JS_REVERTED);
		report_drift(&j, true);
		goto close_exec;
	}
	if (a.spec.kind->start && (r = a.spec.kind->start(&j.run))) {
		rl_err("fault %u could not be started: %s; reverting", j.run.id, j.run.err);
		fault_undo_actions(&j.lab, j.plan.acts, j.plan.n_acts);
		journal_mark(j.run.id, JS_REVERTED);
		report_drift(&j, true);
		goto close_exec;
	}
	if ((r = a.spec.kind->verify(&j.run))) {
		json_t *c;

		rl_err("fault %u is not effective: %s; reverting", j.run.id, j.run.err);
		c = fault_counters_end(&j.run, &j.ctr);
		stop_kind(&j);
		fault_undo_actions(&j.lab, j.plan.acts, j.plan.n_acts);
		journal_mark(j.run.id, JS_REVERTED);
		print_result(&j, a.json, "not-effective");
		report_drift(&j, true);
		report_counters(&j, c);
		report_measured(&j);
		goto close_exec;
	}
	journal_mark(j.run.id, JS_APPLIED);
	state_unlock();
	/* the first deadline left room for the verification: from here on, the lease */
	fault_deadman_beat(&j.run, true);
	print_result(&j, a.json, "applied");
	ret = stay_live(&j);
	fault_counters_clear(&j.ctr);
	lab_close(&j.lab);
	fault_plan_clear(&j.plan);
	topo_free(j.topo);
	inventory_free(j.inv);
	return ret;
close_exec:
	fault_counters_clear(&j.ctr);
	lab_close(&j.lab);
	fault_plan_clear(&j.plan);
	state_unlock();
	topo_free(j.topo);
	inventory_free(j.inv);
	return ret;
}

/* ---- revert / faults ---------------------------------------------------------- */

/*
 * Is the process that applied r still the one running under its pid?  Its pid
 * and start time, as journaled, name it: never a command line (a 'less
 * rocelab-run.log' that took the pid since is no holder).
 */
static bool live_holder(const struct journal_rec *r)
{
	if (r->pid <= 0 || r->pid == getpid() || !proc_alive(r->pid))
		return false;
	if (!r->pid_start) {
		rl_warn("revert: fault %u names process %d but not its start time (an older "
			"journal): not signalled; stop it yourself if it is rocelab's",
			r->id, r->pid);
		return false;
	}
	return rl_proc_start(r->pid) == r->pid_start;
}

static void print_reverted(bool json, size_t undone, size_t failed)
{
	struct out o;

	out_init(&o, stdout, json ? OUT_JSON_LINES : OUT_TEXT);
	out_open_object(&o, NULL);
	if (!json && !undone && !failed)
		out_text(&o, "nothing to revert\n");
	else {
		out_uint(&o, PRINT_ANY, "reverted", "%llu fault(s) reverted", undone);
		out_uint(&o, PRINT_ANY, "failed", ", %llu failed\n", failed);
	}
	out_close(&o);
}

/*
 * The inventory the outstanding faults of the journal in use were planned
 * on, if that file is still what it was then.  NULL with *none when nothing
 * is outstanding; NULL and an error said otherwise.
 */
static struct inventory *recorded_inventory(const struct journal_rec *recs, size_t n, bool *none)
{
	const struct journal_rec *first = NULL;
	char sha[65];

	*none = false;
	for (size_t i = 0; i < n; i++) {
		if (recs[i].state == JS_REVERTED)
			continue;
		if (!first) {
			first = &recs[i];
		} else if (strcmp(first->inventory, recs[i].inventory)) {
			rl_err("revert: outstanding faults %u and %u were planned on different "
			       "inventories (%s, %s): give -i for each",
			       first->id, recs[i].id, first->inventory, recs[i].inventory);
			return NULL;
		}
	}
	if (!first) {
		*none = true;
		return NULL;
	}
	if (!first->inventory[0]) {
		rl_err("revert: fault %u names no inventory: give -i INVENTORY", first->id);
		return NULL;
	}
	if (rl_sha256_file(first->inventory, sha)) {
		rl_err("revert: cannot read %s, the inventory of fault %u: %s", first->inventory,
		       first->id, strerror(errno));
		return NULL;
	}
	if (strcmp(sha, first->inv_sha256)) {
		rl_err("revert: %s has changed since fault %u was applied: check it, then give "
		       "-i %s to revert with it as it is",
		       first->inventory, first->id, first->inventory);
		return NULL;
	}
	return inventory_load(first->inventory, stderr);
}

/*
 * Revert every outstanding fault, newest first: of inv's lab's journal, or
 * (inv NULL) of the persistent journal, on the inventory its faults
 * recorded.  Adds to the counts; -1 when the lab to revert on cannot be had.
 */
/*
 * Is r a fault of inv's lab?  Real labs share one journal (the lib dir's): a record
 * planned on another inventory, or on none (an older journal), is another lab's,
 * whose devices may share names with these.  It is listed, never applied here.
 */
static bool of_this_lab(const struct lab *l, const struct inventory *inv,
			const struct journal_rec *r, bool say)
{
	char abs[PATH_MAX];

	if (strcmp(l->state, state_lib_dir()))
		return true; /* the virtual lab's journal is its own */
	if (!realpath(inv->path, abs))
		snprintf(abs, sizeof(abs), "%s", inv->path);
	if (r->inventory[0] && !strcmp(r->inventory, abs))
		return true;
	if (say)
		rl_warn("revert: fault %u (%s %s) was planned on %s, not on %s: left as it is; "
			"revert it with -i %s",
			r->id, r->kind, r->target,
			r->inventory[0] ? r->inventory : "an unnamed inventory", abs,
			r->inventory[0] ? r->inventory : "ITS-INVENTORY");
	return false;
}

/*
 * Stop the live 'inject' processes holding this lab's outstanding faults: they
 * revert them, and cannot re-apply them.  How many were stopped.
 */
static size_t stop_holders(const struct lab *l, const struct inventory *inv,
			   const struct journal_rec *recs, size_t n)
{
	size_t stopped = 0;

	for (size_t i = 0; i < n; i++) {
		if (recs[i].state != JS_REVERTED && of_this_lab(l, inv, &recs[i], false) &&
		    live_holder(&recs[i])) {
			rl_info("revert: stopping rocelab process %d that holds fault %u",
				recs[i].pid, recs[i].id);
			kill(recs[i].pid, SIGTERM);
			for (int k = 0; k < 500 && proc_alive(recs[i].pid); k++)
				usleep(20000);
			stopped++;
		}
	}
	return stopped;
}

/* A run of someone else's holds the lab: it reverts its own faults; said. */
static bool lab_in_use(const struct lab *l, const struct inventory *inv)
{
	char who[256];
	int r = state_run_check(l->state, inv->name, who, sizeof(who));

	if (r)
		rl_err("revert: lab %s is in use by %s: that run reverts its own faults; stop it "
		       "first (it reverts as it stops), then revert",
		       inv->name, r == -EBUSY ? who : strerror(-r));
	return r != 0;
}

static int revert_journal(struct inventory *inv, size_t *undone, size_t *failed)
{
	struct journal_rec *recs;
	struct inventory *own = NULL;
	struct lab lab = {0};
	size_t n;
	bool none;
	int ret = -1;

	/* inv: its lab's journal; else real labs' faults, in a journal that outlives a reboot
	 * of this machine, on the inventory they were planned on */
	if (inv)
		lab_open(&lab, inv);
	journal_use(inv ? lab.state : state_lib_dir(), NULL, NULL);
	if (journal_load(&recs, &n) < 0) {
		rl_err("revert: cannot read the journal: %s", strerror(errno));
		goto close_lab;
	}
	if (!inv) {
		if (!(inv = own = recorded_inventory(recs, n, &none))) {
			journal_free(recs, n);
			return none ? 0 : -1;
		}
		lab_open(&lab, inv);
	}
	if (lab_in_use(&lab, inv))
		goto free_recs;
	if (stop_holders(&lab, inv, recs, n)) { /* they marked what they reverted */
		journal_free(recs, n);
		if (journal_load(&recs, &n) < 0) {
			rl_err("revert: cannot read the journal: %s", strerror(errno));
			goto close_lab;
		}
	}
	state_lock();
	for (size_t i = n; i-- > 0;) {
		if (recs[i].state == JS_REVERTED || !of_this_lab(&lab, inv, &recs[i], true))
			continue;
		if (fault_undo_actions(&lab, recs[i].acts, recs[i].n_acts) == 0) {
			const struct fault_kind_ops *k = fault_kind_find(recs[i].kind);

			journal_mark(recs[i].id, JS_REVERTED);
			if (k && k->sweep && recs[i].pid > 0)
				k->sweep(recs[i].pid);
			rl_info("revert: fault %u %s %s reverted", recs[i].id, recs[i].kind,
				recs[i].target);
			fault_drift(&lab, recs[i].acts, recs[i].n_acts, NULL);
			(*undone)++;
		} else {
			(*failed)++;
		}
	}
	lab_sweep(&lab, "revert"); /* and what runs killed with -9 left on the hosts */
	state_unlock();
	ret = 0;
free_recs:
	journal_free(recs, n);
close_lab:
	lab_close(&lab);
	inventory_free(own);
	return ret;
}

int fault_revert_lab(const char *inv_path, size_t *undone, size_t *failed)
{
	struct inventory *inv = lab_target_inventory(inv_path);
	int r;

	if (!inv)
		return -EINVAL;
	r = revert_journal(inv, undone, failed) < 0 ? -EIO : 0;
	inventory_free(inv);
	return r;
}

int cmd_revert(int argc, char **argv)
{
	size_t undone = 0, failed = 0;
	bool json = false, broken = false;
	const char *inv_path = NULL;
	int c;

	static const struct option lo[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:jh", lo, NULL)) != -1) {
		if (c == 'i')
			inv_path = optarg;
		else if (c == 'j')
			json = true;
		else if (c == 'h')
			return fputs(
				   "usage: rocelab revert [-i INVENTORY] [-j]\n"
				   "Undo every outstanding fault, newest first. Idempotent.\n"
				   "With -i, the faults of that inventory's lab. Without, those "
				   "of\n"
				   "the virtual lab that is up, and those of real labs kept in\n"
				   "$ROCELAB_LIB_DIR (default /var/lib/rocelab), each on the\n"
				   "inventory it was applied with, if that file has not changed.\n",
				   stdout),
			       0;
		else
			return bad("revert: unknown option '%s'", argv[optind - 1]);
	}
	/* A signal mid-revert is noted, not obeyed: a fault half undone is worse than waiting
	 * for the undo to end (each command on a device is bounded by its timeout). */
	rl_signals_install();
	if (inv_path || lab_virtual_is_up()) {
		struct inventory *inv = lab_target_inventory(inv_path);

		if (!inv && inv_path)
			return RL_EXIT_USAGE;
		/* namespaces of a virtual lab half up (or half down): said, and real labs'
		 * journal is reverted all the same */
		if (inv)
			broken |= revert_journal(inv, &undone, &failed) < 0;
		else
			broken = true;
		inventory_free(inv);
	}
	if (!inv_path && strcmp(state_lib_dir(), state_dir()))
		broken |= revert_journal(NULL, &undone, &failed) < 0;
	print_reverted(json, undone, failed);
	return failed || broken ? RL_EXIT_SETUP : RL_EXIT_OK;
}

/* The capability table (caps.h): what each NOS version and model can be told, and whose word. */
static int print_nos_caps(bool json)
{
	struct out o;
	char from[32];

	out_init(&o, stdout, json ? OUT_JSON : OUT_TEXT);
	out_open_array(&o, NULL);
	for (const struct nos_cap_row *r = nos_cap_rows; r->what; r++) {
		if (r->major >= 0)
			snprintf(from, sizeof(from), "%d.%d", r->major, r->minor);
		else
			snprintf(from, sizeof(from), "by %s", r->by);
		out_open_object(&o, NULL);
		out_string(&o, PRINT_ANY, "dialect", "%-6s", inv_dialect_name(r->dialect));
		out_string(&o, PRINT_ANY, "from", " %-16s", from);
		out_string(&o, PRINT_ANY, "capability", " %s\n", r->name);
		out_string(&o, PRINT_ANY, "changes", "       what it changes: %s\n", r->what);
		out_string(&o, PRINT_ANY, "source", "       source: %s\n", r->source);
		out_close(&o);
	}
	out_text(&o, "A switch's version, model and buffer model are read before each fault "
		     "('rocelab inject'); a dry run renders for what the inventory declares "
		     "(version:, model:, buffer-model:), else for the newest.\n");
	out_close(&o);
	return RL_EXIT_OK;
}

int cmd_faults(int argc, char **argv)
{
	struct out o;
	size_t shown = 0;
	struct journal_rec *recs;
	size_t n;
	bool json = false, all = false, held, nos = false;
	int c;

	static const struct option lo[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"all", no_argument, NULL, 'a'},
	    {"nos", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jahn", lo, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'a')
			all = true;
		else if (c == 'n')
			nos = true;
		else if (c == 'h')
			return fputs(
				   "usage: rocelab faults [-a] [-j] [--nos]\nList the outstanding "
				   "faults of the virtual lab's journal and of real labs' (kept in "
				   "$ROCELAB_LIB_DIR);\n-a: every fault, reverted ones "
				   "too.\n--nos: "
				   "what each switch NOS version and model can be told, and the "
				   "source\nthat says so (the renderers' capability table).\n",
				   stdout),
			       0;
		else
			return bad("faults: unknown option '%s'", argv[optind - 1]);
	}
	if (nos)
		return print_nos_caps(json);
	out_init(&o, stdout, json ? OUT_JSON : OUT_TEXT);
	out_open_array(&o, NULL);
	/* The virtual lab's journal, then real labs' (persistent). */
	for (int d = 0; d < 2; d++) {
		if (d && !strcmp(state_lib_dir(), state_dir()))
			break;
		journal_use(d ? state_lib_dir() : state_dir(), NULL, NULL);
		if (journal_load(&recs, &n) < 0) {
			rl_err("faults: cannot read the journal: %s", strerror(errno));
			return RL_EXIT_SETUP;
		}
		for (size_t i = 0; i < n; i++) {
			if (!all && recs[i].state == JS_REVERTED)
				continue;
			shown++;
			out_open_object(&o, NULL);
			out_uint(&o, PRINT_ANY, "id", "%3llu", recs[i].id);
			out_string(&o, PRINT_ANY, "kind", "  %-19s", recs[i].kind);
			out_string(&o, PRINT_ANY, "target", " %-14s", recs[i].target);
			out_string(&o, PRINT_ANY, "state", " %-9s",
				   journal_state_name(recs[i].state));
			out_string(&o, PRINT_ANY, "time", " %s", recs[i].time);
			out_int(&o, PRINT_JSON, "pid", NULL, recs[i].pid);
			if (recs[i].inventory[0])
				out_string(&o, PRINT_JSON, "inventory", NULL, recs[i].inventory);
			held = recs[i].state != JS_REVERTED && live_holder(&recs[i]);
			out_bool(&o, PRINT_JSON, "held", NULL, held);
			if (held)
				out_text(&o, "  (held)");
			out_text(&o, "\n");
			out_close(&o);
		}
		journal_free(recs, n);
	}
	if (!shown)
		out_text(&o, "no outstanding faults\n");
	out_close(&o);
	return RL_EXIT_OK;
}

/* ---- load ------------------------------------------------------------------------ */

struct load_args {
	char to[72], from[1024];
	long long for_ms;
	int priority, size;
	/* load send */
	char inv[PATH_MAX], host[INV_NAME_MAX + 1], flows[2048];
	int pps, sports, sport, ecn;
	int dscp; /* -1: the priority's class selector */
	bool progress;
};

#define LA(f) offsetof(struct load_args, f)

static const struct opt_desc load_opts[] = {
    {.name = "to", .type = OPT_STR, .off = LA(to), .size = 72, .help = "the receiving RNIC"},
    {.name = "from",
     .type = OPT_STR,
     .off = LA(from),
     .size = 1024,
     .help = "senders, HOST:RNIC[,HOST:RNIC...]"},
    {"for", OPT_MS, 10, 3600000, LA(for_ms), "how long"},
    {"priority", OPT_INT, 0, 7, LA(priority), "PFC priority (DSCP class selector)"},
    {"size", OPT_INT, 64, 1472, LA(size), "datagram bytes"},
    OPT_TABLE_END,
};

static const struct opt_desc send_opts[] = {
    {.name = "inventory",
     .type = OPT_STR,
     .off = LA(inv),
     .size = PATH_MAX,
     .help = "the lab's inventory"},
    {.name = "host",
     .type = OPT_STR,
     .off = LA(host),
     .size = INV_NAME_MAX + 1,
     .help = "the host this runs on"},
    {.name = "flows",
     .type = OPT_STR,
     .off = LA(flows),
     .size = 2048,
     .help = "RNIC:ADDRESS[:PORT+PORT...][,...], each from one of its RNICs (pinned to those "
	     "source ports)"},
    {"for", OPT_MS, 10, 3600000, LA(for_ms), "how long"},
    {"pps", OPT_INT, 0, 10000000, LA(pps), "datagrams per second per flow (0: as fast as it can)"},
    {"sports", OPT_INT, 1, 1024, LA(sports), "source ports each flow rotates over (ECMP)"},
    {"sport", OPT_INT, 0, 65535 - 1024, LA(sport),
     "the first source port (0: 50000 + 97 per flow); flow i starts at this + i"},
    {"priority", OPT_INT, 0, 7, LA(priority), "PFC priority (DSCP class selector)"},
    {"size", OPT_INT, 64, 1472, LA(size), "datagram bytes"},
    {"ecn", OPT_INT, 0, 3, LA(ecn), "the ECN bits (2: ECT(0), as an ECN-capable RoCE sender)"},
    {"dscp", OPT_INT, 0, 63, LA(dscp),
     "the DSCP sent (without it: the priority's class selector, priority << 3)"},
    {.name = "progress",
     .type = OPT_BOOL,
     .off = LA(progress),
     .help = "what each flow has sent, every 100 ms on stdout: 'sent FLOW SECONDS COUNT'"},
    OPT_TABLE_END,
};

/* A flow's pinned source ports, "PORT+PORT..."; -EINVAL unless 1 to FLOW_PINS of them. */
static int flow_pins(const char *s, struct flow *f)
{
	f->n_pin = 0;
	do {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || !v || v > 65535 || (*end && *end != '+') || f->n_pin == FLOW_PINS)
			return -EINVAL;
		f->pin[f->n_pin++] = (uint16_t)v;
		s = *end ? end + 1 : end;
	} while (*s);
	return 0;
}

/*
 * 'load send', run on a host of a lab reached over SSH by 'rocelab run': the
 * flows from this host's RNICs, sent from here.
 */
static int load_send(int argc, char **argv)
{
	static const struct option own[] = {{"help", no_argument, NULL, 'h'}, {0}};
	struct load_args la = {.for_ms = 5000,
			       .priority = 3,
			       .size = 1000,
			       .pps = 1000,
			       .sports = 8,
			       .dscp = -1},
			 def = la;
	struct option lo[16];
	struct flow flows[64] = {0};
	struct inventory *inv;
	const struct inv_host *h;
	struct lab lab;
	char msg[160], given[2048], *save = NULL;
	size_t n = 0;
	long long sent;
	int c;

	opt_longopts(send_opts, O_COMMON, own, lo, ARRAY_SIZE(lo));
	while ((c = getopt_long(argc, argv, ":i:h", lo, NULL)) != -1) {
		if (c == 'h') {
			fputs("usage: rocelab load send -i INVENTORY --host HOST --flows "
			      "RNIC:ADDRESS[,...] [options]\n"
			      "Send UDP 4791 from this host's RNICs (what 'rocelab run' starts on "
			      "each sending host of a lab reached over SSH).\n\n",
			      stdout);
			opt_help(send_opts, &def, 2, stdout);
			return RL_EXIT_OK;
		}
		if (c == 'i')
			snprintf(la.inv, sizeof(la.inv), "%s", optarg);
		else if (c == ':')
			return bad("load send: option '%s' needs a value", argv[optind - 1]);
		else if (c < O_COMMON)
			return bad("load send: unknown option '%s'", argv[optind - 1]);
		else if (opt_set(&send_opts[c - O_COMMON], &la, optarg, msg, sizeof(msg)))
			return bad("load send: --%s", msg);
	}
	if (!la.inv[0] || !la.host[0] || !la.flows[0])
		return bad("load send needs -i INVENTORY, --host HOST and --flows RNIC:ADDRESS");
	if (!(inv = inventory_load(la.inv, stderr)))
		return RL_EXIT_USAGE;
	if (!(h = inventory_host(inv, la.host))) {
		inventory_free(inv);
		return bad("load send: --host %s is not a host of %s", la.host, la.inv);
	}
	snprintf(given, sizeof(given), "%s", la.flows);
	for (char *t = strtok_r(la.flows, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(t, ':'), *pins = colon ? strchr(colon + 1, ':') : NULL;
		size_t r;

		if (colon)
			*colon = '\0';
		if (pins)
			*pins++ = '\0';
		for (r = 0; r < h->n_rnics && strcmp(h->rnics[r].name, t); r++)
			;
		if (!colon || r == h->n_rnics || n == ARRAY_SIZE(flows) ||
		    inet_pton(AF_INET, colon + 1, &flows[n].dst) != 1 ||
		    (pins && flow_pins(pins, &flows[n]))) {
			inventory_free(inv);
			return bad(
			    "load send: --flows: '%s' is not RNIC:ADDRESS[:PORT+PORT...] with "
			    "an RNIC of %s and at most %d source ports from 1 to 65535",
			    t, la.host, FLOW_PINS);
		}
		flows[n++].src = (struct inv_endpoint){INV_DEV_HOST, (size_t)(h - inv->hosts), r};
	}
	rl_signals_install();
	setpriority(PRIO_PROCESS, 0, 19); /* as the virtual lab's load: never before the agents */
	lab_open_here(&lab, inv);
	if (la.progress) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		traffic_blast_progress(STDOUT_FILENO);
	}
	sent = traffic_blast(&lab, flows, n, ROCEV2_UDP_PORT,
			     (la.dscp >= 0 ? la.dscp << 2 : la.priority << 5) | la.ecn, la.size,
			     la.sports, (uint16_t)la.sport, la.for_ms, (unsigned long long)la.pps);
	lab_close(&lab);
	/* on stdout: an injector that has the host send its test traffic reads the count */
	printf("load: %zu flows from %s (%s), %d pps each: %lld datagrams sent\n", n, la.host,
	       given, la.pps, sent);
	inventory_free(inv);
	return sent < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
}

int cmd_load(int argc, char **argv)
{
	static const struct option own[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct load_args la = {.for_ms = 5000, .priority = 3, .size = 1000}, def = la;
	const char *to = la.to, *from = la.from;
	bool json = false;
	struct inventory *inv;
	struct lab lab;
	struct inv_endpoint dst;
	struct flow flows[64] = {0};
	struct option lo[16];
	size_t n = 0;
	char msg[160], buf[1024], *save = NULL;
	int c;

	optind = 1;
	opterr = 0;
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return load_send(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "pfc"))
		return load_pfc(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "incast") != 0) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
			goto help;
		return bad("load: the loads are 'incast', 'send', 'rc' and 'pfc' (see rocelab load "
			   "--help)");
	}
	argv++, argc--;
	opt_longopts(load_opts, O_COMMON, own, lo, ARRAY_SIZE(lo));
	while ((c = getopt_long(argc, argv, ":jh", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			goto help;
		case ':':
			return bad("load: option '%s' needs a value", argv[optind - 1]);
		default:
			if (c < O_COMMON)
				return bad("load: unknown option '%s'", argv[optind - 1]);
			if (opt_set(&load_opts[c - O_COMMON], &la, optarg, msg, sizeof(msg)))
				return bad("load: --%s", msg);
		}
	}
	if (!*to || !*from)
		return bad("load incast needs --to HOST:RNIC and --from HOST:RNIC[,HOST:RNIC...]");
	if (!(inv = lab_target_inventory(NULL)))
		return RL_EXIT_SETUP;
	if (inventory_endpoint(inv, to, &dst, msg, sizeof(msg)) || dst.kind != INV_DEV_HOST) {
		inventory_free(inv);
		return bad("--to: %s", dst.kind != INV_DEV_HOST ? "must be an RNIC" : msg);
	}
	snprintf(buf, sizeof(buf), "%s", from);
	for (char *t = strtok_r(buf, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save)) {
		if (inventory_endpoint(inv, t, &flows[n].src, msg, sizeof(msg)) ||
		    flows[n].src.kind != INV_DEV_HOST) {
			inventory_free(inv);
			return bad("--from %s: %s", t, msg);
		}
		flows[n++].dst = inv->hosts[dst.dev].rnics[dst.port].addr.addr;
	}
	rl_signals_install();
	rl_info("load: incast %zu -> 1 (%s) for %lld ms, priority %d", n, to, la.for_ms,
		la.priority);
	lab_open(&lab, inv);
	long long sent = traffic_blast(&lab, flows, n, ROCEV2_UDP_PORT, la.priority << 5, la.size,
				       8, 0, la.for_ms, 0);

	lab_close(&lab);

	struct out o;

	out_init(&o, stdout, json ? OUT_JSON_LINES : OUT_TEXT);
	out_open_object(&o, NULL);
	out_uint(&o, PRINT_ANY, "senders", "incast: %llu senders", n);
	out_string(&o, PRINT_ANY, "to", " -> %s", to);
	out_int(&o, PRINT_ANY, "datagrams", ": %lld datagrams", sent);
	out_int(&o, PRINT_ANY, "duration_ms", " in %lld ms\n", la.for_ms);
	out_close(&o);
	inventory_free(inv);
	return sent < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
help:
	fputs("usage: rocelab load incast --to HOST:RNIC --from HOST:RNIC[,...] [options] [-j]\n"
	      "Blast UDP 4791 from every --from RNIC to one RNIC at once (virtual lab), marked "
	      "with\nthe priority's DSCP class, so congestion and PFC faults show.\n\n",
	      stdout);
	opt_help(load_opts, &def, 2, stdout);
	return RL_EXIT_OK;
}
