/* SPDX-License-Identifier: MIT */
/* The fault commands: inject (journaled, verified, reverted), revert, faults, and the incast load.
 */
#ifndef ROCELAB_INJECT_H
#define ROCELAB_INJECT_H

#include "injectors/fault.h"

int cmd_inject(int argc, char **argv);

int cmd_revert(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_load(int argc, char **argv);
/* 'load pfc': a PFC storm from a netdev here, or a count of the PFC frames arriving on one. */
int load_pfc(int argc, char **argv);

#endif
