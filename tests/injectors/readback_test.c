// SPDX-License-Identifier: MIT
/*
 * Unit tests of the read-back parsers, fed outputs in each NOS's own format.
 * Beside each fixture: the source its format was taken from.
 */
#define _GNU_SOURCE
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/nos_ops.h"
#include "injectors/nos/readback.h"
#include "injectors/render.h"
#include "tests/injectors/readback_check.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	pfc_misconfig_nvue(&a, "swp2", 3, "rocelab_f7", nvue_global);
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

	pfc_misconfig_nvue(&a, "swp3", 4, "rocelab_f8", nvue_bound);
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

/* A host's sysfs attribute of one value ('cat PATH'): an RNIC's DCQCN switch, its trust mode. */
Test(readback, sysfs_is_one_printable_value)
{
	static const char as[] = "sysfs /sys/class/net/rnic1/ecn/roce_np/enable/3";
	struct readback rb = parse_ok(as, "1\n");

	cr_assert_str_eq(rb.value, "1");
	cr_assert_str_eq(rb.canon, "/sys/class/net/rnic1/ecn/roce_np/enable/3 = 1");
	cr_assert_str_eq(parse_ok(as, "dscp").value, "dscp", "no newline: the same");
	parse_bad(as, "", "printed not one value");
	parse_bad(as, "1\n0\n", "printed not one value");
	parse_bad(as, "1 0", "a byte 0x20");
	parse_bad(as, "0123456789012345678901234567890123456789", "printed not one value");
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

/* ---- admin state: what a link flap changes ---------------------------------- */

/*
 * SONiC 'sonic-db-cli CONFIG_DB HGET PORT|P admin_status': the value alone
 * (redis HGET), "up"/"down" as config/main.py shutdown/startup write it
 * (sonic-net/sonic-utilities tests: 'config interface shutdown Ethernet0'
 * leaves PORT|Ethernet0 admin_status "down"); an empty line: not set.
 */
Test(readback, sonic_admin_status_from_config_db)
{
	struct readback rb = parse_ok("sonic-admin Ethernet0", "up\n");

	cr_assert(rb.up);
	cr_assert_str_eq(rb.canon, "admin_status up");
	rb = parse_ok("sonic-admin Ethernet0", "down\n");
	cr_assert(!rb.up);
	rb = parse_ok("sonic-admin Ethernet0", "\n");
	cr_assert(!rb.up);
	cr_assert_str_eq(rb.canon, "admin_status not set");
	parse_bad("sonic-admin Ethernet0", "(error) WRONGTYPE\n", "is not a word");
}

/* EOS running-config: 'shutdown' in the interface block (EOS User Manual, Ethernet Ports). */
Test(readback, eos_shutdown_line_in_the_running_config)
{
	static const char shut[] = "interface Ethernet1\n"
				   "   description rail1\n"
				   "   shutdown\n"
				   "   mtu 9214\n";
	struct readback rb = parse_ok("eos-shut Ethernet1", eos_port);

	cr_assert(rb.up);
	cr_assert_str_eq(rb.canon, "no shutdown");
	rb = parse_ok("eos-shut Ethernet1", shut);
	cr_assert(!rb.up);
	cr_assert_str_eq(rb.canon, "shutdown");
	parse_bad("eos-shut Ethernet2", shut, "has no 'interface Ethernet2'");
}

/* NVUE 'nv config show -o commands': 'nv set interface LIST link state up|down'. */
Test(readback, nvue_link_state_set_unset_and_in_a_range)
{
	struct readback rb = parse_ok("nvue-state swp3", "");

	cr_assert(rb.up);
	cr_assert_str_eq(rb.canon, "link state not set (up)");
	rb = parse_ok("nvue-state swp3", "nv set interface swp1-4 link state down\n");
	cr_assert(!rb.up);
	cr_assert_str_eq(rb.canon, "link state down");
	rb = parse_ok("nvue-state swp3", "nv set interface swp5 link state down\n"
					 "nv set interface swp3 link state up\n");
	cr_assert(rb.up);
	cr_assert_str_eq(rb.admin, "up");
}

/* The undo of an NVUE flap gives back the link state found, or unsets it. */
Test(readback, nvue_flap_undo_is_the_link_state_found)
{
	struct fault_action a = {0};

	fault_action_read(&a, "nv config show -o commands", "nvue-state swp3");
	link_flap_nvue_state_revert(&a, "swp3", "");
	cr_assert_str_eq(a.revert, "nv unset interface swp3 link state && nv config apply -y");
	link_flap_nvue_state_revert(&a, "swp3", "nv set interface swp3 link state up\n");
	cr_assert_str_eq(a.revert, "nv set interface swp3 link state up && nv config apply -y");
	free(a.revert);
	free(a.read);
	free(a.read_as);
}

/*
 * 'ip -j link show dev swp1' as iproute2 6.1 (Debian 12) prints it for a
 * veth, captured up and then down: IFF_UP is the "UP" flag.
 */
static const char ip_up[] =
    "[{\"ifindex\":3,\"link\":\"swp1p\",\"ifname\":\"swp1\",\"flags\":[\"BROADCAST\","
    "\"MULTICAST\",\"UP\",\"LOWER_UP\"],\"mtu\":1500,\"qdisc\":\"noqueue\",\"operstate\":"
    "\"UP\",\"linkmode\":\"DEFAULT\",\"group\":\"default\",\"txqlen\":1000,\"link_type\":"
    "\"ether\",\"address\":\"f6:f3:46:d7:87:cd\",\"broadcast\":\"ff:ff:ff:ff:ff:ff\"}]\n";
static const char ip_down[] =
    "[{\"ifindex\":3,\"link\":\"swp1p\",\"ifname\":\"swp1\",\"flags\":[\"BROADCAST\","
    "\"MULTICAST\"],\"mtu\":1500,\"qdisc\":\"noqueue\",\"operstate\":\"DOWN\",\"linkmode\":"
    "\"DEFAULT\",\"group\":\"default\",\"txqlen\":1000,\"link_type\":\"ether\",\"address\":"
    "\"f6:f3:46:d7:87:cd\",\"broadcast\":\"ff:ff:ff:ff:ff:ff\"}]\n";

Test(readback, ip_link_admin_state_is_the_up_flag)
{
	struct readback rb = parse_ok("ip-link swp1", ip_up);

	cr_assert(rb.up);
	cr_assert_str_eq(rb.canon, "admin up");
	rb = parse_ok("ip-link swp1", ip_down);
	cr_assert(!rb.up);
	cr_assert_str_eq(rb.canon, "admin down");
	parse_bad("ip-link swp1", "[]", "printed no link");
}

/* ---- ACLs: the fault's own table, and what it must not replace -------------- */

/*
 * SONiC 'sonic-db-cli CONFIG_DB KEYS ACL_TABLE|*' and '... ACL_RULE|*': one
 * key a line, as sonic-mgmt's ACL tests pipe them to xargs (tests/acl).
 * Table names as sonic-utilities' default config has them (DATAACL,
 * EVERFLOW).
 */
static const char sonic_keys[] = "ACL_TABLE|EVERFLOW\n"
				 "ACL_TABLE|DATAACL\n"
				 "ACL_RULE|DATAACL|RULE_1\n"
				 "ACL_RULE|DATAACL|RULE_2\n";

Test(readback, sonic_acl_keys_name_the_tables_and_count_rules)
{
	struct readback rb = parse_ok("sonic-acl ROCELAB_F1", sonic_keys);

	cr_assert(!rb.exists);
	cr_assert_str_eq(rb.canon, "ACL tables DATAACL, EVERFLOW; 2 rule(s); ROCELAB_F1 not there");
	rb = parse_ok("sonic-acl ROCELAB_F1", "ACL_RULE|ROCELAB_F1|RULE_1\n");
	cr_assert(rb.exists, "a rule left without its table is the table's name in use");
	rb = parse_ok("sonic-acl ROCELAB_F1", "");
	cr_assert_str_eq(rb.canon, "no ACL tables; 0 rule(s); ROCELAB_F1 not there");
	rb = parse_ok("sonic-acl ROCELAB_F1", "ACL_TABLE|ROCELAB_F10\n");
	cr_assert(!rb.exists, "another table's name starting the same is not ours");
}

/*
 * ipid-drop's read lists the keys of ACL_TABLE_TYPE, UDF and UDF_SELECTOR too
 * (sonic-net/SONiC#2299): each is in canon, so one left after the revert is
 * drift.
 */
Test(readback, sonic_acl_keys_carry_a_user_defined_match)
{
	static const char before[] = "ACL_TABLE|DATAACL\n"
				     "ACL_TABLE_TYPE|CUSTOM_L3\n";
	static const char left[] = "ACL_TABLE|DATAACL\n"
				   "UDF|ROCELAB_F1_IPID\n"
				   "ACL_TABLE_TYPE|CUSTOM_L3\n"
				   "UDF_SELECTOR|ROCELAB_F1_IPID|IPV4\n";
	struct readback a = parse_ok("sonic-acl ROCELAB_F1", before),
			b = parse_ok("sonic-acl ROCELAB_F1", left);

	cr_assert_str_eq(a.canon, "ACL tables DATAACL; other keys: ACL_TABLE_TYPE|CUSTOM_L3; 0 "
				  "rule(s); ROCELAB_F1 not there");
	cr_assert_str_eq(b.canon, "ACL tables DATAACL; other keys: ACL_TABLE_TYPE|CUSTOM_L3, "
				  "UDF_SELECTOR|ROCELAB_F1_IPID|IPV4, UDF|ROCELAB_F1_IPID; 0 "
				  "rule(s); ROCELAB_F1 not there");
	cr_assert_str_neq(a.canon, b.canon, "a UDF left behind is drift");
	b = parse_ok("sonic-acl ROCELAB_F1", "UDF|ROCELAB_F1_IPID\n");
	cr_assert_str_eq(
	    b.canon, "no ACL tables; other keys: UDF|ROCELAB_F1_IPID; 0 rule(s); ROCELAB_F1 not "
		     "there");
}

/*
 * SONiC PFC_WD|PORT's detection_time, restoration_time and action, a line
 * each as pfc-storm reads them (an empty line: not set; sonic-utilities
 * pfcwd/main.py writes them); device output is untrusted.
 */
Test(readback, sonic_pfcwd_config)
{
	struct readback rb = parse_ok("sonic-pfcwd Ethernet0", "300\n1000\ndrop\n");
	char err[256];

	cr_assert_str_eq(rb.value, "300 1000 drop");
	cr_assert_str_eq(rb.canon,
			 "PFC_WD|Ethernet0: detection 300 ms, restoration 1000 ms, action drop");
	rb = parse_ok("sonic-pfcwd Ethernet0", "\n\n\n");
	cr_assert_str_eq(rb.value, "");
	cr_assert_str_eq(rb.canon, "PFC_WD|Ethernet0: no watchdog");
	rb = parse_ok("sonic-pfcwd Ethernet0", "200\n\n\n");
	cr_assert_str_eq(rb.value, "200 0 -");
	cr_assert_eq(readback_parse("sonic-pfcwd Ethernet0", "200; reboot\n400\ndrop\n", &rb, err,
				    sizeof(err)),
		     -EINVAL);
	cr_assert_eq(
	    readback_parse("sonic-pfcwd Ethernet0", "200\n400\n$(reboot)\n", &rb, err, sizeof(err)),
	    -EINVAL, "an action that is none of SONiC's");
}

/* Many tables: canon is cut, with a hash of them all, so a change still shows. */
Test(readback, a_long_list_is_cut_but_still_differs)
{
	struct sbuf a = {0}, b = {0};
	struct readback ra, rb;

	for (int i = 0; i < 40; i++) {
		sb_printf(&a, "ACL_TABLE|TABLE_%02d\n", i);
		sb_printf(&b, "ACL_TABLE|TABLE_%02d\n", i == 39 ? 99 : i);
	}
	ra = parse_ok("sonic-acl X", a.p);
	rb = parse_ok("sonic-acl X", b.p);
	cr_assert(strstr(ra.canon, "(fnv "), "%s", ra.canon);
	cr_assert_str_neq(ra.canon, rb.canon);
	cr_assert(strstr(ra.canon, "; 0 rule(s); X not there"), "%s", ra.canon);
	sb_free(&a);
	sb_free(&b);
}

/*
 * EOS 'show running-config': 'ip access-list NAME' blocks at the top and
 * 'ip access-group NAME in' under an interface (EOS User Manual, ACLs:
 * "ip access-group", one IPv4 ACL per interface and direction).
 */
static const char eos_conf[] = "hostname spine1\n"
			       "!\n"
			       "ip access-list MGMT\n"
			       "   10 permit ip 10.0.0.0/8 any\n"
			       "!\n"
			       "interface Ethernet1/1\n"
			       "   no switchport\n"
			       "   ip address 10.200.0.1/31\n"
			       "!\n"
			       "interface Ethernet1/2\n"
			       "   no switchport\n"
			       "   ip access-group MGMT in\n"
			       "!\n"
			       "interface Management1\n"
			       "   ip access-group MGMT in\n"
			       "!\n"
			       "end\n";

Test(readback, eos_acl_sees_a_group_it_would_replace)
{
	struct readback rb = parse_ok("eos-acl rocelab_f1 Ethernet1/1", eos_conf);

	cr_assert(!rb.exists && !rb.clash[0]);
	cr_assert_str_eq(rb.canon, "no ip access-group in; ip access-list rocelab_f1 not there");
	rb = parse_ok("eos-acl rocelab_f1 Ethernet1/1,Ethernet1/2", eos_conf);
	cr_assert_str_eq(rb.clash, "Ethernet1/2 has 'ip access-group MGMT in'");
	cr_assert_str_eq(
	    rb.canon, "ip access-group in: Ethernet1/2 MGMT; ip access-list rocelab_f1 not there");
	parse_bad("eos-acl rocelab_f1 Ethernet1/9", eos_conf, "for 0 of the 1 port(s)");
}

Test(readback, eos_acl_applied_is_bound_on_each_port)
{
	static const char applied[] = "ip access-list rocelab_f1\n"
				      "   10 deny udp host 10.101.0.1 host 10.101.0.2 eq 4791\n"
				      "   20 permit ip any any\n"
				      "!\n"
				      "interface Ethernet1/1\n"
				      "   ip access-group rocelab_f1 in\n"
				      "!\n"
				      "interface Ethernet1/3\n"
				      "   ip access-group rocelab_f1 in\n";
	struct readback rb = parse_ok("eos-acl rocelab_f1 Ethernet1/1,Ethernet1/3", applied);

	cr_assert(rb.exists);
	cr_assert_eq(rb.n_bound, 2);
	cr_assert(!rb.clash[0]);
}

/* NVUE 'nv config show -o commands': 'nv set acl NAME ...', 'nv set interface L acl NAME inbound'.
 */
Test(readback, nvue_acls_bound_to_the_ports)
{
	static const char conf[] = "nv set acl MGMT type ipv4\n"
				   "nv set acl MGMT rule 10 action permit\n"
				   "nv set interface swp1-4 acl MGMT inbound\n"
				   "nv set acl rocelab_f1 type ipv4\n"
				   "nv set interface swp3 acl rocelab_f1 inbound\n";
	struct readback rb = parse_ok("nvue-acl rocelab_f1 swp3", "");

	cr_assert(!rb.exists);
	cr_assert_str_eq(rb.canon, "no acls on its port(s); acl rocelab_f1 not there");
	rb = parse_ok("nvue-acl rocelab_f1 swp3", conf);
	cr_assert(rb.exists);
	cr_assert_eq(rb.n_bound, 1);
	cr_assert_str_eq(rb.canon,
			 "acls: swp3 MGMT inbound, swp3 rocelab_f1 inbound; acl rocelab_f1 there");
}

/*
 * 'nft -j list tables' as nftables 1.0.6 (Debian 12) prints it, captured
 * with three tables (libnftables-json(5): a metainfo object, then one
 * "table" object each).
 */
static const char nft_list[] =
    "{\"nftables\": [{\"metainfo\": {\"version\": \"1.0.6\", \"release_name\": \"Lester Gooch "
    "#5\", \"json_schema_version\": 1}}, {\"table\": {\"family\": \"inet\", \"name\": "
    "\"filter\", \"handle\": 1}}, {\"table\": {\"family\": \"inet\", \"name\": "
    "\"rocelab_f1\", \"handle\": 2}}, {\"table\": {\"family\": \"ip\", \"name\": \"nat\", "
    "\"handle\": 3}}]}\n";

Test(readback, nft_tables_in_order_and_the_faults_own)
{
	struct readback rb = parse_ok("nft-tables rocelab_f1", nft_list);

	cr_assert(rb.exists);
	cr_assert_str_eq(rb.canon,
			 "nft tables inet filter, inet rocelab_f1, ip nat; inet rocelab_f1 there");
	rb = parse_ok("nft-tables rocelab_f2", nft_list);
	cr_assert(!rb.exists);
	parse_bad("nft-tables rocelab_f1", "Error: syntax error", "no nftables array");
}

/*
 * 'dcb -j pfc show dev D prio-pfc' (iproute2 dcb/dcb_pfc.c,
 * dcb_pfc_print_prio_pfc: dcb_print_named_array "prio_pfc" of
 * dcb_print_array_on_off, JSON booleans).
 */
Test(readback, dcb_prio_pfc_of_an_rnic)
{
	struct readback rb = parse_ok(
	    "dcb-pfc ens1np0", "{\"prio_pfc\":[false,false,false,true,false,false,false,false]}\n");

	cr_assert(readback_lossless(&rb, 3) && !readback_lossless(&rb, 4));
	cr_assert_str_eq(rb.canon, "prio-pfc on for 3");
	rb = parse_ok("dcb-pfc ens1np0", "{\"prio_pfc\":[\"off\",\"off\",\"off\",\"on\",\"on\","
					 "\"off\",\"off\",\"off\"]}");
	cr_assert_eq(rb.lossless, (1u << 3) | (1u << 4));
	parse_bad("dcb-pfc ens1np0", "{\"prio_pfc\":[true]}", "printed no prio_pfc of 8");
}

/*
 * 'dcb -j maxrate show dev D' (iproute2 dcb/dcb_maxrate.c: "tc_maxrate", 8
 * numbers print_rate() prints raw in JSON): from 6.18 DCBNL's kbit/s times
 * 125 (bytes/s), before it DCBNL's kbit/s as they are (e7d4c060).
 */
Test(readback, dcb_maxrate_of_an_rnic_by_the_hosts_dcb)
{
	struct readback rb =
	    parse_ok("dcb-maxrate ens1np0 kbit", "{\"tc_maxrate\":[6250000,0,0,0,0,0,0,125]}\n");

	cr_assert_eq(rb.maxrate[0], 50000);
	cr_assert_eq(rb.maxrate[1], 0);
	cr_assert_eq(rb.maxrate[7], 1);
	cr_assert_str_eq(rb.canon, "tc-maxrate kbit/s 0:50000 1:0 2:0 3:0 4:0 5:0 6:0 7:1");
	rb = parse_ok("dcb-maxrate ens1np0 Bps", "{\"tc_maxrate\":[50000,0,0,0,0,0,0,0]}");
	cr_assert_eq(rb.maxrate[0], 50000, "an older dcb prints DCBNL's kbit/s as they are");
	parse_bad("dcb-maxrate ens1np0 kbit", "{\"tc_maxrate\":[1,2,3]}",
		  "printed no tc_maxrate of 8");
	parse_bad("dcb-maxrate ens1np0 kbit", "{\"tc_maxrate\":[1,2,3,4,5,6,7,\"$(reboot)\"]}",
		  "tc_maxrate[7] is not a rate");
	parse_bad("dcb-maxrate ens1np0 kbit", "{\"tc_maxrate\":[1,2,3,4,5,6,7,-8]}",
		  "tc_maxrate[7] is not a rate");
}

/* The host's dcb version says how it writes rates (iproute2 e7d4c060, in v6.18.0). */
Test(readback, the_dcb_version_says_its_rate_unit)
{
	cr_assert_str_eq(link_degrade_dcb_unit("dcb utility, iproute2-6.1.0\n"), "Bps");
	cr_assert_str_eq(link_degrade_dcb_unit("dcb utility, iproute2-6.17.0"), "Bps");
	cr_assert_str_eq(link_degrade_dcb_unit("dcb utility, iproute2-6.18.0"), "kbit");
	cr_assert_str_eq(link_degrade_dcb_unit("dcb utility, iproute2-7.1.0"), "kbit");
	cr_assert_null(link_degrade_dcb_unit("dcb utility, iproute2-ss200127"));
	cr_assert_null(link_degrade_dcb_unit("Usage: dcb"));
	cr_assert_null(link_degrade_dcb_unit(NULL));
}

/*
 * The speeds a port can take (issue 61: a speed the other end cannot take
 * leaves the link down): SONiC's STATE_DB PORT_TABLE supported_speeds, as
 * sonic-utilities scripts/portconfig splits it, and ethtool's text.
 */
Test(readback, the_speeds_a_port_says_it_takes)
{
	static const char ethtool[] = "Settings for ens1np0:\n"
				      "\tSupported ports: [ FIBRE ]\n"
				      "\tSupported link modes:   10000baseKR/Full\n"
				      "\t                        25000baseCR/Full\n"
				      "\t                        25000baseKR/Full\n"
				      "\t                        100000baseCR4/Full\n"
				      "\tSupported pause frame use: Symmetric\n"
				      "\tSupports auto-negotiation: Yes\n"
				      "\tAdvertised link modes:  100000baseCR4/Full\n"
				      "\tSpeed: 100000Mb/s\n";
	unsigned long long sp[8];

	cr_assert_eq(link_degrade_speeds_sonic("10000,25000,40000,100000\n", sp, 8), 4);
	cr_assert_eq(sp[0], 10000);
	cr_assert_eq(sp[3], 100000);
	cr_assert_eq(link_degrade_speeds_sonic("\n", sp, 8), 0, "not said");
	cr_assert_eq(link_degrade_speeds_sonic("100000;reboot", sp, 8), 0, "not a list");
	cr_assert_eq(link_degrade_speeds_ethtool(ethtool, sp, 8), 3, "10G, 25G once, 100G");
	cr_assert_eq(sp[0], 10000);
	cr_assert_eq(sp[1], 25000);
	cr_assert_eq(sp[2], 100000);
	cr_assert_eq(
	    link_degrade_speeds_ethtool("Settings for veth0:\n\tSpeed: 10000Mb/s\n", sp, 8), 0,
	    "a veth says none");
	cr_assert_eq(link_degrade_speeds_ethtool("\tSupported link modes:   Not reported\n"
						 "\tSpeed: 25000Mb/s\n",
						 sp, 8),
		     0);
}

/* ---- what a kind makes of what it found, before anything changes ------------ */

/* One action on dev with its read, as fault_read_found() leaves it. */
static struct fault_action *found_action(struct fault_plan *p, const char *dev, const char *as,
					 const char *found)
{
	struct fault_action *a = fault_plan_add(p, FB_SSH, dev, "apply", NULL, "revert");

	fault_action_read(a, "the read", as);
	fault_action_set(&a->found, found);
	return a;
}

Test(readback, an_acl_that_would_replace_one_or_a_table_left_behind_is_refused)
{
	struct fault_plan p = {0};
	struct fault_run f = {0};

	found_action(&p, "spine1", "eos-acl rocelab_f1 Ethernet1/1", eos_conf);
	cr_assert_eq(fault_found_free(&f, &p), 0, "%s", f.err);
	fault_plan_clear(&p);

	found_action(&p, "spine1", "eos-acl rocelab_f1 Ethernet1/1,Ethernet1/2", eos_conf);
	cr_assert_eq(fault_found_free(&f, &p), -EBUSY);
	cr_assert(strstr(f.err, "Ethernet1/2 has 'ip access-group MGMT in'") &&
		      strstr(f.err, "would replace it"),
		  "%s", f.err);
	fault_plan_clear(&p);

	found_action(&p, "spine2", "nft-tables rocelab_f1", nft_list);
	cr_assert_eq(fault_found_free(&f, &p), -EBUSY);
	cr_assert(strstr(f.err, "spine2 already has the fault's own table rocelab_f1 "), "%s",
		  f.err);
	cr_assert(strstr(f.err, "rocelab revert"), "%s", f.err);
	fault_plan_clear(&p);
}

Test(readback, a_port_configured_down_is_not_flapped_and_nvue_undo_follows_what_was_found)
{
	struct fault_spec s = {.tkind = INV_DEV_SWITCH};
	struct fault_plan p = {0};
	struct fault_run f = {.spec = &s};
	struct fault_action *a;

	found_action(&p, "rail1", "sonic-admin Ethernet8", "down\n");
	cr_assert_eq(fk_link_flap.discover(&f, &p), -EALREADY);
	cr_assert(strstr(f.err, "rail1:Ethernet8 is not administratively up before the flap") &&
		      strstr(f.err, "admin_status down"),
		  "%s", f.err);
	fault_plan_clear(&p);

	a = found_action(&p, "rail5", "nvue-state swp3", "nv set interface swp3 link state up\n");
	cr_assert_eq(fk_link_flap.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert, "nv set interface swp3 link state up && nv config apply -y");
	fault_plan_clear(&p);
}

Test(readback, pfc_on_an_rnic_whose_priority_is_not_lossless_is_refused)
{
	struct fault_spec s;
	struct fault_plan p = {0};
	struct fault_run f = {.spec = &s};

	fault_spec_init(&s, &fk_pfc_misconfig); /* --priority 3 */
	s.tkind = INV_DEV_HOST;
	s.tport = 0;

	found_action(&p, "gpu-node01", "dcb-pfc ens1np0",
		     "{\"prio_pfc\":[false,false,false,false,true,false,false,false]}");
	cr_assert_eq(fk_pfc_misconfig.discover(&f, &p), -EALREADY);
	cr_assert(strstr(f.err, "priority 3 is not lossless on gpu-node01:ens1np0"), "%s", f.err);
	fault_plan_clear(&p);
}

/*
 * SONiC buffer-alpha by default (issue 61): BUFFER_PROFILE read whole
 * ('sonic-cfggen -d --var-json BUFFER_PROFILE'; profiles as sonic-mgmt's
 * buffer tests write them), and every ingress_lossless* and pg_lossless*
 * profile with a dynamic threshold set, as sonic-mgmt's
 * config_ingress_lossless_buffer_alpha() does: lossless admission uses the
 * pg_lossless_<speed>_<cable> ones.  Each undo is its own value.
 */
Test(readback, sonic_buffer_alpha_sets_every_lossless_ingress_profile)
{
	static const char table[] =
	    "{\"egress_lossless_profile\": {\"pool\": \"egress_lossless_pool\", \"size\": \"0\", "
	    "\"static_th\": \"33004032\"},\n"
	    " \"ingress_lossless_profile\": {\"dynamic_th\": \"0\", \"pool\": "
	    "\"ingress_lossless_pool\", \"size\": \"0\"},\n"
	    " \"pg_lossless_100000_300m_profile\": {\"dynamic_th\": \"-3\", \"pool\": "
	    "\"ingress_lossless_pool\", \"size\": \"56368\", \"xoff\": \"55120\", \"xon\": "
	    "\"18432\"},\n"
	    " \"pg_lossless_40000_5m_profile\": {\"pool\": \"ingress_lossless_pool\", \"size\": "
	    "\"56368\", \"static_th\": \"3000000\"},\n"
	    " \"pg_lossless_$(reboot)_profile\": {\"dynamic_th\": \"1\"},\n"
	    " \"pg_lossless_25000_5m_profile\": {\"dynamic_th\": \"-6\"}}\n";
	struct fault_spec s;
	struct fault_plan p = {0};
	struct fault_run f = {.spec = &s};

	fault_spec_init(&s, &fk_buffer_alpha); /* --alpha 1/64 (-6), --profile lossless */
	s.tkind = INV_DEV_SWITCH;
	found_action(&p, "sw-sonic", "sonic-bufprofiles lossless", table);
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), 0, "%s", f.err);
	cr_assert_eq(p.n_acts, 2, "the two with a dynamic threshold not at 1/64 already");
	cr_assert_str_eq(p.acts[0].apply, "sudo mmuconfig -p ingress_lossless_profile -a -6");
	cr_assert_str_eq(p.acts[0].revert, "sudo mmuconfig -p ingress_lossless_profile -a 0");
	cr_assert_str_eq(p.acts[0].read,
			 "sonic-db-cli CONFIG_DB HGET 'BUFFER_PROFILE|ingress_lossless_profile' "
			 "dynamic_th");
	cr_assert_str_eq(p.acts[1].apply,
			 "sudo mmuconfig -p pg_lossless_100000_300m_profile -a -6");
	cr_assert_str_eq(p.acts[1].revert,
			 "sudo mmuconfig -p pg_lossless_100000_300m_profile -a -3");
	cr_assert_str_eq(p.acts[1].found, "-3\n", "its value, as its own read will say it");
	cr_assert(strstr(p.note, "pg_lossless_40000_5m_profile (no dynamic_th)") &&
		      strstr(p.note, "pg_lossless_25000_5m_profile (at -6 already)"),
		  "%s", p.note);
	cr_assert_null(strstr(p.note, "reboot"), "a name no command may carry is not one: %s",
		       p.note);
	fault_plan_clear(&p);

	/* A SKU whose profiles are all static: nothing to set, refused */
	found_action(&p, "sw-sonic", "sonic-bufprofiles lossless",
		     "{\"pg_lossless_40000_5m_profile\": {\"static_th\": \"3000000\"}}");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), -EOPNOTSUPP);
	cr_assert(strstr(f.err, "no ingress_lossless* or pg_lossless* profile with a dynamic "
				"threshold"),
		  "%s", f.err);
	fault_plan_clear(&p);
	/* No table at all (sonic-cfggen prints nothing) */
	found_action(&p, "sw-sonic", "sonic-bufprofiles lossless", "\n");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), -EOPNOTSUPP);
	fault_plan_clear(&p);
	/* The table's read is checked as what it is */
	parse_bad("sonic-bufprofiles lossless", "Usage: sonic-cfggen", "printed no table");
}

