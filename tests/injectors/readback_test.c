// SPDX-License-Identifier: MIT
/*
 * Unit tests of the read-back parsers, fed outputs in each NOS's own format.
 * Beside each fixture: the source its format was taken from.
 */
#define _GNU_SOURCE
#include "harness/lib/sbuf.h"
#include "injectors/dialect.h"
#include "injectors/readback.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct readback parse_ok(const char *as, const char *out)
{
	struct readback rb;
	char err[256] = "";

	cr_assert_eq(readback_parse(as, out, &rb, err, sizeof(err)), 0, "%s: %s", as, err);
	return rb;
}

static void parse_bad(const char *as, const char *out, const char *says)
{
	struct readback rb;
	char err[256] = "";

	cr_assert_eq(readback_parse(as, out, &rb, err, sizeof(err)), -EINVAL, "%s", as);
	cr_assert(strstr(err, says), "'%s' does not say '%s'", err, says);
}

/*
 * SONiC 'show pfc priority PORT': the table pfc/main.py showPfcPrio() prints
 * (tabulate "simple"), as sonic-net/sonic-utilities
 * tests/pfc_input/pfc_test_vectors.py has it (show_prio_intf_one_masic), on a
 * single-ASIC switch (no Namespace line) and a multi-ASIC one.
 */
static const char sonic_one[] = "\n"
				"Interface    Lossless priorities\n"
				"-----------  ---------------------\n"
				"Ethernet4    3,4\n"
				"\n";
static const char sonic_masic[] = "Namespace asic0\n"
				  "Interface    Lossless priorities\n"
				  "-----------  ---------------------\n"
				  "Ethernet4    3\n"
				  "\n";
/* pfc/main.py: a port without a PORT_QOS_MAP entry */
static const char sonic_none[] = "Cannot find interface Ethernet4\n";

Test(readback, sonic_show_pfc_priority_as_pfc_main_prints_it)
{
	struct readback rb = parse_ok("sonic-pfc Ethernet4", sonic_one);

	cr_assert_eq(rb.lossless, (1u << 3) | (1u << 4));
	cr_assert(readback_lossless(&rb, 3) && !readback_lossless(&rb, 5));
	cr_assert_str_eq(rb.canon, "lossless 3,4");
	rb = parse_ok("sonic-pfc Ethernet4", sonic_masic);
	cr_assert_str_eq(rb.canon, "lossless 3");
	rb = parse_ok("sonic-pfc Ethernet4", sonic_none);
	cr_assert_eq(rb.lossless, 0);
	cr_assert(!readback_lossless(&rb, 3));
	cr_assert(strstr(rb.canon, "no PORT_QOS_MAP entry"));
}

Test(readback, sonic_after_off_the_priority_is_gone)
{
	/* pfc_enable after 'pfc config priority off Ethernet4 3' on "3,4": "4" */
	struct readback rb = parse_ok("sonic-pfc Ethernet4", "Interface    Lossless priorities\n"
							     "-----------  ---------------------\n"
							     "Ethernet4    4\n");

	cr_assert(!readback_lossless(&rb, 3));
	cr_assert_str_eq(rb.canon, "lossless 4");
}

Test(readback, sonic_other_output_is_refused)
{
	parse_bad("sonic-pfc Ethernet4", "Ethernet0    3,4\n", "no row for Ethernet4");
	parse_bad("sonic-pfc Ethernet4", "Ethernet4    three\n", "not a priority list");
	parse_bad("sonic-pfc Ethernet4", "", "no row");
}

/*
 * EOS 'show running-config interfaces Ethernet1': the interface block in the
 * grammar of the Arista EOS User Manual (Data Center Bridging:
 * 'priority-flow-control on', 'priority-flow-control priority N no-drop'),
 * laid out as the running-config of an Arista RoCE port in Intel Gaudi's
 * public "Arista Switch L2 Configuration Example" (docs.habana.ai).
 */
static const char eos_port[] = "interface Ethernet1\n"
			       "   mtu 9214\n"
			       "   speed 100g-2\n"
			       "   qos trust dscp\n"
			       "   priority-flow-control on\n"
			       "   priority-flow-control priority 3 no-drop\n"
			       "   priority-flow-control priority 4 no-drop\n"
			       "   !\n"
			       "   uc-tx-queue 3\n"
			       "      no priority\n";

