// SPDX-License-Identifier: MIT
/* Dispatches fault actions to the ssh backend (switch dialect commands) or the netlink backend. */
#define _GNU_SOURCE
#include "exec.h"

#include "common.h"
#include "netlink_op.h"
#include "sshc.h"
#include "vlab.h"

#include <stdlib.h>
#include <string.h>

#define SSH_TIMEOUT_S	 10
#define SSH_CMD_TIMEOUT	 30000

void fault_exec_init(struct fault_exec *x, const struct inventory *inv, bool virtual_lab)
{
	x->inv = inv;
	x->virtual_lab = virtual_lab;
	x->ssh = rl_xcalloc(inv->n_switches, sizeof(*x->ssh));
}

void fault_exec_close(struct fault_exec *x)
{
	if (!x->ssh)
		return;
	for (size_t i = 0; i < x->inv->n_switches; i++)
		sshc_close(x->ssh[i]);
	free(x->ssh);
	x->ssh = NULL;
}

const char *fault_exec_host_ns(const struct fault_exec *x, const char *host, char *buf, size_t len)
{
	if (!x->virtual_lab)
		return "";
	return vlab_ns(buf, len, host);
}

int fault_exec_ssh(struct fault_exec *x, const char *device, const char *cmd, const char *input,
		   char **out, char *err, size_t errlen)
{
	struct inv_switch *sw = inventory_switch(x->inv, device);
	char *errout = NULL;
	size_t i;
	int ret;

	if (out)
		*out = NULL;
	if (!sw) {
		snprintf(err, errlen, "no switch named '%s'", device);
		return -ENOENT;
	}
	i = (size_t)(sw - x->inv->switches);
	if (!x->ssh[i]) {
		x->ssh[i] = sshc_connect(sw, NULL, SSH_TIMEOUT_S, err, errlen);
		if (!x->ssh[i])
			return -errno;
	}
	ret = sshc_exec(x->ssh[i], cmd, input, out, &errout, SSH_CMD_TIMEOUT);
	if (ret < 0) {
		snprintf(err, errlen, "%s: ssh: %s", device, strerror(-ret));
		/* A broken session is not reused. */
		sshc_close(x->ssh[i]);
		x->ssh[i] = NULL;
	} else if (ret > 0) {
		errout[strcspn(errout, "\n")] = '\0';
		snprintf(err, errlen, "%s: '%.120s' exited %d%s%.200s", device, cmd, ret,
			 errout[0] ? ": " : "", errout);
	}
	free(errout);
	return ret;
}

int fault_exec_action(struct fault_exec *x, const struct fault_action *a, bool undo, char *err,
		      size_t errlen)
{
	char ns[64];
	int ret;

	err[0] = '\0';
	rl_dbg("%s %s on %s: %s", undo ? "revert" : "apply",
	       a->backend == FB_SSH ? "ssh" : "netlink", a->device, undo ? a->revert : a->apply);
	if (a->backend == FB_NETLINK)
		return netlink_op_run(fault_exec_host_ns(x, a->device, ns, sizeof(ns)),
				      undo ? a->revert : a->apply, undo, err, errlen);
	ret = fault_exec_ssh(x, a->device, undo ? a->revert : a->apply, undo ? NULL : a->apply_input,
			     NULL, err, errlen);
	return ret > 0 ? -EIO : ret;
}