/*
 * SONiC 'aclshow -a -t T': the columns and N/A of sonic-utilities
 * tests/aclshow_test.py (all_output), our table's rules among others.
 */
Test(readback, sonic_aclshow_sums_the_fault_rules_packets)
{
	static const char out[] =
	    "RULE NAME     TABLE NAME            PRIO  PACKETS COUNT    BYTES COUNT\n"
	    "------------  ------------------  ------  ---------------  -------------\n"
	    "RULE_1        DATAACL               9999  101              100\n"
	    "RULE_1        ROCELAB_F7            9999  12               768\n"
	    "RULE_2        ROCELAB_F7            9998  30               1920\n"
	    "DEFAULT_RULE  ROCELAB_F7               1  5                320\n";
	static const char na[] =
	    "RULE NAME     TABLE NAME            PRIO  PACKETS COUNT    BYTES COUNT\n"
	    "------------  ------------------  ------  ---------------  -------------\n"
	    "RULE_1        ROCELAB_F7            9999  N/A              N/A\n";
	struct readback rb = parse_ok("sonic-aclshow ROCELAB_F7", out);

	cr_assert_eq(rb.packets, 42, "RULE_1 and RULE_2 of ours, not DATAACL's or DEFAULT_RULE");
	cr_assert(rb.counted);
	cr_assert_str_eq(rb.canon, "2 rule(s) of ROCELAB_F7: 42 packet(s)");
	rb = parse_ok("sonic-aclshow ROCELAB_F7", na);
	cr_assert(!rb.counted);
	cr_assert_str_eq(rb.canon,
			 "1 rule(s) of ROCELAB_F7: 0 packet(s), N/A (counters not polled)");
	parse_bad("sonic-aclshow ROCELAB_F8", out, "aclshow lists no RULE_ of ROCELAB_F8");
}

