/* SPDX-License-Identifier: MIT */
/* Generates rail-optimized virtual-lab inventories (H hosts x R RNICs, R rails, S spines). */
#ifndef ROCELAB_INVGEN_H
#define ROCELAB_INVGEN_H

#include <stdio.h>

struct invgen_opts {
	const char *name;
	int hosts, rnics, spines;
	const char *speed;
};

/* Write the inventory YAML to f; -EINVAL (with a message on stderr) when out of range. */
int invgen_write(FILE *f, const struct invgen_opts *o);

#endif
