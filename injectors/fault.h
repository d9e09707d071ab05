/* SPDX-License-Identifier: MIT */
/* Fault kinds, the validated request for one fault, and the planned actions that apply and undo it.
 */
#ifndef ROCELAB_FAULT_H
#define ROCELAB_FAULT_H

#include "harness/lib/inventory.h"
#include "harness/lib/topo.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum fault_kind {
	FK_LINK_FLAP,
	FK_ACL_ERROR,
	FK_PFC_MISCONFIG,
	FK_IPID_DROP,
	FK_RNIC_ROUTE_MISSING,
	FK_LINK_DEGRADE,
	FK__COUNT,
};

const char *fault_kind_name(enum fault_kind k);
int fault_kind_parse(const char *s, enum fault_kind *k); /* -EINVAL when unknown */

enum ipid_match { IPID_MOD, IPID_RANGE, IPID_SET };
enum direction { DIR_BOTH, DIR_IN, DIR_OUT };

#define FAULT_MAX_IDS 64

/* A fault request after validation: names resolved against the inventory. */
struct fault_spec {
	enum fault_kind kind;
	char target[72];
	/* resolved target: a switch port, a whole switch, or a host RNIC */
	enum inv_dev_kind tkind;
	size_t tdev;
	ssize_t tport; /* -1: the whole switch */

	/* timing */
	long long for_ms; /* 0: not given */
	bool hold;
	long long period_ms, down_ms; /* link-flap */
	int count;		      /* link-flap cycles, 0: until --for/--hold ends */

	/* acl-error: RNIC to RNIC, or tenant to tenant */
	bool acl_tenants;
	struct inv_endpoint from, to;
	size_t from_tenant, to_tenant;

	/* pfc-misconfig */
	int priority;			  /* 0..7 */
	unsigned long long emu_rate_kbit; /* emulated port rate (virtual lab) */
	unsigned shallow_bytes;		  /* emulated misconfigured queue depth */

	/* ipid-drop */
	enum ipid_match ipid;
	unsigned mod, rem, lo, hi;
	unsigned ids[FAULT_MAX_IDS];
	size_t n_ids;
	bool roce_only;
	enum direction dir;

	/* link-degrade */
	unsigned long long rate_kbit;
};

enum fault_backend { FB_SSH, FB_NETLINK };

/* One step of a fault on one device: how to apply it and how to undo it. */
struct fault_action {
	enum fault_backend backend;
	char device[INV_NAME_MAX + 1];
	char *apply;	   /* ssh: a command line; netlink: an op line (see netlink_op.h) */
	char *apply_input; /* ssh: stdin of apply (e.g. an nft script), or NULL */
	char *revert;	   /* must be idempotent: it also runs after a crash */
};

struct fault_plan {
	enum fault_kind kind;
	char target[72];
	char table[32]; /* nft table / ACL name of this fault ("rocelab_f<id>") */
	struct fault_action *acts;
	size_t n_acts;
	bool emulated;	/* part of the fault is emulated on the virtual lab */
	char note[256]; /* what is emulated, shown in output and journal */
};

/* Free the actions of a plan (not the plan itself). */
void fault_plan_clear(struct fault_plan *p);

/* Add an action; strings are copied. Returns the new action. */
struct fault_action *fault_plan_add(struct fault_plan *p, enum fault_backend be, const char *dev,
				    const char *apply, const char *input, const char *revert);

/*
 * Plan spec against inv for fault id; topo (may be NULL) names the routes a
 * flap must restore.  On failure returns -EOPNOTSUPP (the
 * dialect or device cannot do it) or -EINVAL, with a one-line reason in why.
 */
int fault_plan_build(const struct inventory *inv, const struct topo *topo,
		     const struct fault_spec *spec, unsigned id, struct fault_plan *plan, char *why,
		     size_t whylen);

/* Print the plan's actions as a transcript: what runs where, with its input and undo. */
void fault_plan_format(const struct fault_plan *p, FILE *f);

/* Port name of the spec's target (NULL for a whole switch or a host). */
const char *fault_target_port(const struct inventory *inv, const struct fault_spec *s);

#endif
