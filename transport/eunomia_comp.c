// SPDX-License-Identifier: MIT
/*
 * Eunomia as a component under test: MP-RDMA's component machine running
 * the spraying workload (spray_ep.h) into the Eunomia receiver, graded on
 * in-order delivery, memory and goodput.
 */
#define _GNU_SOURCE
#include "transport/mpr_comp_int.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "transport/mpr_vpmap.h"
#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void eunomia_defaults(void *cfg)
{
	struct mpr_comp_cfg *c = cfg;

	mpr_comp_defaults(cfg);
	snprintf(c->ep.workload, sizeof(c->ep.workload), "spray");
	c->vps_per_path = 4;
	snprintf(c->ep.receiver, sizeof(c->ep.receiver), "eunomia");
	c->ep.bitmap = EU_CAP_ROWS * EU_BLOCK_BITS;
}

static int eunomia_check(void *cfg, char *err, size_t errlen)
{
	struct mpr_comp_cfg *c = cfg;

	if (strcmp(c->ep.workload, "spray")) {
		snprintf(err, errlen,
			 "eunomia: the component runs the spraying workload (workload: spray); "
			 "MP-RDMA's stream over Eunomia is the mp-rdma component with receiver: "
			 "eunomia");
		return -EINVAL;
	}
	return mpr_comp_check(cfg, err, errlen);
}

const struct component_ops eunomia_component =
    MPR_COMPONENT("eunomia",
		  "Eunomia: the receiver ordering layer under a spraying workload, graded on "
		  "in-order delivery, memory and goodput",
		  eunomia_defaults, eunomia_check);
