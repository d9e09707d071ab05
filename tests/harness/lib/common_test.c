// SPDX-License-Identifier: MIT
/* Unit tests of the shared parsers: names safe for command lines, durations, rates. */
#define _GNU_SOURCE
#include "harness/lib/common.h"

#include <criterion/criterion.h>
#include <string.h>

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
	/* results land in OUTDIR/NAME: a name of dots alone names a folder above (issue 56) */
	cr_assert_not(rl_name_ok(".", 31));
	cr_assert_not(rl_name_ok("..", 31));
	cr_assert_not(rl_name_ok("...", 31));
	cr_assert(rl_name_ok("a..b", 31));
	cr_assert(rl_name_ok(".hidden", 31));
}

Test(common, test_names_are_a_name_and_a_run_number)
{
	cr_assert(rl_test_name_ok("rnic-flap", 63));
	cr_assert(rl_test_name_ok("rnic-flap#2", 63));
	cr_assert_not(rl_test_name_ok("rnic-flap#", 63));
	cr_assert_not(rl_test_name_ok("rnic-flap#x", 63));
	cr_assert_not(rl_test_name_ok("..#2", 63));
	cr_assert_not(rl_test_name_ok("a/b#2", 63));
	cr_assert_not(rl_test_name_ok("a\nb", 63));
	cr_assert_not(rl_test_name_ok(NULL, 63));
}

/*
 * Text that reaches a gnuplot script: gnuplot runs `...` inside "...", expands
 * @macros, and a quote or a newline ends a string or a comment.  None passes.
 */
Test(common, gnuplot_text_keeps_nothing_gnuplot_would_run)
{
	static const char *const hostile[] = {
	    "x `touch /tmp/pwned` y",
	    "a\" ; system(\"id\") ; \"",
	    "b' ; system('id') ; '",
	    "c\n!id\n",
	    "d\\\" `id`",
	    "@macro $HOME",
	    "e\r\x1b[31m",
	    "f{\\}^_",
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		rl_gp_text(hostile[i], buf, sizeof(buf));
		cr_assert_eq(strcspn(buf, "`'\"\\\n\r@$\x1b{}^"), strlen(buf), "%s -> %s",
			     hostile[i], buf);
		cr_assert_eq(strlen(buf), strlen(hostile[i]), "one byte for one: %s", buf);
	}
	cr_assert_str_eq(rl_gp_text("rnic-flap: fail - host1:rnic2 (3.0 s) 90% <1>", buf, 64),
			 "rnic-flap: fail - host1:rnic2 (3.0 s) 90% <1>");
	cr_assert_str_eq(rl_gp_text("lab → ok", buf, sizeof(buf)), "lab → ok", "UTF-8 passes");
	cr_assert_str_eq(rl_gp_text("abcdef", buf, 4), "abc");
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

/* An out-of-range duration's error asks for its range, with examples in it that parse back. */
Test(common, duration_range_and_its_examples)
{
	static const long long range[][2] = {{0, 3600000},   {1, 10000},    {1000, 3600000},
					     {100, 3600000}, {1500, 1800},  {1, 60000},
					     {0, 100},	     {20000, 20000}};
	char b[128];

	cr_assert_str_eq(rl_duration_range(0, 3600000, b, sizeof(b)),
			 "give a duration from 0 ms to 3600 s (e.g. 500ms, 20s)");
	cr_assert_str_eq(rl_duration_range(1, 10000, b, sizeof(b)),
			 "give a duration from 1 ms to 10 s (e.g. 500ms, 2s)");
	cr_assert_str_eq(rl_duration_range(1000, 3600000, b, sizeof(b)),
			 "give a duration from 1000 ms to 3600 s (e.g. 20s, 2s)");
	cr_assert_str_eq(rl_duration_range(1500, 1800, b, sizeof(b)),
			 "give a duration from 1500 ms to 1.8 s (e.g. 1500ms, 1800ms)");
	/* an agent's --duration: up to a year, its seconds in full */
	cr_assert_str_eq(rl_duration_range(1, 86400000LL * 365, b, sizeof(b)),
			 "give a duration from 1 ms to 31536000 s (e.g. 500ms, 20s)");
	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		char *eg =
		    strstr(rl_duration_range(range[i][0], range[i][1], b, sizeof(b)), "(e.g. ");
		char *comma = eg ? strstr(eg, ", ") : NULL;
		char *close = comma ? strchr(comma, ')') : NULL;
		long long x, y;

		cr_assert(close, "%s", b);
		*comma = *close = '\0';
		cr_assert_eq(rl_parse_duration_ms(eg + 6, &x), 0, "%s", eg + 6);
		cr_assert_eq(rl_parse_duration_ms(comma + 2, &y), 0, "%s", comma + 2);
		cr_assert(x >= range[i][0] && x <= range[i][1] && y >= range[i][0] &&
			      y <= range[i][1],
			  "[%lld, %lld]: %lld, %lld", range[i][0], range[i][1], x, y);
	}
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
	/* issue 58: "interval: 20" silently meant 20 s; a number but 0 needs its unit */
	cr_assert_eq(rl_parse_duration_ms("2", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("20", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_us("20", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("0", &ms), 0);
	cr_assert_eq(ms, 0);
	cr_assert_eq(rl_parse_duration_ms("-1s", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("10x", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("s", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("1e300h", &ms), -ERANGE);
	/* strtod() took hexadecimal, "inf" and "nan" (issue 56): numbers are decimal */
	cr_assert_eq(rl_parse_duration_ms("0x10s", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("0x10", &ms), -EINVAL);
	cr_assert_eq(rl_parse_duration_ms("infs", &ms), -EINVAL);
}

Test(common, numbers_are_decimal_as_people_write_them)
{
	char *end;
	const char *hex = "0x10";

	cr_assert_float_eq(rl_strtod("2.5e3", &end), 2500, 1e-9);
	cr_assert_eq(*end, '\0');
	cr_assert_float_eq(rl_strtod(" -0.25", &end), -0.25, 1e-9);
	cr_assert_eq(*end, '\0');
	cr_assert_float_eq(rl_strtod(".5s", &end), 0.5, 1e-9);
	cr_assert_str_eq(end, "s");
	rl_strtod(hex, &end);
	cr_assert_str_eq(end, "x10", "0x10 is 0 and then no number");
	rl_strtod("inf", &end);
	cr_assert_str_eq(end, "inf");
	rl_strtod("nan", &end);
	cr_assert_str_eq(end, "nan");
	rl_strtod("1e", &end);
	cr_assert_str_eq(end, "e", "an exponent without digits is not one");
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
