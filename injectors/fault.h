/* SPDX-License-Identifier: MIT */
/* Fault kinds, the validated request for one fault, and the planned actions that apply and undo it.
 */
#ifndef ROCELAB_FAULT_H
#define ROCELAB_FAULT_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "harness/lib/topo.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct fault_kind_ops;
struct fault_plan;
struct fault_run;
struct render_ctx;

enum ipid_match { IPID_MOD, IPID_RANGE, IPID_SET };
enum direction { DIR_BOTH, DIR_IN, DIR_OUT };

/* A share in parts per million: packet-corruption's rate. */
#define FAULT_PPM 1000000u

#define FAULT_MAX_IDS  64
#define FAULT_NAME_MAX 72

struct ipid_range {
	unsigned lo, hi;
	bool set;
};

struct ipid_set {
	unsigned v[FAULT_MAX_IDS];
	size_t n;
};

/*
 * A typed fault: its kind, the options as given (each kind's option table
 * points into this struct), then the names resolved against the inventory.
 */
struct fault_spec {
	const struct fault_kind_ops *kind;

	/* common options: --target, --for, --hold */
	char target[FAULT_NAME_MAX];
	long long for_ms; /* 0: not given */
	bool hold;

	/* link-flap */
	long long period_ms, down_ms;
	int count; /* cycles, 0: one, or until --for/--hold ends */

	/* acl-error: RNIC to RNIC, or tenant to tenant */
	char from_name[FAULT_NAME_MAX], to_name[FAULT_NAME_MAX];
	char from_tenant_name[FAULT_NAME_MAX], to_tenant_name[FAULT_NAME_MAX];

	/* pfc-misconfig */
	int priority;			  /* 0..7 */
	unsigned long long emu_rate_kbit; /* emulated port rate (virtual lab) */
	unsigned shallow_bytes;		  /* emulated misconfigured queue depth */

	/* ipid-drop: one of mod (with rem), range, ids */
	unsigned mod, rem;
	struct ipid_range range;
	struct ipid_set ids;
	bool roce_only;
	enum direction dir; /* ipid-drop, packet-corruption on a port */

	/* link-degrade, and its emulated ECN marker's threshold in bytes (0: none) */
	unsigned long long rate_kbit;
	unsigned ecn_mark;

	/* packet-corruption: the share of RoCE packets lost, in parts per million (FAULT_PPM) */
	unsigned corrupt_ppm;

	/* pfc-storm: PFC frames a second, and each one's pause time (priority above) */
	unsigned pfc_pps, pfc_quanta;

	/*
	 * buffer-alpha: the dynamic threshold alpha = 2^alpha_log2 of the lossless
	 * class (priority above), the SONiC buffer profile it is set in, and the
	 * emulated shared buffer the virtual lab's queue depth is taken from
	 */
	int alpha_log2;
	char buf_profile[64];
	unsigned emu_buffer_bytes;

	/*
	 * ecn-misconfig: the WRED/ECN marking of the port's lossless queue
	 * (priority above): marks from ecn_kmin bytes queued, with probability
	 * rising to ecn_pmax percent at ecn_kmax, every ECT packet beyond; or,
	 * with ecn_off, no marking at all
	 */
	unsigned ecn_kmin, ecn_kmax, ecn_pmax;
	bool ecn_off;

	/*
	 * cpu-hog: busy threads beside the host's monitor agents in a CPU cgroup
	 * capped at hog_quota % of one core, pinned to CPU hog_cpu (-1: the last);
	 * verified once the agents' run-queue delay reaches hog_min_delay_ms a second
	 */
	int hog_threads, hog_quota, hog_cpu;
	long long hog_min_delay_ms;

	/* ---- resolved by fault_spec_resolve ---- */
	/* the target: a switch port, a whole switch, or a host RNIC */
	enum inv_dev_kind tkind;
	size_t tdev;
	ssize_t tport; /* -1: the whole switch */
	enum ipid_match ipid;
	bool acl_tenants;
	struct inv_endpoint from, to;
	size_t from_tenant, to_tenant;
};

/* Target forms a kind takes. */
enum fault_target_form {
	FT_PORT = 1 << 0,   /* SWITCH:PORT */
	FT_SWITCH = 1 << 1, /* a whole SWITCH */
	FT_RNIC = 1 << 2,   /* HOST:RNIC */
	FT_HOST = 1 << 3,   /* a whole HOST (tport -1) */
};

/*
 * One fault kind: one file under injectors/kinds/ and one entry in the table
 * of injectors/kinds/kinds.c.  Its switch-side commands are its own renderers,
 * one per NOS (render[]), written with what the NOSes share
 * (injectors/nos/nos.h).
 */