/*
 * EOS 'show ip access-lists NAME' with 'counters per-entry': "[match N
 * packets, T ago]", and "[match B bytes in N packets, T ago]" on newer EOS
 * (the formats of Arista's public 'show ip access-lists' samples).
 */
Test(readback, eos_acl_counters_sum_the_deny_entries)
{
	static const char out[] =
	    "IP Access List default-control-plane-acl [readonly]\n"
	    "        counters per-entry\n"
	    "        10 permit icmp any any [match 7172 packets, 1 day, 20:46:09 ago]\n"
	    "IP Access List rocelab_f7\n"
	    "        counters per-entry\n"
	    "        10 deny udp host 198.18.1.1 host 198.18.3.1 eq 4791 [match 147 packets, "
	    "0:00:14 ago]\n"
	    "        20 deny udp host 198.18.1.1 host 198.18.3.2 eq 4791 [match 1920 bytes in 30 "
	    "packets, 0:00:01 ago]\n"
	    "        30 deny udp host 198.18.1.2 host 198.18.3.1 eq 4791\n"
	    "        40 permit ip any any [match 98544013 packets, 0:00:36 ago]\n";
	static const char uncounted[] =
	    "IP Access List rocelab_f7\n"
	    "        10 deny udp host 198.18.1.1 host 198.18.3.1 eq 4791\n"
	    "        20 permit ip any any\n";
	struct readback rb = parse_ok("eos-acl-counters rocelab_f7", out);

	cr_assert_eq(rb.packets, 177, "147 + 30, not the permit's or another list's");
	cr_assert(rb.counted);
	cr_assert_str_eq(rb.canon, "3 deny entries of rocelab_f7: 177 packet(s)");
	rb = parse_ok("eos-acl-counters rocelab_f7", uncounted);
	cr_assert(!rb.counted);
	parse_bad("eos-acl-counters rocelab_f8", out, "shows no such list");
}

