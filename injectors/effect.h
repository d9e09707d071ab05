/* SPDX-License-Identifier: MIT */
/*
 * A fault being applied: what a kind's precheck, verify and live hooks see,
 * and the helpers they read state with (JSON through the lab's exec, as
 * kernel selftests read 'ip -j', 'nft -j' and 'tc -j -s').
 */
#ifndef ROCELAB_EFFECT_H
#define ROCELAB_EFFECT_H

#include "harness/lab/lab.h"
#include "harness/lab/traffic.h"
#include "injectors/fault.h"
#include "injectors/host_found.h"
#include "injectors/nos/readback.h"

#include <jansson.h>

struct fault_run {
	const struct inventory *inv;
	const struct fault_spec *spec;
	const struct fault_plan *plan;
	struct lab *lab;
	unsigned id;
	char evidence[512];
	char err[512];
	void *kind_state; /* what a kind's start keeps for its stop (a PFC storm's sender) */
	/* a kind's schedule origin, rl_now_ns() (link-flap: its first down; 0: none) */
	unsigned long long origin_ns;
	/* what the fault's own first actions took, ns (the dead-man timers' arming not counted):
	 * how early a schedule's first step starts so that it lands on its time */
	unsigned long long first_took_ns;
	/* the fault's start, CLOCK_REALTIME ns: time zero of the times its log prints (0: none) */
	unsigned long long zero_rt_ns;
	/* what of its schedule a live fault did not run as written ("": all of it) */
	char short_of[512];
	/* what a kind's stop found not given back (a PFC watchdog still stormed): drift, said
	 * with the actions' ("": nothing) */
	char left[384];
	/*
	 * what a kind measured of its fault, said after the revert (handoff.h: a
	 * measured line; pfc-storm: a PFC watchdog's times against its settings,
	 * graded): an object of one member a measure, NULL: none
	 */
	json_t *measured;
	/* its devices' dead-man timers (deadman.h): when last armed (rl_now_ns, 0: none), fired */
	unsigned long long deadman_at;
	bool deadman_fired;
	/* a host RNIC target's driver, read by a kind that needs it (fault_rnic_facts()) */
	struct fault_rnic {
		char driver[32];	    /* /sys/class/net/DEV/device/driver's name; "": none */
		long long carrier_chg;	    /* its carrier_changes when read; -1: not known */
		unsigned long long read_rt; /* when, CLOCK_REALTIME ns (before any change) */
	} rnic;
};

/*
 * The target RNIC's driver and carrier_changes (f->rnic), read on its host
 * over SSH; what cannot be read is "" and -1 (a virtual lab's veth has no
 * driver).
 */
void fault_rnic_facts(struct fault_run *f);

/* Its carrier_changes now, -1 when not known. */
long long fault_rnic_carrier(struct fault_run *f);

/*
 * The target RNIC's link went down and up with the change (its carrier_changes
 * grew since fault_rnic_facts()): waits up to wait_ms for it to be up again,
 * says so in the evidence and in the log as the run reads it ("effect:
 * link-flap HOST:RNIC (clock A to B; again at revert)": the grader holds a
 * monitor's verdicts on that link then as right).  why: whose doing.
 */
void fault_rnic_flapped(struct fault_run *f, long long now, const char *why, int wait_ms);

/* Run argv on dev and parse its stdout as JSON; NULL with a reason in f->err. */
json_t *fault_read_json(struct fault_run *f, const char *dev, const char *const argv[]);

/*
 * An NVUE switch found in RoCE mode by a's read (rb->roce): refused with f->err,
 * -EOPNOTSUPP.  The mode sets PFC and ECN itself, unlisted by 'nv config show'.
 */
int fault_refuse_roce(struct fault_run *f, const struct fault_action *a, const struct readback *rb);

/* The fault's own nft table on dev ('nft -j list table inet T'), or NULL with f->err. */
json_t *fault_read_nft_table(struct fault_run *f, const char *dev);

/*
 * Before a fault takes names[0, n) of dev down (netdevs of a host, ports of a
 * switch) on a lab reached over SSH (issue 63): rocelab's own path to dev must
 * not run through one of them -- dev's management address held by one, or
 * dev's route back to this controller leaving by one ('ip -j route get', on
 * hosts and Linux switches; SONiC's and NVUE's management sits in its own VRF,
 * so only the address is asked there; EOS is not asked).  0, or -EPERM with
 * f->err saying which and what to do.  A virtual lab on this machine has no
 * management path to cut: 0.
 */
int fault_mgmt_check(struct fault_run *f, const char *dev, const char *const *names, size_t n);

/*
 * 'nv config apply' applies every pending change on an NVUE switch, anyone's,
 * and from Cumulus Linux 5.9 on saves them to the startup configuration
 * (the NVUE reference, "Config Commands").  Before the journal, each NVUE
 * switch of f's plan is asked for them (FAULT_NVUE_PENDING): 0 when none,
 * -EBUSY with f->err naming the switch and how many when there are,
 * -errno when it cannot be asked.
 */
