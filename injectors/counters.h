/* SPDX-License-Identifier: MIT */
/*
 * Counters as evidence (issue 61): what a fault's ends counted while it was
 * in effect, read just before its first action and again just before its
 * undo, the differences said with the fault (inject -j's counters line,
 * results.json).  Reading back a configuration says the fault was set; the
 * counters say what it did.
 *
 * The ends: a switch port target and what it is cabled to, a host RNIC and
 * its switch port, a whole switch's cabled ports, a host's RNICs.  Each end
 * is read by its device's own tools (injectors/nos/ctr.h), grouped by source:
 *
 * - "link": the kernel's interface counters, 'ip -s -j link show dev D'
 *   (iproute2: stats64 rx/tx packets, bytes, errors, dropped, ...), on a
 *   Linux or Cumulus switch port and on a host RNIC's netdev;
 * - "qdisc": 'tc -s -j qdisc show dev D' on a Linux switch port, each
 *   qdisc's packets, drops, overlimits and requeues (where the virtual lab's
 *   emulated PFC and ECN classes count);
 * - "ethtool": a host RNIC's driver counters, 'ethtool -S D' (mlx5: per
 *   priority pause, discards, CRC errors), and a Cumulus switch port's
 *   hardware counters;
 * - "rdma": its RDMA device's hardware counters, 'rdma -j statistic show
 *   link DEV/PORT' (CNPs sent and handled, ECN-marked packets,
 *   out-of-sequence, timeouts), where 'rdma -j link show' names one on the
 *   netdev;
 * - "sai": a SONiC port's SAI counters in COUNTERS_DB (IF_IN_DISCARDS,
 *   PFC_N_RX_PKTS, ...), and for a fault that names a priority P, "queue P"
 *   (its queue's drops and PFC watchdog stats) and "pg P" (its priority
 *   group's drops);
 * - "interface", "pfc": an EOS port's interfaceCounters and per-priority
 *   PFC frames.
 *
 * What cannot be read is said in "unread", by end.
 */
#ifndef ROCELAB_COUNTERS_H
#define ROCELAB_COUNTERS_H

#include "injectors/effect.h"

#include <jansson.h>

#define FAULT_CTR_ENDS 64

struct fault_ctr_end {
	char name[2 * INV_NAME_MAX + 2]; /* "spine2:swp1", "host2:rnic1" */
	enum inv_dev_kind kind;
	size_t dev, port;
};

struct fault_counters {
	struct fault_ctr_end ends[FAULT_CTR_ENDS];
	size_t n_ends;
	json_t *before;		 /* {END: {GROUP: {NAME: n}}} */
	unsigned long long t_ns; /* when before was read (rl_now_ns) */
	json_t *unread;		 /* ["END: why"] */
	int prio;		 /* the priority the fault names (its --priority), -1: none */
	double read_s;		 /* what reading before took */
};

/* The ends of s's target in inv (c zeroed first). */
void fault_counters_ends(const struct inventory *inv, const struct fault_spec *s,
			 struct fault_counters *c);

/* Read every end's counters now, as before. */
void fault_counters_begin(struct fault_run *f, struct fault_counters *c);

/*
 * Read them again: {"span_s": S, "deltas": {END: {GROUP: {NAME: d}}},
 * "unread": [...], "read_s": [BEFORE, AFTER]} (what each reading took: the
 * ends on several devices at once over SSH), only counters that changed (d may be negative where a
 * counter was reset; one that appeared counts from 0).  NULL when begin read nothing and found no
 * end. Frees what begin kept.
 */
json_t *fault_counters_end(struct fault_run *f, struct fault_counters *c);

/* Frees what begin kept, when end will not be called. */
void fault_counters_clear(struct fault_counters *c);

/*
 * One line per end of what a delta object counted, what tells of a fault
 * first (drops, errors, pauses, marks, CNPs), then packets, bytes last, each
 * the largest first, at
 * most max names an end ("spine2:swp1: qdisc 1:10 htb drops +3, link
 * tx_packets +1200"), into b.
 */
void fault_counters_say(json_t *deltas, size_t max, struct sbuf *b);

/*
 * A fault's counters (fault_counters_end()'s object, or its counters line's)
 * as text: fault_counters_say() of its deltas, then "unread: WHY" a line.
 */
void fault_counters_text(json_t *c, size_t max, struct sbuf *b);

/*
 * after - before for every counter after has (one before has not counts from
 * 0: a qdisc the fault added; an end or group before has not is left out:
 * it was unread), only those that differ, and a state that changed as
 * "WAS -> NOW"; a new reference.
 */
json_t *fault_ctr_delta(json_t *before, json_t *after);

#endif