/*
 * NVUE 'nv show interface P acl', one table a port, as the NVUE command
 * reference prints it (CumulusNetworks/docs: "ACL Name  Rule ID  In Packets
 * In Bytes  Out Packets  Out Bytes", an outbound rule's In cells blank); the
 * fault's deny rules 10 and 20 on two ports, its permit (30) and another ACL
 * not counted.
 */
Test(readback, nvue_acl_counters_sum_the_deny_rules_in_packets)
{
	static const char out[] =
	    "ACL Name    Rule ID  In Packets  In Bytes    Out Packets  Out Bytes\n"
	    "----------  -------  ----------  ----------  -----------  ---------\n"
	    "EXAMPLE1    10                               0            0\n"
	    "rocelab_f7  10       120         15360 Bytes\n"
	    "            20       7           896 Bytes\n"
	    "            30       99812       12775936 Bytes\n"
	    "\n"
	    "ACL Name    Rule ID  In Packets  In Bytes    Out Packets  Out Bytes\n"
	    "----------  -------  ----------  ----------  -----------  ---------\n"
	    "rocelab_f7  10       3           384 Bytes\n"
	    "rocelab_f7  30       5           640 Bytes\n";
	static const char unbound[] =
	    "ACL Name  Rule ID  In Packets  In Bytes  Out Packets  Out Bytes\n"
	    "--------  -------  ----------  --------  -----------  ---------\n"
	    "EXAMPLE1  10                             0            0\n";
	struct readback rb = parse_ok("nvue-acl-counters rocelab_f7 20", out);

	cr_assert_eq(rb.packets, 130, "120 + 7 + 3: not the permit's, nor EXAMPLE1's");
	cr_assert(rb.counted);
	cr_assert_str_eq(rb.canon,
			 "3 deny rule row(s) of rocelab_f7 on 2 port(s): 130 packet(s) in");
	parse_bad("nvue-acl-counters rocelab_f7 20", unbound, "no deny rule of the fault's ACL");
	parse_bad("nvue-acl-counters rocelab_f7 20", "Error: no such interface\n", "no ACL table");
}

/*
 * pfc-storm's counters, the PFC frames a port received for a priority:
 * - SONiC: sonic-db-cli HGET of COUNTERS_DB SAI_PORT_STAT_PFC_<p>_RX_PKTS,
 *   one number (the counter sonic-utilities scripts/pfcstat shows);
 * - EOS: 'show interfaces PORT priority-flow-control counters detail |
 *   json' in the model facebook/DNE-TaaC reads from EOS
 *   (taac/health_checks/dsf_health_checks/dsf_pfc_health_check.py:
 *   interfaces.PORT.priorities."<p>".rxFrames, txFrames); no published
 *   sample of the whole reply was found, so its other keys are left out;
 * - NVUE: 'nv show interface swp1 counters qos pfc-stats' as the NVUE command
 *   reference prints it (CumulusNetworks/docs, Cumulus Linux 5.5+), with
 *   counts in place of its zeros.
 */
