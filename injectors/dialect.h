/* SPDX-License-Identifier: MIT */
/* Switch dialects: render the switch-side commands of a fault for linux, SONiC, EOS and NVUE. */
#ifndef ROCELAB_DIALECT_H
#define ROCELAB_DIALECT_H

#include "harness/lib/sbuf.h"
#include "harness/lib/topo.h"
#include "injectors/fault.h"

/* Everything a dialect needs to render one fault on one switch. */
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

/* A kind's switch side in each dialect; a kind's render picks its function (NULL: unsupported). */
struct dialect_ops {
	const char *name;
	int (*link_flap)(struct render_ctx *r);
	int (*acl_error)(struct render_ctx *r);
	int (*pfc_misconfig)(struct render_ctx *r);
	int (*ipid_drop)(struct render_ctx *r);
	int (*link_degrade)(struct render_ctx *r);
	int (*packet_corruption)(struct render_ctx *r);
	/* pfc-storm at the RNIC's switch port: only where the switch cannot react itself */
	int (*pfc_storm)(struct render_ctx *r);
	/* buffer-alpha: the lossless class's dynamic threshold, switch-wide */
	int (*buffer_alpha)(struct render_ctx *r);
	/* ecn-misconfig: the WRED/ECN marking of a port's lossless queue */
	int (*ecn_misconfig)(struct render_ctx *r);
};

const struct dialect_ops *dialect_get(enum inv_dialect d);

/* A dialect without a kind's function: -EOPNOTSUPP, "dialect D of switch S cannot WHAT". */
int dialect_unsupported(struct render_ctx *r, const char *what);

/* SONiC's name for a fault's ACL table: upper case, as acl-loader names acl-sets. */
void dialect_sonic_acl_name(const char *table, char *buf, size_t len);

/*
 * The command that shows how many PFC frames port has received for
 * priority prio in dialect d's CLI, and the parser for it (readback.h:
 * "sonic-pfc-rx", "eos-pfc-rx", "nvue-pfc-rx", each "PARSER PORT PRIO");
 * -EOPNOTSUPP for Linux (veth counts none: the frames are captured instead).
 */
int dialect_pfc_rx_counter(enum inv_dialect d, const char *port, int prio, struct sbuf *cmd,
			   struct sbuf *read_as);

/*
 * Reading a SONiC acl-error back: the shell command into cmd that prints
 * "KEY=STATUS" for the plan's table and each of its rules from STATE_DB
 * (ACL_TABLE_TABLE|NAME, ACL_RULE_TABLE|NAME|RULE_n: orchagent's "Active" or
 * "Inactive"); returns how many rules.  Then its output judged: -EIO with
 * err when one is not Active, else 0 with evidence (saying so when this
 * SONiC keeps no status).  out is split in place.
 */
struct sbuf;
size_t dialect_sonic_acl_status_cmd(const struct fault_plan *p, struct sbuf *cmd);
int dialect_sonic_acl_status(char *out, const char *dev, const struct fault_plan *p, size_t rules,
			     char *evidence, size_t elen, char *err, size_t errlen);

/*
 * NVUE pfc-misconfig of one port from what its read found (NULL: not read
 * yet, as a port on the default profile shows): a's apply copies the
 * port's profile as table without prio and binds the port to it; its
 * revert binds the port back as found.
 */
struct fault_action;
void dialect_nvue_pfc(struct fault_action *a, const char *port, int prio, const char *table,
		      const char *found);

/*
 * link-degrade across ends[2]: 0 when both are shaped (TBF on Linux ends
 * and RNICs), else the port speed in Mbit/s that rate_kbit names (a
 * switch port runs at a speed both ends take), or -EOPNOTSUPP with why
 * listing the speeds.
 */
int dialect_port_speed(const struct inventory *inv, const struct inv_endpoint ends[2],
		       unsigned long long rate_kbit, char *why, size_t whylen);

/*
 * A port-speed action's undo from what its read found: the speed as read
 * (or the NOS's default when none was set).  found NULL (not read yet, a
 * dry run): an undo that says it restores what is read.
 */
/*
 * NVUE link-flap's undo from what its read found: the port's 'link state'
 * as it was, or unset when none was set (also when found is NULL: a dry run).
 */
void dialect_nvue_state_revert(struct fault_action *a, const char *port, const char *found);

void dialect_speed_revert(struct fault_action *a, const char *port, const char *found);

/*
 * alpha = 2^n as dialect d's buffer-alpha writes it into buf ("-6" SONiC
 * dynamic_th, "1/64" EOS, "alpha_1_64" NVUE, "1/64" Linux); -EOPNOTSUPP
 * with why (the NOS's range) when d cannot set it.
 */
int dialect_alpha_word(enum inv_dialect d, int n, char *buf, size_t len, char *why, size_t whylen);

/*
 * buffer-alpha's apply and undo on a switch of dialect d (a NOS) from what
 * its read found (NULL: not read yet, a dry run): SONiC sets the
 * dynamic_th found back; NVUE sets the shared-alpha found or unsets it;
 * EOS changes the MMU queue profile found applied in place (its threshold
 * line back, or removed), or, with none applied, applies a profile of the
 * fault's own (table) and removes it.
 */
void dialect_alpha_plan(struct fault_action *a, enum inv_dialect d, const struct fault_spec *s,
			const char *table, const char *found);

/*
 * ecn-misconfig's apply and undo on a NOS switch port from what its read
 * (a->read_as "sonic-wred|eos-ecn|nvue-ecn PORT Q") found (NULL: not read
 * yet, a dry run): SONiC binds a WRED profile of the fault's own (table,
 * upper case) to CONFIG_DB QUEUE|PORT|Q, or deletes the binding (--off),
 * and puts back the one found; EOS sets or removes the uc-tx-queue's
 * random-detect ecn line and puts back the line found; NVUE binds the port
 * to a copy of its congestion-control profile (table) with the queue's
 * ECN changed, and binds it back as found.
 */
void dialect_ecn_plan(struct fault_action *a, enum inv_dialect d, const struct fault_spec *s,
		      const char *table, const char *found);

/*
 * The EOS uc-tx-queue line ecn-misconfig sets ("random-detect ecn
 * minimum-threshold ... bytes ..."), as the read then shows it; "" for --off.
 */
void dialect_eos_ecn_line(const struct fault_spec *s, char *buf, size_t len);

#endif
