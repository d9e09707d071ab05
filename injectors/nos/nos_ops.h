/* SPDX-License-Identifier: MIT */
/*
 * One room per switch NOS (linux.c, sonic.c, eos.c, nvue.c), each behind a
 * table of the same operations, as rdma-core's providers are: its read-back
 * parsers by name, and how its port states are read.  Adding a NOS (or a
 * version of one that writes differently) is a room and a line in nos.c.
 */
#ifndef ROCELAB_NOS_OPS_H
#define ROCELAB_NOS_OPS_H

#include "harness/lib/inventory.h"
#include "injectors/nos/ctr.h"
#include "injectors/nos/links.h"
#include "injectors/nos/readback.h"

#include <jansson.h>

struct sbuf;

/* A read-back parser: read_as "NAME ARG" (readback.h) parses what the read printed. */
struct nos_parser {
	const char *name;
	int (*parse)(const char *arg, const char *out, struct readback *rb, char *err,
		     size_t errlen);
};

struct nos_ops {
	enum inv_dialect dialect;
	const struct nos_parser *parsers; /* ended by {NULL} */
	/*
	 * Port states (links.h): the command that prints sw's, as a CLI line
	 * (malloc'ed) or, returning NULL, a command run as it stands (*argv);
	 * where a person reads the same; and what it printed into
	 * st[sw->n_ports] (zeroed), by one of: links_parse, its text (0, or
	 * -EINVAL with err), or links_walk, its JSON document as links.c parsed
	 * it (nonzero: not in the NOS's format).
	 */
	char *(*links_command)(const struct inv_switch *sw, const char *const **argv);
	const char *links_source;
	int (*links_parse)(const struct inv_switch *sw, const char *out, struct port_state *st,
			   char *err, size_t errlen);
	int (*links_walk)(const struct inv_switch *sw, json_t *root, struct port_state *st);
	/*
	 * Counters (injectors/counters.h): the reads of port's into r[max]
	 * (ctr.h), and where the fault names a priority (prio >= 0) those of
	 * its queue and priority group that the NOS keeps apart; how many.
	 * argv may point into port.
	 */
	size_t (*counters)(const char *port, int prio, struct nos_ctr_read *r, size_t max);
	/*
	 * The PFC watchdog of port's queue prio (NULL: this NOS's is not read):
	 * into state the CLI line that prints its state ("operational",
	 * "stormed"; nothing when it does not watch the queue), into restore the
	 * one that prints how long, in ms, it waits after a storm before it
	 * gives the queue back (nothing: not set).
	 */
	void (*pfcwd)(const char *port, int prio, struct sbuf *state, struct sbuf *restore);
};

extern const struct nos_ops nos_linux, nos_sonic, nos_eos, nos_nvue;

/*
 * Is an Arista model (show version's modelName: "DCS-7280SR3-48YC8",
 * "CCS-750", "7280CR3-32P4") one of the DNX ("sand") platforms, Broadcom
 * Arad, Jericho or Qumran: the 7020R, 7280, 7500 and 7800 series.  Their
 * CLI has no 'platform trident' and queues by 'tx-queue' rather than
 * 'uc-tx-queue' (eos.c).
 */
bool eos_model_sand(const char *model);

/* The room of dialect d. */
const struct nos_ops *nos_ops_of(enum inv_dialect d);

#endif