Test(readback, pfc_rx_counters_as_each_nos_prints_them)
{
	static const char eos[] = "{\"interfaces\": {\"Ethernet1\": {\"priorities\": {"
				  "\"0\": {\"rxFrames\": 0, \"txFrames\": 0},"
				  "\"3\": {\"rxFrames\": 123456, \"txFrames\": 17},"
				  "\"4\": {\"rxFrames\": 9, \"txFrames\": 0}}}}}";
	static const char nvue[] =
	    "switch-priority  rx-pause-frames  rx-pause-duration  tx-pause-frames  "
	    "tx-pause-duration\n"
	    "---------------  ---------------  -----------------  ---------------  "
	    "-----------------\n"
	    "0                0                0                  0                0         "
	    "      \n"
	    "1                0                0                  0                0\n"
	    "2                0                0                  0                0\n"
	    "3                48213            1572864            0                0\n"
	    "4                0                0                  0                0\n"
	    "5                0                0                  0                0\n"
	    "6                0                0                  0                0\n"
	    "7                0                0                  0                0\n";
	struct readback rb = parse_ok("sonic-pfc-rx Ethernet0 3", "20317\n");

	cr_assert_eq(rb.packets, 20317);
	cr_assert(rb.counted);
	cr_assert_str_eq(rb.canon, "Ethernet0: PFC frames received for priority 3");
	parse_bad("sonic-pfc-rx Ethernet0 3", "\n", "not a count");
	parse_bad("sonic-pfc-rx Ethernet0 3", "-1\n", "not a count");

	rb = parse_ok("eos-pfc-rx Ethernet1 3", eos);
	cr_assert_eq(rb.packets, 123456, "rxFrames of priority 3, not txFrames or another's");
	cr_assert_eq(parse_ok("eos-pfc-rx Et1 4", eos).packets, 9, "the one port, named in full");
	parse_bad("eos-pfc-rx Ethernet1 5", eos, "no rxFrames for the priority");
	parse_bad("eos-pfc-rx Ethernet1 3", "% Invalid input", "not JSON");
	parse_bad("eos-pfc-rx Ethernet1 3", "{\"interfaces\": {}}", "no such interface");

	rb = parse_ok("nvue-pfc-rx swp1 3", nvue);
	cr_assert_eq(rb.packets, 48213, "rx-pause-frames, not the duration");
	cr_assert_eq(parse_ok("nvue-pfc-rx swp1 0", nvue).packets, 0);
	parse_bad("nvue-pfc-rx swp1 3", "Error: The requested item does not exist.\n",
		  "no switch-priority / rx-pause-frames table");
	parse_bad("nvue-pfc-rx swp1 3",
		  "switch-priority  rx-pause-frames\n---------------  ---------------\n",
		  "no row for the priority");
}

/*
 * buffer-alpha's reads: SONiC CONFIG_DB BUFFER_PROFILE dynamic_th as
 * sonic-db-cli HGET prints it (mmuconfig writes -8..8); EOS running-config
 * with an MMU queue profile as aristanetworks/avd's platform-trident
 * template renders it; NVUE set commands as the NVUE reference writes them.
 */
Test(readback, buffer_alpha_as_each_nos_writes_it)
{
	struct readback rb;

	rb = parse_ok("sonic-dynth ingress_lossless_profile", "-2\n");
	cr_assert_str_eq(rb.alpha, "-2");
	cr_assert_str_eq(rb.canon, "ingress_lossless_profile dynamic_th -2");
	rb = parse_ok("sonic-dynth pg_lossless_100000_5m_profile", "\n");
	cr_assert_str_eq(rb.alpha, "");
	cr_assert_str_eq(rb.canon, "pg_lossless_100000_5m_profile has no dynamic_th");
	parse_bad("sonic-dynth p", "9\n", "is not an alpha exponent");
	parse_bad("sonic-dynth p", "static\n", "is not an alpha exponent");

	rb = parse_ok("eos-mmu 3", "hostname tor1\n!\n"
				   "platform trident mmu queue profile other\n"
				   "    ingress priority-group 3 threshold 1/2\n"
				   "!\n"
				   "platform trident mmu queue profile roce\n"
				   "    ingress threshold 1/4\n"
				   "    ingress priority-group 3 threshold 1/16\n"
				   "    egress unicast queue 3 threshold 1/8\n"
				   "!\n"
				   "platform trident mmu queue profile roce apply\n"
				   "!\nend\n");
	cr_assert_str_eq(rb.profile, "roce");
	cr_assert_str_eq(rb.alpha, "1/16");
	rb = parse_ok("eos-mmu 3", "platform trident mmu queue profile roce\n"
				   "    ingress priority-group 4 threshold 1/16\n"
				   "platform trident mmu queue profile roce apply\n");
	cr_assert_str_eq(
	    rb.canon, "MMU queue profile roce applied, ingress priority-group 3 threshold not set");
	rb = parse_ok("eos-mmu 3", "platform trident mmu queue profile roce\n"
				   "    ingress priority-group 3 threshold 1/16\n");
	cr_assert_str_eq(rb.canon, "no MMU queue profile applied");

	rb = parse_ok(
	    "nvue-alpha default-global",
	    "nv set qos advance-buffer-config default-global ingress-lossless-buffer shared-alpha "
	    "alpha_1_8\n"
	    "nv set qos advance-buffer-config default-global ingress-lossless-buffer shared-alpha "
	    "alpha_1_16\n");
	cr_assert_str_eq(rb.alpha, "alpha_1_16");
	rb = parse_ok("nvue-alpha default-global", "");
	cr_assert_str_eq(rb.canon,
			 "default-global ingress-lossless-buffer shared-alpha not set (the "
			 "platform's default)");
}

/* What was found becomes the undo; a SONiC profile without dynamic_th, or alpha as set, is refused.
 */
Test(readback, buffer_alpha_undo_is_what_was_found)
{
	struct inventory *inv = inventory_load("injectors/dialect-lab.yaml", stderr);
	struct fault_spec s;
	struct fault_plan p = {.table = "rocelab_f4"};
	struct fault_run f = {.spec = &s, .inv = inv};
	struct fault_action *a;

	cr_assert_not_null(inv);
	fault_spec_init(&s, &fk_buffer_alpha);
	/* one profile named: that one alone (the default, every lossless one, is below) */
	cr_assert_eq(
	    fault_spec_set(&s, "profile", "ingress_lossless_profile", f.err, sizeof(f.err)), 0,
	    "%s", f.err);
	s.tkind = INV_DEV_SWITCH;
	s.tport = -1;
	/* each NOS's reads on a switch of that dialect */
	s.tdev = (size_t)(inventory_switch(inv, "sw-sonic") - inv->switches);
	a = found_action(&p, "sw-sonic", "sonic-dynth ingress_lossless_profile", "-4\n");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->apply, "sudo mmuconfig -p ingress_lossless_profile -a -6");
	cr_assert_str_eq(a->revert, "sudo mmuconfig -p ingress_lossless_profile -a -4");
	fault_plan_clear(&p);

	found_action(&p, "sw-sonic", "sonic-dynth ingress_lossless_profile", "\n");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), -EOPNOTSUPP);
	cr_assert(strstr(f.err, "has no dynamic_th") && strstr(f.err, "give --profile"), "%s",
		  f.err);
	fault_plan_clear(&p);

	found_action(&p, "sw-sonic", "sonic-dynth ingress_lossless_profile", "-6\n");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), -EALREADY);
	cr_assert(strstr(f.err, "dynamic_th -6 already"), "%s", f.err);
	fault_plan_clear(&p);

	s.tdev = (size_t)(inventory_switch(inv, "sw-eos") - inv->switches);
	a = found_action(&p, "sw-eos", "eos-mmu 3",
			 "platform trident mmu queue profile roce\n"
			 "    ingress priority-group 3 threshold 1/16\n"
			 "platform trident mmu queue profile roce apply\n");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->apply, "configure\nplatform trident mmu queue profile roce\n"
				   "ingress priority-group 3 threshold 1/64\nend");
	cr_assert_str_eq(a->revert, "configure\nplatform trident mmu queue profile roce\n"
				    "ingress priority-group 3 threshold 1/16\nend");
	fault_plan_clear(&p);

	a = found_action(&p, "sw-eos", "eos-mmu 3",
			 "platform trident mmu queue profile roce\n"
			 "platform trident mmu queue profile roce apply\n");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert, "configure\nplatform trident mmu queue profile roce\n"
				    "no ingress priority-group 3 threshold\nend");
	fault_plan_clear(&p);

	s.tdev = (size_t)(inventory_switch(inv, "sw-nvue") - inv->switches);
	a = found_action(&p, "sw-nvue", "nvue-alpha default-global",
			 "nv set qos advance-buffer-config default-global ingress-lossless-buffer "
			 "shared-alpha alpha_1_16\n");
	cr_assert_eq(fk_buffer_alpha.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert, "nv set qos advance-buffer-config default-global "
				    "ingress-lossless-buffer shared-alpha alpha_1_16 && nv config "
				    "apply -y");
	fault_plan_clear(&p);
	inventory_free(inv);
}

/*
 * ecn-misconfig's reads: SONiC CONFIG_DB QUEUE wred_profile as sonic-db-cli
 * HGET prints it (plain, or the bracketed reference older SONiC kept); EOS
 * running-config with a uc-tx-queue block as aristanetworks/avd's template
 * renders it; NVUE set commands as the NVUE reference writes them.
 */
