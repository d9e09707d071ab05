// SPDX-License-Identifier: MIT
/*
 * rocelab run: for each scenario, bring the lab up when needed, start its
 * components under test (registry.c), run baseline, inject and verify the
 * faults (each through 'rocelab inject --handoff - --cue', handed over typed,
 * so every fault is journaled and reverted by the same code path as the CLI,
 * and by its injector when a run is killed with -9), run the fault phase with
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
#include "injectors/cmd/handoff.h"
#include "injectors/cmd/inject.h"
#include "injectors/nos/links.h"
#include "probe/observe.h"
#include "transport/dp/rcload.h"
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
	int out, in; /* its stdout, and its stdin until the cue (-1 after) */
	bool cued, applied, done;
	bool line_read;	   /* its verdict line read (cue_fault()) */
	double applied_at; /* wall time the injector reported it applied, 0: not said */
	long long late_ms; /* how long after its cue it was live: its end moves by as much */
	int status;
	char line[2048];
};

/* The first line of lf->out (its newline kept) into lf->line, waiting up to ms; its length. */
static size_t read_line(struct live_fault *lf, int ms)
{
	size_t len = 0;

	lf->line[0] = '\0';
	for (int waited = 0; waited < ms && !rl_interrupted && len < sizeof(lf->line) - 1;) {
		struct pollfd pf = {.fd = lf->out, .events = POLLIN};
		ssize_t k;

		if (poll(&pf, 1, 100) <= 0) {
			waited += 100;
			continue;
		}
		/* a byte at a time: what follows the line is the next read's */
		k = read(lf->out, lf->line + len, 1);
		if (k <= 0)
			break;
		lf->line[++len] = '\0';
		if (lf->line[len - 1] == '\n')
			break;
	}
	return len;
}

/* How long a fault is held from when it is live: its 'for', or to the phase's end. */
static long long fault_hold_ms(const struct scenario *s, const struct scn_fault *f)
{
	return f->for_ms ? f->for_ms : s->fault_ms - f->at_ms;
}

/*
 * Start 'rocelab inject --handoff - --cue -j', hand it the fault typed on its
 * standard input (handoff.h) held, hold_ms the time the run will hold it from
 * when it is live (0: the run's whole length), and wait (up to 60 s) for it to say it is ready:
 * started, the inventory read, the devices logged into.  Nothing is applied
 * until cue_fault().  Prepared before the baseline, so that the fault phase's
 * start holds the fault and not an injector starting up (issue 64: on a busy
 * machine that start-up made host-processing verdicts at the boundary).
 */
