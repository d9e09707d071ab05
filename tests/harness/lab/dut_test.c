// SPDX-License-Identifier: MIT
/* The devices under test: what ethtool, ibv_devinfo and SONiC's show version print, parsed. */
#include "harness/lab/dut.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

Test(dut, ethtool_i_lines_give_driver_firmware_and_bus)
{
	static const char *const map[][2] = {{"driver", "driver"},
					     {"version", "driver_version"},
					     {"firmware-version", "firmware"},
					     {"bus-info", "bus"},
					     {NULL, NULL}};
	/* A ConnectX port as ethtool -i prints one; a veth has no firmware and no bus. */
	const char *cx = "driver: mlx5_core\nversion: 6.1.0-27-amd64\n"
			 "firmware-version: 28.39.1002 (MT_0000000838)\nexpansion-rom-version: \n"
			 "bus-info: 0000:3b:00.0\nsupports-statistics: yes\n";
	const char *veth = "driver: veth\nversion: 1.0\nfirmware-version: \nbus-info: \n";
	json_t *o = json_object();

	dut_parse_lines(cx, map, o);
	cr_assert_str_eq(str(o, "driver"), "mlx5_core");
	cr_assert_str_eq(str(o, "driver_version"), "6.1.0-27-amd64");
	cr_assert_str_eq(str(o, "firmware"), "28.39.1002 (MT_0000000838)");
	cr_assert_str_eq(str(o, "bus"), "0000:3b:00.0");
	json_decref(o);
	o = json_object();
	dut_parse_lines(veth, map, o);
	cr_assert_str_eq(str(o, "driver"), "veth");
	cr_assert_null(json_object_get(o, "firmware"), "an empty value is not a firmware");
	cr_assert_null(json_object_get(o, "bus"));
	json_decref(o);
}

Test(dut, indented_and_spaced_keys_match_whole_keys_only)
{
	static const char *const devinfo[][2] = {
	    {"fw_ver", "firmware"}, {"board_id", "model"}, {NULL, NULL}};
	static const char *const sonic[][2] = {
	    {"SONiC Software Version", "version"}, {"HwSKU", "model"}, {NULL, NULL}};
	json_t *o = json_object();

	dut_parse_lines("hca_id:\trxe0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t0.0.0\n"
			"\tboard_id:\t\t\tMT_1090111019\n\tfw_ver_extra:\t\tx\n",
			devinfo, o);
	cr_assert_str_eq(str(o, "firmware"), "0.0.0");
	cr_assert_str_eq(str(o, "model"), "MT_1090111019");
	json_decref(o);
	o = json_object();
	dut_parse_lines("SONiC Software Version: SONiC.202311.1-abc\r\nDistribution: Debian 11\n"
			"Platform: x86_64-vendor_box-r0\nHwSKU: Vendor-Box-32x400G",
			sonic, o);
	cr_assert_str_eq(str(o, "version"), "SONiC.202311.1-abc");
	cr_assert_str_eq(str(o, "model"), "Vendor-Box-32x400G");
	json_decref(o);
}
