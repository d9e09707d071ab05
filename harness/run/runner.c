// SPDX-License-Identifier: MIT
/*
 * rocelab run: for each scenario, bring the lab up when needed, start its
 * components under test (registry.c), run baseline, inject and verify the
 * faults (each through 'rocelab inject --hold', so every fault is journaled
 * and reverted by the same code path as the CLI), run the fault phase with
 * optional load, revert, run recovery, stop everything, collect what each
 * component saw and grade it against the injected truth (grade.c).
 */
#define _GNU_SOURCE
#include "harness/run/runner.h"

#include "harness/lab/dut.h"
#include "harness/lab/lab.h"
#include "harness/lab/traffic.h"
#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "harness/lib/sbuf.h"
#include "harness/lib/state.h"
#include "harness/lib/version.h"
#include "harness/run/registry.h"
#include "harness/run/scenario.h"
#include "injectors/links.h"
#include "probe/observe.h"
#include "transport/mpr_comp.h"

#include <arpa/inet.h>
#include <dirent.h>
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

static const char run_help[] =
    "usage: rocelab run [-i INVENTORY] [-o OUTDIR] [--seed N] [--keep-lab] [--dry-run] "
    "[--recover]\n"
    "                   [--retries N] [--db FILE] [--no-history] [--baseline RUN|last]\n"
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
    "\n"
    "Before the first scenario (pre-flight) and after each (post-flight), every host's\n"
    "RNICs must be up with their addresses, and traffic from each must leave by it.\n"
    "\n"
    "exit: 0 all passed; 1 a scenario failed, or the run regressed against its baseline;\n"
    "2 bad input (nothing started);\n"
    "3 a scenario was invalid (its fault or lab could not be set up or verified),\n"
    "or with --dry-run a fault that this lab's dialects cannot do.\n";

static double now_s(void)
{
	return (double)rl_realtime_ns() / 1e9;
}

/* Sleep ms unless interrupted; false when interrupted or a component's part died. */
static bool wait_ms(long long ms, struct scn_result *r, char *why, size_t whylen)
{
	unsigned long long end = rl_now_ns() + (unsigned long long)ms * 1000000ULL;

	while (!rl_interrupted) {
		unsigned long long now = rl_now_ns();
		struct timespec ts = {0, 50000000};

		for (size_t i = 0; i < r->n_comps; i++) {
			struct comp_result *c = &r->comps[i];

			if (c->started && !c->sc->ops->alive(c->state, why, whylen))
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
static int start_fault(const char *self_exe, const struct scenario *s, const struct scn_fault *f,
		       const char *logpath, struct live_fault *lf, struct scn_result *r,
		       bool fabric)
{
	const char *argv[SCN_MAX_OPTS * 2 + 12];
	struct opt_store store = {0};
	size_t n = 0, len = 0;
	int p[2], logfd;
	pid_t parent;

	/* The spec back as the argv of 'rocelab inject': written from the kind's option table. */
	argv[n++] = self_exe;
	argv[n++] = "inject";
	if (fault_spec_argv(&f->spec, argv, &n, ARRAY_SIZE(argv) - 6, &store)) {
		opt_store_free(&store);
		return -E2BIG;
	}
	argv[n++] = "--hold";
	argv[n++] = "-j";
	argv[n++] = "-i";
	argv[n++] = s->inv_path;
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0) {
		opt_store_free(&store);
		return -errno;
	}
	logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	parent = getpid();
	lf->pid = fork();
	if (lf->pid == 0) {
		/* A run killed with -9: the injector gets SIGTERM and reverts its fault. */
		proc_tie_to_parent(parent);
		dup2(p[1], STDOUT_FILENO);
		if (logfd >= 0)
			dup2(logfd, STDERR_FILENO);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(self_exe, (char *const *)argv);
		_exit(127);
	}
	opt_store_free(&store);
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
		if (ev && !fabric)
			snprintf(r->evidence + strlen(r->evidence),
				 sizeof(r->evidence) - strlen(r->evidence), "%s%s",
				 r->evidence[0] ? "; " : "", ev);
		/* A note says what was emulated only when the injector says it was. */
		if (note && !fabric && json_is_true(json_object_get(j, "emulated"))) {
			snprintf(r->note, sizeof(r->note), "%s", note);
			r->emulated = true;
		}
		json_decref(j);
	}
	return lf->applied ? 0 : -EIO;
}

/*
 * SIGTERM the holder: it reverts, reads back what it changed and exits 0.
 * Its last line says what did not come back as found (drift): kept in r.
 */
static int end_fault(struct live_fault *lf, struct scn_result *r)
{
	struct sbuf rest = {0};
	char buf[1024];
	ssize_t k;

	if (lf->pid <= 0 || lf->done)
		return lf->status;
	lf->status = proc_stop(lf->pid, 60000);
	lf->done = true;
	while ((k = read(lf->out, buf, sizeof(buf))) > 0) /* it has exited: up to EOF */
		sb_add(&rest, buf, (size_t)k);
	sb_add(&rest, "", 1);
	close(lf->out);
	for (char *l = rest.p, *nl; *l; l = nl + 1) {
		json_t *j;
		const char *d;

		if (!(nl = strchr(l, '\n')))
			break;
		*nl = '\0';
		j = json_loads(l, 0, NULL);
		d = json_string_value(json_object_get(j, "drift"));
		if (d && d[0])
			snprintf(r->drift + strlen(r->drift), sizeof(r->drift) - strlen(r->drift),
				 "%s%s", r->drift[0] ? "; " : "", d);
		json_decref(j);
	}
	sb_free(&rest);
	return lf->status;
}

/* ---- load -------------------------------------------------------------------------- */

/* A running load: a local process group, or senders on the hosts of a lab reached over SSH. */
struct load_run {
	pid_t pid;
	struct lab_proc senders[32];
	size_t n_senders;
	double started; /* its first sender was running (CLOCK_REALTIME s) */
};

/* The flows of load l. */
static size_t load_flows(const struct scenario *s, const struct scn_load *l, struct flow *flows,
			 size_t max)
{
	size_t n = 0;
	char msg[160];

	if (l->kind == LOAD_INCAST) {
		struct inv_endpoint to;

		inventory_endpoint(s->inv, l->to, &to, msg, sizeof(msg));
		for (size_t i = 0; i < l->n_from && n < max; i++) {
			inventory_endpoint(s->inv, l->from[i], &flows[n].src, msg, sizeof(msg));
			flows[n++].dst = s->inv->hosts[to.dev].rnics[to.port].addr.addr;
		}
	} else if (l->n_from) { /* pinned: one flow, its source port found by start_load */
		struct inv_endpoint to;

		inventory_endpoint(s->inv, l->to, &to, msg, sizeof(msg));
		inventory_endpoint(s->inv, l->from[0], &flows[0].src, msg, sizeof(msg));
		flows[n++].dst = s->inv->hosts[to.dev].rnics[to.port].addr.addr;
	} else {
		struct inv_endpoint at;

		inventory_endpoint(s->inv, l->across, &at, msg, sizeof(msg));
		n = traffic_flows_across(s->inv, at.dev, (ssize_t)at.port, true, flows, max);
	}
	return n;
}

/* On each sending host, 'rocelab load send' with that host's flows. */
static int start_remote_load(struct lab *lab, const struct scenario *s, const struct scn_load *l,
			     const struct flow *flows, size_t n, unsigned long long pps,
			     long long ms, int n_sports, uint16_t sport0, const char *logpath,
			     const struct run_opts *o, struct load_run *lr)
{
	for (size_t h = 0; h < s->inv->n_hosts && lr->n_senders < ARRAY_SIZE(lr->senders); h++) {
		const char *host = s->inv->hosts[h].name;
		char inv_there[PATH_MAX], log[PATH_MAX + 64];
		struct host_send hs = {lab_program(lab, host, o->self_exe),
				       inv_there,
				       ms,
				       pps ? pps : 1,
				       l->priority,
				       l->size,
				       n_sports,
				       0,
				       sport0};
		struct host_send_argv a;
		int r;

		if (!traffic_host_send_argv(s->inv, h, flows, n, &hs, &a))
			continue;
		if ((r = lab_share(lab, host, s->inv_path, inv_there, sizeof(inv_there))))
			return r;
		snprintf(log, sizeof(log), "%.4000s.%s", logpath, host);
		if ((r = lab_spawn(lab, host, a.argv, log, &lr->senders[lr->n_senders])))
			return r;
		if (!lr->n_senders++)
			lr->started = now_s(); /* the effect can show from the first one on */
	}
	return 0;
}

/*
 * A pinned stream's source port: the first of the ports 'rocelab transport
 * paths' traces from its sender to its receiver whose path crosses 'across'
 * (ECMP hashes the same 5-tuple the same way), the trace kept in dir.
 */
static int pin_stream(struct lab *lab, const struct scenario *s, const struct scn_load *l,
		      const char *dir, const struct run_opts *o, uint16_t *sport)
{
	char log[PATH_MAX + 32], why[400];
	int r;

	snprintf(log, sizeof(log), "%s/load-paths.log", dir);
	r = mpr_pin_port(lab, o->self_exe, s->inv, s->inv_path, l->from[0], l->to, l->across, false,
			 log, sport, why, sizeof(why));
	if (r)
		rl_warn("%s: the stream %s -> %s cannot be pinned across %s: %s", s->name,
			l->from[0], l->to, l->across, why);
	return r;
}

static int start_load(struct lab *lab, const struct scenario *s, const struct scn_load *l,
		      long long ms, const char *dir, const struct run_opts *o, struct load_run *lr)
{
	struct flow flows[256];
	size_t n = load_flows(s, l, flows, ARRAY_SIZE(flows));
	/* pps per flow from the total rate: bits / (8 * (payload + 28 bytes of headers)) */
	unsigned long long pps =
	    n ? l->rate_mbps * 1000000ULL / 8 / (unsigned)(l->size + 28) / n : 0;
	char logpath[PATH_MAX + 32];
	uint16_t sport0 = 0;
	int n_sports, r;
	pid_t pid;

	if (!n)
		return -ENOENT;
	snprintf(logpath, sizeof(logpath), "%s/load.log", dir);
	if (l->kind == LOAD_STREAM && l->n_from && (r = pin_stream(lab, s, l, dir, o, &sport0)))
		return r;
	n_sports = sport0 ? 1 : 8; /* pinned: that one port; else ECMP spreads 8 */
	if (sport0)
		rl_info("%s: stream %s -> %s pinned across %s: source port %u", s->name, l->from[0],
			l->to, l->across, sport0);
	if (!lab_can(lab, LAB_CAP_ENTER))
		return start_remote_load(lab, s, l, flows, n, pps, ms, n_sports, sport0, logpath, o,
					 lr);
	pid = fork();
	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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
		/* The runner's handlers stay: stop_load's SIGTERM ends the blast, which
		 * still says what it sent. */
		rl_interrupted = 0;
		sent = traffic_blast(lab, flows, n, ROCEV2_UDP_PORT, l->priority << 5, l->size,
				     n_sports, sport0, ms, pps ? pps : 1);
		fprintf(stderr, "load: %zu flows, %llu pps each: %lld datagrams sent\n", n, pps,
			sent);
		_exit(sent < 0 ? 1 : 0);
	}
	if (pid > 0)
		setpgid(pid, pid);
	lr->pid = pid;
	lr->started = now_s();
	return pid < 0 ? -errno : 0;
}

