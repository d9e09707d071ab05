/* SPDX-License-Identifier: MIT */
/* Hostmesh (APNet'24): the per-host probing agent and the analyzer's command. */
#ifndef ROCELAB_HOSTMESH_H
#define ROCELAB_HOSTMESH_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/ptrans.h"

#include <stdint.h>

/* Agent parameters; defaults are the paper's where it gives them. */
struct hm_agent_cfg {
	const char *host;
	const struct pt_ops *transport;
	long long interval_ms;	    /* per RNIC probe interval: 100 ms */
	long long timeout_ms;	    /* probe timeout: 500 ms */
	int pool;		    /* source ports in the pool: 16 */
	long long rotate_ms;	    /* replace a quarter of the pool this often: 60 s */
	double trace_rate;	    /* path traces per second (switch ICMP budget): 2 */
	long long trace_refresh_ms; /* re-trace a 5-tuple after: 60 s */
	long long trace_timeout_ms; /* wait for ICMP per trace: 300 ms */
	int max_ttl;		    /* 6 */
	int dscp;		    /* 26: the RoCE class, PFC priority 3 */
	long long duration_ms;	    /* 0: until SIGINT/SIGTERM */
	const char *analyzer;	    /* ADDR[:PORT] to stream records to, or NULL */
	const char *out;	    /* file to write records to ("-": stdout), or NULL */
	size_t buffer_bytes;	    /* record buffer while the analyzer is away: 1 MiB */
	long long orphan_ms;	    /* exit after this long without the analyzer: 30 s (0: never) */
	long long clock_offset_ns;  /* this host's clock minus the analyzer's: taken off the
				       times in records (0) */
	unsigned seed;
};

void hm_agent_defaults(struct hm_agent_cfg *c);

/* The agent's parameters (params.c): its command line, the scenario's hostmesh section. */
extern const struct opt_desc hm_agent_opts[];

/* Run the agent for cfg.host of inv until the duration ends or a signal. Returns an rl_exit code.
 */
int hm_agent_run(const struct inventory *inv, const struct hm_agent_cfg *cfg);

/* The monitor's tables (probe/monitor.h): its agent (agent_cli.c) and analyzer (cli.c). */
struct mon_agent;
struct mon_analyzer;
extern const struct mon_agent hostmesh_agent;
extern const struct mon_analyzer hostmesh_analyzer;

/* The 50-byte probe payload (the paper's size), little-endian. */
#define HM_PAYLOAD_LEN	 50
#define HM_PAYLOAD_MAGIC 0x50484c52u /* "RLHP" */
enum hm_kind { HM_KIND_PROBE = 0, HM_KIND_TRACE = 1 };

struct hm_payload {
	uint8_t kind, src, dst, ttl;
	uint32_t nonce, id;
	uint16_t sport;
	uint64_t t1_ns;
};

void hm_payload_encode(const struct hm_payload *p, uint8_t out[HM_PAYLOAD_LEN]);
/* -EPROTO when buf is not a rocelab probe payload of this version. */
int hm_payload_decode(const uint8_t *buf, size_t len, struct hm_payload *p);

#endif
