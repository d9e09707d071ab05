// SPDX-License-Identifier: MIT
/* The devices under test: what ethtool, ibv_devinfo and SONiC's show version print, parsed. */
#include "harness/lab/dut.h"
#include "harness/lib/inventory.h"

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

/* A host's one command: uname -r, then each command's output after its marker line. */
Test(dut, a_hosts_one_command_gives_kernel_rnics_and_rdma_devices)
{
	struct inv_rnic r[3] = {{.name = "rnic1", .netdev = "eth1"},
				{.name = "rnic2", .netdev = "eth2"},
				{.name = "rnic3", .netdev = "eth3", .ibdev = "mlx5_9"}};
	struct inv_host h = {.name = "host1", .rnics = r, .n_rnics = 3};
	const char *out =
	    "6.1.0-27-amd64\n"
	    "@@rocelab rdma\n"
	    "[{\"ifindex\":1,\"ifname\":\"rxe0/1\",\"netdev\":\"eth1\"},"
	    "{\"ifname\":\"mlx5_9/1\",\"netdev\":\"eth3\"}]\n"
	    "@@rocelab ethtool eth1\n"
	    "driver: veth\nversion: 1.0\nfirmware-version: \nbus-info: \n"
	    "@@rocelab ethtool eth2\n"
	    "Cannot get driver information: No such device\n"
	    "@@rocelab failed\n"
	    "@@rocelab ethtool eth3\n"
	    "driver: mlx5_core\nfirmware-version: 28.39.1002\n"
	    "@@rocelab ibv_devinfo\n"
	    "hca_id:\trxe0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t0.0.0\n"
	    "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\n"
	    "hca_id:\tmlx5_9\n\tfw_ver:\t\t\t\t99.9\n\tboard_id:\t\t\tMT_0000000838\n";
	json_t *o = dut_host_parse(&h, out, NULL), *rn = json_object_get(o, "rnics");
	json_t *a = json_object_get(rn, "rnic1"), *b = json_object_get(rn, "rnic2"),
	       *c = json_object_get(rn, "rnic3");

	cr_assert_str_eq(str(o, "kernel"), "6.1.0-27-amd64");
	cr_assert_str_eq(str(a, "driver"), "veth");
	cr_assert_str_eq(str(a, "rdma_device"), "rxe0");
	cr_assert_str_eq(str(a, "firmware"), "0.0.0", "rxe's firmware from ibv_devinfo");
	cr_assert_null(json_object_get(a, "unread"));
	cr_assert(json_is_null(json_object_get(b, "driver")));
	cr_assert_str_eq(str(b, "unread"),
			 "ethtool -i failed: Cannot get driver information: No such device");
	cr_assert_str_eq(str(c, "firmware"), "28.39.1002", "the netdev's firmware comes first");
	cr_assert_str_eq(str(c, "model"), "MT_0000000838");
	cr_assert_null(json_object_get(c, "ib_firmware"));
	json_decref(o);

	/* Not reached: every field null, and why. */
	o = dut_host_parse(&h, NULL, "ssh: host1: connection refused");
	cr_assert(json_is_null(json_object_get(o, "kernel")));
	cr_assert_str_eq(str(o, "unread"), "ssh: host1: connection refused");
	cr_assert_str_eq(str(json_object_get(json_object_get(o, "rnics"), "rnic3"), "unread"),
			 "ssh: host1: connection refused");
	json_decref(o);

	/* No ibv_devinfo (rdma-core's utilities missing): the device is named, its firmware unread.
	 */
	o = dut_host_parse(
	    &h,
	    "6.1.0\n@@rocelab rdma\n\n@@rocelab ethtool eth3\ndriver: mlx5_core\n"
	    "@@rocelab ibv_devinfo\nsh: 1: ibv_devinfo: not found\n@@rocelab failed\n",
	    NULL);
	c = json_object_get(json_object_get(o, "rnics"), "rnic3");
	cr_assert_str_eq(str(c, "rdma_device"), "mlx5_9");
	cr_assert_str_eq(str(c, "unread"), "ibv_devinfo failed: sh: 1: ibv_devinfo: not found");
	cr_assert_str_eq(str(json_object_get(json_object_get(o, "rnics"), "rnic1"), "unread"),
			 "ethtool -i did not run");
	json_decref(o);
}
