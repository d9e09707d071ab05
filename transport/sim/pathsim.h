/* SPDX-License-Identifier: MIT */
/*
 * A deterministic discrete-event model of N equal-cost paths between two
 * hosts, driving the transport state machines (transport/mprdma) exactly as
 * the lab's datapath will: the paper's results in miniature, in seconds of
 * CPU, in the unit tier.
 *
 * Each path is a FIFO with a rate, a one-way propagation delay, a random
 * loss, a queue limit and a step ECN threshold (CE when the queue holds
 * more than K bytes on arrival); ACKs come back on the same path, delayed
 * and lost with it but not queued (they are 78 bytes).  An optional host
 * link, shared by every flow, sits before the paths.  A flow's VP (UDP
 * source port) picks its path by a fixed hash, as ECMP does.  Same
 * configuration and seed: the same run, bit for bit.
 */
#ifndef ROCELAB_PATHSIM_H
#define ROCELAB_PATHSIM_H

#include "transport/mprdma/mprdma.h"
#include "transport/ordering/conweave.h"
#include "transport/ordering/ordrx.h"
#include "transport/ordering/spray.h"

#include <stdbool.h>
#include <stdint.h>

#define PS_PATHS_MAX 16
#define PS_FLOWS_MAX 16

struct ps_path_cfg {
	uint64_t rate_bps;	 /* 0: no bottleneck on this path */
	uint64_t delay_ns;	 /* one way; the ACK takes as long back */
	uint32_t loss_ppm;	 /* data packets dropped at random */
	uint32_t ack_loss_ppm;	 /* ACKs dropped at random */
	uint64_t qlimit_bytes;	 /* tail drop beyond this */
	uint64_t ecn_k_bytes;	 /* CE above this (0: no marking); RED's Kmin with red_pmax_ppm */
	uint64_t red_kmax_bytes; /* RED: the marking probability ramps from 0 at Kmin */
	uint32_t red_pmax_ppm;	 /* to Pmax at Kmax, then 1 (0: a step at ecn_k_bytes) */
	bool down;		 /* a blackhole, both ways */
};

struct ps_cfg {
	unsigned n_paths;
	struct ps_path_cfg path[PS_PATHS_MAX];
	/*
	 * Routing recomputed around a failed path (ps_fail()), as the Eunomia
	 * paper's section 5.6 has its switches do: a VP whose path is down
	 * hashes over the live ones, a reply takes a live path.  Off: a down
	 * path is a blackhole (the lab's link-flap, MP-RDMA's Fig. 11(b)).
	 */
	bool reroute;
	uint64_t host_bps; /* the sender's host link (0: none) */
	uint64_t host_qlimit_bytes, host_ecn_k_bytes;
	unsigned data_bytes, payload_bytes, ack_bytes; /* on the wire (1098, 1024, 78) */
	uint64_t seed;
};

struct ps_path_stats {
	unsigned long long data, probes, lost, qdrops, marked, acks, ece_acks, down_drops;
	unsigned long long drained; /* queued or on the wire when ps_fail() took the path down */
};

struct ps_flow_stats {
	unsigned long long delivered; /* packets, in order */
	struct mpr_ood ood;
	/* per path, this flow's packets */
	unsigned long long sent[PS_PATHS_MAX], probe_sent[PS_PATHS_MAX], acks[PS_PATHS_MAX],
	    ece_acks[PS_PATHS_MAX];
	uint64_t done_ns; /* when a finite flow was fully acknowledged (0: not yet) */
};

struct pathsim;

/* Paper-like defaults for n paths: 1 Gbit/s each, 10 µs, deep queues, no ECN. */
void ps_cfg_default(struct ps_cfg *cfg, unsigned n_paths);
/* Returns a new simulator, or NULL and errno (EINVAL, ENOMEM); free with ps_free(). */
struct pathsim *ps_new(const struct ps_cfg *cfg);
void ps_free(struct pathsim *ps);

/*
 * A flow from now on: pkts packets (0: an endless stream).  Returns its
 * index, or -EINVAL (a bad configuration), -ENOSPC (PS_FLOWS_MAX flows).
 */
int ps_add_flow(struct pathsim *ps, const struct mpr_cfg *cfg, uint64_t seed, uint32_t pkts);
/* Runs every event up to and including t. */
void ps_run_until(struct pathsim *ps, uint64_t t);
uint64_t ps_now(const struct pathsim *ps);

/* Path i's configuration, to change between runs (a fault, a repair). */
struct ps_path_cfg *ps_path(struct pathsim *ps, unsigned i);
/*
 * Path i fails (down) or comes back now.  A failing path drains: what its
 * queue holds and what is on its wire, data and replies, is lost.
 */
