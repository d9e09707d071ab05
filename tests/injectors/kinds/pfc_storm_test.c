// SPDX-License-Identifier: MIT
/*
 * pfc-storm's PFC watchdog on NVUE (injectors/kinds/pfc_storm.c,
 * injectors/nos/nvue.c): its configuration read as 'nv config show' writes
 * it, its undo exactly as found, and its state read by the command that runs
 * on the switch, fed the output the Cumulus Linux user guide shows.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/nos_ops.h"
#include "tests/injectors/readback_check.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAB "injectors/dialect-lab.yaml"

Test(nvue_pfcwd, its_configuration_as_nv_config_show_writes_it)
{
	struct readback rb = parse_ok("nvue-pfcwd swp1", "");

	cr_assert_str_eq(rb.value, "- 100 3", "not set: disabled, NVUE's 100 ms x 3");
	cr_assert_str_eq(rb.admin, "");
	rb = parse_ok("nvue-pfcwd swp1", "nv set interface swp1-4,swp9 qos pfc-watchdog\n"
					 "nv set qos pfc-watchdog polling-interval 200\n"
					 "nv set qos pfc-watchdog robustness 5\n");
	cr_assert_str_eq(rb.value, "enable 200 5", "a bare 'qos pfc-watchdog' enables it");
	cr_assert_str_eq(rb.canon,
			 "swp1 pfc-watchdog enable; polling-interval 200 ms, robustness 5");
	rb = parse_ok("nvue-pfcwd swp1", "nv set interface swp1 qos pfc-watchdog state disable\n");
	cr_assert_str_eq(rb.admin, "disable");
	cr_assert_str_eq(
	    parse_ok("nvue-pfcwd swp7", "nv set interface swp1 qos pfc-watchdog\n").value,
	    "- 100 3", "another port's is not this one's");
	parse_bad("nvue-pfcwd swp1", "nv set interface swp1 qos pfc-watchdog state $(reboot)\n",
		  "not 'state enable' or 'state disable'");
	parse_bad("nvue-pfcwd swp1", "nv set qos pfc-watchdog robustness 3;id\n", "not a number");
}

/*
 * The storm --pfcwd on toward target's switch port, its watchdog's action (read as
 * "PARSER PORT") found as found.
 */
