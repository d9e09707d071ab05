/* SPDX-License-Identifier: MIT */
/* Fault kinds, the validated request for one fault, and the planned actions that apply and undo it.
 */
#ifndef ROCELAB_FAULT_H
#define ROCELAB_FAULT_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "harness/lib/topo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct fault_kind_ops;
struct fault_plan;
struct fault_run;
struct render_ctx;

enum direction { DIR_BOTH, DIR_IN, DIR_OUT };

#define FAULT_NAME_MAX 72
/*
 * Room for any kind's own options (struct fault_kind_ops.opts_size); each
 * kind's file checks its struct fits (FAULT_KIND_OPTS).
 */
#define FAULT_OPTS_MAX 512

/*
 * A typed fault: its kind, the options every kind shares, the kind's own
 * options, then the target resolved against the inventory.
 */
struct fault_spec {
	const struct fault_kind_ops *kind;

	/* common options: --target, --for, --hold, --all-ports, --deadman */
	char target[FAULT_NAME_MAX];
	long long for_ms; /* 0: not given */
	bool hold;
	/*
	 * Held by a run, which means to end it this long after it was applied
	 * (its SIGTERM does): a schedule the fault keeps (a flap's cycles) starts
	 * nothing at or past it.  0: no end known (a hold by hand).
	 */
	long long hold_ms;
	long long deadman_ms; /* the devices' own timers' lease (deadman.h); 0: the default */
	bool all_ports; /* a whole-switch target of a kind that also takes ports: said, not implied
			 */

	/*
	 * The kind's own struct (kind->opts_size bytes, laid out by its option
	 * table kind->opts), with what its resolve finds: read through the
	 * accessors FAULT_KIND_OPTS defines in the kind's file.  Kept inline so
	 * that a copy of a spec is a whole spec.
	 */
	_Alignas(max_align_t) unsigned char opts[FAULT_OPTS_MAX];

	/* ---- resolved by fault_spec_resolve ---- */
	/* the target: a switch port, a whole switch, or a host RNIC */
	enum inv_dev_kind tkind;
	size_t tdev;
	ssize_t tport; /* -1: the whole switch */
};

/*
 * In a kind's file: T (its options struct) as that kind's part of a spec,
 * NAME_of(s) to read and NAME_rw(s) to write it, and T checked to fit.
 */
