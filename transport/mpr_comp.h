/* SPDX-License-Identifier: MIT */
/*
 * MP-RDMA as a component under test: its receiver and a backlogged sender
 * started through the lab for the whole scenario, their statistics read
 * back per phase (goodput against the fabric's optimal and against its own
 * baseline, retransmissions, out-of-order degree, paths in use), a run the
 * rig itself limited marked invalid, and its part of the incident report.
 */
#ifndef ROCELAB_MPR_COMP_H
#define ROCELAB_MPR_COMP_H

#include "harness/component/component.h"
#include "harness/lab/lab.h"
#include "transport/mpr_ep.h"

#include <jansson.h>
#include <stdint.h>

struct mpr_comp_cfg {
	struct ep_params ep;
	char from[72], to[72]; /* host:rnic */
	char across[72]; /* single path: placed across this port (SWITCH:PORT), "": anywhere */
	unsigned vps_per_path; /* spray: VPs picked through each spine by tracing (0: all) */
};

extern const struct component_ops mprdma_component;
/* The same machinery for Eunomia's spraying workload (spray_ep.h): workload spray. */
extern const struct component_ops eunomia_component;

/* One connection on a lab: its receiver and sender, started through the lab. */
struct mpr_flow {
	struct lab *lab;
	struct lab_proc snd, rcv;
	const char *slog, *rlog; /* their logs (JSON lines), borrowed */
	double started_at;	 /* when the sender started (CLOCK_REALTIME s) */
};

/* 0 when from and to are RNICs (host:rnic) of inv, else -ENOENT with why. */
int mpr_flow_check(const struct inventory *inv, const char *from, const char *to, char *why,
		   size_t whylen);

/*
 * Start 'rocelab transport recv' on to's host, wait until it is up, then
 * 'rocelab transport send' on from's host for duration_ms (0: until
 * stopped), with p's options (those that differ from the defaults), self
 * the rocelab to run, logs to slog and rlog.  0, or -errno with why in
 * what and nothing left running.
 */
int mpr_flow_start(struct mpr_flow *fl, struct lab *l, const char *self, const char *inv_path,
		   const char *from, const char *to, const struct ep_params *p,
		   long long duration_ms, const char *slog, const char *rlog, char *what,
		   size_t whatlen);
/* Stop the sender, let what is in flight arrive, stop the receiver (each writes its end line). */
void mpr_flow_stop(struct mpr_flow *fl);

/*
 * The first VP (UDP source port EP_VP_LO + i, toward RoCEv2's port) whose
 * traced path from RNIC from to RNIC to crosses the link at endpoint across
 * ("rail1:swp6"), or with avoid set, does not cross it: one sweep of
 * 'rocelab transport paths' on from's host, what it printed kept in log.
 * 0 with *sport set; -ENOENT (no VP does) or another -errno, with why.
 */
int mpr_pin_port(struct lab *l, const char *self, const struct inventory *inv, const char *inv_path,
		 const char *from, const char *to, const char *across, bool avoid, const char *log,
		 uint16_t *sport, char *why, size_t whylen);
/* As mpr_pin_port(), up to max of those VPs into sports, in order: how many (at least 1), or
 * -errno. */
int mpr_pin_ports(struct lab *l, const char *self, const struct inventory *inv,
		  const char *inv_path, const char *from, const char *to, const char *across,
		  bool avoid, const char *log, uint16_t *sports, size_t max, char *why,
		  size_t whylen);

/*
 * The spraying workload's VPs balanced over the paths (the brief's D.8):
 * one sweep of 'rocelab transport paths' from from to to on from's host
 * (kept in log), the traced VPs grouped by the link they leave from's rail
 * by, and per of each (fewer when a group has fewer: as many of each),
 * written to set as "49152,49160,...".  How many, or -errno with why.
 */
int mpr_balance_vps(struct lab *l, const char *self, const struct inventory *inv,
		    const char *inv_path, const char *from, const char *to, unsigned per,
		    const char *log, char *set, size_t setlen, char *why, size_t whylen);

