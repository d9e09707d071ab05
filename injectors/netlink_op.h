/* SPDX-License-Identifier: MIT */
/* The netlink fault backend: host-side fault steps as op lines, run with libnl on the lab's host.
 */
#ifndef ROCELAB_NETLINK_OP_H
#define ROCELAB_NETLINK_OP_H

#include "harness/lab/lab.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Op lines (what the journal stores):
 *   link-down DEV | link-up DEV
 *   rule-del PREF SRC IIF TABLE | rule-add PREF SRC IIF TABLE
 *   route-del TABLE DST/LEN | route-add TABLE DST/LEN GW DEV
 *   tbf DEV RATE_KBIT | qdisc-del DEV
 *   ecn-mark DEV RATE_KBIT K CAP | ecn-unmark DEV
 *                                         (the emulated ECN marker, injectors/ecn_mark.h:
 *                                         BPF loaded by this process, so this kernel only)
 *   dcb-pfc DEV PRIORITY on|off           (DCBNL IEEE PFC; EOPNOTSUPP on veth)
 *   a verb a fault kind adds (host_cmd.h: host_verb; host-down's agents-stop,
 *   cpu-hog's cpu-hog-on ...)             (the command the kind writes, as over SSH)
 *   noop                                  (a step that only has an undo)
 * Run op on lab host through the lab's netlink access.  With undo set the
 * op is an undo step: state already as wanted counts as success.  Returns 0 or
 * -errno with a one-line reason in err.
 */
int netlink_op_run(struct lab *l, const char *host, const char *op, bool undo, char *err,
		   size_t errlen);

/* PFC enable bitmap of dev on host (DCBNL IEEE); -EOPNOTSUPP when the netdev has no DCB. */
int dcb_pfc_get(struct lab *l, const char *host, const char *dev, unsigned *pfc_en);

#endif