#define FAULT_KIND_OPTS(NAME, T)                                                                   \
	_Static_assert(sizeof(T) <= FAULT_OPTS_MAX, #T " does not fit in FAULT_OPTS_MAX");         \
	static inline const T *NAME##_of(const struct fault_spec *s)                               \
	{                                                                                          \
		return (const void *)s->opts;                                                      \
	}                                                                                          \
	static inline T *NAME##_rw(struct fault_spec *s)                                           \
	{                                                                                          \
		return (void *)s->opts;                                                            \
	}

/* Target forms a kind takes. */
enum fault_target_form {
	FT_PORT = 1 << 0,   /* SWITCH:PORT */
	FT_SWITCH = 1 << 1, /* a whole SWITCH */
	FT_RNIC = 1 << 2,   /* HOST:RNIC */
	FT_HOST = 1 << 3,   /* a whole HOST (tport -1) */
};

/*
 * One fault kind: one file under injectors/kinds/ and one line in
 * injectors/kinds/kinds.def.  Its options are its own struct (opts_size
 * bytes of spec->opts, FAULT_KIND_OPTS).  Its switch-side commands are its
 * own renderers, one per NOS (render[]), written with what the NOSes share
 * (injectors/render.h).
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
	const struct opt_desc *opts; /* its options, offsets in its own struct (spec->opts) */
	size_t opts_size;	     /* sizeof that struct, at most FAULT_OPTS_MAX */
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
	/*
	 * The sources its commands and reads follow: each NOS renderer's
	 * (follows[dialect]) and the host side's (follows_host), named at the
	 * head of a plan ("# follows: ..."), so that every dry run and golden
	 * transcript says what it was checked against (docs/faults.md has more).
	 */
	const char *follows[INV_DIALECT_N];
	const char *follows_host;
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
	/*
	 * Optional, with no live: while the fault is held or lasts its --for,
	 * called about once a second, for what must be renewed while its
	 * injector lives (pfc-storm: its sender's heartbeat on the host).
	 */
	void (*beat)(struct fault_run *f);
	/* With start: stop what it started, before the actions are undone (also on failure). */
	void (*stop)(struct fault_run *f);
	/*
	 * Optional: what an injector of this kind (process pid) leaves on this
	 * machine when killed before its stop ran, removed by 'rocelab revert'
	 * once its fault is reverted (a PFC storm's sender log).
	 */
	void (*sweep)(pid_t pid);
	/*
	 * Optional: the line rate in kbit/s the fault leaves its link at
	 * (link-degrade's --rate), the ground truth a transport is graded against.
	 */
	unsigned long long (*link_rate_kbit)(const struct fault_spec *s);
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

/* The line rate s leaves its link at in kbit/s (kind->link_rate_kbit), 0: none. */
unsigned long long fault_spec_link_rate(const struct fault_spec *s);

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

/* Where option d (common or s's kind's own) is kept: s, or s->opts. */
void *fault_opt_obj(struct fault_spec *s, const struct opt_desc *d);

/* Option name of s (common or its kind's) as text that fault_spec_set takes back; NULL: none. */
const char *fault_spec_value(const struct fault_spec *s, const char *name, char *buf, size_t len);

/*
 * Set option name of s's kind from text (OPT_BOOL: NULL is true); -EINVAL with
 * what to write instead in why ("period '1x': give a duration ...", or the
 * kind's options when it has no such option).
 */
int fault_spec_set(struct fault_spec *s, const char *name, const char *value, char *why,
		   size_t whylen);

/* The options together (before the inventory): --for/--hold, then the kind's check. */
int fault_spec_check(struct fault_spec *s, char *why, size_t whylen);

/* How many of sw's ports are cabled (what a whole-switch target binds). */
size_t fault_cabled_ports(const struct inv_switch *sw);

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

/*
 * FB_SSH: a switch's CLI over SSH; FB_HOST: a host op line, by netlink or as
 * ip/tc/dcb over SSH; FB_SHELL: a POSIX shell line on a device ('sh -c' through
 * the lab's exec: in its namespace, or over SSH), a dead-man timer (deadman.h);
 * FB_SESSION: an EOS configuration session in its CLI over SSH, the dead-man
 * timer of a switch whose login is not a shell (deadman.h).
 */
enum fault_backend { FB_SSH, FB_HOST, FB_SHELL, FB_SESSION };

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
	 * (injectors/nos/readback.h: "sonic-pfc", "eos-pfc", "nvue-pfc", "tc-root"),
	 * and what it printed before apply: journaled, and compared with a read
	 * after the revert (a difference is drift).
	 */
	char *read;
	char *read_as;
	char *found;
	/*
	 * A dead-man timer (FB_SHELL, FB_SESSION; deadman.h): what moves its deadline on,
	 * its lease, and what it runs when it fires (for the plan's transcript).
	 * Not journaled: only a live controller re-arms.
	 */
	char *rearm;
	long long lease_ms;
	char *fires;
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
	/* what a whole-switch target binds, when the kind also takes one port ("" else) */
	char scope[160];
	/*
	 * its NVUE switches, space-separated: each asked for pending changes
	 * (FAULT_NVUE_PENDING) before the journal, for 'nv config apply' applies
	 * anyone's (effect.h: fault_nvue_pending)
	 */
	char nvue[160];
	/*
	 * per NOS switch its commands were rendered for, a line each ("SW:
	 * WHAT", caps.h: nos_rendered_for): the version and model they chose
	 * by, and whose word that is
	 */
	char nos[512];
	/* what its commands follow, a line each (fault_kind_ops.follows): the plan's head */
	char follows[1024];
};

/* Notes in p that its commands for sw were rendered for what caps.h knows of sw's NOS. */
void fault_plan_nos(struct fault_plan *p, const struct inv_switch *sw);
/* Were p's commands for switch name rendered for its NOS (a NOS switch p acts on or reads)? */
bool fault_plan_has_nos(const struct fault_plan *p, const char *name);

/* What an NVUE switch is asked for its pending changes: each one an "nv set|unset ..." line. */
#define FAULT_NVUE_PENDING "nv config diff -o commands"

/* Is name one of the space-separated names of list? */
bool fault_plan_names(const char *list, const char *name);

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

/* How an action of p reaches its device: "ssh", "netlink" or "shell" (its journal's backend). */
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
