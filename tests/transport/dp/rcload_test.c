// SPDX-License-Identifier: MIT
/*
 * The RC load's exchange (transport/dp/rcload.h): what one end writes the other reads back, and a
 * network peer's line is taken only when every field is what it must be.  The verbs themselves
 * run in the VM tier (tests/vm/inside.sh: rxe).
 */
#include "transport/dp/rcload.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

Test(rcload, lines_round_trip)
{
	struct rcl_msg m = {.qpn = 0xabcdef, .psn = 17, .mtu = 1024}, r = {0};
	struct rcl_msg rep = {.qpn = 3,
			      .psn = 0xffffff,
			      .mtu = 4096,
			      .rkey = UINT32_MAX,
			      .addr = UINT64_MAX,
			      .len = RCL_SIZE_MAX};
	char line[200], err[200];

	rcl_format(&m, false, line, sizeof(line));
	cr_assert_str_eq(line, "rocelab-rc 1 qpn=11259375 psn=17 mtu=1024\n");
	cr_assert_eq(rcl_parse(line, false, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert(!memcmp(&m, &r, sizeof(m)));
	rcl_format(&rep, true, line, sizeof(line));
	cr_assert_eq(rcl_parse(line, true, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert(!memcmp(&rep, &r, sizeof(rep)));
	line[strlen(line) - 1] = '\0'; /* without its newline too */
	cr_assert_eq(rcl_parse(line, true, &r, err, sizeof(err)), 0, "%s", err);
}

Test(rcload, a_peers_line_is_taken_only_whole_and_in_range)
{
	static const struct {
		const char *line;
		bool reply;
		const char *why;
	} bad[] = {
	    {"", false, "not a rocelab RC exchange line"},
	    {"rocelab-rc 2 qpn=1 psn=1 mtu=1024\n", false, "not a rocelab RC exchange line"},
	    {"rocelab-rc 1 qpn=16777216 psn=1 mtu=1024", false, "field 1: want ' qpn=N'"},
	    {"rocelab-rc 1 qpn=-1 psn=1 mtu=1024", false, "field 1"},
	    {"rocelab-rc 1 qpn= psn=1 mtu=1024", false, "field 1"},
	    {"rocelab-rc 1 qpn=1 psn=0x10 mtu=1024", false, "field 2"},
	    {"rocelab-rc 1 qpn=1  psn=1 mtu=1024", false, "field 2"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1000", false, "mtu=1000 is not an RDMA path MTU"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=99999999999999999999999", false, "field 3"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1024 extra", false, "more after the 3 fields"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1024\n\n", false, "more after the 3 fields"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1024\n", true, "field 4: want ' rkey=N'"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1024 rkey=1 addr=18446744073709551616 len=1", true,
	     "field 5"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1024 rkey=1 addr=1 len=65537", true, "field 6"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1024 rkey=1 addr=1 len=0", true, "len=0"},
	    {"rocelab-rc 1 qpn=1 psn=1 mtu=1024 rkey=1 addr=1 len=1; rm -rf /", true, "field 6"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rcl_msg m;
		char err[200] = "";

		cr_assert_eq(rcl_parse(bad[i].line, bad[i].reply, &m, err, sizeof(err)), -EINVAL,
			     "accepted: %s", bad[i].line);
		cr_assert(strstr(err, bad[i].why), "%s: %s", bad[i].line, err);
	}
}
