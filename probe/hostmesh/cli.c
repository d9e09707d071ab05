// SPDX-License-Identifier: MIT
/* rocelab analyze: options, inventory, and the analyzer's record intake. */
#define _GNU_SOURCE
#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "harness/lib/opt.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/pathmap.h"
#include "probe/recin.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* getopt values of the parameter tables' options start here. */
#define OPT_BASE 0x200

/* ---- analyzer ------------------------------------------------------------------------------ */

static void analyze_help(void)
{
	struct az_cfg d;

	az_defaults(&d);
	fputs("usage: rocelab analyze [-i INVENTORY] (--listen ADDR[:PORT] | FILE...) [options]\n"
	      "\n"
	      "Analyze Hostmesh records per window: RNIC anomalies, Algorithm 1 voting over links\n"
	      "and switches for drops and for high network latency, drop rates and latency\n"
	      "percentiles.  Writes JSON lines (window, verdict, agent) to stdout or -o FILE.\n"
	      "\n"
	      "  --listen ADDR[:PORT]   take agents' record streams over TCP (port 4790)\n"
	      "  FILE...                read record files written by 'agent --out'\n",
	      stdout);
	opt_help(az_opts, &d, 2, stdout);
	fputs("  --duration D           stop listening after D (default: at SIGINT/SIGTERM)\n"
	      "  -o FILE                JSON lines here (default stdout)\n"
	      "exit: 0 done; 2 bad options or records from another inventory; 3 cannot listen.\n",
	      stdout);
}

static int az_take(void *ctx, const struct inventory *inv, struct rec_stream *s)
{
	return hm_stream_take(ctx, inv, s);
}

static void az_tick_cb(void *ctx, uint64_t now_ns)
{
	az_tick(ctx, now_ns);
}

static void az_flush_cb(void *ctx)
{
	az_flush(ctx);
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option own[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"listen", required_argument, NULL, 'l'},
	    {"duration", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct option lo[32];
	static const char *const cmd = "analyze";
	const char *inv_path = NULL, *listen_spec = NULL, *out_path = NULL;
	long long duration = 0;
	struct az_cfg cfg;
	struct inventory *inv;
	FILE *out = stdout;
	struct az *az;
	struct rec_sink sink;
	char err[160];
	int o, r = 0, lfd = -1;

	az_defaults(&cfg);
	opt_longopts(az_opts, OPT_BASE, own, lo, ARRAY_SIZE(lo));
	optind = 1;
	opterr = 0;
	while (!r && (o = getopt_long(argc, argv, "i:o:vh", lo, NULL)) != -1) {
		switch (o) {
		case 'i':
			inv_path = optarg;
			break;
		case 'l':
			listen_spec = optarg;
			break;
		case 'd':
			r = opt_cli_ms(cmd, "--duration", optarg, 1, 86400000LL * 365, &duration);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			return analyze_help(), 0;
		case ':':
			return rl_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (o >= OPT_BASE) {
				r = opt_cli_set(cmd, &az_opts[o - OPT_BASE], &cfg, optarg);
				break;
			}
			return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (r)
		return r;
	if (!listen_spec == (optind == argc))
		return rl_usage_error(cmd, "give either --listen ADDR[:PORT] or record files");
	if (!(inv = lab_target_inventory(inv_path)))
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	if (listen_spec &&
	    (lfd = recin_listen(listen_spec, HM_DEFAULT_PORT, err, sizeof(err))) < 0) {
		rl_err("analyze: %s", err);
		inventory_free(inv);
		return lfd == -EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	}
	if (out_path && !(out = fopen(out_path, "we"))) {
		rl_err("analyze: cannot write %s: %s", out_path, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		inventory_free(inv);
		return RL_EXIT_SETUP;
	}
	az = az_new(inv, &cfg, out);
	sink = (struct rec_sink){az, az_take, az_tick_cb, az_flush_cb};
	rl_signals_install();
	if (lfd >= 0) {
		rl_info("analyze: listening on %s (window %lld ms)", listen_spec, cfg.window_ms);
		r = recin_serve(&sink, inv, lfd, duration);
		close(lfd);
	} else {
		r = recin_replay(&sink, inv, argv + optind, argc - optind);
	}
	{
		struct az_totals t;

		az_totals(az, &t);
		if (t.refused || t.late || t.unknown_rnic)
			rl_warn(
			    "analyze: records left out: %llu refused (over the bounds on input "
			    "from the network, docs/security.md), %llu late, %llu of unknown RNICs",
			    (unsigned long long)t.refused, (unsigned long long)t.late,
			    (unsigned long long)t.unknown_rnic);
	}
	az_free(az);
	if (out != stdout)
		fclose(out);
	inventory_free(inv);
	return r;
}