static int prepare_fault(const char *self_exe, const struct scenario *s, const struct scn_fault *f,
			 long long hold_ms, const char *logpath, struct live_fault *lf)
{
	const char *argv[] = {self_exe, "inject", "--handoff", "-", "--cue",
			      "-j",	"-i",	  s->inv_path, NULL};
	struct fault_spec held = f->spec;
	char *handoff;
	int p[2], in[2], logfd;
	pid_t parent;

	lf->in = lf->out = -1;
	held.hold = true; /* the run ends it (SIGTERM), and a run killed with -9 too */
	held.for_ms = 0;
	held.hold_ms = hold_ms; /* how long after it was live the run ends it (run_one()) */
	if (!(handoff = fault_handoff_write(&held)))
		return -E2BIG;
	if (pipe2(p, O_CLOEXEC) < 0 || pipe2(in, O_CLOEXEC) < 0) {
		free(handoff);
		return -errno;
	}
	logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	parent = getpid();
	lf->pid = fork();
	if (lf->pid == 0) {
		/* A run killed with -9: the injector gets SIGTERM and reverts its fault. */
		proc_tie_to_parent(parent);
		dup2(in[0], STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		if (logfd >= 0)
			dup2(logfd, STDERR_FILENO);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(self_exe, (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(p[1]);
	if (logfd >= 0)
		close(logfd);
	if (lf->pid < 0) {
		close(in[1]);
		close(p[0]);
		free(handoff);
		return -errno;
	}
	/* One line, well under a pipe's buffer: written whole. */
	if (write(in[1], handoff, strlen(handoff)) != (ssize_t)strlen(handoff))
		rl_warn("the handoff to the injector of %s was cut short", f->spec.target);
	free(handoff);
	lf->in = in[1];
	lf->out = p[0];
	return 0;
}

/* A started injector's first line: "ready" (up to 60 s), or -EIO. */
static int fault_ready(struct live_fault *lf)
{
	read_line(lf, 60000);
	return strcmp(lf->line, "ready\n") ? -EIO : 0;
}

/* Cue a prepared injector: "go" (its verdict is cue_fault()'s to read). */
static void cue_send(struct live_fault *lf)
{
	lf->cued = true;
	if (write(lf->in, "go\n", 3) != 3)
		rl_warn("the cue to an injector was not written: %s", strerror(errno));
	close(lf->in);
	lf->in = -1;
}

/* Cue a prepared injector ("go", unless cue_send() did), and wait (up to 60 s) for its verdict. */
static int cue_fault(struct live_fault *lf, struct scn_result *r, bool fabric)
{
	struct fault_outcome o = {0};

	if (!lf->cued)
		cue_send(lf);
	/* Apply + verify can take a while (the PFC check runs an incast): up to 60 s. */
	read_line(lf, 60000);
	if (!fault_outcome_read(lf->line, &o)) {
		lf->applied = !strcmp(o.outcome, "applied");
		lf->applied_at = o.applied_at;
		if (o.evidence[0] && !fabric)
			snprintf(r->evidence + strlen(r->evidence),
				 sizeof(r->evidence) - strlen(r->evidence), "%s%s",
				 r->evidence[0] ? "; " : "", o.evidence);
		/* A note says what was emulated only when the injector says it was. */
		if (o.note[0] && !fabric && o.emulated) {
			snprintf(r->note, sizeof(r->note), "%s", o.note);
			r->emulated = true;
		}
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
	if (lf->in >= 0) { /* never cued: it exits with nothing applied */
		close(lf->in);
		lf->in = -1;
	}
	lf->status = proc_stop(lf->pid, 60000);
	lf->done = true;
	while ((k = read(lf->out, buf, sizeof(buf))) > 0) /* it has exited: up to EOF */
		sb_add(&rest, buf, (size_t)k);
	sb_add(&rest, "", 1);
	close(lf->out);
	for (char *l = rest.p, *nl; *l; l = nl + 1) {
		struct fault_outcome o = {0};
		json_t *c;

		if (!(nl = strchr(l, '\n')))
			break;
		*nl = '\0';
		if ((c = fault_counters_read(l))) {
			if (!r->counters)
				r->counters = json_array();
			json_array_append_new(r->counters, c);
			continue;
		}
		if ((c = fault_measured_read(l))) {
			if (!r->measured)
				r->measured = json_array();
			json_array_append_new(r->measured, c);
			continue;
		}
		if (fault_outcome_read(l, &o))
			continue;
		if (o.drift[0])
			snprintf(r->drift + strlen(r->drift), sizeof(r->drift) - strlen(r->drift),
				 "%s%s", r->drift[0] ? "; " : "", o.drift);
		if (o.short_of[0] && !r->short_of[0])
			snprintf(r->short_of, sizeof(r->short_of), "%s", o.short_of);
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
	struct lab_proc server; /* an RC load's receiver ('rocelab load rc --serve') */
	bool serving;
	double started; /* its first sender was running (CLOCK_REALTIME s) */
	/* an incast across a port: each sender's source ports whose traced paths cross it */
	uint16_t pin[ARRAY_SIZE(((struct scn_load *)0)->from)][FLOW_PINS];
	unsigned n_pin[ARRAY_SIZE(((struct scn_load *)0)->from)];
};

/* The flows of load l (an incast's pinned as lr was placed). */
static size_t load_flows(const struct scenario *s, const struct scn_load *l,
			 const struct load_run *lr, struct flow *flows, size_t max)
{
	size_t n = 0;
	char msg[160];

	if (l->kind == LOAD_INCAST) {
		struct inv_endpoint to;

		inventory_endpoint(s->inv, l->to, &to, msg, sizeof(msg));
		for (size_t i = 0; i < l->n_from && n < max; i++) {
			inventory_endpoint(s->inv, l->from[i], &flows[n].src, msg, sizeof(msg));
			memcpy(flows[n].pin, lr->pin[i], sizeof(flows[n].pin));
			flows[n].n_pin = lr->n_pin[i];
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
		struct host_send hs = {.prog = lab_program(lab, host, o->self_exe),
				       .inv_there = inv_there,
				       .ms = ms,
				       .pps = pps ? pps : 1,
				       /* a DSCP of its own, 0 too: priority 0's class selector */
				       .priority = l->dscp == 0 ? 0 : l->priority,
				       .dscp = l->dscp > 0 ? l->dscp : 0,
				       .size = l->size,
				       .n_sports = n_sports,
				       .sport0 = sport0,
				       .progress = true};
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
			lr->started =
			    runner_now_s(); /* the effect can show from the first one on */
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

static void invalid(struct scn_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Whether the RNIC at endpoint name has an RDMA device: a link on its netdev (or its inventory
 * ibdev's) in its host's 'rdma -j link show', asked once a host (links[h], NULL until then);
 * false with why.
 */
static bool rdma_device(struct lab *lab, const struct scenario *s, const char *name, json_t **links,
			char *why, size_t len)
{
	static const char *const argv[] = {"rdma", "-j", "link", "show", NULL};
	struct inv_endpoint ep;
	const struct inv_rnic *rn;
	char err[300];
	json_t *v;
	size_t i;

	if (inventory_endpoint(s->inv, name, &ep, err, sizeof(err)) || ep.kind != INV_DEV_HOST) {
		snprintf(why, len, "%s: %.200s", name, err);
		return false;
	}
	rn = &s->inv->hosts[ep.dev].rnics[ep.port];
	if (!links[ep.dev] && !(links[ep.dev] = lab_exec_json(lab, s->inv->hosts[ep.dev].name, argv,
							      err, sizeof(err)))) {
		snprintf(why, len, "%s has no RDMA device ('rdma link show' there: %.200s)", name,
			 err);
		return false;
	}
	json_array_foreach(links[ep.dev], i, v)
	{
		const char *nd = json_string_value(json_object_get(v, "netdev"));
		const char *ifn = json_string_value(json_object_get(v, "ifname"));
		size_t dl = strlen(rn->ibdev);

		if ((nd && !strcmp(nd, rn->netdev)) ||
		    (dl && ifn && !strncmp(ifn, rn->ibdev, dl) && ifn[dl] == '/'))
			return true;
	}
	snprintf(why, len, "%s has no RDMA device ('rdma link show' lists none on %s)", name,
		 rn->netdev);
	return false;
}

/* An RC load's every RNIC has an RDMA device; r invalid (before anything ran) when one has none. */
static bool rc_load_devices(struct lab *lab, const struct scenario *s, const struct scn_load *ld,
			    struct scn_result *r)
{
	json_t **links = rl_xcalloc(s->inv->n_hosts, sizeof(*links));
	char why[400];
	bool ok = true;

	for (size_t i = 0; ok && i <= ld->n_from; i++)
		if (!(ok = rdma_device(lab, s, i ? ld->from[i - 1] : ld->to, links, why,
				       sizeof(why))))
			invalid(r, "the RC WRITE incast to %s cannot run: %s", ld->to, why);
	for (size_t h = 0; h < s->inv->n_hosts; h++)
		json_decref(links[h]);
	free(links);
	return ok;
}

/*
 * An incast across a port: before the components start, each sender's source
 * ports whose paths cross it, from one trace of 64 by 'rocelab transport
 * paths' a sender (kept as load-paths-N.log), up to FLOW_PINS of them.  Left
 * to ECMP, which of the senders' 8 ports crossed it changed with the boot
 * (kernels before 6.11 draw their hash key at boot): in the VM tier, a boot
 * put a third of verbs-ecn-misconfig's incast on the port, which then never
 * queued, and the scenario failed.  false (and r invalid) when a sender has
 * none.  An RC load needs an RDMA device on each of its RNICs, found first.
 */
static bool place_loads(struct lab *lab, const struct scenario *s, struct scn_result *r,
			const struct run_opts *o, struct load_run *loads, size_t n_loads)
{
	for (size_t l = 0; l < s->n_loads && l < n_loads; l++) {
		const struct scn_load *ld = &s->loads[l];

		if (ld->rc && !rc_load_devices(lab, s, ld, r))
			return false;
		if (ld->kind != LOAD_INCAST || !ld->across[0])
			continue;
		for (size_t i = 0; i < ld->n_from; i++) {
			char log[PATH_MAX + 64], why[400];
			int n;

			snprintf(log, sizeof(log), "%s/load-paths-%zu.log", r->dir, i + 1);
			n = mpr_pin_ports(lab, o->self_exe, s->inv, s->inv_path, ld->from[i],
					  ld->to, ld->across, false, log, loads[l].pin[i],
					  FLOW_PINS, why, sizeof(why));
			if (n < 0) {
				invalid(r, "the incast %s -> %s cannot be placed across %s: %s",
					ld->from[i], ld->to, ld->across, why);
				return false;
			}
			loads[l].n_pin[i] = (unsigned)n;
			rl_info("%s: incast %s -> %s across %s: %d source port(s) from %u", s->name,
				ld->from[i], ld->to, ld->across, n, loads[l].pin[i][0]);
		}
	}
	return true;
}

/* Load i's log: load.log for the first, load-N.log for the N-th after it. */
static void load_log(const char *dir, size_t i, char *buf, size_t len)
{
	if (i)
		snprintf(buf, len, "%s/load-%zu.log", dir, i + 1);
	else
		snprintf(buf, len, "%s/load.log", dir);
}

/*
 * One end of RC load li on host h: 'rocelab load rc' there with what both ends share (the
 * inventory, the host, the class, the exchange's port), then extra (NULL-terminated).
 */
static int spawn_rc_end(struct lab *lab, const struct scenario *s, size_t li, size_t h,
			const struct run_opts *o, const char *const extra[], const char *log,
			struct lab_proc *p)
{
	const struct scn_load *l = &s->loads[li];
	const char *host = s->inv->hosts[h].name, *argv[32];
	char inv_there[PATH_MAX], prio[8], dscp[8], port[8];
	size_t n = 0;
	int r;

	if ((r = lab_share(lab, host, s->inv_path, inv_there, sizeof(inv_there))))
		return r;
	snprintf(prio, sizeof(prio), "%d", l->priority);
	snprintf(dscp, sizeof(dscp), "%d", l->dscp >= 0 ? l->dscp : l->priority << 3);
	snprintf(port, sizeof(port), "%zu", (size_t)RCL_PORT + li);
	const char *head[] = {lab_program(lab, host, o->self_exe),
			      "load",
			      "rc",
			      "-i",
			      inv_there,
			      "--host",
			      host,
			      "--priority",
			      prio,
			      "--dscp",
			      dscp,
			      "--port",
			      port};
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		argv[n++] = head[i];
	for (size_t i = 0; extra[i] && n + 1 < ARRAY_SIZE(argv); i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	return lab_spawn(lab, host, argv, log, p);
}

/*
 * An RC load (transport: rc): 'rocelab load rc --serve' on the receiving RNIC's host, then on
 * each sending host 'rocelab load rc' with its flows, through the lab (the same on the virtual
 * lab and over SSH), each sender's lines in the log beside logpath (.HOST) as a UDP load's over
 * SSH.  The senders retry the exchange while the receiver starts.  Load li's exchange is on TCP
 * RCL_PORT + li at the receiver.
 */
static int start_rc_load(struct lab *lab, const struct scenario *s, size_t li,
			 const struct flow *flows, size_t n, unsigned long long pps, long long ms,
			 const char *logpath, const struct run_opts *o, struct load_run *lr)
{
	const struct scn_load *l = &s->loads[li];
	struct inv_endpoint to;
	char msg[160], log[PATH_MAX + 80], dur[24], rate[24], size[16];
	int r;

	if (inventory_endpoint(s->inv, l->to, &to, msg, sizeof(msg)) || to.kind != INV_DEV_HOST)
		return -EINVAL;
	snprintf(dur, sizeof(dur), "%lldms", ms + 5000); /* the receiver outlives its senders */
	const char *serve[] = {"--serve", "--rnic", s->inv->hosts[to.dev].rnics[to.port].name,
			       "--for",	  dur,	    NULL};
	snprintf(log, sizeof(log), "%.4000s.serve", logpath);
	if ((r = spawn_rc_end(lab, s, li, to.dev, o, serve, log, &lr->server)))
		return r;
	lr->serving = true;
	snprintf(dur, sizeof(dur), "%lldms", ms);
	snprintf(rate, sizeof(rate), "%llu", pps ? pps : 1);
	snprintf(size, sizeof(size), "%d", l->size);
	for (size_t h = 0; h < s->inv->n_hosts && lr->n_senders < ARRAY_SIZE(lr->senders); h++) {
		char list[2048] = "";
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			char addr[INET_ADDRSTRLEN];

			if (flows[i].src.dev != h)
				continue;
			inet_ntop(AF_INET, &flows[i].dst, addr, sizeof(addr));
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s:%s", k ? "," : "",
					      s->inv->hosts[h].rnics[flows[i].src.port].name, addr);
			if (k >= sizeof(list))
				return -E2BIG;
		}
		if (!k)
			continue;
		const char *send[] = {"--flows", list,	   "--for", dur,	  "--pps",
				      rate,	 "--size", size,    "--progress", NULL};
		snprintf(log, sizeof(log), "%.4000s.%s", logpath, s->inv->hosts[h].name);
		if ((r = spawn_rc_end(lab, s, li, h, o, send, log, &lr->senders[lr->n_senders])))
			return r;
		if (!lr->n_senders++)
			lr->started = runner_now_s();
	}
	return 0;
}

static int start_load(struct lab *lab, const struct scenario *s, size_t li, long long ms,
		      const char *dir, const struct run_opts *o, struct load_run *lr)
{
	const struct scn_load *l = &s->loads[li];
	struct flow flows[256] = {0};
	size_t n = load_flows(s, l, lr, flows, ARRAY_SIZE(flows));
	/* pps per flow from the total rate: bits / (8 * (payload + 28 bytes of headers)) */
	unsigned long long pps =
	    n ? l->rate_mbps * 1000000ULL / 8 / (unsigned)(l->size + 28) / n : 0;
	char logpath[PATH_MAX + 32];
	uint16_t sport0 = 0;
	int n_sports, r;
	pid_t pid;

	if (!n)
		return -ENOENT;
	load_log(dir, li, logpath, sizeof(logpath));
	if (l->rc)
		return start_rc_load(lab, s, li, flows, n, pps, ms, logpath, o, lr);
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
		traffic_blast_progress(fd); /* what it sent, every 100 ms: runner_load_sent() */
		/* The runner's handlers stay: stop_load's SIGTERM ends the blast, which
		 * still says what it sent. */
		rl_interrupted = 0;
		sent = traffic_blast(lab, flows, n, ROCEV2_UDP_PORT,
				     l->dscp >= 0 ? l->dscp << 2 : l->priority << 5, l->size,
				     n_sports, sport0, ms, pps ? pps : 1);
		fprintf(stderr, "load: %zu flows, %llu pps each: %lld datagrams sent\n", n, pps,
			sent);
		_exit(sent < 0 ? 1 : 0);
	}
	if (pid > 0)
		setpgid(pid, pid);
	lr->pid = pid;
	lr->started = runner_now_s();
	return pid < 0 ? -errno : 0;
}

/*
 * What load li's senders sent (their "sent" lines: this machine's in its log,
 * each host's in the log beside it over SSH), into r->loads[li]: over the whole
 * load, and while the faults were in effect (an RC load held back by one goes at
 * its own pace again from their undo on, before the load stops).
 */
static void load_sent(struct scn_result *r, const struct scenario *s, size_t li)
{
	char log[PATH_MAX + 64], there[PATH_MAX + 200];
	struct run_load *x = &r->loads[li];
	unsigned long long refused;
	double m, from = r->t_fault, to = r->t_unapply > 0 ? r->t_unapply : r->t_revert;

	load_log(r->dir, li, log, sizeof(log));
	x->sent_mbps = x->fault_mbps = -1;
	x->refused = 0;
	for (size_t h = 0; h <= s->inv->n_hosts; h++) {
		if (h)
			snprintf(there, sizeof(there), "%s.%s", log, s->inv->hosts[h - 1].name);
		if ((m = traffic_sent_mbps(h ? there : log, s->loads[li].size + 28, &refused)) < 0)
			continue;
		x->sent_mbps = (x->sent_mbps < 0 ? 0 : x->sent_mbps) + m;
		x->refused += refused;
		if (s->n_faults && from > 0 && to > from &&
		    (m = traffic_sent_mbps_within(h ? there : log, s->loads[li].size + 28, from,
						  to)) >= 0)
			x->fault_mbps = (x->fault_mbps < 0 ? 0 : x->fault_mbps) + m;
	}
	/*
	 * An RC load's senders write their lines once their connections are up: none means
	 * none came up (its RDMA devices were found before it started: the receiver, then; their
	 * logs say why), a load the rig did not send (runner_load_short()), never a monitor's
	 * miss.
	 */
	if (x->sent_mbps < 0 && s->loads[li].rc)
		x->sent_mbps = 0;
}

static void stop_load(struct lab *lab, struct load_run *lr)
{
	for (size_t i = 0; i < lr->n_senders; i++)
		lab_stop(lab, &lr->senders[i], 2000);
	lr->n_senders = 0;
	if (lr->serving) /* after its senders: their last WRITEs complete */
		lab_stop(lab, &lr->server, 2000);
	lr->serving = false;
	if (lr->pid <= 0)
		return;
	kill(-lr->pid, SIGTERM);
	proc_stop(lr->pid, 2000);
	kill(-lr->pid, SIGKILL);
	lr->pid = 0;
}

/* ---- declared services ----------------------------------------------------------------- */

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

/* ---- the rig of a lab's own hosts ------------------------------------------------------ */

/*
 * A lab reached over SSH has hosts of its own, of which this machine's rig
 * says nothing (issue 64): each samples itself ('rocelab rig') from before the
 * baseline to the end, its lines fetched with its log.
 */
struct rig_job {
	struct lab *lab;
	const char *host, *prog;
	struct lab_proc *p;
	char log[PATH_MAX + 64];
	int r;
};

static void *rig_job_run(void *arg)
{
	struct rig_job *j = arg;

	j->r = lab_spawn(j->lab, j->host,
			 (const char *const[]){j->prog, "rig", "--interval", "100ms", NULL}, j->log,
			 j->p);
	return NULL;
}

static void start_host_rigs(struct lab *lab, const struct scenario *s, struct scn_result *r,
			    const struct run_opts *o, struct lab_proc *rp)
{
	struct rig_job *jobs = rl_xcalloc(s->inv->n_hosts + 1, sizeof(*jobs));
	size_t n = 0;

	for (size_t h = 0; h < s->inv->n_hosts; h++) {
		const char *host = s->inv->hosts[h].name;
		struct rig_job *j = &jobs[n];

		if (!s->inv->hosts[h].has_mgmt)
			continue; /* not reached over SSH: nothing to sample it with */
		*j = (struct rig_job){.lab = lab, .host = host, .p = &rp[h]};
		j->prog = lab_program(lab, host, o->self_exe);
		snprintf(j->log, sizeof(j->log), "%s/rig-%s.log", r->dir, host);
		n++;
	}
	lab_each(lab, jobs, n, sizeof(*jobs), rig_job_run);
	for (size_t k = 0; k < n; k++)
		if (jobs[k].r)
			rl_warn("%s: %s's own rig is not sampled (see %s)", s->name, jobs[k].host,
				jobs[k].log);
	free(jobs);
}

/* Each host's sampler stopped, its lines read into r->host_rig (its clock corrected). */
static void stop_host_rigs(struct lab *lab, const struct scenario *s, struct scn_result *r,
			   struct lab_proc *rp)
{
	bool *ran = rl_xcalloc(s->inv->n_hosts + 1, sizeof(*ran));
	char log[PATH_MAX + 64];

	r->host_rig = rl_xcalloc(s->inv->n_hosts, sizeof(*r->host_rig));
	r->n_host_rig = s->inv->n_hosts;
	for (size_t h = 0; h < s->inv->n_hosts; h++)
		ran[h] = rp[h].pid > 0;
	lab_stop_each(lab, rp, s->inv->n_hosts, 2000);
	for (size_t h = 0; h < s->inv->n_hosts; h++) {
		if (!ran[h])
			continue;
		snprintf(log, sizeof(log), "%s/rig-%s.log", r->dir, s->inv->hosts[h].name);
		if (!rig_read(&r->host_rig[h], log, RIG_INTERVAL_S,
			      lab->clock ? lab->clock[h].offset : 0))
			rl_warn("%s: %s's own rig printed no sample (see %s)", s->name,
				s->inv->hosts[h].name, log);
	}
	free(ran);
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
		shapes[i].rate_kbit = fault_spec_link_rate(&s->fabric[i].spec);
	}
	for (size_t i = 0; i < s->n_faults; i++) {
		snprintf(faults[i].kind, sizeof(faults[i].kind), "%s",
			 s->faults[i].spec.kind->name);
		snprintf(faults[i].target, sizeof(faults[i].target), "%s",
			 s->faults[i].spec.target);
		faults[i].rate_kbit = fault_spec_link_rate(&s->faults[i].spec);
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

/*
 * A fault (what: "fault", "fabric") that did not revert cleanly.  When a
 * device was lost, that is why, and said first: asked again now, since over
 * SSH liveness is asked in the background and a device that stopped
 * answering is known so only when its connection times out.
 */
static void not_reverted(struct lab *lab, struct scn_result *r, const char *what,
			 const struct scn_fault *f)
{
	char why[320] = "";

	lab_recheck(lab);
	for (size_t i = 0; i < r->n_comps; i++)
		if (r->comps[i].started &&
		    !r->comps[i].sc->ops->alive(r->comps[i].state, why, sizeof(why)))
			break;
	invalid(r, "%s%s%s %s %s was not reverted cleanly (run 'rocelab revert')", why,
		why[0] ? "; so " : "", what, f->spec.kind->name, f->spec.target);
}

/* Shape the fabric (held for the whole scenario); false (and r invalid) when it could not be. */
static bool start_fabric(const struct scenario *s, struct scn_result *r, struct live_fault *fab,
			 const struct run_opts *o, size_t idx, size_t total)
{
	char log[PATH_MAX + 64];

	snprintf(log, sizeof(log), "%s/fabric.log", r->dir);
	for (size_t i = 0; i < s->n_fabric; i++)
		if (prepare_fault(o->self_exe, s, &s->fabric[i], 0, log, &fab[i]) ||
		    fault_ready(&fab[i]) || cue_fault(&fab[i], r, true)) {
			invalid(r,
				"fabric %s %s could not be applied or verified (see %s/fabric.log)",
				s->fabric[i].spec.kind->name, s->fabric[i].spec.target, s->name);
			return false;
		}
	if (s->n_fabric)
		progress(idx, total, s, "fabric: %zu link(s) shaped", s->n_fabric);
	return true;
}

static void end_fabric(struct lab *lab, const struct scenario *s, struct scn_result *r,
		       struct live_fault *fab)
{
	for (size_t i = 0; i < s->n_fabric; i++)
		if (fab[i].pid && !fab[i].done && end_fault(&fab[i], r))
			not_reverted(lab, r, "fabric", &s->fabric[i]);
}

static void run_one(struct lab *lab, const struct scenario *s, struct scn_result *r, size_t idx,
		    size_t total, const struct run_opts *o)
{
	char log[PATH_MAX + 64], why[320] = "", what[512];
	struct load_run loads[8] = {0};
	struct lab_proc svc[SVC_MAX] = {0};
	struct lab_proc *rigs = rl_xcalloc(s->inv->n_hosts + 1, sizeof(*rigs));
	struct live_fault *lf = rl_xcalloc(s->n_faults + 1, sizeof(*lf));
	struct live_fault *fab = rl_xcalloc(s->n_fabric + 1, sizeof(*fab));
	unsigned long long fault_start;
	long long drain = 0;
	bool ok;

	r->t_start = runner_now_s();
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
	/*
	 * A lab's own hosts sample themselves from before anything of the run
	 * starts on them, as this machine's rig does: the agents' start-up is in
	 * the monitors' first window, and a host-processing verdict there is
	 * judged by the pressure its host measured then (the SSH tier's CI run
	 * drew one on host4 in the window its agents started in, its sampler
	 * started after them: in a run here, 0.4 s of that window sampled).
	 */
	if (!r->rig_local)
		start_host_rigs(lab, s, r, o, rigs);
	ok = start_fabric(s, r, fab, o, idx, total) &&
	     place_loads(lab, s, r, o, loads, ARRAY_SIZE(loads)) &&
	     start_components(lab, s, r, o, what, sizeof(what)) &&
	     start_services(lab, s, r, o, svc);
	rl_dbg("run: %s: components started in %.2f s", s->name, runner_now_s() - r->t_start);
	/*
	 * Every injector started and waiting for its cue while the components
	 * settle: all started first, then each one's "ready" read (issue 59: a
	 * fault on each of many hosts logs into all of them at once, not one
	 * after another).
	 */
	snprintf(log, sizeof(log), "%s/inject.log", r->dir);
	for (size_t i = 0; ok && i < s->n_faults; i++)
		if (prepare_fault(o->self_exe, s, &s->faults[i], fault_hold_ms(s, &s->faults[i]),
				  log, &lf[i])) {
			invalid(r, "fault %s %s: its injector did not start (see %s/inject.log)",
				s->faults[i].spec.kind->name, s->faults[i].spec.target, s->name);
			ok = false;
		}
	for (size_t i = 0; ok && i < s->n_faults; i++)
		if (fault_ready(&lf[i])) {
			invalid(r,
				"fault %s %s: its injector did not get ready (see %s/inject.log)",
				s->faults[i].spec.kind->name, s->faults[i].spec.target, s->name);
			ok = false;
		}
	rl_dbg("run: %s: %zu injector(s) ready at %.2f s", s->name, s->n_faults,
	       runner_now_s() - r->t_start);
	if (ok) {
		progress(idx, total, s, "baseline %.1f s (%s)", (double)s->baseline_ms / 1e3, what);
		/* Components need a moment (agents trace their paths) before the baseline counts.
		 */
		ok = wait_ms(s->baseline_ms, r, why, sizeof(why));
	}
	fault_start = rl_now_ns();
	r->t_phase = runner_now_s();
	/* A scenario without faults or load still holds its fault phase: time to stay silent in. */
	if (ok)
		progress(idx, total, s, "fault phase %.1f s%s", (double)s->fault_ms / 1e3,
			 s->n_faults + s->n_loads ? "" : " (nothing injected)");
	/*
	 * Faults start at their offsets and are held for their time (to their
	 * 'for', or to the phase's end) from when they were live: an injector
	 * that took 3.8 s to apply (Soft-RoCE under qemu TCG; a NOS's commit can
	 * take longer) does not take it from the fault, nor from its load, which
	 * starts once it is verified.  The phase lasts until every one is undone.
	 */
	for (bool loads_started = false; ok && !rl_interrupted;) {
		long long t = (long long)((rl_now_ns() - fault_start) / 1000000ULL);
		bool pending = false;
		double t_cue = runner_now_s();

		/* Every fault due now cued at once, then each one's verdict read: applied
		 * together, as a scenario of faults on many hosts means them */
		for (size_t i = 0; i < s->n_faults; i++)
			if (!lf[i].cued && t >= s->faults[i].at_ms)
				cue_send(&lf[i]);
		for (size_t i = 0; i < s->n_faults; i++) {
			const struct scn_fault *f = &s->faults[i];
			long long end = f->at_ms + fault_hold_ms(s, f) + lf[i].late_ms;

			if (lf[i].cued && !lf[i].line_read) {
				/* The fault is live from its cue on, verification included. */
				lf[i].line_read = true;
				if (cue_fault(&lf[i], r, false)) {
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
					r->t_inject = t_cue;
					r->t_fault =
					    lf[i].applied_at > t_cue ? lf[i].applied_at : t_cue;
				}
				/* live this late after its offset: held as much longer */
				if (lf[i].applied_at > r->t_phase + (double)f->at_ms / 1e3)
					lf[i].late_ms =
					    (long long)((lf[i].applied_at - r->t_phase) * 1e3) -
					    f->at_ms;
				if (lf[i].late_ms >= 1000)
					progress(idx, total, s,
						 "%s %s live %.1f s after its cue, held as much "
						 "longer",
						 f->spec.kind->name, f->spec.target,
						 (double)lf[i].late_ms / 1e3);
				else if (lf[i].late_ms > 0)
					rl_dbg("run: %s: %s live %lld ms after its cue, held as "
					       "much longer",
					       s->name, f->spec.kind->name, lf[i].late_ms);
				/* verified: every fault due at the phase's start is live */
				if (!f->at_ms || !r->t_verified)
					r->t_verified = runner_now_s();
				progress(idx, total, s, "%s %s applied: %s", f->spec.kind->name,
					 f->spec.target, r->evidence);
			}
			if (lf[i].cued && !lf[i].done && t >= end) {
				if (!r->t_unapply)
					r->t_unapply = runner_now_s();
				if (end_fault(&lf[i], r))
					not_reverted(lab, r, "fault", f);
				r->t_revert = runner_now_s();
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
			if (start_load(lab, s, l, s->fault_ms - t, r->dir, o, &loads[l])) {
				char path[PATH_MAX + 64];

				load_log(r->dir, l, path, sizeof(path));
				rl_warn("%s: load %zu could not start (see %s)", s->name, l + 1,
					path);
			}
			/*
			 * Without a fault, the load is what the fault phase is about, from
			 * when it started (after a pinned stream's trace, not before).
			 */
			else if (!s->n_faults && !r->t_fault)
				r->t_inject = r->t_fault = runner_now_s();
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
	/* Whatever happened: every fault reverts (one never cued just exits), the load stops. */
	for (size_t i = 0; i < s->n_faults; i++)
		if (lf[i].pid && !lf[i].done && !lf[i].cued)
			end_fault(&lf[i], r);
		else if (lf[i].pid && !lf[i].done) {
			if (!r->t_unapply)
				r->t_unapply = runner_now_s();
			end_fault(&lf[i], r);
			r->t_revert = runner_now_s();
		}
	for (size_t l = 0; l < ARRAY_SIZE(loads); l++)
		stop_load(lab, &loads[l]);
	for (size_t l = 0; l < s->n_loads && l < ARRAY_SIZE(loads); l++) {
		char text[300];

		r->n_loads = l + 1;
		if (loads[l].started <= 0) { /* never started: said when it could not */
			r->loads[l] = (struct run_load){-1, 0, -1};
			continue;
		}
		load_sent(r, s, l);
		rl_info("%s: load %s", s->name, runner_load_text(r, l, text, sizeof(text)));
	}
	if (!s->n_faults && r->t_fault)
		r->t_revert = runner_now_s();
	/* when a flap's link was down, as its ends read it: the holders have written it all */
	runner_read_effect(r);
	if (r->drift[0])
		rl_warn("%s: not as found after the revert (drift): %s", s->name, r->drift);
	/* Ground truth is what ran: a fault off its schedule grades nothing (issue 64). */
	if (r->short_of[0])
		invalid(r, "the fault did not run as written: %s", r->short_of);
	if (ok) {
		progress(idx, total, s, "recovery %.1f s", (double)s->recovery_ms / 1e3);
		ok = wait_ms(s->recovery_ms, r, why, sizeof(why));
	}
	/* Services end before the monitors do: a flow idle for a moment has ended, not slowed. */
	stop_services(lab, s, svc);
	if (ok)
		ok = wait_ms(s->n_services && drain < 1200 ? 1200 : drain, r, why, sizeof(why));
	r->t_stop = runner_now_s();
	for (size_t i = 0; i < r->n_comps; i++)
		if (r->comps[i].started)
			r->comps[i].sc->ops->stop(r->comps[i].state);
	r->t_end = runner_now_s();
	rig_stop(&r->rig);
	if (!r->rig_local)
		stop_host_rigs(lab, s, r, rigs);
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
	end_fabric(lab, s, r, fab);
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
		char prec[160] = "";

		/* its terms said (precision is the verdicts' share; incidents merge them) */
		if (r->g.precision >= 0)
			snprintf(prec, sizeof(prec),
				 ", precision %.2f (%d of %d verdicts during the fault right; %d "
				 "incident(s), %d right)",
				 r->g.precision, r->g.verdicts_right, r->g.verdicts_in,
				 r->g.incidents, r->g.incidents_right);
		fprintf(stderr,
			"run: [%zu/%zu] %s: detected after %.1f s, rank %d%s, %d false "
			"positive(s)\n",
			idx + 1, total, s->name, r->g.time_to_detect_s, r->g.rank, prec,
			r->g.false_positives);
	}
	free(lf);
	free(fab);
	free(rigs);
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
	for (size_t h = 0; h < r->n_host_rig; h++)
		rig_free(&r->host_rig[h]);
	free(r->host_rig);
	r->host_rig = NULL;
	r->n_host_rig = 0;
	json_decref(r->counters);
	r->counters = NULL;
	json_decref(r->measured);
	r->measured = NULL;
	r->n_loads = 0;
}

/* The lab as its inventory says: RNICs up, addressed and routed; every link up at its switches. */
static int lab_fit(struct lab *lab, const char *when, char *why, size_t whylen)
{
	char more[512];
	int r = lab_health(lab, when, why, whylen);
	int k = links_check(lab, when, r ? more : why, r ? sizeof(more) : whylen);

	return r ? r : k;
}

int runner_recover(struct lab *lab, const char *inv_path, const char *when, char *why,
		   size_t whylen)
{
	size_t undone = 0, failed = 0;
	int r;

	fprintf(stderr, "%s: --recover: reverting the journal (as 'rocelab revert -i %s')\n", when,
		inv_path);
	r = fault_revert_lab(inv_path, &undone, &failed);
	if (r || failed)
		rl_err("%s: --recover: %zu fault(s) reverted, %zu could not be%s", when, undone,
		       failed, r ? " (and the journal could not be read whole)" : "");
	else if (undone)
		rl_info("%s: --recover: %zu fault(s) reverted", when, undone);
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
	if (runner_recover(lab, s->inv_path, "post-flight", again, sizeof(again))) {
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
			t = runner_now_s();
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
			       t - res[i].t_end, runner_now_s() - t);
			if (!retry(&res[i], i, n, o, unfit))
				break;
		}
		t = runner_now_s();
		if (sink && sink->scenario_done)
			sink->scenario_done(ri, &res[i]);
		rl_dbg("run: %s: its results and report written in %.2f s", sc[i]->name,
		       runner_now_s() - t);
	}
}
