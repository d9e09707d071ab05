// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh analyzer throughput on synthetic records, on the same cluster
 * as az_bench (1,000 hosts x 8 RNICs, 8 rails, 8 spines): every RNIC sends
 * 10 probes/s, as Hostmesh's bench does, for one 20 s window (1.6 M probe
 * records), round 16 ToR-mesh targets (its rail's next hosts, one source
 * port) and 8 inter-ToR targets (other rails, 8 ports over the spines).
 * Every 5-tuple is traced both ways (probes' and ACKs' paths); the rail3 -
 * spine5 link drops 30% of what crosses it either way.  Prints bench lines.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "probe/rpingmesh/analyzer.h"
#include "probe/rpingmesh/rpm.h"
#include "tests/bench/bench_inv.h"

#define HOSTS	 1000
#define TOR_MESH 16
#define INTER	 8
#define SPORTS	 8
#define T0	 1795200000000000000ULL

static double secs(unsigned long long a, unsigned long long b)
{
	return (double)(b - a) / 1e9;
}

/* Target j (0..TOR_MESH+INTER-1) of host h's RNIC r: its host and RNIC. */
static void target(int hosts, int h, int r, int j, int *th, int *tr)
{
	if (j < TOR_MESH) {
		*th = (h + 1 + j) % hosts;
		*tr = r;
	} else {
		*th = (h + 17 + (j - TOR_MESH) * 37) % hosts;
		*tr = (r + 1 + (j - TOR_MESH) % (RNICS - 1)) % RNICS;
	}
}

/* The path of (h, r) -> (th, tr) with source port k, as h's agent traced it. */
static void mkpath(int hosts, int h, int r, int th, int tr, int k, struct rpm_path_rec *p)
{
	int sp = k % SPINES;

	*p = (struct rpm_path_rec){.t_ns = T0,
				   .sport = (uint16_t)(50000 + k),
				   .dst_host = (uint16_t)th,
				   .src_rnic = (uint8_t)r,
				   .dst_rnic = (uint8_t)tr,
				   .complete = 1};
	p->links[p->n_links++] = (rec_link_t)(h * RNICS + r);
	if (r != tr) {
		p->links[p->n_links++] = (rec_link_t)(hosts * RNICS + r * SPINES + sp);
		p->links[p->n_links++] = (rec_link_t)(hosts * RNICS + tr * SPINES + sp);
	}
	p->links[p->n_links++] = (rec_link_t)(th * RNICS + tr);
	p->n_hops = r != tr ? 3 : 1;
}

int main(int argc, char **argv)
{
	int hosts = argc > 1 ? atoi(argv[1]) : HOSTS;
	struct inventory *inv;
	FILE *devnull = fopen("/dev/null", "w");
	unsigned long long t0, t1, t2, t3, n = 0;
	struct rpa_totals tot;
	struct rpa_cfg cfg;
	struct rpa *a;

	if (!bench_hosts_fit(hosts))
		return 2;
	if (!(inv = bench_inventory(hosts)))
		return 1;
	rpa_defaults(&cfg);
	a = rpa_new(inv, &cfg, devnull);
	t0 = rl_now_ns();
	for (int h = 0; h < hosts; h++)
		for (int r = 0; r < RNICS; r++)
			for (int j = 0; j < TOR_MESH + INTER; j++) {
				int th, tr;

				target(hosts, h, r, j, &th, &tr);
				for (int k = 0; k < (j < TOR_MESH ? 1 : SPORTS); k++) {
					struct rpm_path_rec p;

					mkpath(hosts, h, r, th, tr, k, &p);
					rpa_path(a, (size_t)h, &p); /* the probes' */
					mkpath(hosts, th, tr, h, r, k, &p);
					rpa_path(a, (size_t)th, &p); /* the ACKs' */
				}
			}
	t1 = rl_now_ns();
	for (int tick = 0; tick < 200; tick++)
		for (int h = 0; h < hosts; h++)
			for (int r = 0; r < RNICS; r++) {
				unsigned x = (unsigned)(tick * 7919 + h * 104729 + r * 31);
				int j = (int)((unsigned)(tick + h) % (TOR_MESH + INTER)), th, tr,
				    k = j < TOR_MESH ? 0 : (int)(x / 7 % SPORTS);
				bool lost;
				struct rpm_probe_rec p;

				target(hosts, h, r, j, &th, &tr);
				lost =
				    r != tr && k % SPINES == 4 && (r == 2 || tr == 2) && x % 10 < 3;
				p = (struct rpm_probe_rec){
				    .t1_ns =
					T0 + (uint64_t)tick * 100000000ULL + (uint64_t)h * 1000,
				    .rtt_ns = lost ? RPM_UNKNOWN_NS : 16000 + x % 8000,
				    .prober_ns = 30000 + x % 20000,
				    .responder_ns = lost ? RPM_UNKNOWN_NS : 25000 + x % 15000,
				    .dst_host = (uint16_t)th,
				    .src_rnic = (uint8_t)r,
				    .dst_rnic = (uint8_t)tr,
				    .list = j < TOR_MESH ? RPM_TOR_MESH : RPM_INTER_TOR,
				    .status = lost ? RPM_TIMEOUT : RPM_OK,
				    .sport = (uint16_t)(50000 + k)};
				rpa_probe(a, (size_t)h, &p);
				n++;
			}
	t2 = rl_now_ns();
	rpa_flush(a);
	t3 = rl_now_ns();
	rpa_totals(a, &tot);
	printf("bench rpm_analyzer_records_per_s %.0f records/s\n", (double)n / secs(t1, t2));
	printf("bench rpm_analyzer_window_%dx%d_analysis %.3f s\n", hosts, RNICS, secs(t2, t3));
	printf("bench rpm_analyzer_window_%dx%d_total %.3f s\n", hosts, RNICS, secs(t1, t3));
	printf("bench rpm_analyzer_window_%dx%d_rss %.1f MB\n", hosts, RNICS, bench_peak_rss_mb());
	printf("bench rpm_analyzer_path_records_per_s %.0f records/s\n",
	       (double)tot.paths / secs(t0, t1));
	fprintf(stderr,
		"rpa_bench: %llu probes, %llu paths, %llu verdicts in %llu windows, %llu refused\n",
		(unsigned long long)tot.probes, (unsigned long long)tot.paths,
		(unsigned long long)tot.verdicts, (unsigned long long)tot.windows,
		(unsigned long long)tot.refused);
	rpa_free(a);
	inventory_free(inv);
	fclose(devnull);
	return tot.verdicts ? 0 : 1;
}
