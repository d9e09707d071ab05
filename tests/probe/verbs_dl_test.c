// SPDX-License-Identifier: MIT
/*
 * libibverbs loaded on first use (probe/verbs_dl.c): the verbs rocelab calls
 * are rdma-core's own, found in libibverbs.so.1 when one first runs; no
 * binary of rocelab links it (tests/vlab/lab_test.sh checks the agents').
 * The devices themselves are the VM tier's (tests/probe/verbs_test.c).
 */
#define _GNU_SOURCE
#include "probe/verbs_dl.h"

#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <link.h>
#include <string.h>

static int mapped(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (strstr(info->dlpi_name, "libibverbs.so"))
		*(int *)data = 1;
	return 0;
}

static bool verbs_mapped(void)
{
	int found = 0;

	dl_iterate_phdr(mapped, &found);
	return found;
}

Test(verbs_dl, loaded_when_a_verb_first_runs_and_rdma_cores_own)
{
	cr_assert_not(verbs_mapped(), "libibverbs is not mapped before a verb runs");
	cr_assert_str_eq(ibv_wc_status_str(IBV_WC_SUCCESS), "success",
			 "rdma-core's own string for a completion status");
	cr_assert(verbs_mapped(), "and mapped once one has");
	cr_assert_null(verbs_dl_error(), "loaded: %s", verbs_dl_error());
	cr_assert_str_eq(ibv_port_state_str(IBV_PORT_ACTIVE), "active");
	cr_assert_str_eq(ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR),
			 "transport retry counter exceeded");
}
