// SPDX-License-Identifier: MIT
/*
 * dscp-mismatch (injectors/kinds/dscp_mismatch.c): each end's DSCP map read
 * in its NOS's words (sonic-dscp, nvue-dscp, eos-dscp, dcb-app), and what
 * the kind makes of what it found before anything changes: the map copied
 * with the DSCP moved and the undo exactly as found, or a refusal that
 * says why.  Device text is data: what would reach a command line is
 * refused.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/host_cmd.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/readback.h"
#include "tests/injectors/readback_check.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAB "injectors/dialect-lab.yaml"

/* SONiC's AZURE DSCP map as its qos templates write it, DSCP 26 in TC 3 (abridged). */
#define AZURE_MAP                                                                                  \
	"{\"AZURE\": {\"0\": \"1\", \"3\": \"3\", \"4\": \"4\", \"8\": \"0\", \"26\": \"3\", "     \
	"\"46\": \"5\", \"48\": \"6\"}}"

static const char sonic_own[] =
    "{\"Ethernet4\": {\"dscp_to_tc_map\": \"AZURE\", \"pfc_enable\": \"3,4\", "
    "\"tc_to_queue_map\": \"AZURE\"},\n \"global\": {\"dscp_to_tc_map\": "
    "\"AZURE\"}}\n" SONIC_DSCP_MAP_MARK "\n" AZURE_MAP "\n";

Test(dscp_read, sonic_the_ports_map_its_own_or_the_switchs)
{
	struct readback rb = parse_ok("sonic-dscp Ethernet4 26", sonic_own);
	char glob[sizeof(sonic_own) + 64], left[sizeof(sonic_own) + 128];

	cr_assert_str_eq(rb.profile, "AZURE");
	cr_assert(rb.bound && !rb.shared);
	cr_assert_eq(rb.dscp_prio, 3);
	cr_assert_str_eq(rb.map, "0 1 3 3 4 4 8 0 26 3 46 5 48 6", "numeric order: %s", rb.map);
	cr_assert(strstr(rb.canon, "Ethernet4 dscp_to_tc_map AZURE (its own): DSCP 26 -> TC 3"),
		  "%s", rb.canon);

	/* a port without an entry of its own classifies by PORT_QOS_MAP|global's */
	rb = parse_ok("sonic-dscp Ethernet8 26", sonic_own);
	cr_assert(!rb.bound);
	cr_assert_str_eq(rb.profile, "AZURE");
	cr_assert(strstr(rb.canon, "the switch's, PORT_QOS_MAP|global"), "%s", rb.canon);

	/* older images write references in brackets */
	snprintf(glob, sizeof(glob),
		 "{\"Ethernet4\": {\"dscp_to_tc_map\": \"[DSCP_TO_TC_MAP|AZURE]\"}}\n%s\n%s\n",
		 SONIC_DSCP_MAP_MARK, AZURE_MAP);
	rb = parse_ok("sonic-dscp Ethernet4 26", glob);
	cr_assert_str_eq(rb.profile, "[DSCP_TO_TC_MAP|AZURE]");
	cr_assert_eq(rb.dscp_prio, 3);

	/* a port list's entry is shared: named, so that the kind refuses it */
	rb = parse_ok(
	    "sonic-dscp Ethernet4 26",
	    "{\"Ethernet0,Ethernet4\": {\"dscp_to_tc_map\": \"AZURE\"}}\n" SONIC_DSCP_MAP_MARK
	    "\n" AZURE_MAP);
	cr_assert(rb.shared);
	cr_assert_str_eq(rb.ent[0].key, "Ethernet0,Ethernet4");

	/* no map at all, a DSCP not in the map: no priority */
	rb = parse_ok("sonic-dscp Ethernet4 26", "\n" SONIC_DSCP_MAP_MARK "\n");
	cr_assert_eq(rb.dscp_prio, -1);
	cr_assert(strstr(rb.canon, "no dscp_to_tc_map"), "%s", rb.canon);
	rb = parse_ok("sonic-dscp Ethernet4 27", sonic_own);
	cr_assert_eq(rb.dscp_prio, -1);

	/* a map of the fault's own left behind reads differently: drift */
	snprintf(left, sizeof(left),
		 "%.*s{\"AZURE\": {\"26\": \"3\"}, \"ROCELAB_F7\": {\"26\": \"0\"}}\n",
		 (int)(strstr(sonic_own, SONIC_DSCP_MAP_MARK) - sonic_own +
		       strlen(SONIC_DSCP_MAP_MARK) + 1),
		 sonic_own);
	{
		struct readback a = parse_ok("sonic-dscp Ethernet4 26", left);
		char again[sizeof(left)];

		snprintf(again, sizeof(again), "%s", left);
		*strstr(again, ", \"ROCELAB_F7\": {\"26\": \"0\"}") = '\0';
		strcat(again, "}\n");
		cr_assert_str_neq(a.canon, parse_ok("sonic-dscp Ethernet4 26", again).canon);
	}
}

