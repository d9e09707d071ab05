/* SPDX-License-Identifier: MIT */
/*
 * What the switch NOSes share across fault kinds: the render vocabulary a
 * kind's per-NOS renderers (fault_kind_ops.render[]) write their actions
 * with.  Every name in a command was validated by the inventory.
 */
#ifndef ROCELAB_RENDER_H
#define ROCELAB_RENDER_H

#include "harness/lib/sbuf.h"
#include "injectors/fault.h"

#include <stddef.h>

/* An action on r's switch over SSH: apply, its input (NULL: none) and revert, taken from the
 * buffers. */
struct fault_action *nos_emit(struct render_ctx *r, struct sbuf *apply, struct sbuf *input,
			      struct sbuf *revert);

/*
 * An action on r's switch that copies the i-th of n ports' own profile or
 * map as table (len bytes: the fault's own name, "_I" after it when n > 1),
 * its apply and revert written by its kind from what its read finds ("-"
 * until then).
 */
struct fault_action *nos_emit_copy(struct render_ctx *r, size_t i, size_t n, char *table,
				   size_t len);

/* An action's read-back: the command, parsed by "PARSER PORT". */
struct fault_action *nos_read_port(struct fault_action *a, const char *parser, const char *port,
				   const char *cmd_fmt, ...) __attribute__((format(printf, 4, 5)));

/* Ports the fault covers: the target port, or every cabled port of the switch. */
size_t nos_ports_of(struct render_ctx *r, const char **out, size_t max);

/* 0 when r has a port target, else -EINVAL with why ("KIND needs a port target ..."). */
int nos_need_port(struct render_ctx *r, const char *kind);

/* ---- linux (Cumulus-like NOS; what the virtual lab runs) ---- */

/*
 * Whether r's Linux switch may stand tc queues in for what a real switch
 * does in hardware (what: "PFC", "ECN marking", "a shared buffer", "PFC
 * pauses"): always in the virtual lab; in a lab of kind ssh only when its
 * inventory marks the switch emulated, for it may be a router carrying real
 * traffic, whose ports the emulation would cap.  0 (the plan marked
 * emulated), or -EOPNOTSUPP with why.
 */
int nos_linux_may_emulate(struct render_ctx *r, const char *what);

/* A Linux switch's nft tables: the fault's own must not be there before, nor after its revert. */
void nos_read_nft_tables(struct fault_action *a, const char *table);
/* The kernel's own root qdisc comes back when ours is deleted: read it before and after. */
void nos_read_tc_root(struct fault_action *a, const char *port);
/* The fault's nft table deleted, idempotently (an undo). */
void nos_nft_revert(struct sbuf *v, const char *table);
/* The fault's nft table and its forward chain opened (rules follow, then "\t}\n}\n"). */
void nos_nft_begin(struct sbuf *in, const char *table);
/*
 * The fault's own table of "MATCH drop" rules on r's port, one a direction
 * (dir), or on the whole switch, commented "rocelab KIND [in|out]", fed to
 * 'nft -f -'; undone by deleting the table.  MATCH ends in the counter that
 * verification reads.  With crossed, each is led by a rule that counts the
 * RoCE packets through the port (or switch), commented NOS_NFT_CROSSED: what
 * the drops are a share of.
 */
#define NOS_NFT_CROSSED "rocelab crossed"
int nos_nft_rules_table(struct render_ctx *r, enum direction dir, const char *match,
			const char *kind, bool crossed);
/*
 * A model of each of ports' line rate (HTB, rate_kbit) whose RoCE priority
 * prio's class ends in the queue discipline leaf ("bfifo limit N", "red
 * ..."), the other priorities in a deep FIFO: veth has no line rate of its
 * own to queue at.  After nos_linux_may_emulate(), which marks the plan
 * emulated.
 */
void nos_linux_class_leaf(struct render_ctx *r, const char **ports, size_t n, int prio,
			  unsigned long long rate_kbit, const char *leaf);
/* The same, the class taking the packets whose TOS byte masked by mask is tos. */
void nos_linux_tos_leaf(struct render_ctx *r, const char **ports, size_t n, int tos, int mask,
			unsigned long long rate_kbit, const char *leaf);
/*
 * Emulated lossless class (veth has no PFC): the priority's class ends in
 * a tail-drop queue of bytes.  Under incast that class drops where a real
 * one would pause.
 */
void nos_linux_shallow(struct render_ctx *r, const char **ports, size_t n, int prio,
		       unsigned long long rate_kbit, unsigned bytes);

/* ---- NVUE ---- */

/*
 * The undo of a port bound to a copy (table) of its 'qos FEATURE' profile
 * (pfc, congestion-control, mapping): the port bound back to profile, or,
 * where it named none (bound false), its binding unset; then the copy
 * deleted and applied.
 */
void nos_nvue_rebind(struct sbuf *v, const char *feature, const char *port, bool bound,
		     const char *profile, const char *table);

/* ---- SONiC ---- */

/*
 * A value read from CONFIG_DB as a shell word, into b: in single quotes
 * where it holds more than letters, digits and _.,:=+-/ (an older image's
 * "[TABLE|NAME]" reference: '|' would be a pipe, '[' a glob).  Its parser
 * let no quote through (readback.c, undo_words_ok).  nos_shell_words: each
 * of a "FIELD VALUE ..." run so, a space before each.
 */
void nos_shell_word(struct sbuf *b, const char *w);
void nos_shell_words(struct sbuf *b, const char *words);

/* SONiC's name for a fault's ACL table: upper case, as acl-loader names acl-sets. */
void nos_sonic_acl_name(const char *table, char *buf, size_t len);

#endif