Test(readback, ecn_as_each_nos_writes_it)
{
	struct readback rb;

	rb = parse_ok("sonic-wred Ethernet0 3", "AZURE_LOSSLESS\n");
	cr_assert_str_eq(rb.ecn, "AZURE_LOSSLESS");
	cr_assert_str_eq(rb.canon, "QUEUE|Ethernet0|3 wred_profile AZURE_LOSSLESS");
	rb = parse_ok("sonic-wred Ethernet0 3", "[WRED_PROFILE|AZURE_LOSSLESS]\n");
	cr_assert_str_eq(rb.ecn, "[WRED_PROFILE|AZURE_LOSSLESS]");
	rb = parse_ok("sonic-wred Ethernet4 4", "\n");
	cr_assert_str_eq(rb.canon, "QUEUE|Ethernet4|4 wred_profile not set (no WRED/ECN)");
	parse_bad("sonic-wred Ethernet0 3", "x; reboot\n", "is not a profile name");

	rb = parse_ok(
	    "eos-ecn Ethernet1 3",
	    "interface Ethernet1\n"
	    "   mtu 9214\n"
	    "   !\n"
	    "   uc-tx-queue 2\n"
	    "      random-detect ecn minimum-threshold 1 mbytes maximum-threshold 2 mbytes\n"
	    "   !\n"
	    "   uc-tx-queue 3\n"
	    "      random-detect ecn count\n"
	    "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 "
	    "kbytes max-mark-probability 20\n"
	    "   priority-flow-control on\n"
	    "interface Ethernet2\n"
	    "   uc-tx-queue 3\n"
	    "      random-detect ecn minimum-threshold 9 kbytes maximum-threshold 9 kbytes\n");
	cr_assert_str_eq(rb.ecn, "random-detect ecn minimum-threshold 150 kbytes maximum-threshold "
				 "1500 kbytes max-mark-probability 20");
	rb = parse_ok("eos-ecn Ethernet1 3", "interface Ethernet1\n   uc-tx-queue 3\n      "
					     "random-detect ecn count\n");
	cr_assert_str_eq(rb.canon, "Ethernet1 uc-tx-queue 3: no random-detect ecn");
	rb = parse_ok("eos-ecn Ethernet1 3",
		      "interface Ethernet1\n   tx-queue 3\n      random-detect ecn "
		      "minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\n");
	cr_assert_str_eq(rb.canon,
			 "Ethernet1 tx-queue 3: random-detect ecn minimum-threshold 150 "
			 "kbytes maximum-threshold 1500 kbytes",
			 "a DNX platform's tx-queue");
	parse_bad("eos-ecn Ethernet9 3", "interface Ethernet1\n", "has no 'interface Ethernet9'");

	rb = parse_ok("nvue-ecn swp2 3",
		      "nv set qos congestion-control roce traffic-class 3,4 min-threshold 40000\n"
		      "nv set qos congestion-control roce traffic-class 3,4 ecn enable\n"
		      "nv set qos congestion-control roce traffic-class 0 ecn disable\n"
		      "nv set qos congestion-control other traffic-class 3 ecn disable\n"
		      "nv set interface swp1-4 qos congestion-control profile roce\n");
	cr_assert(rb.bound);
	cr_assert_str_eq(rb.profile, "roce");
	cr_assert_str_eq(rb.ecn, "min-threshold 40000 ecn enable");
	rb = parse_ok("nvue-ecn swp7 3",
		      "nv set interface swp1-4 qos congestion-control profile roce\n");
	cr_assert_str_eq(rb.canon,
			 "profile default-global (no profile of its own): traffic-class 3 "
			 "not set (NVUE's defaults)");
}

/* An ecn-misconfig of port 0 of the dialect lab's switch sw, with f run on s and p. */
static struct inventory *ecn_run(struct fault_spec *s, struct fault_run *f, struct fault_plan *p,
				 const char *sw)
{
	struct inventory *inv = inventory_load("injectors/dialect-lab.yaml", stderr);

	cr_assert_not_null(inv);
	fault_spec_init(s, &fk_ecn_misconfig);
	s->tkind = INV_DEV_SWITCH;
	s->tport = 0;
	s->tdev = (size_t)(inventory_switch(inv, sw) - inv->switches);
	*f = (struct fault_run){.spec = s, .inv = inv, .plan = p};
	return inv;
}

/* What was found becomes the undo; --off of a queue that marks nothing is refused. */
Test(readback, ecn_undo_is_what_was_found)
{
	struct fault_spec s;
	struct fault_plan p = {.table = "rocelab_f7"};
	struct fault_run f;
	struct inventory *inv = ecn_run(&s, &f, &p, "sw-sonic");
	struct fault_action *a;
	char why[160];

	a = found_action(&p, "sw-sonic", "sonic-wred Ethernet0 3", "AZURE_LOSSLESS\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert(strstr(a->apply, "HSET 'WRED_PROFILE|ROCELAB_F7' wred_green_enable true ecn "
				   "ecn_all green_min_threshold 240000 green_max_threshold 240000 "
				   "green_drop_probability 100") &&
		      strstr(a->apply, "HSET 'QUEUE|Ethernet0|3' wred_profile ROCELAB_F7 "),
		  "%s", a->apply);
	cr_assert_str_eq(a->revert, "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|Ethernet0|3' "
				    "wred_profile AZURE_LOSSLESS >/dev/null; sudo sonic-db-cli "
				    "CONFIG_DB DEL 'WRED_PROFILE|ROCELAB_F7' >/dev/null");
	fault_plan_clear(&p);

	/* an older SONiC's bracketed reference is written the same way */
	a = found_action(&p, "sw-sonic", "sonic-wred Ethernet0 3", "[WRED_PROFILE|X]\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	/* quoted: '|' would be a pipe to the shell, '[' a glob */
	cr_assert(strstr(a->apply, "wred_profile '[WRED_PROFILE|ROCELAB_F7]' "), "%s", a->apply);
	cr_assert(strstr(a->revert, "wred_profile '[WRED_PROFILE|X]' "), "%s", a->revert);
	fault_plan_clear(&p);

	/* nothing bound before: the undo deletes the binding */
	a = found_action(&p, "sw-sonic", "sonic-wred Ethernet0 3", "\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert(!strncmp(a->revert,
			   "sudo sonic-db-cli CONFIG_DB HDEL 'QUEUE|Ethernet0|3' "
			   "wred_profile",
			   54),
		  "%s", a->revert);
	fault_plan_clear(&p);

	cr_assert_eq(fault_spec_set(&s, "off", NULL, why, sizeof(why)), 0, "%s", why);
	found_action(&p, "sw-sonic", "sonic-wred Ethernet0 3", "\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), -EALREADY);
	cr_assert(strstr(f.err, "marks no ECN already"), "%s", f.err);
	fault_plan_clear(&p);

	s.tdev = (size_t)(inventory_switch(inv, "sw-eos") - inv->switches);
	a = found_action(&p, "sw-eos", "eos-ecn Ethernet1 3",
			 "interface Ethernet1\n   uc-tx-queue 3\n      random-detect ecn "
			 "minimum-threshold 20 kbytes maximum-threshold 20 kbytes\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(
	    a->apply, "configure\ninterface Ethernet1\nuc-tx-queue 3\nno random-detect ecn\nend");
	cr_assert_str_eq(a->revert, "configure\ninterface Ethernet1\nuc-tx-queue 3\nrandom-detect "
				    "ecn minimum-threshold 20 kbytes maximum-threshold 20 "
				    "kbytes\nend");
	fault_plan_clear(&p);
	/* a DNX (Jericho) platform, as read at pre-flight: its queues are tx-queues */
	snprintf(inv->switches[s.tdev].nos.model, sizeof(inv->switches[s.tdev].nos.model), "%s",
		 "DCS-7280SR3-48YC8");
	a = found_action(&p, "sw-eos", "eos-ecn Ethernet1 3",
			 "interface Ethernet1\n   tx-queue 3\n      random-detect ecn "
			 "minimum-threshold 20 kbytes maximum-threshold 20 kbytes\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->apply,
			 "configure\ninterface Ethernet1\ntx-queue 3\nno random-detect ecn\nend");
	cr_assert_str_eq(a->revert, "configure\ninterface Ethernet1\ntx-queue 3\nrandom-detect "
				    "ecn minimum-threshold 20 kbytes maximum-threshold 20 "
				    "kbytes\nend");
	inv->switches[s.tdev].nos.model[0] = '\0';
	fault_plan_clear(&p);

	cr_assert_eq(fault_spec_set(&s, "off", "false", f.err, sizeof(f.err)), 0, "%s", f.err);
	s.tdev = (size_t)(inventory_switch(inv, "sw-nvue") - inv->switches);
	a = found_action(&p, "sw-nvue", "nvue-ecn swp2 3",
			 "nv set qos congestion-control roce traffic-class 0 ecn enable\n"
			 "nv set interface swp2 qos congestion-control profile roce\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert(
	    !strncmp(a->apply,
		     "nv set qos congestion-control rocelab_f7 traffic-class 0 ecn enable && "
		     "nv set qos congestion-control rocelab_f7 traffic-class 3 ecn enable && ",
		     139),
	    "%s", a->apply);
	cr_assert_str_eq(a->revert,
			 "nv set interface swp2 qos congestion-control profile roce; "
			 "nv unset qos congestion-control rocelab_f7; nv config apply -y");
	fault_plan_clear(&p);
	inventory_free(inv);
}

