/* SPDX-License-Identifier: MIT */
/* The virtual lab's SSH side: lab key pair, per-switch host keys, sshd processes, known_hosts. */
#ifndef ROCELAB_VLAB_SSHD_H
#define ROCELAB_VLAB_SSHD_H

#include "harness/lib/inventory.h"

#include <stdbool.h>

#include <sys/types.h>

#define SSHD_BIN       "/usr/sbin/sshd"
#define SSH_KEYGEN_BIN "/usr/bin/ssh-keygen"

/* Paths inside the state directory. */
char *vlab_lab_key_path(char *buf, size_t len);
char *vlab_known_hosts_path(char *buf, size_t len);
char *vlab_sshd_dir(char *buf, size_t len, const char *sw);

/*
 * The devices with an sshd: every switch, then (with hosts) every host with
 * a management address.  Device i of vlab_sshd_count(): 0 with d filled.
 */
struct vlab_sshd_dev {
	const char *name, *user;
	struct in_addr mgmt;
	unsigned port;
};
size_t vlab_sshd_count(const struct inventory *inv, bool hosts);
void vlab_sshd_dev(const struct inventory *inv, size_t i, struct vlab_sshd_dev *d);

/* Generate the lab key, each device's host key and sshd_config, and known_hosts. */
int vlab_ssh_prepare(const struct inventory *inv, bool hosts);

/* Start sshd for device i (vlab_sshd_dev()) inside its namespace; returns its pid or -errno. */
pid_t vlab_sshd_start(const struct inventory *inv, size_t i);

/* Wait until addr:port accepts TCP connections (from the current namespace). */
int vlab_wait_tcp(struct in_addr addr, unsigned port, int timeout_ms);

/* pid recorded for the switch's sshd, or 0. */
pid_t vlab_sshd_pid(const char *sw);

#endif
