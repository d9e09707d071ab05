/* SPDX-License-Identifier: MIT */
/* Random scenarios: fault kinds, targets by role and parameters drawn from a seed, for an
 * inventory, each with the expectation its kind and target give. */
#ifndef ROCELAB_SCENGEN_H
#define ROCELAB_SCENGEN_H

#include "harness/lib/inventory.h"

#include <stdio.h>

struct scengen_opts {
	unsigned seed;
	int faults;	   /* fault scenarios to write */
	int fault_free;	   /* fault-free ones */
	long long free_ms; /* a fault-free one's fault phase; 0: 30 s */
	const char *dir;   /* created; must not exist or be empty */
	const char *kinds; /* comma-separated subset of scengen_kinds(), NULL: all that fit */
	const struct inventory *inv;
	const char *inv_path; /* the inventory, to validate what was written against */
};

/* The kinds the generator draws from, comma-separated. */
const char *scengen_kinds(void);

/*
 * Write the scenarios, each validated by the scenario loader against the
 * inventory before the next; one line per scenario to log.  0, or a negative
 * errno with the reason on stderr (nothing written when the options are bad).
 */
int scengen_write(const struct scengen_opts *o, FILE *log);

#endif