Test(readback, eos_running_config_of_a_lossless_port)
{
	struct readback rb = parse_ok("eos-pfc Ethernet1", eos_port);

	cr_assert(rb.pfc_on);
	cr_assert_eq(rb.lossless, (1u << 3) | (1u << 4));
	cr_assert_str_eq(rb.canon, "priority-flow-control on, no-drop 3,4");
}

Test(readback, eos_pfc_off_on_the_port_makes_no_priority_lossless)
{
	struct readback rb =
	    parse_ok("eos-pfc Ethernet1", "interface Ethernet1\n"
					  "   priority-flow-control priority 3 no-drop\n");

	cr_assert(!rb.pfc_on);
	cr_assert(!readback_lossless(&rb, 3));
	/* another interface's block is not this port's */
	rb = parse_ok("eos-pfc Ethernet1", "interface Ethernet1\n   mtu 9214\n"
					   "interface Ethernet12\n   priority-flow-control on\n"
					   "   priority-flow-control priority 3 no-drop\n");
	cr_assert(!readback_lossless(&rb, 3));
	parse_bad("eos-pfc Ethernet1", "% Invalid input\n", "has no 'interface Ethernet1'");
}

/*
 * NVUE 'nv config show -o commands', its ' qos pfc ' lines: the applied
 * configuration as nv set commands, in the grammar of the NVUE reference
 * (Set and Unset Commands / QoS: 'nv set qos pfc <profile-id>
 * switch-priority', 'cable-length', 'port-buffer', 'xoff-threshold',
 * 'xon-threshold', 'rx', 'tx'; 'nv set interface <interface-id> qos pfc
 * profile').  Inferred, not recorded: no public sample of this output was
 * found to copy, so the lines are as the grammar writes them.
 */
static const char nvue_global[] = "nv set qos pfc default-global cable-length 50\n"
				  "nv set qos pfc default-global port-buffer 25000B\n"
				  "nv set qos pfc default-global switch-priority 3,4\n"
				  "nv set qos pfc default-global xoff-threshold 10000B\n";
static const char nvue_bound[] = "nv set qos pfc default-global switch-priority 3\n"
				 "nv set qos pfc lossless switch-priority 4\n"
				 "nv set qos pfc lossless cable-length 100\n"
				 "nv set interface swp1-4,swp6 qos pfc profile lossless\n";

Test(readback, nvue_a_port_without_a_profile_has_default_global)
{
	struct readback rb = parse_ok("nvue-pfc swp2", nvue_global);

	cr_assert_str_eq(rb.profile, "default-global");
	cr_assert(!rb.bound && rb.pfc_on);
	cr_assert_eq(rb.lossless, (1u << 3) | (1u << 4));
	cr_assert_str_eq(rb.canon, "profile default-global (no profile of its own): "
				   "switch-priority 3,4, rx enable, tx enable");
}

Test(readback, nvue_a_port_in_a_range_has_the_profile_it_names)
{
	struct readback rb = parse_ok("nvue-pfc swp3", nvue_bound);

	cr_assert_str_eq(rb.profile, "lossless");
	cr_assert(rb.bound);
	cr_assert_eq(rb.lossless, 1u << 4);
	rb = parse_ok("nvue-pfc swp5", nvue_bound); /* not in swp1-4,swp6 */
	cr_assert_str_eq(rb.profile, "default-global");
	cr_assert_eq(rb.lossless, 1u << 3);
	rb = parse_ok("nvue-pfc swp2", "nv set qos pfc p1 switch-priority 3\n"
				       "nv set qos pfc p1 rx disable\n"
				       "nv set interface swp2 qos pfc profile p1\n");
	cr_assert(!rb.pfc_on && !readback_lossless(&rb, 3));
}

