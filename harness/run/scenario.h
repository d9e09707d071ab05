/* SPDX-License-Identifier: MIT */
/* Scenario files: phases, components, faults, load and expectations, validated with file:line:col.
 */
#ifndef ROCELAB_SCENARIO_H
#define ROCELAB_SCENARIO_H

#include "harness/component/component.h"
#include "harness/lib/inventory.h"
#include "injectors/kinds/kinds.h"

#include <stdio.h>

#define SCN_NAME_MAX 63
#define SCN_MAX_OPTS 24

/* One fault: its typed spec (resolved against the inventory), when, and where it was written. */
struct scn_fault {
	struct fault_spec spec;
	long long at_ms;  /* after the fault phase starts */
	long long for_ms; /* 0: until the fault phase ends */
	char role[160];	  /* the target as written by role ("{ role: rnic }"), "" : by name */
	struct inv_loc loc;
};

enum scn_load_kind { LOAD_INCAST, LOAD_STREAM };

/* The most a load may ask, in Mbit/s: 1.6 Tbit/s (two 800G links) */
#define LOAD_MBPS_MAX 1600000ULL

struct scn_load {
	enum scn_load_kind kind;
	char to[72];	   /* incast: the receiving RNIC; a pinned stream's too */
	char from[16][72]; /* incast: senders; a pinned stream: its one sender */
	size_t n_from;
	char across[72]; /* stream: SWITCH:PORT the load leaves through; incast: every sender's
			    paths cross it (optional) */
	unsigned long long rate_mbps; /* total offered rate */
	/*
	 * rate: N% -- a share of a link's speed: the link of 'across' when it is
	 * given, else of 'to' (the receiver's, where an incast congests).
	 * share 0: rate was given in bits a second.
	 */
	double share;
	char link_of[72];	      /* the endpoint whose link it is */
	unsigned long long link_mbps; /* that link's speed */
	bool link_speed_given;	      /* false: the inventory's default (100 Gbit/s) */
	int priority, size;
	int dscp; /* the DSCP it is sent in; -1: the priority's class selector (priority << 3) */
	/*
	 * transport: rc -- an incast in RDMA terms: RDMA WRITEs of size bytes on RC QPs over
	 * rdma-core ('rocelab load rc', transport/dp/rcload.h), where RNICs have RDMA devices;
	 * else (udp) UDP 4791 datagrams from sockets.
	 */
	bool rc;
	struct inv_loc loc;
};

/*
 * A declared service: a UDP 4791 stream on one 5-tuple (from's address, to's,
 * a source port whose traced path crosses or avoids port), for the whole
 * scenario at rate, slowed to slow_to of it from slow_at_ms into the fault
 * phase; what its monitor must say of it.  R-Pingmesh's agents find it on
 * the sending RNIC (service tracing).
 */
struct scn_service {
	char name[SCN_NAME_MAX + 1];
	char from[72], to[72];
	char port[72]; /* "" none; else the port its path must cross (or avoid) */
	bool avoids;
	unsigned long long rate_mbps;
	long long slow_at_ms; /* into the fault phase */
	double slow_to;	      /* 0: no slowdown; else its share of rate from then on */
	int want_impacted;    /* -1 not asked; 0: never impacted; 1: impacted */
	int want_network;     /* -1 not asked; 1: impacted and network-related; 0: not */
	struct inv_loc loc;
};

enum metric_op { MOP_GE, MOP_GT, MOP_LE, MOP_LT, MOP_EQ };

/* expect: metrics: { goodput-vs-optimal: ">= 0.9" } */
struct metric_expect {
	char name[48];
	enum metric_op op;
	double value;
	char text[32]; /* as written */
	struct inv_loc loc;
};

#define SCN_MAX_METRICS 16
#define SCN_MAX_ALSO	8 /* other faults' targets an expectation accepts */

