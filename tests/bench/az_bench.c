// SPDX-License-Identifier: MIT
/*
 * Analyzer throughput on synthetic records: a 1,000-host x 8-RNIC rail
 * cluster (8 rails, 8 spines), every RNIC probing at the paper's 10 probes/s
 * for one 20 s window (1.6 M probe records, 16 source ports per RNIC pair),
 * with a lossy spine link so the voting has work.  Prints bench lines.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/sbuf.h"
#include "probe/hostmesh/analyzer.h"
#include "tests/bench/bench_inv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTS 1000
#define POOL  16
#define T0    1795200000000000000ULL

static double secs(unsigned long long a, unsigned long long b)
{
	return (double)(b - a) / 1e9;
}

int main(int argc, char **argv)
{
	int hosts = argc > 1 ? atoi(argv[1]) : HOSTS;
	struct inventory *inv;
	struct az_cfg cfg;
	struct az *az;
	struct az_totals tot;
	FILE *devnull = fopen("/dev/null", "w");
	unsigned long long t0, t1, t2, t3, n = 0;

	if (!bench_hosts_fit(hosts))
		return 2;
	inv = bench_inventory(hosts);
	if (!inv)
		return 1;
	az_defaults(&cfg);
	az = az_new(inv, &cfg, devnull);
	t0 = rl_now_ns();
	for (int h = 0; h < hosts; h++)
		for (int s = 0; s < RNICS; s++)
			for (int d = 0; d < RNICS; d++)
				for (int k = 0; k < POOL && s != d; k++) {
					struct hm_path p = {.t_ns = T0,
							    .sport = (uint16_t)(50000 + k),
							    .src = (uint8_t)s,
							    .dst = (uint8_t)d,
							    .n_hops = 3,
							    .complete = 1,
							    .n_links = 4};
					int sp = k % SPINES;

					p.links[0] = (rec_link_t)(h * RNICS + s);
					p.links[1] = (rec_link_t)(hosts * RNICS + s * SPINES + sp);
					p.links[2] = (rec_link_t)(hosts * RNICS + d * SPINES + sp);
					p.links[3] = (rec_link_t)(h * RNICS + d);
					az_path(az, (size_t)h, &p);
				}
	t1 = rl_now_ns();
	/* 20 s at 10 probes/s per RNIC; the rail3 - spine5 link drops 30% of what crosses it. */
	for (int tick = 0; tick < 200; tick++)
		for (int h = 0; h < hosts; h++)
			for (int s = 0; s < RNICS; s++) {
				unsigned x = (unsigned)(tick * 7919 + h * 104729 + s * 31);
				int d = (int)((unsigned)(s + 1 + (int)(x % (RNICS - 1))) % RNICS),
				    k = (int)(x / 7 % POOL);
				bool lost = k % SPINES == 4 && (s == 2 || d == 2) && x % 10 < 3;
				struct hm_probe p = {
				    .t_send_ns =
					T0 + (uint64_t)tick * 100000000ULL + (uint64_t)h * 1000,
				    .sport = (uint16_t)(50000 + k),
				    .src = (uint8_t)s,
				    .dst = (uint8_t)d,
				    .status = lost,
				    .net_ns = 8000 + x % 4000,
				    .proc_ns = 12000 + x % 9000,
				};

				az_probe(az, (size_t)h, &p);
				n++;
			}
	t2 = rl_now_ns();
	az_flush(az);
	t3 = rl_now_ns();
	az_totals(az, &tot);
	printf("bench analyzer_records_per_s %.0f records/s\n", (double)n / secs(t1, t2));
	printf("bench analyzer_window_%dx%d_analysis %.3f s\n", hosts, RNICS, secs(t2, t3));
	printf("bench analyzer_window_%dx%d_total %.3f s\n", hosts, RNICS, secs(t1, t3));
	printf("bench analyzer_window_%dx%d_rss %.1f MB\n", hosts, RNICS, bench_peak_rss_mb());
	printf("bench analyzer_path_records_per_s %.0f records/s\n",
	       (double)tot.paths / secs(t0, t1));
	fprintf(stderr, "az_bench: %llu probes, %llu paths, %llu verdicts in %llu windows\n",
		(unsigned long long)tot.probes, (unsigned long long)tot.paths,
		(unsigned long long)tot.verdicts, (unsigned long long)tot.windows);
	az_free(az);
	inventory_free(inv);
	fclose(devnull);
	return tot.verdicts ? 0 : 1;
}
