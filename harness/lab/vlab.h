/* SPDX-License-Identifier: MIT */
/* The built-in virtual lab: every device a network namespace, every link a veth, sshd on each
 * switch. */
#ifndef ROCELAB_VLAB_H
#define ROCELAB_VLAB_H

#include "harness/lib/inventory.h"

#include <stdbool.h>
#include <stdio.h>

#define VLAB_MGMT_BRIDGE "rl-mgmt"

/* Bring the lab of inv_path up. Returns an rl_exit code. */
int vlab_up(const char *inv_path, bool quiet, bool remote);

/* Where 'lab up --remote' writes the lab as an inventory of kind ssh. */
char *vlab_ssh_inventory_path(char *buf, size_t len);

/* Remove everything of the lab (namespaces, processes, veths, bridge, state). Returns an rl_exit
 * code. */
int vlab_down(bool quiet);

/* Print the lab that is up (JSON with json). Returns an rl_exit code: 3 when no lab is up. */
int vlab_status(bool json);

/* The devices whose namespaces (rl-DEVICE) exist, as a malloc'd array of n malloc'd names. */
size_t vlab_devices(char ***names);

/* True when a lab is up, or its leftovers (rl-* namespaces) exist. */
bool vlab_is_up(void);

/*
 * The inventory of the lab that is up (a new object; inventory_free()), or
 * NULL with errno ENOENT when none is.  Problems are printed to errf.
 */
struct inventory *vlab_inventory(FILE *errf);

#define VLAB_BUILTIN_INVENTORY "lab-inventory/vlab-rail.yaml"

/* Path of the built-in virtual lab: beside the binary in a build tree, else the installed copy. */
const char *vlab_builtin_inventory(char *buf, size_t len);

/* The inventory to act on: path (-i) when given, else the lab that is up (see
 * lab_target_inventory()). */
struct inventory *vlab_target_inventory(const char *path);

/*
 * The VM tier's host under test: Soft-RoCE (rxe) on the 6.1 kernel only works
 * on netdevs of the initial namespace, so that host's RNICs are built there.
 * ROCELAB_HOST_IN_ROOT_NS=HOST asks for it; 'lab up' refuses it unless this
 * namespace has no interface but loopback (a throwaway VM), never on a machine
 * with a network of its own.  NULL when not asked.
 */
const char *vlab_root_host(void);

#endif