Test(dscp_read, sonic_text_that_would_reach_a_command_is_refused)
{
	parse_bad("sonic-dscp Ethernet4 26",
		  "{\"Ethernet4\": {\"dscp_to_tc_map\": \"AZ;reboot\"}}\n" SONIC_DSCP_MAP_MARK "\n",
		  "not a map name");
	parse_bad("sonic-dscp Ethernet4 26",
		  "{\"Ethernet4\": {\"dscp_to_tc_map\": \"AZURE\"}}\n" SONIC_DSCP_MAP_MARK
		  "\n{\"AZURE\": {\"26\": \"3 `reboot`\"}}",
		  "not a DSCP");
	parse_bad("sonic-dscp Ethernet4 26",
		  "{\"Ethernet4\": {\"dscp_to_tc_map\": \"AZURE\"}}\n" SONIC_DSCP_MAP_MARK
		  "\n{\"AZURE\": {\"$(reboot)\": \"3\"}}",
		  "not a DSCP");
	parse_bad("sonic-dscp Ethernet4 26", "{}", "no '# CONFIG_DB DSCP_TO_TC_MAP' line");
	parse_bad("sonic-dscp Ethernet4 26", "PORT_QOS_MAP\n" SONIC_DSCP_MAP_MARK "\n",
		  "printed no table");
}

Test(dscp_read, nvue_the_ports_profile_its_trust_and_the_default_table)
{
	struct readback rb = parse_ok("nvue-dscp swp2 26", "");

	cr_assert_str_eq(rb.profile, "default-global");
	cr_assert(!rb.bound && !rb.trust_dscp, "NVUE's default trust is 802.1p");
	cr_assert_eq(rb.dscp_prio, 3, "26 >> 3, the user guide's default table");
	rb = parse_ok("nvue-dscp swp2 26",
		      "nv set qos mapping roce trust both\n"
		      "nv set qos mapping roce dscp 24-27,40 switch-priority 4\n"
		      "nv set interface swp1-3 qos mapping profile roce\n");
	cr_assert_str_eq(rb.profile, "roce");
	cr_assert(rb.bound && rb.trust_dscp);
	cr_assert_eq(rb.dscp_prio, 4);
	cr_assert(strstr(rb.canon, "profile roce: trust both, DSCP 26 -> switch-priority 4"), "%s",
		  rb.canon);
	rb = parse_ok("nvue-dscp swp2 26", "nv set qos mapping default-global trust l3\n"
					   "nv set qos roce\n");
	cr_assert(rb.trust_dscp);
	cr_assert_str_eq(rb.roce, "lossless");
	parse_bad("nvue-dscp swp2 26", "nv set qos mapping default-global trust l3;reboot\n",
		  "no command may carry");
	/* a profile name a pipe would end: refused, on every NVUE read that names one */
	parse_bad("nvue-dscp swp2 26",
		  "nv set interface swp2 qos mapping profile a|reboot\n"
		  "nv set qos mapping a|reboot trust l3\n",
		  "no command may carry");
	parse_bad("nvue-pfc swp2", "nv set interface swp2 qos pfc profile x|reboot\n",
		  "no command may carry");
	/* the same guard stands before a PFC or ECN profile is copied */
	parse_bad("nvue-pfc swp2", "nv set qos pfc default-global switch-priority 3 $(reboot)\n",
		  "no command may carry");
}