/*
 * What a device printed becomes part of the command that restores it: on every NOS, a
 * value a shell would act on is refused, however that NOS's parser read it (issue 56).
 */
Test(readback, device_text_a_shell_would_act_on_never_reaches_an_undo)
{
	parse_bad("nvue-alpha default-global",
		  "nv set qos advance-buffer-config default-global ingress-lossless-buffer "
		  "shared-alpha alpha_1_8;reboot\n",
		  "holds characters no command may carry");
	parse_bad("eos-mmu 3",
		  "platform trident mmu queue profile roce$(reboot)\n"
		  "    ingress priority-group 3 threshold 1/16\n"
		  "platform trident mmu queue profile roce$(reboot) apply\n",
		  "holds characters no command may carry");
	parse_bad("eos-speed Ethernet1", "interface Ethernet1\n   speed 100g`reboot`\n",
		  "holds characters no command may carry");
}

/*
 * SONiC tables read whole (issue 61): 'sonic-cfggen -d --var-json QUEUE' and
 * BUFFER_PG print one JSON object whose keys are each entry's tuple joined
 * with '|' (sonic-buildimage src/sonic-config-engine/sonic-cfggen,
 * FormatConverter.to_serialized), the SKU's own layout: queues in ranges
 * ("3-4", as the Arista and Mellanox SKUs' qos.json.j2 write them) and ports
 * in comma lists.
 */
static const char queue_ranges[] =
    "{\n"
    "    \"Ethernet0|0-2\": {\"scheduler\": \"scheduler.0\"},\n"
    "    \"Ethernet0|3-4\": {\"wred_profile\": \"AZURE_LOSSLESS\", \"scheduler\": "
    "\"scheduler.1\"},\n"
    "    \"Ethernet0|5-6\": {\"scheduler\": \"scheduler.0\"},\n"
    "    \"Ethernet4|3-4\": {\"wred_profile\": \"AZURE_LOSSLESS\", \"scheduler\": "
    "\"scheduler.1\"},\n"
    "    \"Ethernet40|3\": {\"wred_profile\": \"AZURE_LOSSY\"}\n"
    "}\n";

Test(readback, sonic_queue_is_the_ports_entries_and_the_one_holding_the_queue)
{
	struct readback rb = parse_ok("sonic-queue Ethernet0 3", queue_ranges);

	cr_assert_eq(rb.n_ent, 3, "Ethernet0's entries only (not Ethernet4's, not Ethernet40's)");
	cr_assert_geq(rb.cover, 0);
	cr_assert_str_eq(rb.ent[rb.cover].key, "Ethernet0|3-4");
	cr_assert_str_eq(rb.ent[rb.cover].fields,
			 "scheduler scheduler.1 wred_profile AZURE_LOSSLESS");
	cr_assert_str_eq(rb.ecn, "AZURE_LOSSLESS");
	cr_assert(!strncmp(rb.canon, "QUEUE|Ethernet0|3-4 wred_profile AZURE_LOSSLESS; ", 49), "%s",
		  rb.canon);
	/* the queue's own entry (the fault's, while it is live) wins over the range */
	rb =
	    parse_ok("sonic-queue Ethernet0 3",
		     "{\"Ethernet0|3-4\": {\"wred_profile\": \"AZURE_LOSSLESS\"}, \"Ethernet0|3\": "
		     "{\"wred_profile\": \"ROCELAB_F7\"}}");
	cr_assert_str_eq(rb.ent[rb.cover].key, "Ethernet0|3");
	cr_assert_str_eq(rb.ecn, "ROCELAB_F7");
	/* a port list, and an older SONiC's bracketed references */
	rb = parse_ok(
	    "sonic-queue Ethernet4 3",
	    "{\"Ethernet0,Ethernet4|3\": {\"wred_profile\": "
	    "\"[WRED_PROFILE|AZURE_LOSSLESS]\", \"scheduler\": \"[SCHEDULER|scheduler.1]\"}}");
	cr_assert_str_eq(rb.ent[rb.cover].key, "Ethernet0,Ethernet4|3");
	cr_assert_str_eq(rb.ecn, "[WRED_PROFILE|AZURE_LOSSLESS]");
	/* no entry holds queue 7; no table at all */
	rb = parse_ok("sonic-queue Ethernet0 7", queue_ranges);
	cr_assert_eq(rb.cover, -1);
	cr_assert_str_eq(rb.ecn, "");
	rb = parse_ok("sonic-queue Ethernet0 3", "");
	cr_assert_str_eq(rb.canon, "queue 3 of Ethernet0 in no QUEUE entry (no WRED/ECN); none");
	/* the same entries in another order read the same; a change anywhere in them differs */
	{
		struct readback a = parse_ok("sonic-queue Ethernet0 3", queue_ranges),
				b = parse_ok(
				    "sonic-queue Ethernet0 3",
				    "{\"Ethernet0|5-6\": {\"scheduler\": \"scheduler.0\"}, "
				    "\"Ethernet0|3-4\": {\"scheduler\": \"scheduler.1\", "
				    "\"wred_profile\": \"AZURE_LOSSLESS\"}, "
				    "\"Ethernet0|0-2\": {\"scheduler\": \"scheduler.0\"}}"),
				c = parse_ok(
				    "sonic-queue Ethernet0 3",
				    "{\"Ethernet0|0-2\": {\"scheduler\": \"scheduler.0\"}, "
				    "\"Ethernet0|3-4\": {\"scheduler\": \"scheduler.1\", "
				    "\"wred_profile\": \"AZURE_LOSSLESS\"}}");

		cr_assert_str_eq(a.canon, b.canon);
		cr_assert_str_neq(a.canon, c.canon, "an entry gone (queues 5-6) is drift");
	}
	/* device text that would reach a command line is refused, wherever it is */
	parse_bad("sonic-queue Ethernet0 3", "{\"Ethernet0|3\": {\"wred_profile\": \"x; reboot\"}}",
		  "no command may carry");
	parse_bad("sonic-queue Ethernet0 3", "{\"Ethernet0|3'\": {\"wred_profile\": \"X\"}}",
		  "not one rocelab can restore");
	parse_bad("sonic-queue Ethernet0 3",
		  "{\"Ethernet0|3\": {\"scheduler`reboot`\": \"scheduler.1\"}}",
		  "no command may carry");
	parse_bad("sonic-queue Ethernet0 3", "QUEUE\n", "printed no table");
}

/* A queue a range holds gets an entry of its own; the undo puts the range back as read. */
Test(readback, ecn_on_a_queue_a_range_holds_is_restored_whole)
{
	struct fault_spec s;
	struct fault_plan p = {.table = "rocelab_f7"};
	struct fault_run f;
	struct inventory *inv = ecn_run(&s, &f, &p, "sw-sonic");
	struct fault_action *a;
	char why[160];

	a = found_action(&p, "sw-sonic", "sonic-queue Ethernet0 3", queue_ranges);
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert(strstr(a->apply, "HSET 'WRED_PROFILE|ROCELAB_F7' wred_green_enable true "), "%s",
		  a->apply);
	cr_assert(strstr(a->apply, "&& sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|Ethernet0|3' "
				   "scheduler scheduler.1 wred_profile ROCELAB_F7 >/dev/null"),
		  "%s", a->apply);
	cr_assert(!strstr(a->apply, "3-4"), "the range itself is not touched: %s", a->apply);
	cr_assert_str_eq(a->revert,
			 "sudo sonic-db-cli CONFIG_DB DEL 'QUEUE|Ethernet0|3' >/dev/null; sleep 1; "
			 "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|Ethernet0|3-4' scheduler "
			 "scheduler.1 wred_profile AZURE_LOSSLESS >/dev/null; sudo sonic-db-cli "
			 "CONFIG_DB DEL 'WRED_PROFILE|ROCELAB_F7' >/dev/null");
	fault_plan_clear(&p);

	/* a range without WRED: the queue's own entry adds the field */
	a = found_action(&p, "sw-sonic", "sonic-queue Ethernet0 3",
			 "{\"Ethernet0|3-4\": {\"scheduler\": \"scheduler.1\"}}");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert(strstr(a->apply, "HSET 'QUEUE|Ethernet0|3' scheduler scheduler.1 wred_profile "
				   "ROCELAB_F7 >"),
		  "%s", a->apply);
	fault_plan_clear(&p);

	/* the queue's own entry: as before, its wred_profile set and put back */
	a = found_action(&p, "sw-sonic", "sonic-queue Ethernet0 3",
			 "{\"Ethernet0|3\": {\"scheduler\": \"scheduler.1\", \"wred_profile\": "
			 "\"AZURE_LOSSLESS\"}}");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert(strstr(a->revert, "HSET 'QUEUE|Ethernet0|3' wred_profile AZURE_LOSSLESS "), "%s",
		  a->revert);
	fault_plan_clear(&p);

	/* --off cannot take WRED off one queue of a range: refused, before anything changes */
	cr_assert_eq(fault_spec_set(&s, "off", NULL, why, sizeof(why)), 0, "%s", why);
	found_action(&p, "sw-sonic", "sonic-queue Ethernet0 3", queue_ranges);
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), -EOPNOTSUPP);
	cr_assert(strstr(f.err, "QUEUE|Ethernet0|3-4 holds queue 3 together with others"), "%s",
		  f.err);
	fault_plan_clear(&p);
	inventory_free(inv);
}