static void stop_load(struct lab *lab, struct load_run *lr)
{
	for (size_t i = 0; i < lr->n_senders; i++)
		lab_stop(lab, &lr->senders[i], 2000);
	lr->n_senders = 0;
	if (lr->pid <= 0)
		return;
	kill(-lr->pid, SIGTERM);
	proc_stop(lr->pid, 2000);
	kill(-lr->pid, SIGKILL);
	lr->pid = 0;
}

/* ---- declared services ----------------------------------------------------------------- */

static void invalid(struct scn_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define SVC_MAX 16 /* services a scenario declares at most (scn_result.svc_sport) */

/*
 * Each declared service's stream: a source port whose traced path crosses
 * (or avoids) its port, or the next free one, then 'rocelab load send' on
 * its host through the lab (the same on the virtual lab and over SSH) at
 * its rate, and at its slowdown's share from then on, until stopped.  false
 * (the scenario invalid) when one cannot be placed or started.
 */
static bool start_services(struct lab *lab, const struct scenario *s, struct scn_result *r,
			   const struct run_opts *o, struct lab_proc *sv)
{
	/* Its rate until its slowdown, then (exec) the rest at its share; or its rate throughout.
	 */
	static const char send[] =
	    "\"$0\" load send -i \"$1\" --host \"$2\" --flows \"$3\" --progress "
	    "--sports 1 --size 1000 --sport \"$4\" --for \"$5\" --pps \"$6\"";
	static const char slow[] = " && exec \"$0\" load send -i \"$1\" --host \"$2\" --flows "
				   "\"$3\" --progress --sports 1 --size 1000 --sport \"$4\" "
				   "--for \"$7\" --pps \"$8\"";
	char script[512];
	long long total = s->baseline_ms + s->fault_ms + s->recovery_ms + 10000;

	for (size_t i = 0; i < s->n_services && i < SVC_MAX; i++) {
		const struct scn_service *x = &s->services[i];
		struct inv_endpoint to;
		char host[72], log[PATH_MAX + 4200], inv_there[PATH_MAX], flows[128], why[400],
		    a[INET_ADDRSTRLEN], sp[8], for1[24], pps1[24], for2[24], pps2[24];
		unsigned long long pps = x->rate_mbps * 1000000ULL / 8 / 1028;
		char *colon;
		int rc;

		snprintf(log, sizeof(log), "%s/service-%s-paths.log", r->dir, x->name);
		r->svc_sport[i] = (uint16_t)(51000 + i);
		if (x->port[0] &&
		    mpr_pin_port(lab, o->self_exe, s->inv, s->inv_path, x->from, x->to, x->port,
				 x->avoids, log, &r->svc_sport[i], why, sizeof(why))) {
			invalid(r, "service %s cannot be made to %s %s: %s", x->name,
				x->avoids ? "avoid" : "cross", x->port, why);
			return false;
		}
		snprintf(host, sizeof(host), "%s", x->from);
		colon = strchr(host, ':');
		*colon = '\0';
		inventory_endpoint(s->inv, x->to, &to, why, sizeof(why));
		inet_ntop(AF_INET, &s->inv->hosts[to.dev].rnics[to.port].addr.addr, a, sizeof(a));
		snprintf(flows, sizeof(flows), "%s:%s", colon + 1, a);
		if ((rc = lab_share(lab, host, s->inv_path, inv_there, sizeof(inv_there)))) {
			invalid(r, "service %s: cannot copy the inventory to %s: %s", x->name, host,
				strerror(-rc));
			return false;
		}
		snprintf(sp, sizeof(sp), "%u", r->svc_sport[i]);
		/* Up to its slowdown (into the fault phase), then the rest at its share. */
		snprintf(for1, sizeof(for1), "%lldms",
			 x->slow_to ? s->baseline_ms + x->slow_at_ms : total);
		snprintf(pps1, sizeof(pps1), "%llu", pps ? pps : 1);
		snprintf(for2, sizeof(for2), "%lldms",
			 x->slow_to ? total - s->baseline_ms - x->slow_at_ms : 1000);
		snprintf(pps2, sizeof(pps2), "%llu",
			 x->slow_to ? (unsigned long long)((double)pps * x->slow_to) + 1 : 1);
		snprintf(log, sizeof(log), "%s/service-%s.log", r->dir, x->name);
		snprintf(script, sizeof(script), "%s%s", x->slow_to ? "" : "exec ", send);
		if (x->slow_to)
			snprintf(script + strlen(script), sizeof(script) - strlen(script), "%s",
				 slow);
		rc = lab_spawn(lab, host,
			       (const char *const[]){"/bin/sh", "-c", script,
						     lab_program(lab, host, o->self_exe), inv_there,
						     host, flows, sp, for1, pps1, for2, pps2, NULL},
			       log, &sv[i]);
		if (rc) {
			invalid(r, "service %s could not start on %s: %s", x->name, host,
				strerror(-rc));
			return false;
		}
		rl_info("%s: service %s: %s -> %s from UDP port %u at %llu Mbit/s%s%s%s", s->name,
			x->name, x->from, x->to, r->svc_sport[i], x->rate_mbps,
			x->port[0] ? (x->avoids ? ", avoiding " : ", across ") : "", x->port,
			x->slow_to ? " (slows down on cue)" : "");
	}
	return true;
}

static void stop_services(struct lab *lab, const struct scenario *s, struct lab_proc *sv)
{
	for (size_t i = 0; i < s->n_services && i < SVC_MAX; i++)
		if (sv[i].pid > 0)
			lab_stop(lab, &sv[i], 2000);
}

/*
 * Of a service's windows a monitor said it was impacted in, not by the
 * network (ws: [start, end, Mbit/s, best Mbit/s] each), those in which its own
 * sender (its "sent" lines in log; 1042 bytes a datagram as the monitor
 * counts it, Ethernet's 14 and IP's 1028) really sent
 * less than the monitor's degraded line, (1 - degrade) of its best: the rig
 * held the sender back, and the monitor saw it right (issue 64: measured
 * conditions are ground truth too).
 */
static long long sender_windows(const json_t *ws, const char *log, double degrade)
{
	long long own = 0;
	size_t i;
	const json_t *w;

	json_array_foreach(ws, i, w)
	{
		double from = json_number_value(json_array_get(w, 0)),
		       to = json_number_value(json_array_get(w, 1)),
		       best = json_number_value(json_array_get(w, 3)),
		       sent = traffic_sent_between(log, 0, from, to);

		if (sent >= 0 && to > from &&
		    sent * 1042 * 8 / (to - from) / 1e6 < (1 - degrade) * best)
			own++;
	}
	return own;
}

/*
 * What a monitor that traces services said of each declared one (its
 * section's "services", by "FROM>TO/SPORT") against what the service
 * expects; the section gains "declared".  false with why when one is not met.
 */
static bool grade_services(const struct scn_result *r, struct comp_result *c, char *why,
			   size_t whylen)
{
	const struct scenario *s = r->s;
	json_t *seen = c->obs.section ? json_object_get(c->obs.section, "services") : NULL,
	       *declared;
	double degrade;
	bool ok = true;

	if (!json_is_object(seen))
		return true; /* a monitor that does not trace services */
	degrade = json_real_value(json_object_get(c->obs.section, "svc_degrade"));
	declared = json_array();
	for (size_t i = 0; i < s->n_services && i < SVC_MAX; i++) {
		const struct scn_service *x = &s->services[i];
		char key[200];
		const json_t *g;
		long long win, imp, net, own;
		bool pass = true;
		char got[160], log[PATH_MAX + 96];

		snprintf(key, sizeof(key), "%s>%s/%u", x->from, x->to, r->svc_sport[i]);
		g = json_object_get(seen, key);
		win = json_integer_value(json_object_get(g, "windows"));
		imp = json_integer_value(json_object_get(g, "impacted"));
		net = json_integer_value(json_object_get(g, "network_related"));
		snprintf(log, sizeof(log), "%s/service-%s.log", r->dir, x->name);
		own = sender_windows(json_object_get(g, "sender_windows"), log, degrade);
		snprintf(got, sizeof(got),
			 "seen in %lld window(s), impacted in %lld (%lld its sender's), network in "
			 "%lld",
			 win, imp, own, net);
		/* expected never impacted: its sender's own slowdowns were right verdicts */
		own = x->want_impacted == 0 ? own : 0;
		imp -= own;
		if (!win)
			pass = x->want_impacted < 0 && x->want_network < 0;
		else if (x->want_network == 1)
			pass = net > 0;
		else if (x->want_network == 0)
			pass = imp > net && net == 0;
		if (x->want_impacted >= 0)
			pass &= x->want_impacted ? imp > 0 : imp == 0;
		json_array_append_new(
		    declared,
		    json_pack("{s:s,s:s,s:s,s:i,s:s?,s:b,s:o,s:o,s:I,s:I,s:I,s:b}", "name", x->name,
			      "from", x->from, "to", x->to, "sport", r->svc_sport[i], "port",
			      x->port[0] ? x->port : NULL, "avoids", x->avoids, "network_related",
			      x->want_network < 0 ? json_null() : json_boolean(x->want_network),
			      "impacted",
			      x->want_impacted < 0 ? json_null() : json_boolean(x->want_impacted),
			      "windows", (json_int_t)win, "windows_impacted",
			      (json_int_t)(imp + own), "windows_network", (json_int_t)net, "pass",
			      pass));
		json_object_set_new(json_array_get(declared, json_array_size(declared) - 1),
				    "windows_sender", json_integer(own));
		if (!pass && ok) {
			snprintf(why, whylen, "service %s: %s (expected %s)", x->name, got,
				 x->want_network == 1	 ? "network-related"
				 : x->want_network == 0	 ? "impacted, not network-related"
				 : x->want_impacted == 0 ? "never impacted"
							 : "impacted");
			ok = false;
		}
	}
	json_object_set_new(c->obs.section, "declared", declared);
	return ok;
}

/* ---- grading ------------------------------------------------------------------------- */

struct comp_times runner_times(const struct scn_result *r)
{
	return (struct comp_times){.t_start = r->t_start,
				   .t_inject = r->t_inject,
				   .t_fault = r->t_fault,
				   .t_revert = r->t_revert,
				   .t_end = r->t_end,
				   .t_stop = r->t_stop,
				   .t_verified = r->t_verified,
				   .t_unapply = r->t_unapply,
				   .t_effect = r->t_load > r->t_fault ? r->t_load : r->t_fault};
}

bool runner_known_blind(const struct scn_result *r)
{
	return r->g.verdict == RV_FAIL && r->s &&
	       (r->s->expect.blind[0] || (r->g.class_known && !r->g.observable));
}

/* Does v, during the fault, say what the component was to find (a cpu-hog's host)? */
static bool finds_the_fault(const struct scn_result *r, const struct scn_expect *e,
			    const struct verdict *v)
{
	return r->t_fault > 0 && v->win[0] < r->t_revert && v->win[1] > r->t_fault &&
	       !strcmp(v->cls, e->cls) && grade_names_truth(v->target, e);
}

void runner_mark_rig(struct scn_result *r)
{
	for (size_t i = 0; i < r->n_comps; i++)
		for (size_t k = 0; k < r->comps[i].obs.n_verdicts; k++) {
			struct verdict *v = &r->comps[i].obs.verdicts[k];

			/*
			 * A lab's own hosts: this machine's pressure says nothing of them.
			 * A fault that is the pressure (a cpu-hog on a host of this
			 * machine) is found by the verdicts it causes: those stay its.
			 */
			v->rig = r->rig_local && !strcmp(v->cls, "host-processing") &&
				 !finds_the_fault(r, &r->comps[i].sc->expect, v) &&
				 rig_pressure(&r->rig, v->win[0], v->win[1]) >= RIG_PRESSURE_BOUND;
		}
}

size_t runner_phases(const struct scn_result *r, const char *name[3], double from[3], double to[3])
{
	name[0] = "baseline", name[1] = "fault", name[2] = "recovery";
	from[0] = r->t_start, from[1] = r->t_fault, from[2] = r->t_revert;
	to[0] = r->t_fault > 0 ? r->t_inject : r->t_stop, to[1] = r->t_revert, to[2] = r->t_stop;
	return r->t_fault > 0 ? 3 : 1;
}

bool runner_rig_limited(const struct scn_result *r, char *why, size_t len)
{
	const char *name[3];
	double from[3], to[3], worst = -1;
	size_t n, at = 0;
	bool own = r->s && r->s->n_loads; /* the fault phase's pressure is the scenario's own */

	if (!r->rig_local)
		return false; /* a lab's own hosts: this machine's pressure says nothing of them */
	for (size_t i = 0; r->s && i < r->s->n_faults; i++)
		own |= r->s->faults[i].spec.kind->loads_cpu;
	n = runner_phases(r, name, from, to);
	for (size_t p = 0; p < n; p++) {
		double v = p == 1 && own ? -1 : rig_pressure(&r->rig, from[p], to[p]);

		if (v > worst)
			worst = v, at = p;
	}
	if (worst < RIG_PRESSURE_BOUND)
		return false;
	snprintf(why, len,
		 "invalid (rig-limited): some task of this machine waited for a CPU %.0f%% of "
		 "the %s phase (bound %.0f%%): the rig's CPU was the limit",
		 worst * 100, name[at], RIG_PRESSURE_BOUND * 100);
	return true;
}

void runner_grade(struct scn_result *r)
{
	struct comp_times t = runner_times(r);
	const struct grade *headline = NULL;
	bool invalid = r->g.verdict == RV_INVALID;
	char svc_why[300], rig_why[200];

	for (size_t i = 0; i < r->n_comps; i++) {
		struct comp_result *c = &r->comps[i];
		const struct scn_component *sc = c->sc;

		struct grade_class gc = {0};
		struct observe *ob = NULL;
		size_t n_pairs;
		ssize_t el = -1;

		/* A monitor is graded against what its probes can tell apart (issue 64). */
		if (r->s && sc->expect.cls[0] && sc->expect.target[0] && sc->ops->probe_pairs &&
		    (ob = component_observe(sc->ops, sc->cfg, r->s->inv, r->s->seed, &n_pairs)) &&
		    (el = observe_element_of(ob, sc->expect.target)) >= 0)
			gc = (struct grade_class){ob, ob->class_of[el]};
		c->g.verdict = invalid ? RV_INVALID : RV_PASS;
		grade_component(&sc->expect, &c->obs, &t, (double)sc->ops->settle_ms(sc->cfg) / 1e3,
				gc.o ? &gc : NULL, &c->g);
		observe_free(ob);
		/*
		 * A failure on a rig measured saturated says nothing of the component:
		 * invalid, never a fail (what it measured stays in its section).  One
		 * expected (known blind, unobservable) stays what it was.
		 */
		if (c->g.verdict == RV_FAIL && c->g.observable && !sc->expect.blind[0] &&
		    runner_rig_limited(r, rig_why, sizeof(rig_why))) {
			char was[sizeof(c->g.reason)];

			snprintf(was, sizeof(was), "%s", c->g.reason);
			snprintf(c->g.reason, sizeof(c->g.reason), "%.200s (measured: %.100s)",
				 rig_why, was);
			c->g.verdict = RV_INVALID;
			if (!invalid) {
				invalid = true;
				r->g.verdict = RV_INVALID;
				snprintf(r->g.reason, sizeof(r->g.reason), "%.24s: %.290s",
					 sc->ops->name, c->g.reason);
			}
		}
		if (c->g.verdict == RV_FAIL && !c->g.observable) {
			/* What no probe crosses, no monitor can be asked to find: a count apart. */
			char why[sizeof(c->g.reason)];

			snprintf(why, sizeof(why), "%s", c->g.reason);
			snprintf(c->g.reason, sizeof(c->g.reason),
				 "unobservable by %.20s (no probe path crosses %.72s): %.180s",
				 sc->ops->name, sc->expect.target, why);
		}
		if (r->s && r->s->n_services && !grade_services(r, c, svc_why, sizeof(svc_why)) &&
		    c->g.verdict == RV_PASS) {
			c->g.verdict = RV_FAIL;
			snprintf(c->g.reason, sizeof(c->g.reason), "%s", svc_why);
		}
		/* The headline: the first component to name a fault and not known blind to it,
		 * else the first to keep silent (a monitor blind to this fault beside one that
		 * finds it does not speak for the scenario). */
		if (!headline && sc->expect.cls[0] && !sc->expect.blind[0])
			headline = &c->g;
	}
	for (size_t i = 0; !headline && i < r->n_comps; i++)
		if (r->comps[i].sc->expect.cls[0] &&
		    !strcmp(r->comps[i].sc->expect.blind, r->s->expect.blind))
			headline = &r->comps[i].g;
	for (size_t i = 0; !headline && i < r->n_comps; i++)
		if (r->comps[i].sc->expect.silent)
			headline = &r->comps[i].g;
	if (!headline && r->n_comps)
		headline = &r->comps[0].g;
	if (headline) {
		char reason[sizeof(r->g.reason)];

		snprintf(reason, sizeof(reason), "%s", r->g.reason);
		r->g = *headline;
		if (invalid) {
			r->g.verdict = RV_INVALID;
			snprintf(r->g.reason, sizeof(r->g.reason), "%s", reason);
		}
	}
	if (invalid)
		return;
	/*
	 * The scenario fails with its first failing component.  One known not to
	 * meet its own expectation today (its expect.known-blind, beside others
	 * that do) stays failed in its section and fails no run.
	 */
	for (size_t i = 0; i < r->n_comps; i++)
		if (r->comps[i].g.verdict == RV_FAIL &&
		    !(r->comps[i].sc->expect.blind[0] &&
		      strcmp(r->comps[i].sc->expect.blind, r->s->expect.blind))) {
			r->g.verdict = RV_FAIL;
			if (r->n_comps > 1)
				snprintf(r->g.reason, sizeof(r->g.reason), "%s: %.280s",
					 r->comps[i].sc->ops->name, r->comps[i].g.reason);
			else
				snprintf(r->g.reason, sizeof(r->g.reason), "%s",
					 r->comps[i].g.reason);
			break;
		}
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

static void invalid(struct scn_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->g.verdict == RV_INVALID)
		return;
	r->g.verdict = RV_INVALID;
	va_start(ap, fmt);
	vsnprintf(r->g.reason, sizeof(r->g.reason), fmt, ap);
	va_end(ap);
}

/* Start every component; false (and r invalid) when one cannot start. */
static bool start_components(struct lab *lab, const struct scenario *s, struct scn_result *r,
			     const struct run_opts *o, char *what, size_t whatlen)
{
	struct comp_shape *shapes = rl_xcalloc(s->n_fabric + 1, sizeof(*shapes));
	struct comp_fault *faults = rl_xcalloc(s->n_faults + s->n_loads + 1, sizeof(*faults));
	struct comp_env env = {
	    .lab = lab,
	    .inv = s->inv,
	    .inv_path = s->inv_path,
	    .self_exe = o->self_exe,
	    .dir = r->dir,
	    .mgmt = o->mgmt,
	    .seed = o->seed,
	    .shapes = shapes,
	    .n_shapes = s->n_fabric,
	    .faults = faults,
	    .n_faults = s->n_faults + s->n_loads,
	};
	size_t len = 0;
	bool ok = true;

	for (size_t i = 0; i < s->n_fabric; i++) {
		snprintf(shapes[i].target, sizeof(shapes[i].target), "%s",
			 s->fabric[i].spec.target);
		shapes[i].rate_kbit = s->fabric[i].spec.rate_kbit;
	}
	for (size_t i = 0; i < s->n_faults; i++) {
		snprintf(faults[i].kind, sizeof(faults[i].kind), "%s",
			 s->faults[i].spec.kind->name);
		snprintf(faults[i].target, sizeof(faults[i].target), "%s",
			 s->faults[i].spec.target);
		faults[i].rate_kbit = s->faults[i].spec.rate_kbit;
	}
	/* A load is ground truth too: where a stream goes across, where an incast goes to. */
	for (size_t i = 0; i < s->n_loads; i++) {
		struct comp_fault *f = &faults[s->n_faults + i];
		const struct scn_load *l = &s->loads[i];

		snprintf(f->kind, sizeof(f->kind), "%s",
			 l->kind == LOAD_STREAM ? "load-stream" : "load-incast");
		snprintf(f->target, sizeof(f->target), "%s",
			 l->kind == LOAD_STREAM ? l->across : l->to);
		f->rate_kbit = l->rate_mbps * 1000;
	}

	what[0] = '\0';
	for (size_t i = 0; i < r->n_comps; i++) {
		struct comp_result *c = &r->comps[i];
		char line[200] = "";
		int e = c->sc->ops->start(&env, c->sc->cfg, &c->state, line, sizeof(line));

		c->started = true;
		if (e) {
			invalid(r, "%s: %s", c->sc->ops->name, line[0] ? line : strerror(-e));
			ok = false;
			break;
		}
		len += (size_t)snprintf(what + len, len < whatlen ? whatlen - len : 0, "%s%s: %s",
					i ? "; " : "", c->sc->ops->name, line);
	}
	free(shapes);
	free(faults);
	return ok;
}

/* Shape the fabric (held for the whole scenario); false (and r invalid) when it could not be. */
static bool start_fabric(const struct scenario *s, struct scn_result *r, struct live_fault *fab,
			 const struct run_opts *o, size_t idx, size_t total)
{
	char log[PATH_MAX + 64];

	snprintf(log, sizeof(log), "%s/fabric.log", r->dir);
	for (size_t i = 0; i < s->n_fabric; i++)
		if (start_fault(o->self_exe, s, &s->fabric[i], log, &fab[i], r, true)) {
			invalid(r,
				"fabric %s %s could not be applied or verified (see %s/fabric.log)",
				s->fabric[i].spec.kind->name, s->fabric[i].spec.target, s->name);
			return false;
		}
	if (s->n_fabric)
		progress(idx, total, s, "fabric: %zu link(s) shaped", s->n_fabric);
	return true;
}

static void end_fabric(const struct scenario *s, struct scn_result *r, struct live_fault *fab)
{
	for (size_t i = 0; i < s->n_fabric; i++)
		if (fab[i].pid && !fab[i].done && end_fault(&fab[i], r))
			invalid(r, "fabric %s %s was not reverted cleanly (run 'rocelab revert')",
				s->fabric[i].spec.kind->name, s->fabric[i].spec.target);
}

static void run_one(struct lab *lab, const struct scenario *s, struct scn_result *r, size_t idx,
		    size_t total, const struct run_opts *o)
{
	char log[PATH_MAX + 64], why[320] = "", what[512];
	struct load_run loads[8] = {0};
	struct lab_proc svc[SVC_MAX] = {0};
	struct live_fault *lf = rl_xcalloc(s->n_faults + 1, sizeof(*lf));
	struct live_fault *fab = rl_xcalloc(s->n_fabric + 1, sizeof(*fab));
	unsigned long long fault_start;
	long long drain = 0;
	bool ok;

	r->t_start = now_s();
	/* The rig, measured while it runs: every host's CPU when every host is this machine. */
	r->rig_local = lab_can(lab, LAB_CAP_ENTER);
	if (rig_start(&r->rig, RIG_INTERVAL_S))
		rl_warn("%s: the rig cannot be measured (no sampler thread)", s->name);
	rl_mkdir_p(r->dir, 0755);
	r->n_comps = s->n_comps;
	r->comps = rl_xcalloc(s->n_comps, sizeof(*r->comps));
	for (size_t i = 0; i < s->n_comps; i++) {
		long long d =
		    s->comps[i].ops->drain_ms ? s->comps[i].ops->drain_ms(s->comps[i].cfg) : 0;

		r->comps[i].sc = &s->comps[i];
		drain = d > drain ? d : drain;
	}
	ok = start_fabric(s, r, fab, o, idx, total) &&
	     start_components(lab, s, r, o, what, sizeof(what)) &&
	     start_services(lab, s, r, o, svc);
	rl_dbg("run: %s: components started in %.2f s", s->name, now_s() - r->t_start);
	if (ok) {
		progress(idx, total, s, "baseline %.1f s (%s)", (double)s->baseline_ms / 1e3, what);
		/* Components need a moment (agents trace their paths) before the baseline counts.
		 */
		ok = wait_ms(s->baseline_ms, r, why, sizeof(why));
	}
	fault_start = rl_now_ns();
	/* A scenario without faults or load still holds its fault phase: time to stay silent in. */
	if (ok)
		progress(idx, total, s, "fault phase %.1f s%s", (double)s->fault_ms / 1e3,
			 s->n_faults + s->n_loads ? "" : " (nothing injected)");
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
				if (start_fault(o->self_exe, s, f, log, &lf[i], r, false)) {
					invalid(r,
						"fault %s %s could not be applied or verified (see "
						"%s/inject.log)",
						f->spec.kind->name, f->spec.target, s->name);
					ok = false;
					break;
				}
				/*
				 * Ground truth starts when the injector had applied it (its
				 * own clock, before verification); an injector that does not
				 * say counts from its start, the conservative end.
				 */
				if (!r->t_fault) {
					r->t_inject = t_apply;
					r->t_fault =
					    lf[i].applied_at > t_apply ? lf[i].applied_at : t_apply;
				}
				/* verified: every fault due at the phase's start is live */
				if (!f->at_ms || !r->t_verified)
					r->t_verified = now_s();
				progress(idx, total, s, "%s %s applied: %s", f->spec.kind->name,
					 f->spec.target, r->evidence);
			}
			if (lf[i].pid && !lf[i].done && t >= end) {
				if (!r->t_unapply)
					r->t_unapply = now_s();
				if (end_fault(&lf[i], r))
					invalid(
					    r,
					    "fault %s %s was not reverted cleanly (run 'rocelab "
					    "revert')",
					    f->spec.kind->name, f->spec.target);
				r->t_revert = now_s();
				progress(idx, total, s, "%s %s reverted", f->spec.kind->name,
					 f->spec.target);
			}
			pending |= !lf[i].done;
		}
		/*
		 * The load starts once the faults due at the phase start are applied:
		 * it is what makes them show.  Started before, its own CPU cost on a
		 * busy 2-core machine slowed probes while the injector was still
		 * logging in, and that window graded as a baseline false positive.
		 */
		for (size_t l = 0; ok && !loads_started && l < s->n_loads && l < ARRAY_SIZE(loads);
		     l++) {
			if (start_load(lab, s, &s->loads[l], s->fault_ms - t, r->dir, o, &loads[l]))
				rl_warn("%s: load %zu could not start (see %s/load.log)", s->name,
					l, r->dir);
			/*
			 * Without a fault, the load is what the fault phase is about, from
			 * when it started (after a pinned stream's trace, not before).
			 */
			else if (!s->n_faults && !r->t_fault)
				r->t_inject = r->t_fault = now_s();
			/*
			 * With one, the load is what reveals it: ground truth is when both
			 * are live, as measured (its first sender running).  Over SSH the
			 * load's senders ran 5-8 s after the fault was applied here;
			 * counting detection from the fault alone graded the rig.
			 */
			else if (!r->t_load || loads[l].started < r->t_load)
				r->t_load = loads[l].started;
		}
		loads_started = true;
		if (!pending && t >= s->fault_ms)
			break;
		if (!wait_ms(100, r, why, sizeof(why)))
			ok = false;
	}
	/* Whatever happened: every fault reverts, the load stops. */
	for (size_t i = 0; i < s->n_faults; i++)
		if (lf[i].pid && !lf[i].done) {
			if (!r->t_unapply)
				r->t_unapply = now_s();
			end_fault(&lf[i], r);
			r->t_revert = now_s();
		}
	for (size_t l = 0; l < ARRAY_SIZE(loads); l++)
		stop_load(lab, &loads[l]);
	if (!s->n_faults && r->t_fault)
		r->t_revert = now_s();
	if (r->drift[0])
		rl_warn("%s: not as found after the revert (drift): %s", s->name, r->drift);
	if (ok) {
		progress(idx, total, s, "recovery %.1f s", (double)s->recovery_ms / 1e3);
		ok = wait_ms(s->recovery_ms, r, why, sizeof(why));
	}
	/* Services end before the monitors do: a flow idle for a moment has ended, not slowed. */
	stop_services(lab, s, svc);
	if (ok)
		ok = wait_ms(s->n_services && drain < 1200 ? 1200 : drain, r, why, sizeof(why));
	r->t_stop = now_s();
	for (size_t i = 0; i < r->n_comps; i++)
		if (r->comps[i].started)
			r->comps[i].sc->ops->stop(r->comps[i].state);
	r->t_end = now_s();
	rig_stop(&r->rig);
	rl_dbg("run: %s: components stopped in %.2f s", s->name, r->t_end - r->t_stop);
	{
		struct comp_times ct = runner_times(r);

		for (size_t i = 0; i < r->n_comps; i++)
			if (r->comps[i].started) {
				r->comps[i].sc->ops->collect(r->comps[i].state, &ct,
							     &r->comps[i].obs);
				if (r->comps[i].obs.invalid[0])
					invalid(r, "%s: %s", r->comps[i].sc->ops->name,
						r->comps[i].obs.invalid);
			}
	}
	end_fabric(s, r, fab);
	if (!ok)
		invalid(r, "%s", why);
	runner_mark_rig(r);
	runner_grade(r);
	if (r->g.verdict == RV_PASS)
		progress(idx, total, s, "PASS%s%s%s%s%s%s", r->g.detected ? " (" : "",
			 r->g.detected ? r->g.got_class : "", r->g.detected ? " " : "",
			 r->g.detected ? r->g.got_target : "", r->g.detected ? ")" : "",
			 r->attempts ? ", on a later run: flaky" : "");
	else
		progress(idx, total, s, "%s: %s", run_verdict_name(r->g.verdict), r->g.reason);
	if (r->g.detected) {
		char prec[96] = "";

		if (r->g.precision >= 0)
			snprintf(prec, sizeof(prec),
				 ", precision %.2f (%d incident(s) during the fault, %d right)",
				 r->g.precision, r->g.incidents, r->g.incidents_right);
		fprintf(stderr,
			"run: [%zu/%zu] %s: detected after %.1f s, rank %d%s, %d false "
			"positive(s)\n",
			idx + 1, total, s->name, r->g.time_to_detect_s, r->g.rank, prec,
			r->g.false_positives);
	}
	free(lf);
	free(fab);
}

