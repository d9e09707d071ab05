/* SPDX-License-Identifier: MIT */
/*
 * R-Pingmesh's pinglists from an inventory (../shared/briefs/r-pingmesh.md
 * A, E1, F.2): for each RNIC of a host, its ToR-mesh targets (the RNICs
 * under the same ToR: its RNIC anomalies) and its inter-ToR targets (RNICs
 * under the other ToRs: the links and switches between them), each with
 * the UDP source ports that cover the ECMP paths between the two ToRs.
 *
 * An RNIC's ToR is the switch at the far end of its inventory link (a rail
 * switch on a rail-optimized lab, a tor or leaf in a Clos).  Pairs on one
 * host are left out unless same_host (they measure the host, not the
 * fabric: yuuki/rpingmesh #39); with tenants, both RNICs share one.  What
 * it picks is a function of the inventory and the seed alone.
 */
#ifndef ROCELAB_RPM_PINGLIST_H
#define ROCELAB_RPM_PINGLIST_H

#include "harness/lib/inventory.h"
#include "probe/rpingmesh/rpm.h"

#define RPM_SPORT_LO   49152
#define RPM_SPORTS_MAX 64 /* the cap yuuki/rpingmesh puts on Eq. (1) */

/*
 * Eq. (1): how many 5-tuples hit each of m equal ECMP paths at least once
 * with probability p: n = ceil(ln(1 - p^(1/m)) / ln((m - 1) / m)), capped
 * at RPM_SPORTS_MAX (m = 4, p = 0.9: 13; m = 8: 33; m = 16: 78, so 64).
 * One path (m <= 1) needs one.
 */
unsigned rpm_sports_for(unsigned m, double p);

struct rpm_pl_cfg {
	unsigned inter_tor_per_tor; /* 0: every RNIC of every other ToR; N: N of each, by seed */
	unsigned sports;	    /* 0: Eq. (1) per pair of ToRs; N: N for every target */
	double coverage;	    /* Eq. (1)'s p */
	bool same_host;		    /* probe RNICs of the same host too */
	unsigned seed;
	const bool *live; /* per host: only these are targets (the controller's registered); NULL:
			     every host */
	bool pairs_only;  /* the targets without their source ports (n_sports 0): what a
			     monitor's probe pairs need, at any scale */
};

/* The brief's defaults: every RNIC of other ToRs, Eq. (1) at p = 0.9, same host off. */
void rpm_pl_cfg_default(struct rpm_pl_cfg *c);

struct rpm_target {
	size_t src_rnic;    /* the probing RNIC (its index on the host) */
	size_t host, rnic;  /* the target */
	enum rpm_list list; /* RPM_TOR_MESH or RPM_INTER_TOR */
	unsigned paths;	    /* m: the ECMP paths between the two ToRs (1 under one ToR) */
	unsigned n_sports;
	uint16_t sports[RPM_SPORTS_MAX];
};

struct rpm_pinglist {
	size_t host;
	struct rpm_target *t;
	size_t n;
};

/*
 * The pinglist of host (an inventory index): for each of its RNICs in
 * turn, its ToR-mesh targets, then its inter-ToR ones ToR by ToR, each in
 * inventory order.  0, -ENOENT (no such
 * host), -ENOMEM.  Free with rpm_pinglist_free().
 */
int rpm_pinglist(const struct inventory *inv, size_t host, const struct rpm_pl_cfg *c,
		 struct rpm_pinglist *out);
void rpm_pinglist_free(struct rpm_pinglist *pl);

/*
 * What every pinglist of a lab shares (each ToR's RNICs, the ECMP paths
 * between two ToRs), built once for many: rpm_pinglist_on() of every host
 * is then linear in the pinglists, where rpm_pinglist() builds it each
 * time.  inv is borrowed.
 */
struct rpm_fabric;
struct rpm_fabric *rpm_fabric_new(const struct inventory *inv);
void rpm_fabric_free(struct rpm_fabric *f);
int rpm_pinglist_on(const struct rpm_fabric *f, size_t host, const struct rpm_pl_cfg *c,
		    struct rpm_pinglist *out);

/* The ToR of RNIC (host, rnic): a switch index, or -1 when its link ends at no switch. */
int rpm_tor_of(const struct inventory *inv, size_t host, size_t rnic);

#endif
