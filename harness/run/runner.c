// SPDX-License-Identifier: MIT
/*
 * rocelab run: for each scenario, bring the lab up when needed, start an
 * analyzer and a Hostmesh agent per host, run baseline, inject and verify
 * the faults (each through 'rocelab inject --hold', so every fault is
 * journaled and reverted by the same code path as the CLI), run the fault
 * phase with optional load, revert, run recovery, stop everything, and grade
 * the analyzer's verdicts against the injected truth.
 */
#define _GNU_SOURCE
#include "harness/run/runner.h"

#include "harness/lab/lab.h"
#include "harness/lab/traffic.h"
#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "harness/lib/state.h"
#include "harness/lib/version.h"
#include "harness/run/scenario.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ANALYZER_PORT 4790

static const char run_help[] =
    "usage: rocelab run [-i INVENTORY] [-o OUTDIR] [--seed N] [--keep-lab] SCENARIO...\n"
    "\n"
    "Run scenarios: bring the virtual lab up when needed, start the analyzer and a\n"
    "Hostmesh agent per host, run baseline, inject and verify the faults, run the fault\n"
    "phase (with the scenario's load), revert, run recovery, and grade the verdicts\n"
    "against the injected truth.  Every scenario is validated before anything starts.\n"
    "\n"
    "  -i INVENTORY   run every scenario on this inventory (default: the scenario's own,\n"
    "                 else the built-in virtual lab)\n"
    "  -o OUTDIR      results.json, junit.xml, OUTDIR/<scenario>/report.{png,html}\n"
    "                 and logs (default: rocelab-results)\n"
    "  --seed N       seed of the agents' source-port pools (default: from the clock)\n"
    "  --keep-lab     leave a lab this run brought up running\n"
    "exit: 0 all passed; 1 a scenario failed; 2 bad input (nothing started);\n"
    "3 a scenario was invalid (its fault or lab could not be set up or verified).\n";

static char self_exe[PATH_MAX];

static double now_s(void)
{
	return (double)rl_realtime_ns() / 1e9;
}

/* The processes of a scenario: the analyzer here, an agent on every host through the lab. */
struct procs {
	struct lab *lab;
	pid_t analyzer;
	struct lab_proc *agents;
	size_t n;
};

/* Sleep ms unless interrupted; false when interrupted or a watched process died. */
static bool wait_ms(long long ms, const struct procs *w, char *why, size_t whylen)
{
	unsigned long long end = rl_now_ns() + (unsigned long long)ms * 1000000ULL;

	while (!rl_interrupted) {
		unsigned long long now = rl_now_ns();
		struct timespec ts = {0, 50000000};

		if (w->analyzer > 0 && !proc_alive(w->analyzer)) {
			snprintf(why, whylen, "the analyzer (pid %d) exited early; see its log",
				 w->analyzer);
			return false;
		}
		for (size_t i = 0; i < w->n; i++)
			if (w->agents[i].pid > 0 && !lab_alive(w->lab, &w->agents[i])) {
				snprintf(why, whylen, "the agent on %s exited early; see its log",
					 w->agents[i].dev);
				return false;
			}
		if (now >= end)
			return true;
		if (end - now < 50000000ULL)
			ts.tv_nsec = (long)(end - now);
		nanosleep(&ts, NULL);
	}
	snprintf(why, whylen, "interrupted");
	return false;
}

/* ---- faults ---------------------------------------------------------------------- */

struct live_fault {
	pid_t pid;
	int out; /* its stdout */
	bool applied, done;
	double applied_at; /* wall time the injector reported it applied, 0: not said */
	int status;
	char line[1024];
};

/* Start 'rocelab inject ... --hold -j' and wait for its verdict line. */
static int start_fault(const struct scenario *s, const struct scn_fault *f, const char *logpath,
		       struct live_fault *lf, struct scn_result *r)
{
	const char *argv[SCN_MAX_OPTS * 2 + 12];
	int n = 0, p[2], logfd;
	size_t len = 0;