void runner_result_free(struct scn_result *r)
{
	for (size_t i = 0; i < r->n_comps; i++) {
		struct comp_result *c = &r->comps[i];

		if (c->started && c->sc->ops->release)
			c->sc->ops->release(c->state);
		comp_obs_clear(&c->obs);
	}
	free(r->comps);
	r->comps = NULL;
	r->n_comps = 0;
	rig_free(&r->rig);
}

/* The lab as its inventory says: RNICs up, addressed and routed; every link up at its switches. */
static int lab_fit(struct lab *lab, const char *when, char *why, size_t whylen)
{
	char more[512];
	int r = lab_health(lab, when, why, whylen);
	int k = links_check(lab, when, r ? more : why, r ? sizeof(more) : whylen);

	return r ? r : k;
}

int runner_recover(struct lab *lab, const char *self, const char *inv_path, const char *when,
		   char *why, size_t whylen)
{
	int r;

	fprintf(stderr, "%s: --recover: reverting the journal ('rocelab revert -i %s')\n", when,
		inv_path);
	r = proc_run((const char *const[]){self, "revert", "-i", inv_path, NULL}, NULL, NULL);
	if (r)
		rl_err("%s: rocelab revert exited %d", when, r);
	if (lab_fit(lab, when, why, whylen))
		return -EHOSTUNREACH;
	fprintf(stderr, "%s: the lab is as its inventory says again\n", when);
	return 0;
}

