// SPDX-License-Identifier: MIT
/* Unit tests of host op lines rendered as iproute2 commands (labs reached over SSH). */
#define _GNU_SOURCE
#include "injectors/host_cmd.h"
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

static const char *text(const char *op)
{
	static char buf[4096];

	return host_op_text(op, buf, sizeof(buf));
}

Test(host_cmd, every_op_is_an_iproute2_command)
{
	cr_assert_str_eq(text("link-down rnic2"), "ip link set dev rnic2 down");
	cr_assert_str_eq(text("link-up rnic2"), "ip link set dev rnic2 up");
	cr_assert_str_eq(text("rule-del 102 198.18.2.1 lo 102"),
			 "ip rule del pref 102 from 198.18.2.1 iif lo table 102");
	cr_assert_str_eq(text("rule-add 102 198.18.2.1 - 102"),
			 "ip rule add pref 102 from 198.18.2.1 table 102");
	cr_assert_str_eq(text("route-del 102 0.0.0.0/0"), "ip route del 0.0.0.0/0 table 102");
	cr_assert_str_eq(
	    text("route-add 102 0.0.0.0/0 198.18.2.254 rnic2"),
	    "ip route add 0.0.0.0/0 via 198.18.2.254 dev rnic2 table 102 proto static");
	/* The same bucket as nl_qdisc_tbf(): 1 ms of the rate, at least 1600 bytes. */
	cr_assert_str_eq(text("tbf rnic1 50000"), "tc qdisc replace dev rnic1 root handle 1: tbf "
						  "rate 50000kbit burst 6250b latency 50ms");
	cr_assert_str_eq(text("tbf rnic1 1000"), "tc qdisc replace dev rnic1 root handle 1: tbf "
						 "rate 1000kbit burst 1600b latency 50ms");
	cr_assert_str_eq(text("qdisc-del rnic1"), "tc qdisc del dev rnic1 root");
	/* The ECN marker's undo: its clsact qdisc goes, the filter and program with it. */
	cr_assert_str_eq(text("ecn-unmark swp3"), "tc qdisc del dev swp3 clsact");
	cr_assert_str_eq(text("dcb-pfc ens1np0 3 off"), "dcb pfc set dev ens1np0 prio-pfc 3:off");
	/* ETS max rates in kbit/s at DCBNL, as the host's dcb writes them (6.18 on: kbit;
	 * before: its bytes/s went to DCBNL as kbit/s) */
	cr_assert_str_eq(text("dcb-maxrate ens1np0 kbit 50000 50000 50000 50000 50000 50000 50000 "
			      "0"),
			 "dcb maxrate set dev ens1np0 tc-maxrate 0:50000kbit 1:50000kbit "
			 "2:50000kbit 3:50000kbit 4:50000kbit 5:50000kbit 6:50000kbit 7:0kbit");
	cr_assert_str_eq(text("dcb-maxrate ens1np0 Bps 50000 0 0 0 0 0 0 0"),
			 "dcb maxrate set dev ens1np0 tc-maxrate 0:50000Bps 1:0Bps 2:0Bps 3:0Bps "
			 "4:0Bps 5:0Bps 6:0Bps 7:0Bps");
	cr_assert_str_eq(text("dcb-maxrate ens1np0 bit 1 1 1 1 1 1 1 1"),
			 "dcb-maxrate ens1np0 bit 1 1 1 1 1 1 1 1",
			 "an unknown unit is no command");
	cr_assert_str_eq(text("ip route del default table 101 via 10.0.0.1"),
			 "ip route del default table 101 via 10.0.0.1");
	cr_assert_str_eq(text("noop"), "(nothing)");
	/* the kinds' own verbs, registered by their files (linked in with the kinds) */
	cr_assert_not_null(fault_kind_find("host-down"));
	cr_assert_not_null(host_verb_find("cpu-hog-off"));
	/* host-down: rocelab's agents in the host's own network namespace, none no error */
	cr_assert_str_eq(text("agents-stop"),
			 "sh -c pkill -STOP --ns $$ --nslist net -f '^[^ ]*rocelab agent "
			 "(hostmesh|rpingmesh)( |$)'; [ $? -le 1 ]");
	cr_assert(strstr(text("agents-cont"), "pkill -CONT --ns $$ --nslist net"));
	/* cpu-hog: one script each way, its arguments after it ($0 cpu-hog) */
	cr_assert(strstr(text("cpu-hog-on host2 10 2 last"), "cpu.cfs_quota_us"));
	cr_assert(strstr(text("cpu-hog-on host2 10 2 last"),
			 " cpu-hog host2 10 2 last ^[^ ]*rocelab agent (hostmesh|rpingmesh)( |$)"),
		  "%s", text("cpu-hog-on host2 10 2 last"));
	cr_assert(strstr(text("cpu-hog-off host2"), "rmdir $d"));
	cr_assert(strstr(text("cpu-hog-off host2"), "rm -f \"$st\"\n cpu-hog host2"), "%s",
		  text("cpu-hog-off host2"));
}

Test(host_cmd, malformed_ops_are_refused)
{
	char buf[512], err[256];
	const char *argv[HOST_CMD_MAX_WORDS];

	cr_assert_eq(host_op_command("link-down", buf, sizeof(buf), argv, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "malformed host op 'link-down'"));
	cr_assert_eq(host_op_command("reboot now", buf, sizeof(buf), argv, err, sizeof(err)),
		     -EINVAL);
	/* a kind's verb with other than its words (cpu-hog-on takes five) */
	cr_assert_not_null(fault_kind_find("cpu-hog"));
	cr_assert_eq(host_op_command("cpu-hog-on host2", buf, sizeof(buf), argv, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "malformed host op 'cpu-hog-on host2'"), "%s", err);
	/* The marker itself is loaded by this process into this kernel: never over SSH. */
	cr_assert_eq(host_op_command("ecn-mark swp3 50000 72500 375000", buf, sizeof(buf), argv,
				     err, sizeof(err)),
		     -EOPNOTSUPP);
	cr_assert(strstr(err, "virtual lab only"));
	cr_assert_eq(host_op_command("link-up rnic1", buf, sizeof(buf), argv, err, sizeof(err)), 0);
	cr_assert_str_eq(argv[0], "ip");
	cr_assert_null(argv[6]);
}
