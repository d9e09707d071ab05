/* SPDX-License-Identifier: MIT */
/* The fault commands: inject (journaled, verified, reverted), revert, faults, and the incast load.
 */
#ifndef ROCELAB_INJECT_H
#define ROCELAB_INJECT_H

#include "injectors/fault.h"

int cmd_inject(int argc, char **argv);

int cmd_revert(int argc, char **argv);
/*
 * Undo every outstanding fault of inv_path's lab, newest first, as 'rocelab
 * revert -i INV' does (a run's --recover calls it): 0 with how many were
 * undone and how many failed, -EINVAL when the inventory cannot be read, or
 * -EIO when the journal cannot be or the lab is another run's (said).
 */
int fault_revert_lab(const char *inv_path, size_t *undone, size_t *failed);
int cmd_faults(int argc, char **argv);
int cmd_load(int argc, char **argv);
/* 'load pfc': a PFC storm from a netdev here, or a count of the PFC frames arriving on one. */
int load_pfc(int argc, char **argv);

#endif