/*
 * After a scenario: is the lab still as its inventory says?  If not, the
 * scenario is invalid; with --recover the journal is reverted and the lab
 * checked again.  Returns false when the lab is not fit for more scenarios
 * (why says what was found).
 */
static bool postflight(struct lab *lab, const struct scenario *s, struct scn_result *r,
		       const struct run_opts *o, char *why, size_t whylen)
{
	char again[512];

	if (!lab_fit(lab, "post-flight", why, whylen))
		return true;
	invalid(r, "%s", why);
	/* Already invalid for another reason (invalid() kept it): the lab's state is added. */
	if (strcmp(r->g.reason, why))
		snprintf(r->g.reason + strlen(r->g.reason),
			 sizeof(r->g.reason) - strlen(r->g.reason), "; %s", why);
	if (!o->recover)
		return false;
	if (runner_recover(lab, o->self_exe, s->inv_path, "post-flight", again, sizeof(again))) {
		snprintf(why, whylen, "%.400s (still after --recover)", again);
		return false;
	}
	return true;
}

/*
 * --retries: a scenario that failed (not one known blind or invalid, on a
 * lab still fit) runs again.  Its failed run's files are kept beside the
 * next run's, in DIR.attemptN, and its reason in r; then r is made ready
 * for the next run.  False: no more runs.
 */