int fault_nvue_pending(struct fault_run *f);
/* How many of out's lines are NVUE commands: pending changes as FAULT_NVUE_PENDING lists them. */
size_t fault_nvue_pending_text(const char *out);

/*
 * Route x as 'ip -j route show table all' printed it on dev, through netdev:
 * the command that restores it as found into b (verb: add, or replace for an
 * undo that may run twice).  0, or -EOPNOTSUPP with f->err naming the
 * attribute it cannot restore.
 */
int fault_found_route(struct fault_run *f, json_t *x, const char *dev, const char *netdev, bool v6,
		      enum host_route_verb verb, struct sbuf *b);

/*
 * What admin-down of netdev on host (a host rocelab did not lay out) loses,
 * read there and appended to found as undo-only steps ("noop", then the
 * command that puts it back): the routes through it in every table, IPv4 and
 * IPv6, but the kernel's own (back with the link), then its static IPv6
 * addresses.  Add them before the link-down step, so that the undo brings
 * the link up first.  n_routes: how many are routes.  0, or -errno with f->err
 * (-EOPNOTSUPP: one cannot be restored as found).
 */
int fault_found_link(struct fault_run *f, struct fault_plan *found, const char *host,
		     const char *netdev, size_t *n_routes);

/* Sum every "key": N anywhere inside v (nft counters, tc drops). */
unsigned long long fault_json_sum(json_t *v, const char *key);

/* Sleep ms, or less when SIGINT/SIGTERM comes. */
void fault_sleep_ms(long long ms);

/* Can state on this end be read back with iproute2 (a host, or a Linux-dialect switch)? */
bool fault_end_readable(const struct inventory *inv, const struct inv_endpoint *ep);

/* The target as a link end (a port or an RNIC), and its peer; -EINVAL with err if uncabled. */
int fault_target_ends(struct fault_run *f, struct inv_endpoint *t, struct inv_endpoint *peer);

/*
 * Can test traffic cross sw and its counters be read (a Linux switch: sent
 * from here in the hosts' namespaces, or by the hosts themselves on a lab
 * reached over SSH)?  Otherwise verification takes the dialect's word and
 * sets f->evidence to say so.
 */
bool fault_counters_readable(struct fault_run *f, const struct inv_switch *sw);

/*
 * Test traffic along flows for ms: from here in the hosts' namespaces, or
 * on a lab reached over SSH by each sending host's 'rocelab load send'
 * (hs: its rate, priority, size and source ports; prog and inv_there are
 * its own).  Datagrams sent, or -errno with f->err saying why.
 */
long long fault_send(struct fault_run *f, const struct flow *flows, size_t n,
		     const struct host_send *hs);
/*
 * After fault_send() failed on a lab reached over SSH (f->err says why):
 * verified is what the reads said instead.  0 with "no counters read: WHY"
 * added to f->evidence, or verified's error.
 */
int fault_unsent(struct fault_run *f, int verified);

/*
 * No test traffic can cross the switch: its own reads of the fault's table
 * (or ACL) say whether it is in place (fault_verify_reads), or 0 when the
 * plan reads nothing back (f->evidence says why).
 */
int fault_verify_table_read(struct fault_run *f);

/*
 * What a rocelab subcommand started on a host needs: this binary's path in
 * self (PATH_MAX), and on host h, when its inventory says 'rocelab: copy', a
 * copy of it there (pre-flight makes the same).  0, or -errno with f->err.
 */
int fault_self(struct fault_run *f, char *self);
int fault_copy_self(struct fault_run *f, size_t h, const char *self);

/* The count a rocelab subcommand printed after 'after' in its log, or -1. */
long long fault_log_count(const char *log, const char *after);

/* "" when fault_send() sends from here, else " (sent by ... on the hosts)" for evidence. */
const char *fault_sent_by(const struct fault_run *f);

/*
 * Send test datagrams along flows (which must cross the target switch: from
 * here, or by the hosts over SSH) and read the fault's nft counters there:
 * evidence when they matched.  Where no test traffic can cross it (a NOS),
 * the switch's own reads of the fault's table (fault_verify_reads) are the
 * evidence.
 */
int fault_verify_nft(struct fault_run *f, struct flow *flows, size_t n);

/* What a flow of the verification's test traffic sends: 400 a second for half a second. */
#define FAULT_TEST_MS	     500
#define FAULT_TEST_PPS	     400
#define FAULT_TEST_DATAGRAMS (FAULT_TEST_MS * FAULT_TEST_PPS / 1000)

/*
 * A NOS's ACL counters (SONiC aclshow, EOS per-entry counters) under test
 * traffic along flows, sent by the hosts of a lab reached over SSH: read,
 * send, read again until they rise (up to 12 s: SONiC polls ACL counters
 * every 10 s by default).  Adds what it saw, or why it read none, to
 * f->evidence; -EIO when counted packets did not rise.
 */