struct fault_kind_ops {
	const char *name;
	const char *usage; /* its target forms and options, for 'inject --help' */
	unsigned targets;  /* FT_* */
	/*
	 * The fault is CPU load on its hosts (cpu-hog): on the virtual lab, whose
	 * hosts are this machine, the rig's CPU pressure is the fault itself.
	 */
	bool loads_cpu;
	const char *example;	     /* a target of the right form, for error messages */
	const struct opt_desc *opts; /* its options, offsets in struct fault_spec */
	void (*defaults)(struct fault_spec *s);
	/* The options together, before the inventory is read: 0 or -EINVAL, why. */
	int (*check)(const struct fault_spec *s, char *why, size_t whylen);
	/* Its names against the inventory, once the target is resolved. */
	int (*resolve)(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen);
	/* Host side (FT_RNIC, FT_HOST targets): netlink op lines into r->plan (r->sw, r->port
	 * unset). */
	int (*plan_host)(struct render_ctx *r);
	/*
	 * Switch side: the kind's actions in each NOS's dialect, by
	 * enum inv_dialect (NULL: that NOS cannot, refused by fault_render() as
	 * "dialect D of switch S cannot <cannot>").
	 */
	int (*render[INV_DIALECT_N])(struct render_ctx *r);
	const char *cannot;
	/* Optional: plans a switch target itself (link-degrade: both ends); else fault_render(). */
	int (*plan_switch)(struct render_ctx *r);
	/* What can be read without changing anything, before the journal. */
	int (*precheck)(struct fault_run *f);
	/*
	 * Optional, after each action's read (fault.h: found) and precheck:
	 * replace or refuse p's actions by what is found there, to be restored
	 * exactly as found (a host rocelab did not lay out, a switch port's
	 * PFC profile).  Nothing has changed yet.
	 */
	int (*discover)(struct fault_run *f, struct fault_plan *p);
	/*
	 * Optional, once the actions are applied and before verify: start what
	 * the fault does for as long as it lasts (a PFC storm's sender).  0, or
	 * -errno with f->err (the actions are then undone).
	 */
	int (*start)(struct fault_run *f);
	/* Is it in effect?  Reads state back through the lab, sets evidence or err. */
	int (*verify)(struct fault_run *f);
	/* While live and applied: NULL holds it; link-flap cycles. Returns at the end. */
	void (*live)(struct fault_run *f);
	/* With start: stop what it started, before the actions are undone (also on failure). */
	void (*stop)(struct fault_run *f);
};

/* Everything a renderer needs to plan one fault on one switch. */
struct render_ctx {
	const struct inventory *inv;
	const struct fault_spec *spec;
	size_t sw;
	const char *port;	 /* NULL: every cabled port of the switch */
	const char *table;	 /* nft table / ACL name of this fault */
	const struct topo *topo; /* routed plan (may be NULL): routes to restore after a flap */
	struct fault_plan *plan;
	char *why;
	size_t whylen;
};

/*
 * r's fault on switch r->sw by its kind's renderer for that switch's NOS: 0,
 * -EOPNOTSUPP ("dialect D of switch S cannot ...") when it has none, or what
 * the renderer says.
 */
int fault_render(struct render_ctx *r);

/* The common options: target, for, hold. */
extern const struct opt_desc fault_common_opts[];

/* OPT_CUSTOM rate in kbit/s ("10mbit", "500kbit", "25g"), lo..hi in kbit/s. */
int fault_opt_rate_parse(const struct opt_desc *d, const char *v, void *field, char *err,
			 size_t errlen);
const char *fault_opt_rate_print(const void *field, char *buf, size_t len);

/* OPT_CUSTOM queue depth in bytes (unsigned): "240KB" (1000s), "64KiB" (1024s), "1500"; 1..256MB.
 */
int fault_opt_bytes_parse(const struct opt_desc *d, const char *v, void *field, char *err,
			  size_t errlen);
const char *fault_opt_bytes_print(const void *field, char *buf, size_t len);

/* OPT_CUSTOM direction on a port target: "in", "out" or "both" (enum direction). */
int fault_opt_dir_parse(const struct opt_desc *d, const char *v, void *field, char *err,
			size_t errlen);
const char *fault_opt_dir_print(const void *field, char *buf, size_t len);

/* A spec of kind k with its defaults. */
void fault_spec_init(struct fault_spec *s, const struct fault_kind_ops *k);

/* The option name of kind k (common or its own), or NULL. */
const struct opt_desc *fault_opt_find(const struct fault_kind_ops *k, const char *name);

/*
 * Set option name of s's kind from text (OPT_BOOL: NULL is true); -EINVAL with
 * what to write instead in why ("period '1x': give a duration ...", or the
 * kind's options when it has no such option).
 */
int fault_spec_set(struct fault_spec *s, const char *name, const char *value, char *why,
		   size_t whylen);