static bool retry(struct scn_result *r, size_t idx, size_t total, const struct run_opts *o,
		  const char *unfit)
{
	char kept[sizeof(r->dir) + 32];
	struct scn_result next = {0};
	int a = r->attempts;

	if (r->g.verdict != RV_FAIL || runner_known_blind(r) || a > o->retries || unfit[0] ||
	    rl_interrupted || a > (int)ARRAY_SIZE(r->failed_reason))
		return false;
	snprintf(kept, sizeof(kept), RUNNER_KEPT, r->dir, a);
	if (rename(r->dir, kept)) {
		rl_err("run: %s: cannot keep its failed run as %s (%s); not running it again",
		       r->test_name, kept, strerror(errno));
		return false;
	}
	progress(idx, total, r->s,
		 "failed (run %d of up to %d): running it again (--retries %d); "
		 "that run's files are in %s",
		 a, o->retries + 1, o->retries, kept);
	next.s = r->s;
	next.attempts = a;
	next.g.time_to_detect_s = -1;
	memcpy(next.failed_reason, r->failed_reason, sizeof(next.failed_reason));
	snprintf(next.failed_reason[a - 1], sizeof(next.failed_reason[a - 1]), "%s", r->g.reason);
	snprintf(next.test_name, sizeof(next.test_name), "%s", r->test_name);
	snprintf(next.dir, sizeof(next.dir), "%s", r->dir);
	runner_result_free(r);
	*r = next;
	return true;
}

