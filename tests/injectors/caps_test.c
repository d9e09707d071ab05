// SPDX-License-Identifier: MIT
/* The NOS capability table: versions read, what each switch has, and what it is said to run. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/nos/caps.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct inv_switch sw_of(enum inv_dialect d, const char *version, const char *model,
			       const char *buffer_model)
{
	struct inv_switch s = {.dialect = d};

	snprintf(s.name, sizeof(s.name), "sw");
	snprintf(s.nos.version, sizeof(s.nos.version), "%s", version);
	snprintf(s.nos.model, sizeof(s.nos.model), "%s", model);
	snprintf(s.nos.buffer_model, sizeof(s.nos.buffer_model), "%s", buffer_model);
	return s;
}

Test(caps, versions_as_the_nos_prints_them)
{
	static const struct {
		const char *text;
		int major, minor;
	} ok[] = {
	    {"5.7.0", 5, 7}, {"Cumulus Linux 5.9.1", 5, 9}, {"4.30.1F", 4, 30},
	    {"5.10", 5, 10}, {"SONiC.202305.1 5.4", 5, 4}, /* a 6-digit branch is no version number
							    */
	};
	int ma, mi;

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		cr_assert_eq(nos_version_parse(ok[i].text, &ma, &mi), 0, "%s", ok[i].text);
		cr_expect_eq(ma, ok[i].major, "%s", ok[i].text);
		cr_expect_eq(mi, ok[i].minor, "%s", ok[i].text);
	}
	cr_assert_eq(nos_version_parse("", &ma, &mi), -EINVAL);
	cr_assert_eq(nos_version_parse("master", &ma, &mi), -EINVAL);
	cr_assert_eq(nos_version_parse("SONiC.202305", &ma, &mi), -EINVAL);
}

