/* SPDX-License-Identifier: MIT */
/* rocelab run: scenarios against a lab, with the components under test, graded against the injected
 * truth. */
#ifndef ROCELAB_RUNNER_H
#define ROCELAB_RUNNER_H

#include "harness/lib/common.h"
#include "harness/run/grade.h"
#include "harness/run/rig.h"
#include "harness/run/scenario.h"

#include <jansson.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>

/* One component in one scenario: what it observed and its grade. */
struct comp_result {
	const struct scn_component *sc;
	void *state; /* its ops' own, until released */
	bool started;
	struct comp_obs obs;
	struct grade g;
};

#define SVC_MAX 16 /* services a scenario declares at most (scn_result.svc_sport) */

/* What the runner learned about one scenario. */
struct scn_result {
	const struct scenario *s;
	char test_name[96]; /* unique within the run */
	/*
	 * The scenario's grade: the worst of its components'; the detection
	 * figures are those of the first component to name a fault (else the first to keep silent).
	 */
	struct grade g;
	double t_start, t_fault, t_revert, t_end; /* CLOCK_REALTIME seconds; t_fault 0: no fault */
	double t_inject;			  /* the first injector started */
	double t_stop;				  /* its components began to be stopped */
	double t_verified;			  /* the faults due at the start were verified */
	double t_unapply;			  /* the first revert began */
	double t_phase;				  /* the fault phase began */
	/* Its loads were running (0: none): a fault that a load reveals (congestion under an
	 * incast or a stream) can show from then, not before; time to detect counts from it. */
	double t_load;
	char evidence[320];
	char note[256]; /* what was emulated */
	bool emulated;
	char drift[512];    /* what its faults' reverts did not give back as found ("": none) */
	char short_of[512]; /* what of its schedule a fault did not run as written ("": none) */
	/* what each fault's ends counted while it was in effect: its injector's counters line
	 * (injectors/counters.h) with "fault": its id; an array, NULL: none said */
	json_t *counters;
	/* what the faults' kinds measured of them (handoff.h: measured lines), each with "fault" */
	json_t *measured;
	/*
	 * What each load sent, by its senders' own "sent" lines (traffic.h), against
	 * what it asked: a load whose senders sent less than LOAD_SHORT_BOUND of
	 * its rate while their hosts refused none of their sends was held back by
	 * the rig, not by the network, and did not load its link (issue 61).
	 */
	struct run_load {
		double sent_mbps; /* < 0: not known (no sender's lines) */
		unsigned long long refused;
		/*
		 * what it sent while the scenario's faults were in effect (from the fault
		 * phase's start until their undo began, its senders' lines within that);
		 * < 0: not known, or no fault
		 */
		double fault_mbps;
	} loads[8];
	size_t n_loads;
	/* a flapping link's down intervals as its ends read them (CLOCK_REALTIME s) */
	double down[64][2];
	size_t n_down;
	/*
	 * Links the fault's driver flapped as it applied (inject.log's "effect:
	 * link-flap HOST:RNIC (clock A to B; again at revert)"): the RNIC, and
	 * when, CLOCK_REALTIME s; again as long after the revert.
	 */
	struct run_effect {
		char target[2 * INV_NAME_MAX + 2];
		double from, to;
		bool at_revert;
	} effect[8];
	size_t n_effect;
	struct comp_result *comps; /* one per s->comps */
	size_t n_comps;
	uint16_t svc_sport[SVC_MAX]; /* each declared service's UDP source port (0: not started) */
	char dir[4096];		     /* OUTDIR/<name> */
	/*
	 * Runs of it (--retries): a pass after a failed one is flaky.  Each
	 * failed run's files are kept in DIR.attemptN, its reason here.
	 */
	int attempts;
	char failed_reason[3][512];
	/* the rig while it ran; rig_local: every host is this machine (the virtual lab) */
	struct rig rig;
	bool rig_local;
	/* on a lab reached over SSH, each host's own ('rocelab rig' there), by inventory host */
	struct rig *host_rig;
	size_t n_host_rig;
};

/* A failed run's folder: RUNNER_KEPT with the scenario's folder (or name) and the run's number. */
#define RUNNER_KEPT "%s.attempt%d"