void runner_run(struct lab *lab, struct scenario *const *sc, size_t n, const struct run_opts *o,
		const struct run_info *ri, const struct run_sink *sink, struct scn_result *res)
{
	char unfit[512] = "", why[512];

	for (size_t i = 0; i < n; i++) {
		res[i].s = sc[i];
		res[i].g.time_to_detect_s = -1;
		if (rl_interrupted || unfit[0]) {
			res[i].g.verdict = RV_INVALID;
			snprintf(res[i].g.reason, sizeof(res[i].g.reason), "not run: %s",
				 rl_interrupted ? "interrupted" : unfit);
			continue;
		}
		double t;

		for (;;) {
			run_one(lab, sc[i], &res[i], i, n, o);
			res[i].attempts++;
			t = now_s();
			if (o->postflight && !rl_interrupted &&
			    !postflight(lab, sc[i], &res[i], o, why, sizeof(why))) {
				snprintf(unfit, sizeof(unfit), "%s", why);
				if (i + 1 < n)
					rl_err(
					    "run: the lab failed post-flight checks; the remaining "
					    "%zu scenario(s) are not run%s",
					    n - i - 1,
					    o->recover ? ""
						       : " (--recover reverts the journal first)");
			}
			rl_dbg("run: %s: graded at +%.2f s, post-flight in %.2f s", sc[i]->name,
			       t - res[i].t_end, now_s() - t);
			if (!retry(&res[i], i, n, o, unfit))
				break;
		}
		t = now_s();
		if (sink && sink->scenario_done)
			sink->scenario_done(ri, &res[i]);
		rl_dbg("run: %s: its results and report written in %.2f s", sc[i]->name,
		       now_s() - t);
	}
}

