/* SPDX-License-Identifier: MIT */
/*
 * MP-RDMA endpoints on a lab: the sender and the receiver of one
 * connection, each the pure state machines of transport/mprdma/ driven by
 * one event loop (transport/dp/tloop.h) over a datapath on its RNIC
 * (transport/dp/dp.h), with its packets as RoCEv2 (mpr_wire.h).  Each runs
 * where its RNIC is (a host namespace, a host reached over SSH) and writes
 * JSON lines: one every stats interval ("snd"/"rcv"), one at the end
 * ("snd-end"/"rcv-end").  'rocelab transport run' starts both and reads them.
 */
#ifndef ROCELAB_MPR_EP_H
#define ROCELAB_MPR_EP_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

enum ep_ecn {
	EP_ECN_SOJOURN, /* emulated: CE when one-way delay exceeds its minimum by ecn-threshold */
	EP_ECN_WIRE,	/* only CE bits the fabric set (a RED qdisc, a switch) */
	EP_ECN_OFF,
};

/* The first VP: VP i is UDP source port EP_VP_LO + i. */
#define EP_VP_LO 49152u

/* Both ends' parameters: one option table for the command lines and the scenario. */
struct ep_params {
	bool single_path; /* the rxe-like baseline: one VP, go back N, receiver L = 1 */
	unsigned delta, bitmap, iw, vps, seed;
	unsigned qp_timeout; /* single path: the QP's timeout exponent (4.096 us << it) */
	unsigned sport;	     /* single path: its VP, a source port from EP_VP_LO (0: EP_VP_LO) */
	bool ooo_off;	     /* out-of-order control off (the Fig. 14 ablation) */
	unsigned msg_kb;     /* message size (1 KB packets) */
	double sync, alpha;  /* synchronise messages: their share, the hold's α */
	double probe;	     /* path probing probability a round trip */
	int dscp;
	unsigned snd_qpn, rcv_qpn;
	char ecn[16];
	char mode[16];	     /* rocelab | paper (mpr_cfg_paper()) */
	char scoreboard[8];  /* on | off | "" (the mode's) */
	char probe_mode[16]; /* per-rtt | per-packet | "" (the mode's) */
	char credit[16];     /* once | per-reply | paper | "" (the mode's) */
	char recovery[8];    /* single path: gbn (rxe's) | irn (IRN's selective repeat) */
	char cc[8];	     /* single path: window | dcqcn (paced at line_mbit) */
	double line_mbit;    /* dcqcn: the NIC's line rate */
	char nack[8];	     /* once | every | "" (the mode's): the receiver's, beyond its bitmap */
	char sync_wait[12];  /* delay | stop-wait: when a synchronise message may leave */
	unsigned notify_every; /* every n-th message asks for a completion (0: none) */
	char receiver[16];     /* bitmap (L slots) | eunomia (Eunomia's HD bitmap) | gbn (spray) */
	char workload[16];     /* stream (MP-RDMA's backlogged flow) | spray (spray_ep.h) */
	char spray[16];	       /* spray: round-robin | random over the VPs */
	char versus[16];       /* spray: the odd QPs' receiver kind ("": receiver's, all QPs) */
	unsigned conns;	       /* spray: connections at once, each a QP pair */
	unsigned size_min_kb, size_max_kb; /* spray: connection sizes, log-uniform */
	double load_mbit; /* spray: Poisson arrivals offering this much payload (0: backlogged) */
	char vp_set[400]; /* spray: the VPs to spray over ("": all of vps) */
	long long ecn_k_us, ack_delay_us, rto_min_us, srtt_init_us;
	long long interval_ms; /* stats lines */
	long long duration_ms; /* how long to run (0: until SIGINT/SIGTERM) */
};

extern const struct opt_desc ep_opts[];
void ep_defaults(struct ep_params *p);
/* The sender's state-machine configuration the parameters give (mode, then each departure). */
struct mpr_cfg;
void ep_snd_cfg(const struct ep_params *p, struct mpr_cfg *c);
/* Cross-checks, then ECN parsed; -EINVAL with what to change in err. */
int ep_check(const struct ep_params *p, enum ep_ecn *ecn, char *err, size_t errlen);

/*
 * Run the sender on RNIC from ("host:rnic") toward RNIC to, or the receiver
 * on RNIC at, until duration or *stop.  JSON lines go to out, problems to
 * stderr.  An rl_exit code.
 */
int ep_send(const struct inventory *inv, const char *from, const char *to,
	    const struct ep_params *p, const volatile sig_atomic_t *stop, FILE *out);
int ep_recv(const struct inventory *inv, const char *at, const struct ep_params *p,
	    const volatile sig_atomic_t *stop, FILE *out);

/*
 * Trace each VP's 5-tuple from RNIC from to RNIC to (UDP source port VP,
 * destination 4791, as the data and the ACKs travel): a JSON line "trace"
 * per VP with the addresses that answered each TTL, once, or with
 * p->duration_ms a sweep a second until then or *stop; "paths-end" last.
 * Run on from's host (a namespace, over SSH).  An rl_exit code.
 */
int ep_paths(const struct inventory *inv, const char *from, const char *to,
	     const struct ep_params *p, const volatile sig_atomic_t *stop, FILE *out);

/* rocelab transport run|send|recv|paths (transport/cli.c). */
int cmd_transport(int argc, char **argv);
/* rocelab transport sim: the paper's figures on the path simulator (sim_cmd.c); argv[0] is "sim".
 */
int cmd_transport_sim(int argc, char **argv);

#endif
