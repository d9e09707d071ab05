/* SPDX-License-Identifier: MIT */
/*
 * Switch port link states, read in each switch's own dialect, and the check
 * that every cabled link of the inventory is up (pre-flight, post-flight).
 */
#ifndef ROCELAB_LINKS_H
#define ROCELAB_LINKS_H

#include "harness/lab/lab.h"
#include "harness/lib/inventory.h"

#include <stdbool.h>

/* What a switch said of one port: up or not, and its own word for it ("down", "notconnect"). */
struct port_state {
	bool seen; /* the port was in what the switch printed */
	bool up;
	char word[24];
};

/*
 * The command that prints sw's port states in its dialect: argv for linux
 * (run with lab_exec), a CLI line for the others (lab_cli).  Returns the CLI
 * line (malloc'ed) or NULL with *argv set.
 */
char *links_command(const struct inv_switch *sw, const char *const **argv);

/*
 * Parse what links_command() printed into st[sw->n_ports] (ports the switch
 * did not mention stay !seen).  0, or -EINVAL with err when it is not the
 * dialect's format.
 */
int links_parse(const struct inv_switch *sw, const char *out, struct port_state *st, char *err,
		size_t errlen);

/* What links_command() reads, for evidence: "ip -j link show", "show interfaces status | json"...
 */
const char *links_source(enum inv_dialect d);

/*
 * The link state of one inventory endpoint, read now through the lab: a
 * switch port in its switch's dialect, an RNIC with 'ip -j link show dev'
 * on its host.  0, or -errno with err (a port the device does not show:
 * -ENOENT).
 */
int links_port(struct lab *l, const struct inv_endpoint *ep, struct port_state *ps, char *err,
	       size_t errlen);

/*
 * Read every switch's ports and check that each end of each inventory link
 * on a switch is up.  Every problem is printed as "WHEN: ..."; the first one
 * goes to why.  0 when all are up, -EHOSTUNREACH otherwise.
 */
int links_check(struct lab *l, const char *when, char *why, size_t whylen);

#endif
