/* SPDX-License-Identifier: MIT */
/* Runs planned fault actions on their backend: ssh to switches (cached sessions), netlink on hosts. */
#ifndef ROCELAB_EXEC_H
#define ROCELAB_EXEC_H

#include "fault.h"

struct sshc;

struct fault_exec {
	const struct inventory *inv;
	bool virtual_lab;     /* hosts are namespaces rl-<host> */
	struct sshc **ssh;    /* per switch, opened on first use */
};

void fault_exec_init(struct fault_exec *x, const struct inventory *inv, bool virtual_lab);
void fault_exec_close(struct fault_exec *x);

/* Apply (undo false) or revert (undo true) one action; -errno with a reason in err. */
int fault_exec_action(struct fault_exec *x, const struct fault_action *a, bool undo, char *err,
		      size_t errlen);

/* Run cmd on a switch; *out gets its stdout (free()). Returns its exit status or -errno. */
int fault_exec_ssh(struct fault_exec *x, const char *device, const char *cmd, const char *input,
		   char **out, char *err, size_t errlen);

/* Namespace of a host's netlink ops ("" outside a virtual lab). */
const char *fault_exec_host_ns(const struct fault_exec *x, const char *host, char *buf, size_t len);

#endif
