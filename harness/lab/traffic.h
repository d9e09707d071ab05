/* SPDX-License-Identifier: MIT */
/* Test traffic: UDP from RNICs on lab hosts (labs that can open sockets there), flows across a
 * port, incast. */
#ifndef ROCELAB_TRAFFIC_H
#define ROCELAB_TRAFFIC_H

#include "harness/lab/lab.h"
#include "harness/lib/inventory.h"

#include <stdint.h>
#include <sys/types.h>

#define FLOW_PINS 8 /* source ports a flow can be pinned to */

/*
 * One source RNIC sending to one destination address; traffic_blast() over
 * its pinned source ports when it has any (ports whose traced paths cross a
 * chosen link), else over the blast's own.
 */
struct flow {
	struct inv_endpoint src; /* a host RNIC */
	struct in_addr dst;
	uint16_t pin[FLOW_PINS];
	unsigned n_pin;
};

/*
 * From each flow's host (lab_socket(): LAB_CAP_ENTER), send pkts datagrams of payload bytes on
 * each of n_sports source ports starting at sport0, to dst:dport with IP TOS
 * tos.  Returns the number sent, or -errno.
 */
int traffic_send(struct lab *l, const struct flow *flows, size_t n, uint16_t dport, uint16_t sport0,
		 int n_sports, int pkts, int tos, int payload);

/*
 * Send as fast as possible from every flow at once (one process per flow) for
 * duration_ms, rotating over n_sports source ports (flow i's from sport0 + i,
 * or from 50000 + 97 i when sport0 is 0) or over its pinned ones, at most pps datagrams per second
 * per flow (0: as fast as possible).  Returns datagrams sent, or -errno.  SIGTERM to the senders,
 * or to a caller that has rl_signals_install()ed, ends it early; the count is then what was sent
 * until then.
 */
long long traffic_blast(struct lab *l, const struct flow *flows, size_t n, uint16_t dport, int tos,
			int payload, int n_sports, uint16_t sport0, long long duration_ms,
			unsigned long long pps);
/*
 * From then on, traffic_blast()'s senders write to fd (-1: nowhere) what each
 * flow has sent, every 100 ms and at its end: "sent FLOW SECONDS COUNT
 * REFUSED\n", SECONDS the realtime clock's (what a run grades a service's own
 * rate by), REFUSED the sends its host had no room for (EAGAIN, ENOBUFS:
 * what is downstream of the sender held it back, not its CPU).
 */
void traffic_blast_progress(int fd);
/*
 * What the flows of the "sent" lines at path sent together, in Mbit/s of
 * datagrams of bytes each (each flow's count over its own first to last
 * line), and how many sends their host refused (*refused).  -1 when no flow
 * has two lines.
 */
double traffic_sent_mbps(const char *path, int bytes, unsigned long long *refused);
/*
 * Datagrams flow sent in [from, to] (realtime seconds) by the "sent" lines
 * of the file at path, interpolated between lines; -1 when the lines do not
 * cover the span.
 */
double traffic_sent_between(const char *path, size_t flow, double from, double to);
/*
 * traffic_sent_mbps() within [from, to] only: each flow's datagrams over the
 * part of the span its lines cover (at least 0.2 s of it), over that part's
 * length.  -1 when no flow's lines cover any of it.
 */
double traffic_sent_mbps_within(const char *path, int bytes, double from, double to);

/*
 * Flows whose packets must cross port of switch sw (port < 0: the switch), in
 * both directions where the topology allows.  With egress_to_peer set, only
 * flows leaving through the port toward its peer (what a congested egress
 * queue sees).  Returns how many were written to out.
 */
size_t traffic_flows_across(const struct inventory *inv, size_t sw, ssize_t port,
			    bool egress_to_peer, struct flow *out, size_t max);

/*
 * Among how many equal-cost links ECMP spreads traffic_flows_across()'s
 * packets where one of them is port of switch sw: 1 for a host's port, the
 * edge switch's uplinks for a fabric port (a symmetric two-tier fabric: the
 * spine's port toward an edge carries 1/uplinks of what comes from the other
 * edges).  What pacing a test load to a rate at the port divides by.
 */
unsigned traffic_ecmp_width(const struct inventory *inv, size_t sw, size_t port);

/* What a host sends itself on a lab reached over SSH: 'rocelab load send'. */
struct host_send {
	const char *prog;	/* rocelab there (lab_program) */
	const char *inv_there;	/* the inventory's path there (lab_share) */
	long long ms;		/* for this long */
	unsigned long long pps; /* per flow; 0: as fast as it can */
	int priority, size, n_sports;
	int ecn;       /* the IP header's ECN bits: 0 not ECN-capable, 2 ECT(0) */
	int sport0;    /* the first source port (0: traffic_blast's own) */
	bool progress; /* its "sent" lines on its stdout (traffic_blast_progress()) */
	int dscp;      /* the DSCP sent (0: the priority's class selector, priority << 3) */
};

/* The argv of one host's 'rocelab load send', its strings kept here. */
struct host_send_argv {
	const char *argv[28];
	char list[2048], num[8][24];
};

/*
 * The argv that makes host h send its own flows of flows[n] as hs says.
 * Returns how many flows are h's (0: none, a untouched but for its list).
 */
size_t traffic_host_send_argv(const struct inventory *inv, size_t h, const struct flow *flows,
			      size_t n, const struct host_send *hs, struct host_send_argv *a);

#endif
