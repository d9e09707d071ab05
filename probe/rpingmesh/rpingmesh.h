/* SPDX-License-Identifier: MIT */
/*
 * R-Pingmesh (SIGCOMM'24), rocelab's second monitor: its commands.  The
 * probe protocol is rpm.h, the pinglists pinglist.h.
 */
#ifndef ROCELAB_RPINGMESH_H
#define ROCELAB_RPINGMESH_H

/* rocelab controller pinglist (cli.c): an rl_exit code. */
int cmd_controller(int argc, char **argv);
/* rocelab agent rpingmesh (argv[0] "rpingmesh"): an rl_exit code. */
int cmd_rpm_agent(int argc, char **argv);
/* rocelab analyze --monitor rpingmesh (the option taken out of argv): an rl_exit code. */
int cmd_rpm_analyze(int argc, char **argv);

#endif