Test(dscp_read, eos_the_switchs_qos_map_lines)
{
	struct readback rb = parse_ok("eos-dscp 26", "hostname sw\n"
						     "qos map dscp 24 25 26 27 to traffic-class 3\n"
						     "qos map dscp 48 to traffic-class 6\n");

	cr_assert_eq(rb.dscp_prio, 3);
	cr_assert(strstr(rb.canon, "DSCP 26 -> traffic-class 3; qos map dscp 24 25 26 27"), "%s",
		  rb.canon);
	rb = parse_ok("eos-dscp 26", "hostname sw\n");
	cr_assert_eq(rb.dscp_prio, -1);
	cr_assert(strstr(rb.canon, "EOS's default map"), "%s", rb.canon);
	/* a traffic class that is not a digit is not taken as one */
	rb = parse_ok("eos-dscp 26", "qos map dscp 26 to traffic-class $(x)\n");
	cr_assert_eq(rb.dscp_prio, -1);
}

Test(dscp_read, dcb_app_the_rnics_table)
{
	struct readback rb = parse_ok("dcb-app ens1np0 26", "{\"dscp_prio\":[[26,3],[48,6]]}");

	cr_assert_eq(rb.dscp_prio, 3);
	cr_assert_str_eq(rb.canon, "ens1np0 dscp-prio 26:3 48:6");
	cr_assert_eq(parse_ok("dcb-app ens1np0 26", "{}").dscp_prio, -1);
	cr_assert_eq(parse_ok("dcb-app ens1np0 26", "").dscp_prio, -1);
	cr_assert_eq(parse_ok("dcb-app ens1np0 26", "{\"dscp_prio\":[[26,3],[26,5]]}").dscp_prio,
		     -2);
	parse_bad("dcb-app ens1np0 26", "{\"dscp_prio\":[[26,\"3;x\"]]}", "not [DSCP 0-63");
	parse_bad("dcb-app ens1np0 26", "{\"dscp_prio\":[[99,3]]}", "not [DSCP 0-63");
	parse_bad("dcb-app ens1np0 26", "dscp-prio 26:3", "printed no dscp_prio");
}

/* ---- what the kind makes of what it found ----------------------------------------- */

struct run {
	struct inventory *inv;
	struct fault_spec s;
	struct fault_plan p;
	struct fault_run f;
};

/* The plan of args on the dialect lab, as fault 7, its first read's state found as found. */
static struct fault_action *planned(struct run *r, const char *args, const char *found)
{
	char buf[200], why[256], *save = NULL;
	struct fault_action *a = NULL;

	cr_assert_not_null(r->inv = inventory_load(LAB, stderr));
	snprintf(buf, sizeof(buf), "%s", args);
	fault_spec_init(&r->s, fault_kind_find(strtok_r(buf, " ", &save)));
	for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		const struct opt_desc *d = fault_opt_find(r->s.kind, t + 2);
		const char *v = d && d->type == OPT_BOOL ? NULL : strtok_r(NULL, " ", &save);

		cr_assert_eq(fault_spec_set(&r->s, t + 2, v, why, sizeof(why)), 0, "%s", why);
	}
	cr_assert_eq(fault_spec_resolve(r->inv, &r->s, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(r->inv, NULL, &r->s, 7, &r->p, why, sizeof(why)), 0, "%s",
		     why);
	for (size_t i = 0; i < r->p.n_acts && !a; i++)
		if (r->p.acts[i].read)
			a = &r->p.acts[i];
	cr_assert_not_null(a);
	fault_action_set(&a->found, found);
	r->f = (struct fault_run){.spec = &r->s, .inv = r->inv, .plan = &r->p};
	return a;
}

static void done(struct run *r)
{
	fault_plan_clear(&r->p);
	inventory_free(r->inv);
}