struct scn_expect {
	bool silent;	 /* no verdict at all (a no-fault scenario) */
	char cls[24];	 /* rnic | switch-link | switch | congestion | host-processing */
	char target[72]; /* default: the first fault's target */
	/* with no target given, the other faults' targets: naming any of them is right */
	char also[SCN_MAX_ALSO][72];
	size_t n_also;
	long long within_ms; /* detect within this long after the fault starts */
	/* within_ms not written (WITHIN_WRITTEN): the component's design time with its
	 * parameters (component_ops.detect_ms), else the fault phase */
	enum { WITHIN_WRITTEN, WITHIN_DESIGN, WITHIN_PHASE } within_from;
	int top_k;		 /* localized when the target ranks within top_k: 1 */
	int max_false_positives; /* verdicts in baseline and settled recovery: 0 */
	/* the least share of in-fault verdicts naming the truth with the class (0: not asked) */
	double min_precision;
	/*
	 * "" or why this is known not to be met today (expect.known-blind): a
	 * failure is then reported as skipped with this reason, and fails no run.
	 */
	char blind[200];
	struct metric_expect metrics[SCN_MAX_METRICS];
	size_t n_metrics;
};

/* A component under test, its parameters and what is expected of it. */
struct scn_component {
	const struct component_ops *ops;
	void *cfg;		  /* ops->cfg_size bytes */
	char profile[16];	  /* the profile its parameters start from, "" for the defaults */
	unsigned n_overrides;	  /* parameters the scenario set over them */
	struct scn_expect expect; /* its own, else the scenario's */
	struct inv_loc loc;
};

struct scenario {
	char *path;
	char *inv_path;	       /* the inventory it runs on */
	struct inventory *inv; /* loaded and validated */
	char name[SCN_NAME_MAX + 1];
	char suite[SCN_NAME_MAX + 1];
	unsigned seed; /* targets by role were picked with it */
	char *description;
	long long baseline_ms, fault_ms, recovery_ms;
	struct scn_component *comps; /* at least one */
	size_t n_comps;
	struct scn_fault *faults;
	size_t n_faults;
	/*
	 * The fabric profile: shaping (link-degrade) held for the whole scenario,
	 * applied before the components start, journaled and reverted like
	 * faults after they stop.  Never ground truth.
	 */
	struct scn_fault *fabric;
	size_t n_fabric;
	struct scn_load *loads;
	size_t n_loads;
	struct scn_service *services;
	size_t n_services;
	struct scn_expect expect; /* the scenario's: each component's unless it has its own */
	/*
	 * One of the scenario file's variants (0 without): name is then
	 * group.variant, and the variants run one after another on the same
	 * faults, phases and seed.
	 */
	unsigned n_variants, variant_idx;
	char group[SCN_NAME_MAX + 1], variant[SCN_NAME_MAX + 1];
};

/*
 * A load's rate as a share of its link, in words for a person (" (60% of
 * rail1:swp5's link, 100 Gbit/s)"), or "" for a rate in bits a second.
 * Returns buf.
 */
const char *scn_load_share_text(const struct scn_load *l, char *buf, size_t len);

/*
 * Parse and validate a scenario and load its inventory: inv_override (-i)
 * if given, else the scenario's 'inventory' (relative to the scenario's
 * directory), else builtin.  Fault targets and options are checked against
 * that inventory exactly as 'rocelab inject' checks them.  Targets, options
 * and load endpoints given by role ({ role: rail-uplink, ... }) are picked
 * from the inventory with seed and the scenario's name: the same seed picks
 * the same ones.  Errors go to errf as path:line:col.  NULL + errno EINVAL on
 * bad input, ENXIO when the inventory has nothing a target by role asks for
 * (the scenario cannot be placed on that lab: 'run' skips it unless --strict).
 */
struct scenario *scenario_load(const char *path, const char *inv_override, const char *builtin,
			       unsigned seed, FILE *errf);

/* The same, from the text of a scenario at path (path: for messages and relative paths). */
struct scenario *scenario_parse(const char *path, const char *text, size_t len,
				const char *inv_override, const char *builtin, unsigned seed,
				FILE *errf);

/*
 * Variant number variant (0 ..) of a scenario with 'variants:' (scenario_load() loads the
 * first; its n_variants says how many there are).  Every variant is validated each time.
 */
struct scenario *scenario_load_variant(const char *path, const char *inv_override,
				       const char *builtin, unsigned seed, FILE *errf,
				       unsigned variant);
struct scenario *scenario_parse_variant(const char *path, const char *text, size_t len,
					const char *inv_override, const char *builtin,
					unsigned seed, FILE *errf, unsigned variant);

void scenario_free(struct scenario *s);

#endif