/* ---- the command ---------------------------------------------------------------------- */

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
static int dry_run(const struct scenario *s)
{
	struct topo *topo = topo_build(s->inv, false, NULL);
	char a[32], b[32], c[32], why[256];
	int ret = 0;

	printf("scenario %s (%s) on lab %s (%s)\n", s->name, s->path, s->inv->name, s->inv_path);
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
	for (size_t i = 0; i < s->n_fabric + s->n_faults; i++) {
		bool fab = i < s->n_fabric;
		const struct scn_fault *f = fab ? &s->fabric[i] : &s->faults[i - s->n_fabric];
		struct fault_plan plan;
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
		/* Table names get the journal's ids when the faults are applied. */
		if (fault_plan_build(s->inv, topo, &f->spec, (unsigned)i + 1, &plan, why,
				     sizeof(why))) {
			printf("    cannot be planned: %s\n", why);
			ret = -EOPNOTSUPP;
			continue;
		}
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

		if (l->kind == LOAD_INCAST) {
			printf("  load incast to %s at %llu Mbit/s, priority %d, from", l->to,
			       l->rate_mbps, l->priority);
			for (size_t k = 0; k < l->n_from; k++)
				printf("%s %s", k ? "," : "", l->from[k]);
			putchar('\n');
		} else
			printf("  load stream across %s at %llu Mbit/s, priority %d\n", l->across,
			       l->rate_mbps, l->priority);
	}
	if (s->expect.silent)
		printf("  expect: no verdict at all\n");
	else if (s->expect.cls[0] || !s->expect.n_metrics)
		printf(
		    "  expect: %s on %s within %s, in the top %d, at most %d false positive(s)\n",
		    s->expect.cls[0] ? s->expect.cls : "a verdict", s->expect.target,
		    rl_format_duration_ms(s->expect.within_ms, a, sizeof(a)), s->expect.top_k,
		    s->expect.max_false_positives);
	for (size_t i = 0; i < s->expect.n_metrics; i++)
		printf("  expect: %s %s\n", s->expect.metrics[i].name, s->expect.metrics[i].text);
	topo_free(topo);
	return ret;
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
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *inv_override = NULL, *outdir = NULL;
	char builtin[PATH_MAX], self_exe[PATH_MAX], out[3072]; /* + /<name> in a result's dir */
	struct scenario **sc;
	struct scn_result *res;
	struct run_info ri = {.version = ROCELAB_VERSION};
	struct run_opts ro = {.self_exe = self_exe};
	struct lab lab;
	bool keep = false, started_lab = false, dry = false, recover = false;
	int retries = 0;
	char why[512];
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
	while ((o = getopt_long(argc, argv, ":i:o:nvh", lo, NULL)) != -1) {
		switch (o) {
		case 'i':
			inv_override = optarg;
			break;
		case 'n':
			dry = true;
			break;
		case 'r':
			recover = true;
			break;
		case 'R': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 3)
				return rl_usage_error("run", "--retries '%s': give 0 to 3", optarg);
			retries = (int)v;
			break;
		}
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
		case 'D':
			ri.db = optarg;
			break;
		case 'B':
			ri.baseline = optarg;
			break;
		case 'H':
			ri.no_history = true;
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
	first = optind;
	ro.seed = seed;
	sc = rl_xcalloc(n, sizeof(*sc));
	lab_builtin_inventory(builtin, sizeof(builtin));
	/* Everything is validated before anything is touched. */
	for (size_t i = 0, one = SIZE_MAX; i < n; i++) {
		sc[i] = scenario_load(argv[first + (int)i], inv_override, builtin, seed, stderr);
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
	if (ri.baseline && ri.no_history) {
		ret =
		    rl_usage_error("run", "--baseline compares through the run history: leave out "
					  "--no-history");
		goto free_sc;
	}
	if (dry) {
		for (size_t i = 0; i < n; i++)
			if (dry_run(sc[i]))
				ret = RL_EXIT_SETUP;
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
	ri.started = now_s();
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
	ro.recover = recover;
	ro.retries = retries;
	if ((lab_preflight(&lab, self_exe) || links_check(&lab, "pre-flight", why, sizeof(why))) &&
	    (!recover ||
	     runner_recover(&lab, self_exe, sc[0]->inv_path, "pre-flight", why, sizeof(why)))) {
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
		double t = now_s();

		ri.dut =
		    lab_dut(&lab); /* what this run tests: kernels, NIC firmware, NOS versions */
		rl_dbg("run: devices under test read in %.2f s", now_s() - t);
	}
	ri.outdir = outdir;
	ri.lab_kind = lab.ops->name;
	ri.clock = lab.clock;
	ri.seed = seed;
	for (size_t i = 0; i < n; i++) {
		snprintf(res[i].test_name, sizeof(res[i].test_name), "%s", sc[i]->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(res[j].test_name, res[i].test_name))
				snprintf(res[i].test_name, sizeof(res[i].test_name), "%s#%zu",
					 sc[i]->name, i + 1);
		snprintf(res[i].dir, sizeof(res[i].dir), "%s/%s", outdir, res[i].test_name);
	}
	runner_run(&lab, sc, n, &ro, &ri, sink, res);
	ri.ended = now_s();
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
			"run: %zu passed%s, %zu failed, %zu invalid, %zu known blind (skipped); "
			"results in %s/results.json, %s/junit.xml\n",
			pass, flaky_s, fail, inval, blind, outdir, outdir);
		if (!ret)
			ret = fail ? RL_EXIT_FAIL : inval ? RL_EXIT_SETUP : RL_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++)
		runner_result_free(&res[i]);
	free(res);
	json_decref(ri.dut);
	lab_close(&lab);
	state_run_unlock();
	if (!keep && lab_release(started_lab) && !ret)
		ret = RL_EXIT_SETUP;
free_sc:
	for (size_t i = 0; i < n; i++)
		scenario_free(sc[i]);
	free(sc);
	return ret;
}
