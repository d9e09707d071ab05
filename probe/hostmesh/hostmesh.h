/* SPDX-License-Identifier: MIT */
/* Hostmesh (APNet'24): the per-host probing agent and the analyzer's command. */
#ifndef ROCELAB_HOSTMESH_H
#define ROCELAB_HOSTMESH_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/monitor.h"

#include <stdint.h>

/* Agent parameters; defaults are the paper's where it gives them. */
struct hm_agent_cfg {
	struct agent_cfg a;    /* first: what every agent has (rotate_ms: 60 s) */
	long long interval_ms; /* per RNIC probe interval: 100 ms */
	int pool;	       /* source ports in the pool, a quarter replaced each rotate_ms: 16 */
};

void hm_agent_defaults(struct hm_agent_cfg *c);

/* The agent's parameters (params.c): its command line, the scenario's hostmesh section. */
extern const struct opt_desc hm_agent_opts[];

/* The agent's probing, as agent_core_main() runs it (probe/agentcore.h) for cfg.a.host. */
struct agent_loop;
extern const struct agent_loop hm_agent_loop;

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