static struct fault_action *planned_at(struct inventory **inv, struct fault_spec *s,
				       struct fault_plan *p, struct fault_run *f,
				       const char *target, const char *parser, const char *found)
{
	char why[256];
	struct fault_action *a = NULL;

	cr_assert_not_null(*inv = inventory_load(LAB, stderr));
	fault_spec_init(s, fault_kind_find("pfc-storm"));
	cr_assert_eq(fault_spec_set(s, "target", target, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_set(s, "pfcwd", "on", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_resolve(*inv, s, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_plan_build(*inv, NULL, s, 7, p, why, sizeof(why)), 0, "%s", why);
	for (size_t i = 0; i < p->n_acts && !a; i++)
		if (p->acts[i].read_as && !strncmp(p->acts[i].read_as, parser, strlen(parser)) &&
		    p->acts[i].read_as[strlen(parser)] == ' ')
			a = &p->acts[i];
	cr_assert_not_null(a);
	fault_action_set(&a->found, found);
	*f = (struct fault_run){.spec = s, .inv = *inv, .plan = p};
	return a;
}

/* toward sw-nvue's port */
static struct fault_action *planned(struct inventory **inv, struct fault_spec *s,
				    struct fault_plan *p, struct fault_run *f, const char *found)
{
	return planned_at(inv, s, p, f, "h1:rnic4", "nvue-pfcwd", found);
}

Test(nvue_pfcwd, the_undo_is_the_state_found_or_none)
{
	struct inventory *inv;
	struct fault_spec s;
	struct fault_plan p;
	struct fault_run f;
	struct fault_action *a =
	    planned(&inv, &s, &p, &f, "nv set interface swp1 qos pfc-watchdog state disable\n");

	cr_assert_str_eq(
	    a->apply, "nv set interface swp1 qos pfc-watchdog state enable && nv config apply -y");
	cr_assert_eq(fk_pfc_storm.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert, "nv set interface swp1 qos pfc-watchdog state disable && nv "
				    "config apply -y");
	fault_plan_clear(&p);
	inventory_free(inv);
	a = planned(&inv, &s, &p, &f, "");
	cr_assert_eq(fk_pfc_storm.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert,
			 "nv unset interface swp1 qos pfc-watchdog && nv config apply -y");
	fault_plan_clear(&p);
	inventory_free(inv);
}

/* The user guide's 'nv show interface swp1 qos pfc-watchdog' (Quality of Service, PFC Watchdog). */
static const char guide_show[] = "                 operational  applied \n"
				 "---------------  -----------  ------- \n"
				 "state            enabled      enabled \n"
				 "\n"
				 "PFC WD Status \n"
				 "=========================== \n"
				 "    traffic-class  status    deadlock-count \n"
				 "    -------------  --------  -------------- \n"
				 "\n"
				 "    0              OK        0 \n"
				 "    1              OK        3 \n"
				 "    2              DEADLOCK  2  \n"
				 "    3              OK        0 \n"
				 "    7              DEADLOCK  3 \n";

/* What the state command prints on a switch that printed show: its awk, run here. */
static char *state_of(int prio, const char *show)
{
	struct sbuf state = {0}, restore = {0}, cmd = {0};
	char path[] = "/tmp/rocelab-nvue-show.XXXXXX", *out = NULL, *bar;
	size_t len = 0, n;
	int fd = mkstemp(path);
	FILE *p;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, show, strlen(show)), (ssize_t)strlen(show));
	close(fd);
	nos_ops_of(INV_DIALECT_NVUE)->pfcwd("swp1", prio, &state, &restore);
	cr_assert_null(restore.p, "NVUE has no restoration time to read");
	cr_assert(!strncmp(state.p, "nv show interface swp1 qos pfc-watchdog | ", 42), "%s",
		  state.p);
	bar = strchr(state.p, '|');
	sb_printf(&cmd, "cat %s %s", path, bar);
	cr_assert_not_null(p = popen(cmd.p, "r"));
	out = calloc(1, 64);
	n = fread(out, 1, 63, p);
	len = n;
	pclose(p);
	unlink(path);
	out[len] = '\0';
	sb_free(&state);
	sb_free(&cmd);
	return out;
}

Test(nvue_pfcwd, its_state_read_on_the_switch_one_word_or_none)
{
	char *w;

	cr_assert_str_eq(w = state_of(3, guide_show), "operational\n");
	free(w);
	cr_assert_str_eq(w = state_of(2, guide_show), "stormed\n");
	free(w);
	cr_assert_str_eq(w = state_of(5, guide_show), "", "a class it does not list: no state");
	free(w);
	{
		char off[sizeof(guide_show)];

		snprintf(off, sizeof(off), "%s", guide_show);
		memcpy(strstr(off, "enabled      enabled"), "disabled    disabled", 20);
		cr_assert_str_eq(w = state_of(2, off), "", "disabled: it watches no queue");
		free(w);
	}
}

/*
 * EOS: the port's watchdog lines as 'show running-config interfaces P' writes
 * them, in the forms aristanetworks/avd renders (qos-profiles.j2); any other
 * form, or a value outside EOS's, refused.
 */
Test(eos_pfcwd, its_lines_as_the_running_config_writes_them)
{
	struct readback rb = parse_ok("eos-pfcwd Ethernet1", "interface Ethernet1\n   mtu 9214\n");

	cr_assert_str_eq(rb.value, "- - - - - -", "none set");
	cr_assert_str_eq(rb.admin, "");
	rb = parse_ok("eos-pfcwd Ethernet1",
		      "interface Ethernet1\n"
		      "   priority-flow-control on\n"
		      "   priority-flow-control pause watchdog\n"
		      "   priority-flow-control pause watchdog port action notify-only\n"
		      "   priority-flow-control pause watchdog port timer timeout 0.05 "
		      "polling-interval auto recovery-time 1.11 forced\n"
		      "interface Ethernet2\n"
		      "   no priority-flow-control pause watchdog\n");
	cr_assert_str_eq(rb.value, "on notify 0.05 auto 1.11 f");
	cr_assert_str_eq(rb.canon,
			 "Ethernet1 pause watchdog on, port action notify-only, port timer timeout "
			 "0.05 polling-interval auto recovery-time 1.11 forced");
	rb = parse_ok("eos-pfcwd Ethernet2", "interface Ethernet1\n"
					     "   priority-flow-control pause watchdog\n"
					     "interface Ethernet2\n"
					     "   no priority-flow-control pause watchdog\n");
	cr_assert_str_eq(rb.value, "off - - - - -", "another port's is not this one's");
	rb = parse_ok("eos-pfcwd Ethernet1",
		      "interface Ethernet1\n"
		      "   priority-flow-control pause watchdog port timer "
		      "timeout 60 polling-interval 10.005 recovery-time 60.00 "
		      "forced\n");
	cr_assert_str_eq(rb.value, "- - 60 10.005 60.00 f", "the widest the forms allow");
	parse_bad(
	    "eos-pfcwd Ethernet1",
	    "interface Ethernet1\n   priority-flow-control pause watchdog port action $(id)\n",
	    "none of EOS's forms");
	parse_bad("eos-pfcwd Ethernet1",
		  "interface Ethernet1\n   priority-flow-control pause watchdog port timer timeout "
		  "0.2;reboot polling-interval auto recovery-time 0.4\n",
		  "none of EOS's forms");
	parse_bad("eos-pfcwd Ethernet1",
		  "interface Ethernet1\n   priority-flow-control pause watchdog port timer timeout "
		  "0.125 polling-interval auto recovery-time 0.4\n",
		  "none of EOS's forms");
	parse_bad("eos-pfcwd Ethernet1", "interface Ethernet3\n", "has no 'interface Ethernet1'");
}

/* toward sw-eos's port */
static struct fault_action *planned_eos(struct inventory **inv, struct fault_spec *s,
					struct fault_plan *p, struct fault_run *f,
					const char *found)
{
	return planned_at(inv, s, p, f, "h1:rnic3", "eos-pfcwd", found);
}

Test(eos_pfcwd, the_undo_is_the_lines_found_or_none)
{
	struct inventory *inv;
	struct fault_spec s;
	struct fault_plan p;
	struct fault_run f;
	struct fault_action *a =
	    planned_eos(&inv, &s, &p, &f,
			"interface Ethernet1\n"
			"   priority-flow-control pause watchdog\n"
			"   priority-flow-control pause watchdog port timer timeout 0.05 "
			"polling-interval auto recovery-time 1.11 forced\n");

	cr_assert_str_eq(a->apply, "configure\ninterface Ethernet1\n"
				   "priority-flow-control pause watchdog\n"
				   "priority-flow-control pause watchdog port action drop\n"
				   "priority-flow-control pause watchdog port timer timeout 0.20 "
				   "polling-interval auto recovery-time 0.40\nend");
	cr_assert_eq(fk_pfc_storm.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert, "configure\ninterface Ethernet1\n"
				    "no priority-flow-control pause watchdog port timer\n"
				    "no priority-flow-control pause watchdog port action\n"
				    "priority-flow-control pause watchdog\n"
				    "priority-flow-control pause watchdog port timer timeout 0.05 "
				    "polling-interval auto recovery-time 1.11 forced\nend");
	fault_plan_clear(&p);
	inventory_free(inv);
	a = planned_eos(&inv, &s, &p, &f, "interface Ethernet1\n   mtu 9214\n");
	cr_assert_eq(fk_pfc_storm.discover(&f, &p), 0, "%s", f.err);
	cr_assert_str_eq(a->revert,
			 "configure\ninterface Ethernet1\n"
			 "no priority-flow-control pause watchdog port timer\n"
			 "no priority-flow-control pause watchdog port action\n"
			 "no priority-flow-control pause watchdog\nend",
			 "none set: each line the storm set taken off");
	fault_plan_clear(&p);
	inventory_free(inv);
	/* a port whose QoS comes from a qos profile: its watchdog may be the profile's */
	a = planned_eos(&inv, &s, &p, &f,
			"interface Ethernet1\n   service-profile AI-QOS\n   mtu 9214\n");
	cr_assert_eq(fk_pfc_storm.discover(&f, &p), -EOPNOTSUPP);
	cr_assert(strstr(f.err, "names the qos profile 'AI-QOS'"), "%s", f.err);
	fault_plan_clear(&p);
	inventory_free(inv);
}