Test(dscp_found, sonic_copies_the_ports_map_and_binds_back_what_it_had)
{
	struct run r;
	struct fault_action *a =
	    planned(&r, "dscp-mismatch --target sw-sonic:Ethernet4", sonic_own);

	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert_str_eq(a->apply,
			 "sudo sonic-db-cli CONFIG_DB HSET 'DSCP_TO_TC_MAP|ROCELAB_F7' 0 1 3 3 4 4 "
			 "8 0 26 0 46 5 48 6 >/dev/null && sudo sonic-db-cli CONFIG_DB HSET "
			 "'PORT_QOS_MAP|Ethernet4' dscp_to_tc_map ROCELAB_F7 >/dev/null");
	cr_assert_str_eq(a->revert,
			 "sudo sonic-db-cli CONFIG_DB HSET 'PORT_QOS_MAP|Ethernet4' dscp_to_tc_map "
			 "AZURE >/dev/null; sleep 1; sudo sonic-db-cli CONFIG_DB DEL "
			 "'DSCP_TO_TC_MAP|ROCELAB_F7' >/dev/null");
	done(&r);

	/* the switch's global map: the port's own binding is deleted again */
	a = planned(&r, "dscp-mismatch --target sw-sonic:Ethernet8 --to 1", sonic_own);
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert(strstr(a->apply, " 26 1 "), "%s", a->apply);
	cr_assert(strstr(a->revert, "HDEL 'PORT_QOS_MAP|Ethernet8' dscp_to_tc_map >/dev/null; "),
		  "%s", a->revert);
	done(&r);
}

/* An older image's references, "[TABLE|NAME]", are written its way, and quoted for the shell. */
Test(dscp_found, sonic_bracketed_references_are_written_as_read_and_quoted)
{
	struct run r;
	struct fault_action *a =
	    planned(&r, "dscp-mismatch --target sw-sonic:Ethernet4",
		    "{\"Ethernet4\": {\"dscp_to_tc_map\": "
		    "\"[DSCP_TO_TC_MAP|AZURE]\"}}\n" SONIC_DSCP_MAP_MARK "\n" AZURE_MAP);

	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert(strstr(a->apply, "dscp_to_tc_map '[DSCP_TO_TC_MAP|ROCELAB_F7]' >/dev/null"), "%s",
		  a->apply);
	cr_assert(strstr(a->revert, "dscp_to_tc_map '[DSCP_TO_TC_MAP|AZURE]' >/dev/null; sleep 1"),
		  "%s", a->revert);
	done(&r);
}

Test(dscp_found, sonic_refusals_change_nothing_and_say_why)
{
	struct run r;

	planned(&r, "dscp-mismatch --target sw-sonic:Ethernet4 --to 3", sonic_own);
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EALREADY);
	cr_assert(strstr(r.f.err, "DSCP 26 already maps to 3 on sw-sonic:Ethernet4"), "%s",
		  r.f.err);
	done(&r);
	planned(&r, "dscp-mismatch --target sw-sonic:Ethernet4",
		"{\"Ethernet0,Ethernet4\": {\"dscp_to_tc_map\": \"AZURE\"}}\n" SONIC_DSCP_MAP_MARK
		"\n" AZURE_MAP);
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EOPNOTSUPP);
	cr_assert(strstr(r.f.err, "shared entry PORT_QOS_MAP|Ethernet0,Ethernet4"), "%s", r.f.err);
	done(&r);
	planned(&r, "dscp-mismatch --target sw-sonic:Ethernet4 --dscp 27", sonic_own);
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EOPNOTSUPP);
	cr_assert(strstr(r.f.err, "maps DSCP 27 to no priority"), "%s", r.f.err);
	done(&r);
}

Test(dscp_found, a_whole_switch_leaves_out_the_ports_it_cannot_move)
{
	struct run r;

	planned(&r, "dscp-mismatch --target sw-sonic --all-ports",
		"{\"Ethernet0,Ethernet4\": {\"dscp_to_tc_map\": \"AZURE\"}}\n" SONIC_DSCP_MAP_MARK
		"\n" AZURE_MAP);
	cr_assert_eq(r.p.n_acts, 3);
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert_eq(r.p.n_acts, 2, "the shared port is left out, the others not read yet stay");
	cr_assert(strstr(r.p.note, "1 port(s) left out"), "%s", r.p.note);
	done(&r);
}

