// SPDX-License-Identifier: MIT
/* Dispatches fault actions to the lab: switch dialect commands over SSH, host op lines by netlink
 * or as ip/tc/dcb commands over SSH. */
#define _GNU_SOURCE
#include "injectors/exec.h"

#include "harness/lib/common.h"
#include "injectors/host_cmd.h"
#include "injectors/netlink_op.h"

int fault_exec_action(struct lab *l, const struct fault_action *a, bool undo, char *err,
		      size_t errlen)
{
	const char *via = "netlink";
	int ret;

	err[0] = '\0';
	if (a->backend == FB_SHELL)
		via = "shell";
	else if (a->backend == FB_SESSION)
		via = "session";
	else if (a->backend == FB_SSH || !lab_can(l, LAB_CAP_NETLINK))
		via = "ssh";
	rl_dbg("%s %s on %s: %s", undo ? "revert" : "apply", via, a->device,
	       undo ? a->revert : a->apply);
	/* A shell line (a dead-man timer) through the lab's exec: in the namespace, or over SSH. */
	if (a->backend == FB_SHELL) {
		const char *argv[] = {"sh", "-c", undo ? a->revert : a->apply, NULL};

		ret = lab_exec(l, a->device, argv, NULL, NULL, err, errlen);
		return ret > 0 ? -EIO : ret;
	}
	/*
	 * An EOS dead-man session (deadman.h): armed, or confirmed at the revert.
	 * A confirmation EOS refuses finds no commit timer pending: it passed and
	 * EOS rolled the switch back by itself (a revert after a crash), or a
	 * hand confirmed it; either way nothing is left to cancel, and what the
	 * switch holds is read back and compared like every revert's.
	 */
	if (a->backend == FB_SESSION) {
		ret = lab_cli(l, a->device, undo ? a->revert : a->apply, NULL, NULL, err, errlen);
		if (ret > 0 && undo) {
			rl_warn("%s: its dead-man session had no commit timer pending (%s): it "
				"passed and EOS rolled back by itself, or it was confirmed by hand",
				a->device, err);
			err[0] = '\0';
			return 0;
		}
		return ret > 0 ? -EIO : ret;
	}
	/* Host ops go over netlink where the lab shares this kernel, else as ip/tc/dcb commands. */
	if (a->backend == FB_HOST && lab_can(l, LAB_CAP_NETLINK))
		return netlink_op_run(l, a->device, undo ? a->revert : a->apply, undo, err, errlen);
	if (a->backend == FB_HOST)
		return host_op_exec(l, a->device, undo ? a->revert : a->apply, undo, err, errlen);
	ret = lab_cli(l, a->device, undo ? a->revert : a->apply, undo ? NULL : a->apply_input, NULL,
		      err, errlen);
	return ret > 0 ? -EIO : ret;
}
