// SPDX-License-Identifier: MIT
/*
 * pfc-misconfig on an RNIC (injectors/kinds/pfc_misconfig.c): what its
 * driver does with a PFC change from the host (issue 61), as the Linux
 * drivers' sources have it: bnxt_en refuses it outside host IEEE DCBX,
 * mlx5_core flaps the link with it, others take it as it is.
 */
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>

static int check(const char *driver, const char *dcbx, char *msg, size_t len)
{
	json_t *j = dcbx ? json_loads(dcbx, 0, NULL) : NULL;
	int r;

	if (dcbx)
		cr_assert_not_null(j, "fixture: %s", dcbx);
	r = pfc_rnic_driver_check("host1:rnic1", driver, j, msg, len);
	json_decref(j);
	return r;
}

Test(pfc_rnic_driver, bnxt_refuses_a_host_change_unless_its_dcbx_is_host_ieee)
{
	char msg[400];

	/* 'dcb -j dcbx show' prints a key for each bit set (iproute2 dcb/dcb_dcbx.c) */
	cr_assert_eq(check("bnxt_en", "{\"lld_managed\":true,\"ieee\":true}", msg, sizeof(msg)),
		     -EPERM);
	cr_assert(strstr(msg, "host1:rnic1 (bnxt_en) has its DCBX managed by the NIC's own LLDP "
			      "agent (lld-managed)"),
		  "%s", msg);
	cr_assert(strstr(msg, "bnxt_dcbnl_ieee_setpfc"), "cites the driver: %s", msg);
	cr_assert(strstr(msg, "or target the switch port"), "says what to do: %s", msg);
	cr_assert_eq(check("bnxt_en", "{\"host\":true,\"cee\":true}", msg, sizeof(msg)), -EPERM,
		     "host CEE is not enough: %s", msg);
	cr_assert(strstr(msg, "not in host IEEE mode"), "%s", msg);
	cr_assert_eq(check("bnxt_en", NULL, msg, sizeof(msg)), -EPERM, "unread is refused");
	cr_assert(strstr(msg, "unread"), "%s", msg);
	cr_assert_eq(check("bnxt_en", "{\"host\":true,\"ieee\":true}", msg, sizeof(msg)), 0);
	cr_assert_str_eq(msg, "");
}

Test(pfc_rnic_driver, mlx5_is_pfc_off_and_a_link_flap)
{
	char msg[400];

	cr_assert_eq(check("mlx5_core", "{\"host\":true,\"ieee\":true}", msg, sizeof(msg)), 1);
	cr_assert(strstr(msg, "host1:rnic1 (mlx5_core) takes its link down and up on every PFC "
			      "change"),
		  "%s", msg);
	cr_assert(strstr(msg, "mlx5_toggle_port_link"), "cites the driver: %s", msg);
	cr_assert(strstr(msg, "at apply and again at revert"), "%s", msg);
}

Test(pfc_rnic_driver, other_drivers_and_none_take_the_change_as_it_is)
{
	char msg[400];

	cr_assert_eq(check("ice", NULL, msg, sizeof(msg)), 0);
	cr_assert_eq(check("", NULL, msg, sizeof(msg)), 0, "a veth: no driver");
	cr_assert_str_eq(msg, "");
}
