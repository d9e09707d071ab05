/* SPDX-License-Identifier: MIT */
/*
 * The analyzer benchmarks' synthetic inventory: a rail cluster of hosts x
 * RNICS hosts' RNICs (a rail switch per RNIC index), SPINES spines, written
 * in a known order so link indexes are arithmetic: host h's RNIC r is link
 * h * RNICS + r, rail r's uplink to spine s is hosts * RNICS + r * SPINES + s.
 * Addresses are 198.18.0.0/15 in order, host h's RNIC r the (1 + h * RNICS +
 * r)th: 16,383 hosts of 8 RNICs fit (the switches' management addresses,
 * 198.19.200-201.x, lie above).  Past that the plan has no address:
 * bench_hosts_fit() says so.
 */
#ifndef ROCELAB_BENCH_INV_H
#define ROCELAB_BENCH_INV_H

#include "harness/lib/inventory.h"
#include "harness/lib/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define RNICS  8
#define SPINES 8

/* This process's peak RSS in MB: the window's memory, the inventory and the records with it. */
static double bench_peak_rss_mb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : (double)ru.ru_maxrss / 1024.0;
}

/* Do a cluster of hosts' RNICs have addresses in the plan (198.18.0.0/15)?  If not, says so. */
static int bench_hosts_fit(int hosts)
{
	long rnics = (long)hosts * RNICS;

	if (hosts > 0 && rnics + 1 < 2 * 65536)
		return 1;
	fprintf(stderr, "bench: %d hosts x %d RNICs: more RNICs than 198.18.0.0/15 holds\n", hosts,
		RNICS);
	return 0;
}

static struct inventory *bench_inventory(int hosts)
{
	struct sbuf y = {0};
	struct inventory *inv;
	char *text;

	sb_printf(&y, "lab: bench-%dx%d\nhosts:\n", hosts, RNICS);
	for (int h = 0; h < hosts; h++) {
		sb_printf(&y, "  - name: h%d\n    rnics:\n", h);
		for (int r = 0; r < RNICS; r++) {
			long i = 1 + (long)h * RNICS + r;

			sb_printf(&y,
				  "      - { name: r%d, netdev: r%d, rail: %d, address: "
				  "198.%ld.%ld.%ld/15 }\n",
				  r, r, r + 1, 18 + i / 65536, i / 256 % 256, i % 256);
		}
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
