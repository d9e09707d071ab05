/* SPDX-License-Identifier: MIT */
/* The fault commands: inject (journaled, verified, reverted), revert, faults, and the incast load.
 */
#ifndef ROCELAB_INJECT_H
#define ROCELAB_INJECT_H

#include "injectors/fault.h"

int cmd_inject(int argc, char **argv);

/*
 * Parse "inject KIND --target ... [options]" (argv[0] is "inject") and resolve
 * it against inv into spec, as the CLI does.  Returns 0 or an rl_exit code.
 */
int inject_spec(int argc, char **argv, const struct inventory *inv, struct fault_spec *spec);
int cmd_revert(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_load(int argc, char **argv);

#endif