/* Each NVUE breakpoint: the release before it lacks it, the release of it and later have it. */
Test(caps, nvue_breakpoints)
{
	static const struct {
		enum nos_cap cap;
		const char *before, *at, *after;
	} b[] = {
	    {NOS_CAP_NVUE_QOS, "5.2.1", "5.3.0", "5.9.1"},
	    {NOS_CAP_NVUE_BUFFER, "5.3.1", "5.4.0", "5.10.0"},
	    {NOS_CAP_NVUE_COUNTERS_QOS, "5.4.9", "5.5.0", "5.9.0"},
	    {NOS_CAP_NVUE_ACL_L4, "5.6.0", "5.7.0", "5.11.1"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(b); i++) {
		struct inv_switch s0 = sw_of(INV_DIALECT_NVUE, b[i].before, "", ""),
				  s1 = sw_of(INV_DIALECT_NVUE, b[i].at, "", ""),
				  s2 = sw_of(INV_DIALECT_NVUE, b[i].after, "", ""),
				  unknown = sw_of(INV_DIALECT_NVUE, "", "", "");
		char why[512] = "";

		cr_expect_not(nos_has(&s0, b[i].cap), "%s", b[i].before);
		cr_expect(nos_has(&s1, b[i].cap), "%s", b[i].at);
		cr_expect(nos_has(&s2, b[i].cap), "%s", b[i].after);
		cr_expect(nos_has(&unknown, b[i].cap), "unknown: the newest");
		cr_assert_eq(nos_need(&s0, b[i].cap, "the fault", why, sizeof(why)), -EOPNOTSUPP);
		cr_expect(strstr(why, b[i].before) && strstr(why, "refused with nothing changed"),
			  "%s", why);
		cr_assert_eq(nos_need(&s1, b[i].cap, "the fault", why, sizeof(why)), 0);
	}
}

Test(caps, eos_by_model_and_sonic_by_buffer_model)
{
	struct inv_switch jericho = sw_of(INV_DIALECT_EOS, "4.30.1F", "DCS-7280SR3-48YC8", ""),
			  trident = sw_of(INV_DIALECT_EOS, "4.30.1F", "DCS-7050CX3-32S", ""),
			  unread = sw_of(INV_DIALECT_EOS, "", "", ""),
			  dyn = sw_of(INV_DIALECT_SONIC, "", "", "dynamic"),
			  trad = sw_of(INV_DIALECT_SONIC, "", "", "traditional"),
			  sonic = sw_of(INV_DIALECT_SONIC, "", "", "");
	char why[512];

	cr_expect_not(nos_has(&jericho, NOS_CAP_EOS_TRIDENT));
	cr_expect(nos_has(&trident, NOS_CAP_EOS_TRIDENT));
	cr_expect(nos_has(&unread, NOS_CAP_EOS_TRIDENT), "a model not known: Trident");
	cr_expect_not(nos_has(&dyn, NOS_CAP_SONIC_STATIC_PG));
	cr_expect(nos_has(&trad, NOS_CAP_SONIC_STATIC_PG));
	cr_expect(nos_has(&sonic, NOS_CAP_SONIC_STATIC_PG), "not set: traditional");
	/* another dialect's capability is had */
	cr_expect(nos_has(&dyn, NOS_CAP_NVUE_ACL_L4));
	cr_expect(nos_has(&jericho, NOS_CAP_SONIC_STATIC_PG));
	cr_assert_eq(nos_need(&jericho, NOS_CAP_EOS_TRIDENT, "the fault", why, sizeof(why)),
		     -EOPNOTSUPP);
	cr_expect(strstr(why, "DCS-7280SR3-48YC8 (as the inventory declares)"), "%s", why);
	jericho.nos.read = true;
	nos_need(&jericho, NOS_CAP_EOS_TRIDENT, "the fault", why, sizeof(why));
	cr_expect(strstr(why, "(read from the switch)"), "%s", why);
	cr_assert_eq(nos_need(&dyn, NOS_CAP_SONIC_STATIC_PG, "the fault", why, sizeof(why)),
		     -EOPNOTSUPP);
	cr_expect(strstr(why, "give --profile NAME"), "%s", why);
	/* UDF tables: had until read (the newest), then as read */
	cr_expect(nos_has(&sonic, NOS_CAP_SONIC_UDF));
	sonic.nos.read = true;
	cr_expect_not(nos_has(&sonic, NOS_CAP_SONIC_UDF));
	cr_assert_eq(nos_need(&sonic, NOS_CAP_SONIC_UDF, "ipid-drop", why, sizeof(why)),
		     -EOPNOTSUPP);
	cr_expect(strstr(why, "sw's image has no UDF tables") &&
		      strstr(why, "read from the switch)"),
		  "%s", why);
	sonic.nos.udf = true;
	cr_expect(nos_has(&sonic, NOS_CAP_SONIC_UDF));
}

Test(caps, what_a_switch_is_said_to_run)
{
	static const struct {
		enum inv_dialect d;
		const char *version, *model, *buffer;
		bool read;
		const char *want;
	} c[] = {
	    {INV_DIALECT_LINUX, "6.1", "", "", false, ""},
	    {INV_DIALECT_NVUE, "", "", "", false,
	     "NVUE (Cumulus Linux), version not known: rendered for the newest rocelab knows "
	     "(5.7 and later)"},
	    {INV_DIALECT_NVUE, "5.5.0", "", "", true,
	     "NVUE (Cumulus Linux) 5.5.0 (read from the switch)"},
	    {INV_DIALECT_EOS, "", "DCS-7050CX3-32S", "", false,
	     "EOS, model DCS-7050CX3-32S (as the inventory declares)"},
	    {INV_DIALECT_SONIC, "", "", "dynamic", false,
	     "SONiC, dynamic buffer model (as the inventory declares)"},
	    {INV_DIALECT_SONIC, "", "", "", false,
	     "SONiC, buffer model not known: rendered for the traditional one"},
	    {INV_DIALECT_SONIC, "SONiC.202305.1", "Mellanox-SN2700-D48C8", "traditional", true,
	     "SONiC SONiC.202305.1, model Mellanox-SN2700-D48C8, traditional buffer model (read "
	     "from the switch)"},
	    {INV_DIALECT_NVUE, "master", "", "", true,
	     "NVUE (Cumulus Linux) master, not a version number: rendered for the newest rocelab "
	     "knows (5.7 and later) (read from the switch)"},
	};
	char buf[200];

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct inv_switch s = sw_of(c[i].d, c[i].version, c[i].model, c[i].buffer);

		s.nos.read = c[i].read;
		nos_rendered_for(&s, buf, sizeof(buf));
		cr_expect_str_eq(buf, c[i].want);
	}
}

/* Every capability has its row, with a source, and the reference page names each version. */
Test(caps, every_capability_has_a_row_and_a_source)
{
	char *doc = rl_read_file("../docs/real-labs.md", NULL);
	bool seen[NOS_CAP_N] = {0};

	cr_assert_not_null(doc);
	for (const struct nos_cap_row *r = nos_cap_rows; r->what; r++) {
		char v[16];

		seen[r->cap] = true;
		cr_expect(r->name && r->name[0] && r->source && strlen(r->source) > 20, "%d",
			  r->cap);
		cr_expect((r->major >= 0) != (r->by != NULL), "%d: by version or by what", r->cap);
		snprintf(v, sizeof(v), "%d.%d", r->major, r->minor);
		cr_expect(r->major < 0 || strstr(doc, v), "docs/real-labs.md does not say %s", v);
	}
	for (int i = 0; i < NOS_CAP_N; i++)
		cr_expect(seen[i], "capability %d has no row", i);
	cr_expect(strstr(doc, "rocelab faults --nos"));
	free(doc);
}
