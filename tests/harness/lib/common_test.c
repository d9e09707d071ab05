// SPDX-License-Identifier: MIT
/* Unit tests of the shared parsers: names safe for command lines, durations, rates. */
#define _GNU_SOURCE
#include "harness/lib/common.h"

#include <criterion/criterion.h>

Test(common, names_safe_for_command_lines)
{
	cr_assert(rl_name_ok("rail1", 31));
	cr_assert(rl_name_ok("host-2.rnic_3:x", 31));
	cr_assert_not(rl_name_ok("", 31));
	cr_assert_not(rl_name_ok("a b", 31));
	cr_assert_not(rl_name_ok("a;rm -rf /", 31));
	cr_assert_not(rl_name_ok("$(id)", 31));
	cr_assert_not(rl_name_ok("-o", 31), "a leading dash could become an option");
	cr_assert_not(rl_name_ok("abcdef", 5));
}

Test(common, port_names_may_carry_a_slash)
{
	cr_assert(rl_port_name_ok("Ethernet1/1", 31), "EOS port names carry '/'");
	cr_assert(rl_port_name_ok("spine1:Ethernet1/1", 70));
	cr_assert_not(rl_name_ok("Ethernet1/1", 31));
	cr_assert_not(rl_port_name_ok("Ethernet1/1;reboot", 31));
	cr_assert_not(rl_port_name_ok("-/x", 31), "a leading dash could become an option");
	cr_assert_not(rl_port_name_ok("", 31));
}

Test(common, durations)
{
	long long ms;

	cr_assert_eq(rl_parse_duration_ms("10s", &ms), 0);
	cr_assert_eq(ms, 10000);
	cr_assert_eq(rl_parse_duration_ms("250ms", &ms), 0);
	cr_assert_eq(ms, 250);
	cr_assert_eq(rl_parse_duration_ms("1.5m", &ms), 0);
	cr_assert_eq(ms, 90000);
	cr_assert_eq(rl_parse_duration_ms("2", &ms), 0);
	cr_assert_eq(ms, 2000);
	cr_assert_eq(rl_parse_duration_ms("-1s", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("10x", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("s", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("1e300h", &ms), -ERANGE);
}

Test(common, rates)
{
	unsigned long long m;

	cr_assert_eq(rl_parse_rate_mbps("100g", &m), 0);
	cr_assert_eq(m, 100000);
	cr_assert_eq(rl_parse_rate_mbps("10mbit", &m), 0);
	cr_assert_eq(m, 10);
	cr_assert_eq(rl_parse_rate_mbps("400Gbit", &m), 0);
	cr_assert_eq(m, 400000);
	cr_assert_eq(rl_parse_rate_mbps("fast", &m), -EINVAL);
	cr_assert_eq(rl_parse_rate_mbps("-5g", &m), -EINVAL);
	cr_assert_eq(rl_parse_rate_mbps("5 g", &m), -EINVAL);
}

/* What rl_format_duration_ms writes, rl_parse_duration_ms reads back. */
Test(common, durations_format_and_parse_back)
{
	static const long long v[] = {0, 1, 250, 1000, 1500, 20000, 86400000};
	static const char *const want[] = {"0ms", "1ms", "250ms", "1s", "1500ms", "20s", "86400s"};
	char buf[32];
	long long back;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		cr_assert_str_eq(rl_format_duration_ms(v[i], buf, sizeof(buf)), want[i]);
		cr_assert_eq(rl_parse_duration_ms(buf, &back), 0);
		cr_assert_eq(back, v[i]);
	}
}