Test(dscp_found, nvue_copies_the_ports_profile_or_refuses_one_that_trusts_pcp)
{
	struct run r;
	struct fault_action *a = planned(&r, "dscp-mismatch --target sw-nvue:swp2",
					 "nv set qos mapping roce trust both\n"
					 "nv set qos mapping roce dscp 24-31 switch-priority 3\n"
					 "nv set interface swp1-3 qos mapping profile roce\n");

	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert_str_eq(
	    a->apply, "nv set qos mapping rocelab_f7 trust both && nv set qos mapping rocelab_f7 "
		      "dscp 24-31 switch-priority 3 && nv set qos mapping rocelab_f7 dscp 26 "
		      "switch-priority 0 && nv set interface swp2 qos mapping profile rocelab_f7 "
		      "&& nv config apply -y");
	cr_assert_str_eq(a->revert, "nv set interface swp2 qos mapping profile roce; nv unset qos "
				    "mapping rocelab_f7; nv config apply -y");
	done(&r);

	planned(&r, "dscp-mismatch --target sw-nvue:swp2",
		"nv set qos mapping default-global pcp 0 "
		"switch-priority 4\n");
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EOPNOTSUPP);
	cr_assert(strstr(r.f.err, "classifies by 802.1p, not DSCP"), "%s", r.f.err);
	done(&r);

	planned(&r, "dscp-mismatch --target sw-nvue:swp2",
		"nv set qos mapping default-global trust l3\nnv set qos roce mode lossless\n");
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EOPNOTSUPP);
	cr_assert(strstr(r.f.err, "RoCE mode"), "%s", r.f.err);
	done(&r);
}

Test(dscp_found, eos_puts_back_the_line_found_or_the_default_map)
{
	struct run r;
	struct fault_action *a = planned(&r, "dscp-mismatch --target sw-eos --all-ports",
					 "qos map dscp 24 25 26 27 to traffic-class 3\n");

	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert_str_eq(a->apply, "configure\nqos map dscp 26 to traffic-class 0\nend");
	cr_assert_str_eq(a->revert, "configure\nqos map dscp 26 to traffic-class 3\nend");
	done(&r);
	a = planned(&r, "dscp-mismatch --target sw-eos --all-ports", "hostname sw-eos\n");
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert_str_eq(a->revert, "configure\nno qos map dscp 26 to traffic-class 0\nend");
	done(&r);
	planned(&r, "dscp-mismatch --target sw-eos --all-ports --to 3",
		"qos map dscp 26 to traffic-class 3\n");
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EALREADY);
	cr_assert(strstr(r.f.err, "DSCP 26 already maps to 3 on sw-eos ("), "the switch's: %s",
		  r.f.err);
	done(&r);
}

Test(dscp_found, an_rnic_gets_back_the_priority_found)
{
	struct run r;
	struct fault_action *a = planned(&r, "dscp-mismatch --target h1:rnic1 --to 5",
					 "{\"dscp_prio\":[[26,3],[48,6]]}");
	char buf[256], err[160];
	const char *argv[HOST_CMD_MAX_WORDS];

	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), 0, "%s", r.f.err);
	cr_assert_str_eq(a->apply, "dcb-app rnic1 26 5");
	cr_assert_str_eq(a->revert, "dcb-app rnic1 26 3");
	/* the op is dcb's argv, no shell's line */
	cr_assert_eq(host_op_command(a->revert, buf, sizeof(buf), argv, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(argv[0], "dcb");
	cr_assert_str_eq(argv[5], "dscp-prio");
	cr_assert_str_eq(argv[6], "26:3");
	cr_assert_null(argv[7]);
	done(&r);

	planned(&r, "dscp-mismatch --target h1:rnic1", "{\"dscp_prio\":[[48,6]]}");
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EOPNOTSUPP);
	cr_assert(strstr(r.f.err, "maps DSCP 26 to no priority"), "%s", r.f.err);
	done(&r);
	planned(&r, "dscp-mismatch --target h1:rnic1", "{\"dscp_prio\":[[26,3],[26,4]]}");
	cr_assert_eq(fk_dscp_mismatch.discover(&r.f, &r.p), -EOPNOTSUPP);
	cr_assert(strstr(r.f.err, "more than one priority"), "%s", r.f.err);
	done(&r);
}
