/* SPDX-License-Identifier: MIT */
/*
 * The analyzer benchmarks' synthetic inventory: a rail cluster of hosts x
 * RNICS hosts' RNICs (a rail switch per RNIC index), SPINES spines, written
 * in a known order so link indexes are arithmetic: host h's RNIC r is link
 * h * RNICS + r, rail r's uplink to spine s is hosts * RNICS + r * SPINES + s.
 */
#ifndef ROCELAB_BENCH_INV_H
#define ROCELAB_BENCH_INV_H

#include "harness/lib/inventory.h"
#include "harness/lib/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RNICS  8
#define SPINES 8

static struct inventory *bench_inventory(int hosts)
{
	struct sbuf y = {0};
	struct inventory *inv;
	char *text;

	sb_printf(&y, "lab: bench-%dx%d\nhosts:\n", hosts, RNICS);
	for (int h = 0; h < hosts; h++) {
		sb_printf(&y, "  - name: h%d\n    rnics:\n", h);
		for (int r = 0; r < RNICS; r++)
			sb_printf(&y,
				  "      - { name: r%d, netdev: r%d, rail: %d, address: "
				  "198.%d.%d.%d/15 }\n",
				  r, r, r + 1, 18 + (r >= 4), (r % 4) * 32 + h / 250, 1 + h % 250);
	}
	sb_printf(&y, "switches:\n");
	for (int r = 0; r < RNICS; r++) {
		sb_printf(&y,
			  "  - name: rail%d\n    role: rail\n    rail: %d\n    dialect: linux\n"
			  "    mgmt: 198.19.200.%d\n    ssh: { user: root, credential: lab-key }\n"
			  "    ports: [",
			  r + 1, r + 1, r + 1);
		for (int p = 0; p < hosts + SPINES; p++)
			sb_printf(&y, "%sp%d", p ? ", " : "", p);
		sb_printf(&y, "]\n");
	}
	for (int s = 0; s < SPINES; s++) {
		sb_printf(&y,
			  "  - name: spine%d\n    role: spine\n    dialect: linux\n"
			  "    mgmt: 198.19.201.%d\n    ssh: { user: root, credential: lab-key }\n"
			  "    ports: [",
			  s + 1, s + 1);
		for (int p = 0; p < RNICS; p++)
			sb_printf(&y, "%sp%d", p ? ", " : "", p);
		sb_printf(&y, "]\n");
	}
	sb_printf(&y, "links:\n");
	for (int h = 0; h < hosts; h++)
		for (int r = 0; r < RNICS; r++)
			sb_printf(&y, "  - { a: h%d:r%d, b: rail%d:p%d }\n", h, r, r + 1, h);
	for (int r = 0; r < RNICS; r++)
		for (int s = 0; s < SPINES; s++)
			sb_printf(&y, "  - { a: rail%d:p%d, b: spine%d:p%d }\n", r + 1, hosts + s,
				  s + 1, r);
	text = sb_take(&y);
	inv = inventory_parse("bench.yaml", text, strlen(text), stderr);
	free(text);
	if (!inv)
		fprintf(stderr, "bench: synthetic inventory rejected\n");
	return inv;
}

#endif