/*
 * pfc-misconfig on SONiC reads the port's BUFFER_PG entries with its PFC
 * ('show pfc priority', the mark, the table): on the traditional buffer model
 * 3,4 less 3 leaves BUFFER_PG|PORT|4 (buffermgr.cpp), which the undo deletes,
 * then writes |3-4 back.
 */
static const char pfc_and_pgs[] = "Interface    Lossless priorities\n"
				  "-----------  ---------------------\n"
				  "Ethernet4    3,4\n" SONIC_BUFFER_PG_MARK "\n"
				  "{\n"
				  "    \"Ethernet4|0\": {\"profile\": \"ingress_lossy_profile\"},\n"
				  "    \"Ethernet4|3-4\": {\"profile\": "
				  "\"pg_lossless_100000_5m_profile\"},\n"
				  "    \"Ethernet8|3-4\": {\"profile\": "
				  "\"pg_lossless_100000_5m_profile\"}\n"
				  "}\n";

Test(readback, sonic_pfc_with_buffer_pg_reads_the_ports_pgs_whole)
{
	struct readback rb = parse_ok("sonic-pfc Ethernet4", pfc_and_pgs), left;
	char with4[sizeof(pfc_and_pgs) + 128];

	cr_assert_eq(rb.lossless, (1u << 3) | (1u << 4));
	cr_assert(rb.ent_read);
	cr_assert_eq(rb.n_ent, 2);
	cr_assert_str_eq(rb.canon, "lossless 3,4; BUFFER_PG Ethernet4|0{profile "
				   "ingress_lossy_profile} Ethernet4|3-4{profile "
				   "pg_lossless_100000_5m_profile}");
	/* after an undo that left buffermgrd's entry behind: drift */
	snprintf(with4, sizeof(with4), "%.*s    \"Ethernet4|4\": {\"profile\": \"x\"},\n%s",
		 (int)(strstr(pfc_and_pgs, "    \"Ethernet4|0\"") - pfc_and_pgs), pfc_and_pgs,
		 strstr(pfc_and_pgs, "    \"Ethernet4|0\""));
	left = parse_ok("sonic-pfc Ethernet4", with4);
	cr_assert_str_neq(left.canon, rb.canon);
	/* an older journal's read (no table): PFC alone */
	rb = parse_ok("sonic-pfc Ethernet4", sonic_one);
	cr_assert(!rb.ent_read);
	parse_bad("sonic-pfc Ethernet4",
		  "Ethernet4    3,4\n" SONIC_BUFFER_PG_MARK "\n{\"Ethernet4|3-4\": {\"profile\": "
		  "\"$(reboot)\"}}",
		  "no command may carry");
}

Test(readback, pfc_off_undo_removes_what_buffermgrd_left_and_puts_the_pgs_back)
{
	struct inventory *inv = inventory_load("injectors/dialect-lab.yaml", stderr);
	struct fault_spec s;
	struct fault_plan p = {0};
	struct fault_run f = {.spec = &s, .inv = inv, .plan = &p};
	struct fault_action *a;
	char why[160];

	cr_assert_not_null(inv);
	fault_spec_init(&s, &fk_pfc_misconfig);
	cr_assert_eq(fault_spec_set(&s, "priority", "3", why, sizeof(why)), 0, "%s", why);
	s.tkind = INV_DEV_SWITCH;
	s.tport = 1;
	s.tdev = (size_t)(inventory_switch(inv, "sw-sonic") - inv->switches);
	a = found_action(&p, "sw-sonic", "sonic-pfc Ethernet4", pfc_and_pgs);
	cr_assert_eq(fk_pfc_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert,
			 "sudo config interface pfc priority Ethernet4 3 on; sudo sonic-db-cli "
			 "CONFIG_DB DEL 'BUFFER_PG|Ethernet4|4' >/dev/null; sleep 1; sudo "
			 "sonic-db-cli CONFIG_DB HSET 'BUFFER_PG|Ethernet4|3-4' profile "
			 "pg_lossless_100000_5m_profile >/dev/null");
	fault_plan_clear(&p);

	/* 2,3,4 less 3: "2" and "4" are buffermgrd's; an entry that was there goes back as read */
	a = found_action(&p, "sw-sonic", "sonic-pfc Ethernet4",
			 "Ethernet4    2,3,4\n" SONIC_BUFFER_PG_MARK "\n"
			 "{\"Ethernet4|2-4\": {\"profile\": \"pg_lossless_100000_5m_profile\"}, "
			 "\"Ethernet4|4\": {\"profile\": \"my_profile\"}}");
	cr_assert_eq(fk_pfc_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert,
			 "sudo config interface pfc priority Ethernet4 3 on; sudo sonic-db-cli "
			 "CONFIG_DB DEL 'BUFFER_PG|Ethernet4|2' >/dev/null; sudo sonic-db-cli "
			 "CONFIG_DB HSET 'BUFFER_PG|Ethernet4|4' profile my_profile >/dev/null; "
			 "sleep 1; sudo sonic-db-cli CONFIG_DB HSET 'BUFFER_PG|Ethernet4|2-4' "
			 "profile pg_lossless_100000_5m_profile >/dev/null");
	fault_plan_clear(&p);

	/* the only lossless priority off: buffermgrd writes nothing, nothing to clean */
	a = found_action(&p, "sw-sonic", "sonic-pfc Ethernet4",
			 "Ethernet4    3\n" SONIC_BUFFER_PG_MARK "\n"
			 "{\"Ethernet4|3\": {\"profile\": \"pg_lossless_100000_5m_profile\"}}");
	cr_assert_eq(fk_pfc_misconfig.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert, "revert");
	fault_plan_clear(&p);
	inventory_free(inv);
}

/*
 * Arista's DNX ("sand") models by their series, as show version's modelName
 * writes them (with or without DCS-/CCS-): refused for the Trident CLI.
 */
Test(readback, eos_dnx_models_are_told_from_trident_ones)
{
	static const char *const sand[] = {
	    "DCS-7280SR3-48YC8", "DCS-7280CR3K-32P4", "DCS-7500R3-36CQ-LC", "CCS-7800R3-36P-LC",
	    "DCS-7280SE-64",	 "DCS-7020R-48",      "7280CR3-32D4"};
	static const char *const not_sand[] = {"DCS-7050CX3-32S",
					       "DCS-7060CX-32S",
					       "DCS-7050SX3-48YC12",
					       "DCS-7260CX3-64",
					       "cEOSLab",
					       "vEOS-lab",
					       ""};

	for (size_t i = 0; i < sizeof(sand) / sizeof(*sand); i++)
		cr_assert(eos_model_sand(sand[i]), "%s", sand[i]);
	for (size_t i = 0; i < sizeof(not_sand) / sizeof(*not_sand); i++)
		cr_assert(!eos_model_sand(not_sand[i]), "%s", not_sand[i]);
}

/*
 * NVUE in RoCE mode: 'nv set qos roce' (lossless by default) or '... mode lossy'
 * in 'nv config show -o commands' (Cumulus Linux, RDMA over Converged Ethernet):
 * the mode's PFC and ECN are not 'qos pfc' lines, so pfc-misconfig and
 * ecn-misconfig refuse the switch rather than read it as having none.
 */
Test(readback, nvue_roce_mode_is_read_and_refused)
{
	struct readback rb = parse_ok("nvue-pfc swp2", "nv set qos roce\n");
	struct fault_spec s;
	struct fault_plan p = {.table = "rocelab_f7"};
	struct fault_run f;
	struct inventory *inv = ecn_run(&s, &f, &p, "sw-nvue");

	cr_assert_str_eq(rb.roce, "lossless");
	cr_assert(strstr(rb.canon, "; RoCE mode lossless"), "%s", rb.canon);
	rb = parse_ok("nvue-ecn swp2 3", "nv set qos roce mode lossy\n");
	cr_assert_str_eq(rb.roce, "lossy");
	rb = parse_ok("nvue-pfc swp2", "nv set qos pfc default-global switch-priority 3\n");
	cr_assert_str_eq(rb.roce, "");

	found_action(&p, "sw-nvue", "nvue-ecn swp2 3", "nv set qos roce\n");
	cr_assert_eq(fk_ecn_misconfig.discover(&f, &p), -EOPNOTSUPP);
	cr_assert(strstr(f.err, "sw-nvue is in NVUE's RoCE mode (lossless, 'nv set qos roce')"),
		  "%s", f.err);
	fault_plan_clear(&p);

	fault_spec_init(&s, &fk_pfc_misconfig);
	s.tkind = INV_DEV_SWITCH;
	s.tport = 1;
	s.tdev = (size_t)(inventory_switch(inv, "sw-nvue") - inv->switches);
	found_action(&p, "sw-nvue", "nvue-pfc swp2", "nv set qos roce mode lossless\n");
	cr_assert_eq(fk_pfc_misconfig.discover(&f, &p), -EOPNOTSUPP);
	cr_assert(strstr(f.err, "RoCE mode"), "%s", f.err);
	fault_plan_clear(&p);
	inventory_free(inv);
}
