/* SPDX-License-Identifier: MIT */
/* Generates rail-optimized virtual-lab inventories: P pods (rail groups) of H hosts x R RNICs, each
 * pod with R rail switches, sharing S spines. */
#ifndef ROCELAB_INVGEN_H
#define ROCELAB_INVGEN_H

#include <stdio.h>

struct invgen_opts {
	const char *name;
	int hosts, rnics, spines;
	int pods; /* 0 or 1: one pod, named as before pods existed */
	const char *speed;
};

/* Write the inventory YAML to f; -EINVAL (with a message on stderr) when out of range. */
int invgen_write(FILE *f, const struct invgen_opts *o);

/* The same lab parsed, in memory (its path in messages: the lab's name); NULL with errno (EINVAL:
 * out of range or rejected, said on errf or stderr). */
struct inventory;
struct inventory *invgen_inventory(const struct invgen_opts *o, FILE *errf);

#endif