/* How many of r's failed runs are kept (reasons and folders), before its last run. */
static inline int runner_failed_runs(const struct scn_result *r)
{
	int n = r->attempts - 1,
	    max = (int)(sizeof(r->failed_reason) / sizeof(r->failed_reason[0]));

	return n < 0 ? 0 : n > max ? max : n;
}

/* A scenario this lab has nothing for (a target by role with no candidate): skipped. */
struct run_unplaced {
	char file[PATH_MAX];
	char why[512]; /* the first thing its load said */
};

struct run_info {
	const char *outdir;
	const char *inventory;
	const char *lab_kind; /* the lab_ops that ran it: "vlab" (namespaces here) or "ssh" */
	unsigned seed;
	const char *version;
	double started, ended;
	char run_id[40]; /* "20261123T170538Z-1a2b": when it started (UTC), and 16 random bits */
	const struct inventory *inv;
	const struct lab_clock *clock; /* per host of inv, from pre-flight; NULL: not measured */
	char inventory_sha256[65];     /* of the inventory file ("": unreadable) */
	const char *db;		       /* the run history (--db; NULL: the default) */
	bool no_history;	       /* --no-history: record nothing */
	const char *baseline;	       /* --baseline RUN|last as given (NULL: none) */
	const char *openmetrics;       /* --openmetrics FILE (NULL: none) */
	char baseline_id[40];	       /* ... resolved before the run */
	json_t *dut; /* the devices under test (lab_dut()), read at pre-flight; NULL: not read */
	const struct run_unplaced *unplaced; /* skipped: cannot be placed on this lab */
	size_t n_unplaced;
};

/*
 * Where results go: after each scenario (its incident report) and after the
 * run (results.json, junit.xml).  The CLI gives the reports layer's writers.
 */
struct run_sink {
	/* Optional: after the scenarios are validated, before anything is touched; an exit code. */
	int (*prepare)(struct run_info *ri);
	void (*scenario_done)(const struct run_info *ri, struct scn_result *r);
	/* -errno; 1 when the run regressed against its baseline */
	int (*run_done)(const struct run_info *ri, struct scn_result *r, size_t n);
};

int cmd_run(int argc, char **argv, const struct run_sink *sink);

/* What 'rocelab run' is asked, its options typed (qualify asks the same). */
struct run_request {
	const char *inventory;	 /* -i: every scenario on this inventory's lab (NULL: their own) */
	const char *outdir;	 /* -o (NULL: rocelab-results/RUN_ID) */
	const char *db;		 /* --db: the run history (NULL: the default) */
	const char *baseline;	 /* --baseline RUN: compared with it */
	const char *openmetrics; /* --openmetrics FILE: the results as OpenMetrics there too */
	unsigned seed;		 /* --seed: of roles' picks and the agents' source ports */
	bool keep_lab, dry_run, recover, no_history;
	bool strict; /* --strict: a scenario this lab cannot place refuses the run (else skipped) */
	int retries; /* 0..3 */
	unsigned fanout; /* --fan-out: hosts reached over SSH at once (0: LAB_FANOUT_DEFAULT) */
	const char *const *scenarios;
	size_t n;
};

/* A --seed (run's, qualify's) into *seed: 0, or -EINVAL when it is no number 0..2^32-1. */
int runner_seed_parse(const char *v, unsigned *seed);
/* A --fan-out (run's, qualify's) into *n: 0, or -EINVAL when it is no number 1..LAB_FANOUT_MAX. */
int runner_fanout_parse(const char *v, unsigned *n);

/* 'rocelab run' as q asks, writing through sink: its exit code (RL_EXIT_*). */
int runner_request(const struct run_request *q, const struct run_sink *sink);

/* How to run: rocelab itself (the fault holder is 'SELF inject ... --hold -j'), seeds, where. */
struct run_opts {
	const char *self_exe;
	unsigned seed;
	struct in_addr mgmt; /* where the controller is on the management network */
	bool postflight;     /* check the lab after each scenario (lab_health()) */
	bool recover;	     /* when a check fails: revert the journal and check again */
	int retries;	     /* a scenario that fails runs again up to this many times */
};