/* The last JSON line of type in a log, or NULL (a new reference). */
json_t *mpr_last_line(const char *path, const char *type);

/* Per-interval samples read back from an endpoint's log. */
struct mpr_sample {
	double t; /* CLOCK_REALTIME s at the sample's end */
	double delivered, retx, vps_used, srtt_us;
	double rto_left_ms; /* the sender's: until its retransmission timer fires (0: none armed) */
	double cpu_ms, runq_ms; /* the endpoint on a CPU, waiting for one */
	/* The sender's sends, probes aside: all, on the VPs a fault touches, on its link forward */
	double sent, sent_hit, sent_fwd;
	double ord_bytes, ord_bytes_max; /* the receiver's ordering memory: at the line, its most */
	/* the spraying workload's: a static 256-bit bitmap's for the same connections, the bitmaps
	 */
	double static_bytes, bm_bytes, static_bm_bytes;
	double reorder_max; /* the interval's largest reorder distance (OOD) */
	/* with a versus receiver (spray_ep.h): the odd QPs' deliveries and ordering memory */
	double delivered_b, ord_bytes_b;
	json_t *ood_hist; /* the receiver's: [[degree, arrivals], ...] (a reference, or NULL) */
};

/*
 * A log's per-interval lines of type ("snd", "rcv") into *out, and its
 * last "TYPE-end" line into *end (NULL: none; a new reference).  Lines that
 * are not records are skipped.  Free the samples with mpr_samples_free().
 */
size_t mpr_read_log(const char *path, const char *type, struct mpr_sample **out, json_t **end);
void mpr_samples_free(struct mpr_sample *s, size_t n);

/*
 * Payload goodput (Mbit/s) over the samples whose interval lies within
 * [from, to]: their delivered packets over their own span.  -1 when none.
 */
double mpr_goodput_mbit(const struct mpr_sample *s, size_t n, double interval_s, double from,
			double to);

/*
 * The OOD at or below which a share q (0..1) of the receiver's arrivals
 * sat, over its samples whose interval (iv s) lies within [from, to]: the
 * sum of their ood_hist.  -1 when none.
 */
double mpr_ood_quantile_in(const struct mpr_sample *s, size_t n, double iv, double from, double to,
			   double q);
/*
 * Where the fault's steady state ends for the OOD (ood-p999-fault): when
 * its revert began, as deleting a TBF drops what it holds and those holes
 * are the revert's; t_revert when that is not known.
 */
double mpr_ood_fault_to(const struct comp_times *t, double f_from);
/*
 * Whether an endpoint's CPU limited a graded phase: it was on a CPU or
 * waiting for one (busy, a share of the phase) MPR_CPU_BUSY_MAX of it or
 * more and the phase carried (good, Mbit/s) less than MPR_NET_PACED of the
 * optimal the fabric allowed in it (opt; 0 or less: unknown, an unshaped
 * fabric, and busy alone decides).  A phase carried at the optimal was
 * paced by the network whatever the CPU.
 */
#define MPR_CPU_BUSY_MAX 0.9
#define MPR_NET_PACED	 0.95
bool mpr_cpu_limited(double busy, double good, double opt);
/* The phase carried MPR_NET_PACED of its optimal opt (known: > 0): the network set its pace. */
bool mpr_net_paced(double good, double opt);

/*
 * The fabric's optimal for a flow from RNIC 'from' to RNIC 'to' (Mbit/s of
 * payload): the smaller of the two RNICs' shaped rates and the sum of the
 * shaped rates of the uplinks of from's rail switch, times 1024/1098 (the
 * payload's share of a packet on the wire).  0 when a part is unshaped (no
 * optimal: the rig's own speed would be the limit).
 */
double mpr_optimal_mbit(const struct inventory *inv, const char *from, const char *to,
			const struct comp_shape *shapes, size_t n);

#endif
