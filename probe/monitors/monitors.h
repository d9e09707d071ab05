/* SPDX-License-Identifier: MIT */
/*
 * The monitors by name (monitors.def): their agents and their analyzers,
 * in two tables so that rocelab-agent links only the agents.
 */
#ifndef ROCELAB_MONITORS_H
#define ROCELAB_MONITORS_H

#include "probe/monitor.h"

#include <stddef.h>
#include <stdio.h>

/* The monitors' names and what each is, in monitors.def's order; n of them. */
struct mon_entry {
	const char *name, *about;
};
extern const struct mon_entry mon_list[];
extern const size_t mon_count;

/* By name: borrowed, static; NULL when no monitor has that name. */
const struct mon_agent *mon_agent_find(const char *name);
const struct mon_analyzer *mon_analyzer_find(const char *name);

/* "hostmesh, rpingmesh" (the names with sep between) into buf: buf. */
const char *mon_names(const char *sep, char *buf, size_t len);

/* One line a monitor ("  NAME  ABOUT") on f. */
void mon_list_print(FILE *f);

#endif
