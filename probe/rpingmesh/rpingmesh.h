/* SPDX-License-Identifier: MIT */
/*
 * R-Pingmesh (SIGCOMM'24), rocelab's second monitor: its commands.  The
 * probe protocol is rpm.h, the pinglists pinglist.h.
 */
#ifndef ROCELAB_RPINGMESH_H
#define ROCELAB_RPINGMESH_H

/* rocelab controller pinglist (cli.c): an rl_exit code. */
int cmd_controller(int argc, char **argv);
/* The monitor's tables (probe/monitor.h): its agent (agent_cli.c) and analyzer (cli.c). */
struct mon_agent;
struct mon_analyzer;
extern const struct mon_agent rpingmesh_agent;
extern const struct mon_analyzer rpingmesh_analyzer;

#endif
