/* SPDX-License-Identifier: MIT */
/* Hostmesh as a component under test (component.c) and its incident report section (report.c). */
#ifndef ROCELAB_HOSTMESH_COMPONENT_H
#define ROCELAB_HOSTMESH_COMPONENT_H

#include "harness/component/component.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/moncomp.h"

/* components.hostmesh in a scenario. */
struct hm_params {
	struct hm_agent_cfg agent;
	struct az_cfg az;
};

/* One scenario's Hostmesh: the analyzer here, an agent on every host through the lab. */
struct hm_state {
	struct mon_state mon; /* first: its processes, the analyzer's windows (for the report) */
	const struct hm_params *cfg;
};

int hm_report(void *state, const struct comp_report *r);
int hm_plot(const struct comp_report *r, const json_t *params, char *err, size_t errlen);

extern const struct component_ops hostmesh_component;

#endif