/* The options together (before the inventory): --for/--hold, then the kind's check. */
int fault_spec_check(struct fault_spec *s, char *why, size_t whylen);

/* The target alone against inv (its form must be one the kind takes). */
int fault_spec_resolve_target(const struct inventory *inv, struct fault_spec *s, char *why,
			      size_t whylen);

/* The target, then the kind's names, against inv; nothing is touched. 0 or -EINVAL, why. */
int fault_spec_resolve(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen);

/*
 * "KIND --target T [--opt value]..." for 'rocelab inject', only the options
 * that differ from the kind's defaults; strings owned by store.
 */
int fault_spec_argv(const struct fault_spec *s, const char **argv, size_t *n, size_t max,
		    struct opt_store *store);

/* FB_SSH: a switch's CLI over SSH; FB_HOST: a host op line, by netlink or as ip/tc/dcb over SSH. */
enum fault_backend { FB_SSH, FB_HOST };

/* One step of a fault on one device: how to apply it and how to undo it. */
struct fault_action {
	enum fault_backend backend;
	char device[INV_NAME_MAX + 1];
	char *apply;	   /* ssh: a command line; host: an op line (see netlink_op.h) */
	char *apply_input; /* ssh: stdin of apply (e.g. an nft script), or NULL */
	char *revert;	   /* must be idempotent: it also runs after a crash */
	/*
	 * Read-back (optional, switch actions): a command in the device's CLI
	 * that prints the state apply changes, the parser that reads it
	 * (injectors/readback.h: "sonic-pfc", "eos-pfc", "nvue-pfc", "tc-root"),
	 * and what it printed before apply: journaled, and compared with a read
	 * after the revert (a difference is drift).
	 */
	char *read;
	char *read_as;
	char *found;
};

struct fault_plan {
	const struct fault_kind_ops *kind;
	char target[72];
	char table[32]; /* nft table / ACL name of this fault ("rocelab_f<id>") */
	struct fault_action *acts;
	size_t n_acts;
	bool host_cmds; /* host ops run as ip/tc/dcb commands over SSH (a lab of kind ssh) */
	bool emulated;	/* part of the fault is emulated on the virtual lab */
	char note[256]; /* what is emulated, shown in output and journal */
	/*
	 * a NOS ACL: the command that shows its counters, read under the hosts'
	 * test traffic, and its parser (readback.h)
	 */
	char counters[2048], counters_as[96];
	/* a process the fault runs for as long as it lasts (a PFC storm), shown in the plan */
	char runs[512];
};

/* Free the actions of a plan (not the plan itself). */
void fault_plan_clear(struct fault_plan *p);
/* p's actions replaced by found's, which is left empty (a kind's discover: what it found). */
void fault_plan_take(struct fault_plan *p, struct fault_plan *found);

/* Add an action; strings are copied. Returns the new action. */
struct fault_action *fault_plan_add(struct fault_plan *p, enum fault_backend be, const char *dev,
				    const char *apply, const char *input, const char *revert);

/* Remove action i of p (later ones move up). */
void fault_plan_remove(struct fault_plan *p, size_t i);

/* Give a its read-back: the command and the parser (strings are copied). */
void fault_action_read(struct fault_action *a, const char *cmd, const char *as);

/* Replace a string of an action (apply, revert, found ...) with a copy of v (may be NULL). */
void fault_action_set(char **field, const char *v);

/*
 * Plan spec against inv for fault id; topo (may be NULL) names the routes a
 * flap must restore.  On failure returns -EOPNOTSUPP (the
 * dialect or device cannot do it) or -EINVAL, with a one-line reason in why.
 */
int fault_plan_build(const struct inventory *inv, const struct topo *topo,
		     const struct fault_spec *spec, unsigned id, struct fault_plan *plan, char *why,
		     size_t whylen);

/* A host-side netlink action: apply and revert op lines from one argument list. */
void fault_plan_host_op(struct fault_plan *p, const char *host, const char *apply_fmt,
			const char *revert_fmt, ...) __attribute__((format(printf, 4, 0)));

/* How an action of p reaches its device: "ssh" or "netlink". */
const char *fault_action_via(const struct fault_plan *p, const struct fault_action *a);

/* Print the plan's actions as a transcript: what runs where, with its input and undo. */
void fault_plan_format(const struct fault_plan *p, FILE *f);

/* Port name of the spec's target (NULL for a whole switch or a host). */
const char *fault_target_port(const struct inventory *inv, const struct fault_spec *s);

/*
 * The switch port cabled to a HOST:RNIC target, where a fault on the RNIC's
 * link is made: 0, or -EINVAL with why (not cabled to a switch).
 */
int fault_rnic_switch_end(const struct inventory *inv, const struct fault_spec *s,
			  struct inv_endpoint *sw_end, char *why, size_t whylen);

#endif