	argv[n++] = self_exe;
	for (int i = 0; i < f->argc; i++)
		argv[n++] = f->argv[i];
	argv[n++] = "-j";
	argv[n++] = "-i";
	argv[n++] = s->inv_path;
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	lf->pid = fork();
	if (lf->pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		if (logfd >= 0)
			dup2(logfd, STDERR_FILENO);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(self_exe, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	if (logfd >= 0)
		close(logfd);
	if (lf->pid < 0) {
		close(p[0]);
		return -errno;
	}
	lf->out = p[0];
	/* Apply + verify can take a while (the PFC check runs an incast): up to 60 s. */
	for (int waited = 0; waited < 60000 && !rl_interrupted && len < sizeof(lf->line) - 1;) {
		struct pollfd pf = {.fd = lf->out, .events = POLLIN};
		ssize_t k;

		if (poll(&pf, 1, 100) <= 0) {
			waited += 100;
			continue;
		}
		k = read(lf->out, lf->line + len, sizeof(lf->line) - 1 - len);
		if (k <= 0)
			break;
		len += (size_t)k;
		lf->line[len] = '\0';
		if (strchr(lf->line, '\n'))
			break;
	}
	{
		json_t *j = json_loads(lf->line, JSON_DISABLE_EOF_CHECK, NULL);
		const char *outcome = j ? json_string_value(json_object_get(j, "outcome")) : NULL;
		const char *ev = j ? json_string_value(json_object_get(j, "evidence")) : NULL;
		const char *note = j ? json_string_value(json_object_get(j, "note")) : NULL;

		lf->applied = outcome && !strcmp(outcome, "applied");
		lf->applied_at = j ? json_real_value(json_object_get(j, "applied_at")) : 0;
		if (ev)
			snprintf(r->evidence + strlen(r->evidence),
				 sizeof(r->evidence) - strlen(r->evidence), "%s%s",
				 r->evidence[0] ? "; " : "", ev);
		if (note) {
			snprintf(r->note, sizeof(r->note), "%s", note);
			r->emulated = true;
		}
		json_decref(j);
	}
	return lf->applied ? 0 : -EIO;
}

/* SIGTERM the holder: it reverts and exits 0. */
static int end_fault(struct live_fault *lf)
{
	if (lf->pid <= 0 || lf->done)
		return lf->status;
	lf->status = proc_stop(lf->pid, 60000);
	lf->done = true;
	close(lf->out);
	return lf->status;
}

/* ---- load -------------------------------------------------------------------------- */

static pid_t start_load(struct lab *lab, const struct scenario *s, const struct scn_load *l,
			long long ms, const char *logpath)
{
	struct flow flows[256];
	size_t n = 0;
	pid_t pid;

	if (l->kind == LOAD_INCAST) {
		struct inv_endpoint to;
		char msg[160];

		inventory_endpoint(s->inv, l->to, &to, msg, sizeof(msg));
		for (size_t i = 0; i < l->n_from && n < ARRAY_SIZE(flows); i++) {
			inventory_endpoint(s->inv, l->from[i], &flows[n].src, msg, sizeof(msg));
			flows[n++].dst = s->inv->hosts[to.dev].rnics[to.port].addr.addr;
		}
	} else {
		struct inv_endpoint at;
		char msg[160];

		inventory_endpoint(s->inv, l->across, &at, msg, sizeof(msg));
		n = traffic_flows_across(s->inv, at.dev, (ssize_t)at.port, true, flows,
					 ARRAY_SIZE(flows));
	}
	if (!n)
		return -ENOENT;
	pid = fork();
	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		/* pps per flow from the total rate: bits / (8 * (payload + 28 bytes of headers)) */
		unsigned long long pps =
		    l->rate_mbps * 1000000ULL / 8 / (unsigned)(l->size + 28) / n;
		long long sent;

		setpgid(0, 0);
		/*
		 * The load stands in for other machines' traffic.  On the virtual lab
		 * it runs on the same CPUs as the agents (and the fabric's forwarding
		 * runs in its context): at the lowest priority it cannot starve them.
		 * On a loaded 2-core machine it did: 8 probes in a 2 s window, not 1600.
		 */
		setpriority(PRIO_PROCESS, 0, 19);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sent = traffic_blast(lab, flows, n, ROCEV2_UDP_PORT, l->priority << 5, l->size, 8,
				     ms, pps ? pps : 1);
		fprintf(stderr, "load: %zu flows, %llu pps each: %lld datagrams sent\n", n, pps,
			sent);
		_exit(sent < 0 ? 1 : 0);
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

static void stop_load(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	proc_stop(pid, 2000);
	kill(-pid, SIGKILL);
}

/* ---- components ---------------------------------------------------------------------- */

static const char *fmt_ms(char *buf, size_t len, long long ms)
{
	snprintf(buf, len, "%lldms", ms);
	return buf;
}

static pid_t start_analyzer(const struct scenario *s, const char *addr, const char *out,
			    const char *log)
{
	char listen[64], win[32], hold[32], slow[32], proc[32], grace[32], thr[32], votes[32],
	    share[32];
	const struct az_cfg *z = &s->analyzer;
	const char *argv[32];
	int n = 0;

	snprintf(listen, sizeof(listen), "%s:%d", addr, ANALYZER_PORT);
	snprintf(thr, sizeof(thr), "%g", z->rnic_threshold);
	snprintf(votes, sizeof(votes), "%d", z->min_votes);
	snprintf(share, sizeof(share), "%g", z->min_share);
	snprintf(slow, sizeof(slow), "%lldms", z->slow_us / 1000);
	snprintf(proc, sizeof(proc), "%lldms", z->proc_us / 1000);
	argv[n++] = self_exe;
	argv[n++] = "analyze";
	argv[n++] = "-i";
	argv[n++] = s->inv_path;
	argv[n++] = "--listen";
	argv[n++] = listen;
	argv[n++] = "--window";
	argv[n++] = fmt_ms(win, sizeof(win), z->window_ms);
	argv[n++] = "--rnic-hold";
	argv[n++] = fmt_ms(hold, sizeof(hold), z->rnic_hold_ms);
	argv[n++] = "--rnic-threshold";
	argv[n++] = thr;
	argv[n++] = "--min-votes";
	argv[n++] = votes;
	argv[n++] = "--min-share";
	argv[n++] = share;
	argv[n++] = "--slow";
	argv[n++] = slow;
	argv[n++] = "--proc";
	argv[n++] = proc;
	argv[n++] = "--grace";
	argv[n++] = fmt_ms(grace, sizeof(grace), z->grace_ms);
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n] = NULL;
	return proc_spawn(argv, NULL, log);
}

static int start_agent(struct lab *lab, const struct scenario *s, size_t host, const char *addr,
		       unsigned seed, const char *log, struct lab_proc *p)
{
	const struct hm_agent_cfg *g = &s->agent;
	char an[64], iv[32], to[32], sp[16], rot[32], tr[32], trf[32], trt[32], ttl[16], dscp[16],
	    sd[16];
	const char *argv[48];
	int n = 0;

	snprintf(an, sizeof(an), "%s:%d", addr, ANALYZER_PORT);
	snprintf(sp, sizeof(sp), "%d", g->pool);
	snprintf(tr, sizeof(tr), "%g", g->trace_rate);
	snprintf(ttl, sizeof(ttl), "%d", g->max_ttl);
	snprintf(dscp, sizeof(dscp), "%d", g->dscp);
	snprintf(sd, sizeof(sd), "%u", seed);
	argv[n++] = self_exe;
	argv[n++] = "agent";
	argv[n++] = "hostmesh";
	argv[n++] = "--host";
	argv[n++] = s->inv->hosts[host].name;
	argv[n++] = "-i";
	argv[n++] = s->inv_path;
	argv[n++] = "--transport";
	argv[n++] = g->transport->name;
	argv[n++] = "--interval";
	argv[n++] = fmt_ms(iv, sizeof(iv), g->interval_ms);
	argv[n++] = "--timeout";
	argv[n++] = fmt_ms(to, sizeof(to), g->timeout_ms);
	argv[n++] = "--sports";
	argv[n++] = sp;
	argv[n++] = "--rotate";
	argv[n++] = fmt_ms(rot, sizeof(rot), g->rotate_ms);
	argv[n++] = "--trace-rate";
	argv[n++] = tr;
	argv[n++] = "--trace-refresh";
	argv[n++] = fmt_ms(trf, sizeof(trf), g->trace_refresh_ms);
	argv[n++] = "--trace-timeout";
	argv[n++] = fmt_ms(trt, sizeof(trt), g->trace_timeout_ms);
	argv[n++] = "--max-ttl";
	argv[n++] = ttl;
	argv[n++] = "--dscp";
	argv[n++] = dscp;
	argv[n++] = "--analyzer";
	argv[n++] = an;
	argv[n++] = "--seed";
	argv[n++] = sd;
	argv[n] = NULL;
	return lab_spawn(lab, s->inv->hosts[host].name, argv, log, p);
}

/* ---- grading ------------------------------------------------------------------------- */

const char *run_verdict_name(enum run_verdict v)
{
	return v == RV_PASS ? "pass" : v == RV_FAIL ? "fail" : "invalid";
}

bool runner_target_matches(const char *cand, const char *truth)
{
	const char *sep = strstr(cand, "--");
	size_t tl = strlen(truth);

	if (!strcmp(cand, truth))
		return true;
	if (!sep)
		return false;
	/* A link matches either of its endpoints. */
	return ((size_t)(sep - cand) == tl && !strncmp(cand, truth, tl)) || !strcmp(sep + 2, truth);
}

/* Rank of truth among a verdict's suspects: ties with better-placed suspects count against it. */
static int verdict_rank(json_t *v, const char *truth)
{
	json_t *sus = json_object_get(v, "suspects");
	size_t i, n;

	if (!json_is_array(sus) || !json_array_size(sus))
		return runner_target_matches(json_string_value(json_object_get(v, "target")), truth)
			   ? 1
			   : 0;
	n = json_array_size(sus);
	for (i = 0; i < n; i++) {
		json_t *c = json_array_get(sus, i);
		json_int_t tv, tg;
		int rank = 1;

		if (!runner_target_matches(json_string_value(json_object_get(c, "target")), truth))
			continue;
		tv = json_integer_value(json_object_get(c, "votes"));
		tg = json_integer_value(json_object_get(c, "good"));
		for (size_t k = 0; k < n; k++) {
			json_t *o = json_array_get(sus, k);
			json_int_t ov = json_integer_value(json_object_get(o, "votes"));
			json_int_t og = json_integer_value(json_object_get(o, "good"));

			if (k != i && (ov > tv || (ov == tv && og <= tg)))
				rank++;
		}
		return rank;
	}
	return 0;
}

void runner_grade(struct scn_result *r)
{
	const struct scenario *s = r->s;
	const struct scn_expect *e = &s->expect;
	double settle = (double)(s->agent.timeout_ms + 1000) / 1e3;
	double first = -1;
	size_t i;
	json_t *v;
	int best = 0, fp = 0;

	r->detected = r->localized = r->class_ok = false;
	r->rank = 0;
	r->time_to_detect_s = -1;
	json_array_foreach(r->verdicts, i, v)
	{
		json_t *w = json_object_get(v, "window");
		double ws = json_number_value(json_array_get(w, 0)),
		       we = json_number_value(json_array_get(w, 1));
		const char *cls = json_string_value(json_object_get(v, "class"));
		bool in_fault = r->t_fault > 0 && ws < r->t_revert && we > r->t_fault;

		if (!cls)
			continue;
		if (!in_fault) {
			/* Baseline, or recovery once in-flight probes have settled. */
			if (r->t_fault <= 0 || we <= r->t_fault || ws >= r->t_revert + settle)
				fp++;
			continue;
		}
		/* Detection time: when the verdict came out (window end + grace when live). */
		double at = json_is_number(json_object_get(v, "emitted"))
				? json_number_value(json_object_get(v, "emitted"))
				: we;

		if (first < 0 || at < first)
			first = at;
		r->detected = true;
		if (strcmp(cls, e->cls))
			continue;
		r->class_ok = true;
		int rank = verdict_rank(v, e->target);

		if (rank && (!best || rank < best)) {
			best = rank;
			snprintf(r->got_class, sizeof(r->got_class), "%s", cls);
			snprintf(r->got_target, sizeof(r->got_target), "%s",
				 json_string_value(json_object_get(v, "target")));
		}
	}
	r->false_positives = fp;
	r->rank = best;
	r->localized = best > 0 && best <= e->top_k;
	if (r->detected)
		r->time_to_detect_s = first - r->t_fault > 0 ? first - r->t_fault : 0;
	if (!r->got_class[0] && r->detected) {
		json_array_foreach(r->verdicts, i, v)
		{
			json_t *w = json_object_get(v, "window");
			double ws = json_number_value(json_array_get(w, 0));
			double we = json_number_value(json_array_get(w, 1));

			if (ws < r->t_revert && we > r->t_fault) {
				snprintf(r->got_class, sizeof(r->got_class), "%s",
					 json_string_value(json_object_get(v, "class")));
				snprintf(r->got_target, sizeof(r->got_target), "%s",
					 json_string_value(json_object_get(v, "target")));
				break;
			}
		}
	}
	if (r->verdict == RV_INVALID)
		return;
	if (e->silent) {
		r->verdict = fp <= e->max_false_positives ? RV_PASS : RV_FAIL;
		if (r->verdict == RV_FAIL)
			snprintf(r->reason, sizeof(r->reason),
				 "%d verdict(s) on a fault-free lab (at most %d allowed)", fp,
				 e->max_false_positives);
		return;
	}
	r->verdict = RV_FAIL;
	if (!r->detected)
		snprintf(r->reason, sizeof(r->reason), "not detected: no verdict during the fault");
	else if (r->time_to_detect_s > (double)e->within_ms / 1e3)
		snprintf(r->reason, sizeof(r->reason), "detected after %.1f s, later than %.1f s",
			 r->time_to_detect_s, (double)e->within_ms / 1e3);
	else if (!r->class_ok)
		snprintf(r->reason, sizeof(r->reason), "no %s verdict (got %s %s)", e->cls,
			 r->got_class, r->got_target);
	else if (!r->localized)
		snprintf(r->reason, sizeof(r->reason),
			 "%s ranked %s among %s suspects (top-%d "
			 "expected)",
			 e->target, r->rank ? "low" : "nowhere", e->cls, e->top_k);
	else if (fp > e->max_false_positives)
		snprintf(r->reason, sizeof(r->reason),
			 "%d false positive(s) outside the fault "
			 "(at most %d allowed)",
			 fp, e->max_false_positives);
	else
		r->verdict = RV_PASS;
	if (r->verdict == RV_FAIL && r->rank > 1 && r->localized == false && r->class_ok)
		snprintf(r->reason + strlen(r->reason), sizeof(r->reason) - strlen(r->reason),
			 " (rank %d)", r->rank);
}

/* Read the analyzer's JSON lines into r. */
static void read_analysis(struct scn_result *r, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	size_t ok = 0, kern = 0, hw = 0;

	r->windows = json_array();
	r->verdicts = json_array();
	r->agents = json_array();
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		const char *type = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (!type) {
			json_decref(j);
			continue;
		}
		if (!strcmp(type, "window")) {
			r->probes +=
			    (unsigned long long)json_integer_value(json_object_get(j, "probes"));
			r->timeouts +=
			    (unsigned long long)json_integer_value(json_object_get(j, "timeouts"));
			ok += (size_t)json_integer_value(json_object_get(j, "ok"));
			kern += (size_t)json_integer_value(json_object_get(j, "ts_kernel"));
			hw += (size_t)json_integer_value(json_object_get(j, "ts_hw"));
			json_array_append_new(r->windows, j);
		} else if (!strcmp(type, "verdict")) {
			json_array_append_new(r->verdicts, j);
		} else {
			json_array_append_new(r->agents, j);
		}
	}
	free(line);
	fclose(f);
	snprintf(r->timestamps, sizeof(r->timestamps), "%s",
		 !ok		? "none"
		 : hw == ok	? "hardware"
		 : kern == ok	? "kernel-software"
		 : !kern && !hw ? "clock_gettime"
				: "mixed");
}

/* ---- one scenario ---------------------------------------------------------------------- */

static void progress(size_t i, size_t n, const struct scenario *s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void progress(size_t i, size_t n, const struct scenario *s, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "run: [%zu/%zu] %s: ", i + 1, n, s->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void run_one(struct lab *lab, const struct scenario *s, struct scn_result *r, size_t idx,
		    size_t total, const char *mgmt, unsigned seed)
{
	char path[PATH_MAX + 64], log[PATH_MAX + 64], why[160] = "";
	size_t nh = s->inv->n_hosts;
	struct procs w = {.lab = lab, .agents = rl_xcalloc(nh, sizeof(*w.agents)), .n = nh};
	pid_t load_pids[8] = {0};
	struct live_fault *lf = rl_xcalloc(s->n_faults + 1, sizeof(*lf));
	unsigned long long fault_start;
	bool ok = true;

	r->verdict = RV_PASS;
	r->t_start = now_s();
	rl_mkdir_p(r->dir, 0755);
	snprintf(path, sizeof(path), "%s/analyzer.jsonl", r->dir);
	snprintf(log, sizeof(log), "%s/analyzer.log", r->dir);
	unlink(path);
	w.analyzer = start_analyzer(s, mgmt, path, log);
	if (w.analyzer < 0) {
		ok = false;
		snprintf(why, sizeof(why), "cannot start the analyzer: %s", strerror(-w.analyzer));
	}
	for (size_t h = 0; h < nh; h++) {
		int e;

		snprintf(log, sizeof(log), "%s/agent-%s.log", r->dir, s->inv->hosts[h].name);
		e = start_agent(lab, s, h, mgmt, seed + (unsigned)h, log, &w.agents[h]);
		if (e) {
			ok = false;
			snprintf(why, sizeof(why), "cannot start the agent on %s: %s",
				 s->inv->hosts[h].name, strerror(-e));
		}
	}
	if (ok) {
		progress(idx, total, s, "baseline %.1f s (%zu agents, analyzer window %.1f s)",
			 (double)s->baseline_ms / 1e3, nh, (double)s->analyzer.window_ms / 1e3);
		/* Agents need a moment to trace their paths before the baseline counts. */
		ok = wait_ms(s->baseline_ms, &w, why, sizeof(why));
	}
	fault_start = rl_now_ns();
	if (ok && s->n_faults + s->n_loads)
		progress(idx, total, s, "fault phase %.1f s", (double)s->fault_ms / 1e3);
	/* Faults start at their offsets and end at theirs (or with the phase). */
	for (bool loads_started = false; ok && !rl_interrupted;) {
		long long t = (long long)((rl_now_ns() - fault_start) / 1000000ULL);
		bool pending = false;

		for (size_t i = 0; i < s->n_faults; i++) {
			const struct scn_fault *f = &s->faults[i];
			long long end = f->for_ms ? f->at_ms + f->for_ms : s->fault_ms;

			if (!lf[i].pid && t >= f->at_ms) {
				/* The fault is live from its apply on, verification included. */
				double t_apply = now_s();

				snprintf(log, sizeof(log), "%s/inject.log", r->dir);
				if (start_fault(s, f, log, &lf[i], r)) {
					r->verdict = RV_INVALID;
					snprintf(
					    r->reason, sizeof(r->reason),
					    "fault %s %s could not be applied or verified (see "
					    "%s/inject.log)",
					    fault_kind_name(f->kind), f->target, s->name);
					ok = false;
					break;
				}
				/*
				 * Ground truth starts when the injector had applied it (its
				 * own clock, before verification); an injector that does not
				 * say counts from its start, the conservative end.
				 */
				if (!r->t_fault)
					r->t_fault =
					    lf[i].applied_at > t_apply ? lf[i].applied_at : t_apply;
				progress(idx, total, s, "%s %s applied: %s",
					 fault_kind_name(f->kind), f->target, r->evidence);
			}
			if (lf[i].pid && !lf[i].done && t >= end) {
				if (end_fault(&lf[i])) {
					r->verdict = RV_INVALID;
					snprintf(
					    r->reason, sizeof(r->reason),
					    "fault %s %s was not reverted cleanly (run 'rocelab "
					    "revert')",
					    fault_kind_name(f->kind), f->target);
				}
				r->t_revert = now_s();
				progress(idx, total, s, "%s %s reverted", fault_kind_name(f->kind),
					 f->target);
			}
			pending |= !lf[i].done;
		}
		/*
		 * The load starts once the faults due at the phase start are applied:
		 * it is what makes them show.  Started before, its own CPU cost on a
		 * busy 2-core machine slowed probes while the injector was still
		 * logging in, and that window graded as a baseline false positive.
		 */
		for (size_t l = 0;
		     ok && !loads_started && l < s->n_loads && l < ARRAY_SIZE(load_pids); l++) {
			snprintf(log, sizeof(log), "%s/load.log", r->dir);
			load_pids[l] = start_load(lab, s, &s->loads[l], s->fault_ms - t, log);
		}
		loads_started = true;
		if (!pending && t >= s->fault_ms)
			break;
		if (!pending && !s->n_faults && !s->n_loads)
			break;
		if (!wait_ms(100, &w, why, sizeof(why)))
			ok = false;
	}
	/* Whatever happened: every fault reverts, the load stops. */
	for (size_t i = 0; i < s->n_faults; i++)
		if (lf[i].pid && !lf[i].done) {
			end_fault(&lf[i]);
			r->t_revert = now_s();
		}
	for (size_t l = 0; l < ARRAY_SIZE(load_pids); l++)
		stop_load(load_pids[l]);
	if (ok) {
		progress(idx, total, s, "recovery %.1f s", (double)s->recovery_ms / 1e3);
		ok = wait_ms(s->recovery_ms + s->analyzer.grace_ms, &w, why, sizeof(why));
	}
	for (size_t h = 0; h < nh; h++)
		lab_stop(lab, &w.agents[h], 3000);
	proc_stop(w.analyzer, 5000);
	r->t_end = now_s();
	read_analysis(r, path);
	if (!ok && r->verdict != RV_INVALID) {
		r->verdict = RV_INVALID;
		snprintf(r->reason, sizeof(r->reason), "%s", why);
	}
	runner_grade(r);
	if (r->verdict == RV_PASS)
		progress(idx, total, s, "PASS%s%s%s%s%s", r->detected ? " (" : "",
			 r->detected ? r->got_class : "", r->detected ? " " : "",
			 r->detected ? r->got_target : "", r->detected ? ")" : "");
	else
		progress(idx, total, s, "%s: %s", run_verdict_name(r->verdict), r->reason);
	if (r->detected)
		fprintf(stderr,
			"run: [%zu/%zu] %s: detected after %.1f s, rank %d, %d false "
			"positive(s)\n",
			idx + 1, total, s->name, r->time_to_detect_s, r->rank, r->false_positives);
	free(w.agents);
	free(lf);
}

/* ---- the command ---------------------------------------------------------------------- */

int cmd_run(int argc, char **argv, const struct run_sink *sink)
{
	static const struct option lo[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"seed", required_argument, NULL, 's'},
	    {"keep-lab", no_argument, NULL, 'k'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *inv_override = NULL, *outdir = "rocelab-results";
	char builtin[PATH_MAX], mgmt[32];
	struct scenario **sc;
	struct scn_result *res;
	struct run_info ri = {.version = ROCELAB_VERSION};
	struct lab lab;
	bool keep = false, started_lab = false;
	unsigned seed = (unsigned)time(NULL);
	int o, bad = 0, ret = RL_EXIT_OK, first;
	size_t n;
	ssize_t k = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (k <= 0) {
		rl_err("run: cannot find my own executable");
		return RL_EXIT_SETUP;
	}
	self_exe[k] = '\0';
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "i:o:vh", lo, NULL)) != -1) {
		switch (o) {
		case 'i':
			inv_override = optarg;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 's': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || end == optarg || v > 0xffffffffUL)
				return rl_usage_error("run", "--seed '%s' is not a number", optarg);
			seed = (unsigned)v;
			break;
		}
		case 'k':
			keep = true;
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
	n = (size_t)(argc - optind);
	first = optind; /* scenario_load runs getopt (inject's option parser) */
	sc = rl_xcalloc(n, sizeof(*sc));
	lab_builtin_inventory(builtin, sizeof(builtin));
	/* Everything is validated before anything is touched. */
	for (size_t i = 0; i < n; i++) {
		sc[i] = scenario_load(argv[first + (int)i], inv_override, builtin, stderr);
		bad += !sc[i];
		if (sc[i] && i && strcmp(sc[i]->inv->name, sc[0]->inv->name)) {
			rl_err("run: %s uses inventory '%s' but %s uses '%s'; run them separately",
			       sc[i]->path, sc[i]->inv->name, sc[0]->path, sc[0]->inv->name);
			bad++;
		}
	}
	if (bad) {
		rl_err("run: %d scenario file(s) have errors; nothing was started", bad);
		ret = RL_EXIT_USAGE;
		goto free_sc;
	}
	if (rl_mkdir_p(outdir, 0755)) {
		rl_err("run: cannot create %s: %s", outdir, strerror(errno));
		ret = RL_EXIT_SETUP;
		goto free_sc;
	}
	rl_signals_install();
	if ((ret = lab_prepare(sc[0]->inv, sc[0]->inv_path, &started_lab)))
		goto free_sc;
	snprintf(mgmt, sizeof(mgmt), "%s", inet_ntoa(inventory_management(sc[0]->inv).addr));
	lab_open(&lab, sc[0]->inv);
	res = rl_xcalloc(n, sizeof(*res));
	ri.outdir = outdir;
	ri.inventory = sc[0]->inv_path;
	ri.seed = seed;
	ri.started = now_s();
	for (size_t i = 0; i < n; i++) {
		res[i].s = sc[i];
		snprintf(res[i].test_name, sizeof(res[i].test_name), "%s", sc[i]->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(res[j].test_name, res[i].test_name))
				snprintf(res[i].test_name, sizeof(res[i].test_name), "%s#%zu",
					 sc[i]->name, i + 1);
		snprintf(res[i].dir, sizeof(res[i].dir), "%s/%s", outdir, res[i].test_name);
		res[i].time_to_detect_s = -1;
		if (rl_interrupted) {
			res[i].verdict = RV_INVALID;
			snprintf(res[i].reason, sizeof(res[i].reason), "not run: interrupted");
			res[i].windows = json_array();
			res[i].verdicts = json_array();
			res[i].agents = json_array();
			continue;
		}
		run_one(&lab, sc[i], &res[i], i, n, mgmt, seed);
		sink->scenario_done(&ri, &res[i]);
	}
	if (sink->run_done(&ri, res, n))
		ret = RL_EXIT_SETUP;
	{
		size_t pass = 0, fail = 0, inval = 0;

		for (size_t i = 0; i < n; i++) {
			pass += res[i].verdict == RV_PASS;
			fail += res[i].verdict == RV_FAIL;
			inval += res[i].verdict == RV_INVALID;
		}
		fprintf(stderr,
			"run: %zu passed, %zu failed, %zu invalid; results in %s/results.json, "
			"%s/junit.xml\n",
			pass, fail, inval, outdir, outdir);
		if (!ret)
			ret = fail ? RL_EXIT_FAIL : inval ? RL_EXIT_SETUP : RL_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++) {
		json_decref(res[i].windows);
		json_decref(res[i].verdicts);
		json_decref(res[i].agents);
	}
	free(res);
	lab_close(&lab);
	if (!keep && lab_release(started_lab) && !ret)
		ret = RL_EXIT_SETUP;
free_sc:
	for (size_t i = 0; i < n; i++)
		scenario_free(sc[i]);
	free(sc);
	return ret;
}
