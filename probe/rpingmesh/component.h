/* SPDX-License-Identifier: MIT */
/* R-Pingmesh as a component under test (component.c). */
#ifndef ROCELAB_RPM_COMPONENT_H
#define ROCELAB_RPM_COMPONENT_H

#include "harness/component/component.h"
#include "probe/moncomp.h"
#include "probe/rpingmesh/agent.h"
#include "probe/rpingmesh/analyzer.h"
#include "probe/rpingmesh/ctl.h"

/* components.rpingmesh in a scenario. */
struct rpm_params {
	struct rpm_agent_cfg agent;
	struct rpa_cfg az;
	struct rpm_ctl_cfg ctl; /* its pinglist options are the agent's (agent.pl) */
};

/* Its part of the incident report (report.c), from the windows collect() kept. */
int rpm_report(void *state, const struct comp_report *r);
int rpm_plot(const struct comp_report *r, const json_t *params, char *err, size_t errlen);
const json_t *rpm_windows(const void *state);

extern const struct component_ops rpingmesh_component;

#endif
