// SPDX-License-Identifier: MIT
/*
 * The monitors by name (probe/monitors/monitors.def): every line gives an
 * agent and an analyzer of that name, complete, and nothing else answers.
 */
#include "probe/monitors/monitors.h"

#include "harness/lib/common.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <string.h>

Test(monitors, every_monitor_has_an_agent_and_an_analyzer_of_its_name)
{
	cr_assert_geq(mon_count, 2);
	for (size_t i = 0; i < mon_count; i++) {
		const char *n = mon_list[i].name;
		const struct mon_agent *g = mon_agent_find(n);
		const struct mon_analyzer *a = mon_analyzer_find(n);

		cr_assert_not_null(g, "%s has no agent", n);
		cr_assert_not_null(a, "%s has no analyzer", n);
		cr_assert_str_eq(g->name, n);
		cr_assert_str_eq(a->name, n);
		cr_assert_eq(g->port, a->port, "%s: its agent streams to its analyzer's port", n);
		cr_assert(g->about && g->opts && g->defaults && g->loop && g->cfg_size,
			  "%s: its agent's table is whole", n);
		cr_assert(a->title && a->about && a->opts && a->defaults && a->window_ms &&
			      a->new_az && a->free_az && a->take && a->tick && a->flush &&
			      a->left_out && a->cfg_size,
			  "%s: its analyzer's table is whole", n);
		for (size_t k = 0; k < i; k++) {
			cr_assert_str_neq(mon_list[k].name, n, "%s twice", n);
			cr_assert_neq(mon_analyzer_find(mon_list[k].name)->port, a->port,
				      "%s and %s listen on one port", mon_list[k].name, n);
		}
	}
	cr_assert_null(mon_agent_find("pingmesh"));
	cr_assert_null(mon_analyzer_find(""));
}

Test(monitors, names_are_listed_in_order)
{
	char buf[128];

	mon_names("|", buf, sizeof(buf));
	cr_assert_eq(strncmp(buf, "hostmesh|rpingmesh", 18), 0, "%s", buf);
	cr_assert_str_eq(mon_names(", ", buf, 9), "hostmesh", "cut, not overrun");
}

/* Both commands of every monitor: an option without its value is said to need one, exit 2. */
Test(monitors, an_option_without_its_value_is_said_so, .init = cr_redirect_stderr)
{
	char err[4096] = "";
	size_t n;

	for (size_t i = 0; i < mon_count; i++) {
		char *agent[] = {(char *)mon_list[i].name, "--host", NULL};
		char *analyze[] = {"analyze", "--window", NULL};

		cr_assert_eq(mon_agent_main(mon_agent_find(mon_list[i].name), 2, agent),
			     RL_EXIT_USAGE);
		cr_assert_eq(mon_analyze_main(mon_analyzer_find(mon_list[i].name), 2, analyze),
			     RL_EXIT_USAGE);
	}
	fflush(stderr);
	n = fread(err, 1, sizeof(err) - 1, cr_get_redirected_stderr());
	err[n] = '\0';
	cr_assert(strstr(err, "option '--host' needs a value"), "%s", err);
	cr_assert(strstr(err, "option '--window' needs a value"), "%s", err);
	cr_assert_null(strstr(err, "unknown option"), "%s", err);
}