void ps_fail(struct pathsim *ps, unsigned i, bool down);
const struct ps_path_stats *ps_path_stats(const struct pathsim *ps, unsigned i);
const struct ps_flow_stats *ps_flow_stats(const struct pathsim *ps, int flow);
/* Starts a new phase: the flow's counters and OOD histogram from zero (done_ns kept). */
void ps_flow_stats_reset(struct pathsim *ps, int flow);
const struct mpr_snd *ps_flow_sender(const struct pathsim *ps, int flow);
const struct mpr_rcv *ps_flow_receiver(const struct pathsim *ps, int flow);

/*
 * The path a VP takes now (its hash, or with reroute and its path down a live
 * one), and the n-th VP (from 49152 up) that hashes to path i.
 */
unsigned ps_path_of(const struct pathsim *ps, uint16_t vp);
uint16_t ps_vp_on(const struct pathsim *ps, unsigned path, unsigned nth);
/* Runs to t1 and returns flow's payload bits per second delivered in order over (t0, t1]. */
double ps_goodput(struct pathsim *ps, int flow, uint64_t t0, uint64_t t1);
/* The OOD at or below which a share q (0..1) of the flow's packets arrived. */
uint32_t ps_ood_quantile(const struct pathsim *ps, int flow, double q);

/*
 * Eunomia under a spraying sender (../shared/briefs/mp-rdma-eunomia.md
 * D.8): a workload of finite connections from the sender host to one
 * receiver NIC of a kind (ordrx.h), at most `concurrent` at once (one that
 * finishes is replaced), sizes log-uniform in [min_pkts, max_pkts], each
 * from a random Head.  Every packet is sprayed over snd.vps (spray.h); its
 * reply comes back on its path.  The application takes what the receiver
 * delivers and checks it is exactly the next sequences; the NIC's ordering
 * memory is sampled every millisecond.  With arrive_mean_ns, connections
 * arrive instead as a Poisson process of that mean gap and wait for one of
 * the `concurrent` QPs when all are busy (FCT counts from the arrival); the
 * NIC holds `concurrent` QPs either way, idle ones too.  One workload a
 * simulator.
 */
struct ps_spray_cfg {
	struct spr_cfg snd;
	/*
	 * A ConWeave-style reorderer in the fabric (conweave.h): the source
	 * ToR picks each packet's path (one VP a path) over what the sender's
	 * VP would hash to, the destination ToR holds a rerouted epoch's early
	 * packets before the receiver sees them.  With snd.ecmp and rx ORD_GBN,
	 * the Eunomia paper's ConWeave baseline.
	 */
	bool conweave;
	struct cw_cfg cw;
	/*
	 * The ToR sprays instead of the sender: each packet to the next live
	 * path in turn, whatever its VP (the Eunomia paper's PS load balancer,
	 * and DRILL's kind: in the switch, around a failed port).
	 */
	bool switch_spray;
	enum ord_kind rx;
	unsigned n_conns, concurrent;
	uint64_t arrive_mean_ns; /* 0: a finished connection is replaced at once */
	uint32_t min_pkts, max_pkts;
	uint64_t seed;
};

struct ps_spray_stats {
	unsigned started, completed;   /* connections; completed: the receiver's completion */
	unsigned long long misordered; /* deliveries not exactly the next sequences, or short */
	unsigned long long duplicated; /* deliveries of sequences delivered before */
	unsigned long long delivered;  /* packets to the application */
	unsigned long long sent, retx, timeouts, go_backs; /* the senders' */
	uint64_t fct_sum_ns, fct_max_ns; /* first packet sent to the receiver's completion */
	uint64_t done_ns;		 /* when the last connection completed (0: not yet) */
	struct mpr_ood reorder;		 /* per new arrival: its distance above the next in order */
	unsigned long long mem_samples;
	struct ord_mem mem_sum, mem_high; /* the 1 ms samples' sum, and their high-water marks */
	unsigned long long path_sent[PS_PATHS_MAX], path_retx[PS_PATHS_MAX];
	struct cw_stats cw; /* the reorderer's (conweave) */
};

/* 0, -EINVAL (a bad configuration, a workload there already), -ENOMEM. */
int ps_add_spray(struct pathsim *ps, const struct ps_spray_cfg *cfg);
/* The workload's figures, with the receiver's counters in rx->eu; NULL when there is none. */
const struct ps_spray_stats *ps_spray_stats(const struct pathsim *ps, const struct ord_rx **rx);

#endif