int fault_verify_acl_counters(struct fault_run *f, const struct flow *flows, size_t n);

/* Undo actions [0, n) newest first (each undo is idempotent); 0 if all worked, logs failures. */
int fault_undo_actions(struct lab *l, const struct fault_action *acts, size_t n);

/*
 * Apply (undo false) or undo the plan's actions, in order or in reverse, but
 * its dead-man timers (armed once for the fault's life); logs failures.
 */
void fault_run_actions(struct fault_run *f, bool undo);

/* Read a's state on its device now, parsed as its read_as says; -errno with err. */
int fault_read_now(struct lab *l, const struct fault_action *a, char **out, struct readback *rb,
		   char *err, size_t errlen);

/*
 * Before the journal: run each action's read and keep what it printed in
 * found (its state as found, journaled, and what the revert must give back).
 * -errno with err when one cannot be read or parsed: nothing has changed.
 */
int fault_read_found(struct lab *l, struct fault_plan *p, char *err, size_t errlen);

/* The port an action's read is of: the argument of its read_as ("sonic-pfc Ethernet4"). */
const char *fault_read_port(const struct fault_action *a);

/*
 * What a's read found, parsed into rb: 0; -EIO with f->err when it does not
 * parse; -EBUSY with f->err when a tc-root read found a root qdisc other
 * than the kernel's own (handle 0:), which what (the TBF, the emulated PFC)
 * would replace and its undo would not give back.
 */
int fault_found(struct fault_run *f, const struct fault_action *a, struct readback *rb,
		const char *what);

/* Read a's state again through f's lab; -EIO with f->err ("reading back: ..."). */
int fault_reread(struct fault_run *f, const struct fault_action *a, struct readback *rb);

/*
 * Read each action's state again, after apply: took() says whether it
 * shows the fault.  0 with evidence naming the reads ("'show pfc priority
 * Ethernet4' on rail1: lossless 4; ..."), or -EIO with f->err naming the
 * one that does not ("... still says ...").
 */
int fault_verify_reads(struct fault_run *f,
		       bool (*took)(const struct fault_run *f, const struct fault_action *a,
				    const struct readback *rb));

/*
 * An emulated shallow lossless queue (HTB class 1:10 of a Linux switch
 * port, rate_kbit its rate; 0: not known) under incast: RNICs send in
 * priority prio through port of switch sw toward its peer, paced to twice
 * the rate at the port for a quarter second, and only when the class counted
 * nothing (or the rate is not known) as fast as they can for a second; the
 * class must tail-drop.  Evidence names the port; over SSH, when the hosts
 * cannot send, the reads with took say it instead (fault_unsent).
 */
int fault_verify_tail_drops(struct fault_run *f, size_t sw, size_t port, int prio,
			    unsigned long long rate_kbit,
			    bool (*took)(const struct fault_run *f, const struct fault_action *a,
					 const struct readback *rb));

/*
 * The same incast in DSCP dscp (a priority p's class selector is p << 3)
 * with the IP header's ECN bits ecn, and the class's counter key summed
 * (sch_red's "marked" for ECN-capable traffic): it must have counted; what
 * names it in evidence and errors ("marked CE"), tag after the count says
 * what is emulated ("emulated").
 */
int fault_verify_class(struct fault_run *f, size_t sw, size_t port, int dscp, int ecn,
		       unsigned long long rate_kbit, const char *key, const char *what,
		       const char *tag,
		       bool (*took)(const struct fault_run *f, const struct fault_action *a,
				    const struct readback *rb));

/* What a judge of fault_judge_found() returns when it took action i out of the plan. */
#define FAULT_FOUND_REMOVED 1

/*
 * Each action's state as found before the fault, judged: its read parsed
 * by fault_found() (what: the change, named in a refusal), then, but for a
 * tc-root read whose whole judgement fault_found() makes, judge(f, p, i,
 * rb, ctx): 0 to go on, FAULT_FOUND_REMOVED, or an error that stops.
 * 0, or the first error.
 */
int fault_judge_found(struct fault_run *f, struct fault_plan *p, const char *what,
		      int (*judge)(struct fault_run *f, struct fault_plan *p, size_t i,
				   const struct readback *rb, void *ctx),
		      void *ctx);

/*
 * An ACL or nft fault, with each action's state as found: -EBUSY with
 * f->err when the fault's own table is there already, or when its ACL
 * would replace one the port has (EOS: one per interface and direction).
 */
int fault_found_free(struct fault_run *f, struct fault_plan *p);

/*
 * After a revert: read each action's state again.  Each one that differs
 * from what was found is drift, printed as a warning and added to said
 * (may be NULL; "rail1 (show pfc priority Ethernet4): 'lossless 3,4' before
 * the fault, 'lossless 4' after its revert", "; " between); how many.
 */
struct sbuf;
size_t fault_drift(struct lab *l, const struct fault_action *acts, size_t n, struct sbuf *said);

#endif