/*
 * The lab's journal reverted (fault_revert_lab: as 'rocelab revert -i INV'),
 * then the lab checked again: 0 when it is as its inventory says afterwards,
 * else -EHOSTUNREACH with why.
 */
int runner_recover(struct lab *lab, const char *inv_path, const char *when, char *why,
		   size_t whylen);

/*
 * Run scenarios on a lab that is ready, each through its phases, into
 * res[n] (res[i].dir and test_name set by the caller).  The engine of
 * 'rocelab run', and what tests drive with a fake lab.
 */
void runner_run(struct lab *lab, struct scenario *const *sc, size_t n, const struct run_opts *o,
		const struct run_info *ri, const struct run_sink *sink, struct scn_result *res);
void runner_result_free(struct scn_result *r);

/* CLOCK_REALTIME in seconds: the clock of every phase time in a scenario's result. */
static inline double runner_now_s(void)
{
	return (double)rl_realtime_ns() / 1e9;
}

/* r's clock as components, the grader and the reports see it. */
struct comp_times runner_times(const struct scn_result *r);
/* Time zero of what a person reads of r: the fault's start, else its phase's (comp_t0()). */
double runner_t0(const struct scn_result *r);
/*
 * r->down from the flap holders' lines in r->dir/inject.log, and r->effect
 * from its "effect: link-flap" lines (after the fault phase).
 */
void runner_read_effect(struct scn_result *r);

/*
 * A failure expected today (expect.known-blind), or of a monitor whose probes
 * cross no part of the truth (unobservable by it, issue 64): reported as
 * skipped, it fails no run.
 */
bool runner_known_blind(const struct scn_result *r);

/*
 * r's phases by name as results.json gives them (baseline, fault, recovery;
 * the baseline alone when nothing was injected): their count.
 */
size_t runner_phases(const struct scn_result *r, const char *name[3], double from[3], double to[3]);
/*
 * Was the rig measured saturated while r ran: on a lab whose hosts are this
 * machine, in some phase a task waited for a CPU RIG_PRESSURE_BOUND of the
 * time or more?  The fault phase of a scenario whose own load or fault is
 * CPU (a load: incast senders on this machine, 0.45-0.53 quietly; a
 * cpu-hog) is not counted: that pressure is the scenario.  true with why
 * ("invalid (rig-limited): ...").  A component that failed then (not one
 * known blind or unobservable) is invalid, not failed: an MP-RDMA run at 0.83
 * of its optimal beside another user's CPU hog (pressure 0.85) graded the
 * rig, not the transport.  A pass stays a pass: it held on a busy rig.
 * So is a run one of whose loads the rig could not send (runner_load_short()):
 * a software sender against a 400G link never congests it.
 */
bool runner_rig_limited(const struct scn_result *r, char *why, size_t len);

/*
 * A load that sent less than this share of its rate, with no send refused
 * downstream, was held back by the rig (its CPU): a paced sender that keeps
 * up sends its rate to within its bucket's rounding.
 */
#define LOAD_SHORT_BOUND 0.9

/*
 * Load i of r's scenario (what it asked, what its senders sent) in words,
 * as the verdicts and the report say it: "incast to host1:rnic1: asked
 * 60000 Mbit/s (60% of host1:rnic1's link, 100 Gbit/s), sent 1840 Mbit/s
 * (3%)".  Returns buf.
 */
const char *runner_load_text(const struct scn_result *r, size_t i, char *buf, size_t len);

/* Load i fell short of its rate for the rig's want (LOAD_SHORT_BOUND, nothing refused). */
bool runner_load_short(const struct scn_result *r, size_t i);
/* Grade r from its components' observations (after they were collected). */
void runner_grade(struct scn_result *r);
/*
 * Marks (verdict.rig) each host-processing verdict of r's components whose
 * window the rig's CPU pressure passed RIG_PRESSURE_BOUND in, on a lab whose
 * hosts are this machine (r->rig_local): right verdicts of a measured event.
 */
void runner_mark_rig(struct scn_result *r);

#endif
