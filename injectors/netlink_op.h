/* SPDX-License-Identifier: MIT */
/* The netlink fault backend: host-side fault steps as op lines, run with libnl in the host's namespace. */
#ifndef ROCELAB_NETLINK_OP_H
#define ROCELAB_NETLINK_OP_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Op lines (what the journal stores):
 *   link-down DEV | link-up DEV
 *   rule-del PREF SRC IIF TABLE | rule-add PREF SRC IIF TABLE
 *   route-del TABLE DST/LEN | route-add TABLE DST/LEN GW DEV
 *   tbf DEV RATE_KBIT | qdisc-del DEV
 *   dcb-pfc DEV PRIORITY on|off           (DCBNL IEEE PFC; EOPNOTSUPP on veth)
 *   noop                                  (a step that only has an undo)
 * Run op inside namespace ns ("" or NULL: the current one).  With undo set the
 * op is an undo step: state already as wanted counts as success.  Returns 0 or
 * -errno with a one-line reason in err.
 */
int netlink_op_run(const char *ns, const char *op, bool undo, char *err, size_t errlen);

/* PFC enable bitmap of dev (DCBNL IEEE); -EOPNOTSUPP when the netdev has no DCB. */
int dcb_pfc_get(const char *ns, const char *dev, unsigned *pfc_en);

#endif
