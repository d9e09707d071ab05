/* SPDX-License-Identifier: MIT */
/* Runs planned fault actions through the lab: switch dialect commands over SSH, host ops over
 * netlink. */
#ifndef ROCELAB_EXEC_H
#define ROCELAB_EXEC_H

#include "harness/lab/lab.h"
#include "injectors/fault.h"

/* Apply (undo false) or revert (undo true) one action on l; -errno with a reason in err. */
int fault_exec_action(struct lab *l, const struct fault_action *a, bool undo, char *err,
		      size_t errlen);

#endif