/* The apply copies the port's profile without the priority; the undo binds back as found. */
Test(readback, nvue_pfc_copies_the_ports_profile_and_restores_its_binding)
{
	struct fault_action a = {0};

	fault_action_read(&a, "nv config show -o commands", "nvue-pfc swp2");
	a.apply = strdup("-");
	a.revert = strdup("-");
	dialect_nvue_pfc(&a, "swp2", 3, "rocelab_f7", nvue_global);
	cr_assert_str_eq(a.apply,
			 "nv set qos pfc rocelab_f7 cable-length 50 && "
			 "nv set qos pfc rocelab_f7 port-buffer 25000B && "
			 "nv set qos pfc rocelab_f7 xoff-threshold 10000B && "
			 "nv set qos pfc rocelab_f7 switch-priority 4 && "
			 "nv set interface swp2 qos pfc profile rocelab_f7 && nv config apply -y");
	cr_assert_str_eq(a.revert,
			 "nv unset interface swp2 qos pfc; nv unset qos pfc rocelab_f7; nv config "
			 "apply -y");
	cr_assert_null(strstr(a.apply, "default-global"), "the switch-wide profile is not touched");

	dialect_nvue_pfc(&a, "swp3", 4, "rocelab_f8", nvue_bound);
	cr_assert(strstr(a.apply,
			 "nv set qos pfc rocelab_f8 cable-length 100 && "
			 "nv set qos pfc rocelab_f8 switch-priority 4 && "
			 "nv set qos pfc rocelab_f8 rx disable && nv set qos pfc rocelab_f8 tx "
			 "disable && nv set interface swp3 qos pfc profile rocelab_f8"),
		  "%s", a.apply);
	cr_assert_str_eq(a.revert, "nv set interface swp3 qos pfc profile lossless; nv unset qos "
				   "pfc rocelab_f8; nv config apply -y");
	free(a.apply);
	free(a.revert);
	free(a.read);
	free(a.read_as);
}

/* iproute2's 'tc -j qdisc show dev D root', as this machine's iproute2 6.1 prints it. */
Test(readback, tc_root_tells_the_kernels_own_from_one_added)
{
	struct readback rb = parse_ok(
	    "tc-root swp1", "[{\"kind\":\"noqueue\",\"handle\":\"0:\",\"root\":true,\"refcnt\":2,"
			    "\"options\":{}}]\n");

	cr_assert_str_eq(rb.canon, "root qdisc noqueue 0:");
	rb = parse_ok("tc-root swp1",
		      "[{\"kind\":\"htb\",\"handle\":\"1:\",\"root\":true,"
		      "\"refcnt\":2,\"options\":{\"r2q\":10,\"default\":\"0x20\"}}]");
	cr_assert_str_eq(rb.qdisc, "htb");
	cr_assert_str_eq(rb.handle, "1:");
	parse_bad("tc-root swp1", "Cannot find device \"swp1\"\n", "printed no root qdisc");
	parse_bad("tc-root swp1", "[]", "printed no root qdisc");
}

Test(readback, an_unknown_parser_is_named)
{
	parse_bad("junos-pfc xe-0/0/1", "", "no parser 'junos-pfc'");
}

Test(readback, priority_masks_print_as_lists)
{
	char b[24];

	cr_assert_str_eq(readback_prios(0, b, sizeof(b)), "none");
	cr_assert_str_eq(readback_prios(0xff, b, sizeof(b)), "0,1,2,3,4,5,6,7");
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET PORT|P speed' and '... autoneg', one
 * value a line, an empty line for a field not set; PORT speed in Mbit/s
 * (sonic-utilities doc/Command-Reference.md, 'config interface speed').
 */
Test(readback, sonic_port_speed_and_autoneg_from_config_db)
{
	struct readback rb = parse_ok("sonic-speed Ethernet0", "400000\n\n");

	cr_assert_str_eq(rb.speed, "400000");
	cr_assert_str_eq(rb.canon, "speed 400000, autoneg not set");
	rb = parse_ok("sonic-speed Ethernet0", "100000\non\n");
	cr_assert_str_eq(rb.autoneg, "on");
	rb = parse_ok("sonic-speed Ethernet0", "\n\n");
	cr_assert_str_eq(rb.speed, "");
	parse_bad("sonic-speed Ethernet0", "100G\n", "is not Mbit/s");
}

/* EOS: the 'speed' line of the port's running-config block, as eos_port above has it. */
Test(readback, eos_speed_from_the_running_config)
{
	struct readback rb = parse_ok("eos-speed Ethernet1", eos_port);

	cr_assert_str_eq(rb.speed, "100g-2");
	cr_assert_str_eq(rb.canon, "speed 100g-2");
	rb = parse_ok("eos-speed Ethernet1", "interface Ethernet1\n   mtu 9214\n");
	cr_assert_str_eq(rb.canon, "speed default");
}

/* NVUE: 'nv set interface LIST link speed X' (NVUE reference, Interface; inferred as above). */
Test(readback, nvue_speed_from_the_applied_commands)
{
	struct readback rb =
	    parse_ok("nvue-speed swp2", "nv set interface swp1-4 link speed 100G\n");

	cr_assert_str_eq(rb.speed, "100G");
	rb = parse_ok("nvue-speed swp9", "nv set interface swp1-4 link speed 100G\n");
	cr_assert_str_eq(rb.canon, "link speed not set (auto)");
}
