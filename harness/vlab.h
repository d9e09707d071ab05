/* SPDX-License-Identifier: MIT */
/* The built-in virtual lab: every device a network namespace, every link a veth, sshd on each switch. */
#ifndef ROCELAB_VLAB_H
#define ROCELAB_VLAB_H

#include "inventory.h"

#include <stdbool.h>
#include <stdio.h>

#define VLAB_MGMT_BRIDGE "rl-mgmt"

/* Bring the lab of inv_path up. Returns an rl_exit code. */
int vlab_up(const char *inv_path, bool quiet);

/* Remove everything of the lab (namespaces, processes, veths, bridge, state). Returns an rl_exit code. */
int vlab_down(bool quiet);

/* Print the lab that is up (JSON with json). Returns an rl_exit code: 3 when no lab is up. */
int vlab_status(bool json);

/* True when a lab is up, or its leftovers (rl-* namespaces) exist. */
bool vlab_is_up(void);

/*
 * The inventory of the lab that is up (a new object; inventory_free()), or
 * NULL with errno ENOENT when none is.  Problems are printed to errf.
 */
struct inventory *vlab_inventory(FILE *errf);

/* Namespace name of a device: "rl-<name>" into buf. */
const char *vlab_ns(char *buf, size_t len, const char *device);

#endif
