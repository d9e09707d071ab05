// SPDX-License-Identifier: MIT
/* rocelab agent hostmesh / rocelab analyze: options, inventory, and the analyzer's record intake.
 */
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

static int opt_ms(const char *cmd, const char *opt, const char *v, long long lo, long long hi,
		  long long *out)
{
	if (rl_parse_duration_ms(v, out) || *out < lo || *out > hi)
		return rl_usage_error(cmd,
				      "%s '%s': give a duration from %lld ms to %lld s "
				      "(e.g. 100ms, 20s)",
				      opt, v, lo, hi / 1000);
	return 0;
}

/* getopt values of the parameter tables' options start here. */
#define OPT_BASE 0x200

/* Set a parameter from its table (o is getopt's value). */
static int table_opt(const char *cmd, const struct opt_desc *tab, int o, void *obj)
{
	char err[256];

	if (opt_set(&tab[o - OPT_BASE], obj, optarg, err, sizeof(err)))
		return rl_usage_error(cmd, "--%s", err);
	return 0;
}

/* ---- agent ----------------------------------------------------------------------------- */

static void agent_help(void)
{
	struct hm_agent_cfg d;

	hm_agent_defaults(&d);
	fputs("usage: rocelab agent hostmesh --host HOST [-i INVENTORY] [options]\n"
	      "\n"
	      "Probe between the RNICs of HOST (Hostmesh, APNet'24): every RNIC probes a random\n"
	      "other RNIC of the host each interval from a random source port of a rotating pool,\n"
	      "measures one-way network latency and end-host processing delay, counts one-way\n"
	      "drops, traces every 5-tuple's path, and streams records to the analyzer.\n"
	      "Runs where HOST's RNICs are ('rocelab run' starts it there through the lab).\n"
	      "\n",
	      stdout);
	opt_help(hm_agent_opts, &d, 2, stdout);
	fputs(
	    "  --analyzer ADDR[:PORT] stream records to a 'rocelab analyze --listen' (port 4790)\n"
	    "  --out FILE|-           write records to FILE (for 'rocelab analyze FILE')\n"
	    "  --duration D           stop after D (default: at SIGINT/SIGTERM)\n"

	    "  --clock-offset S       this host's clock minus the analyzer's, in seconds: taken\n"
	    "                         off the times in records ('rocelab run' measures it)\n"
	    "exit: 0 done; 2 bad options; 3 the RNICs could not be opened, or the analyzer was\n"
	    "gone for --orphan-after.\n",
	    stdout);
}

int cmd_agent(int argc, char **argv)
{
	static const struct option own[] = {
	    {"host", required_argument, NULL, 'H'},
	    {"inventory", required_argument, NULL, 'i'},
	    {"analyzer", required_argument, NULL, 'a'},
	    {"out", required_argument, NULL, 'o'},
	    {"duration", required_argument, NULL, 'd'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"clock-offset", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct option lo[40];
	static const char *const cmd = "agent hostmesh";
	struct hm_agent_cfg c;
	const char *inv_path = NULL;
	struct inventory *inv;
	int o, r = 0;

	hm_agent_defaults(&c);
	opt_longopts(hm_agent_opts, OPT_BASE, own, lo, ARRAY_SIZE(lo));
	if (argc < 2 || strcmp(argv[1], "hostmesh")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
			return agent_help(), 0;
		return rl_usage_error("agent", "the agent to run is 'hostmesh' or 'rpingmesh'");
	}
	argc--, argv++;
	optind = 1;
	opterr = 0;
	while (!r && (o = getopt_long(argc, argv, "i:vh", lo, NULL)) != -1) {
		switch (o) {
		case 'H':
			c.host = optarg;
			break;
		case 'i':
			inv_path = optarg;
			break;
		case 'a':
			c.analyzer = optarg;
			break;
		case 'o':
			c.out = optarg;
			break;
		case 'd':
			r = opt_ms(cmd, "--duration", optarg, 1, 86400000LL * 365, &c.duration_ms);
			break;
		case 'C': {
			char *end;
			double off = strtod(optarg, &end);

			if (end == optarg || *end || !(off >= -3600 && off <= 3600))
				return rl_usage_error(cmd,
						      "--clock-offset: '%s' is not seconds in "
						      "[-3600, 3600] (e.g. 0.012 or -0.4)",
						      optarg);
			c.clock_offset_ns = (long long)(off * 1e9);
			break;
		}
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			return agent_help(), 0;
		case ':':
			return rl_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (o >= OPT_BASE) {
				r = table_opt(cmd, hm_agent_opts, o, &c);
				break;
			}
			return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (r)
		return r;
	if (optind != argc)
		return rl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (c.timeout_ms / c.interval_ms > 4096)
		return rl_usage_error(cmd, "--timeout is more than 4096 intervals");
	if (!c.host)
		return rl_usage_error(cmd,
				      "--host HOST is required (the host whose RNICs to probe)");
	if (!rl_name_ok(c.host, INV_NAME_MAX))
		return rl_usage_error(cmd, "--host '%s' is not a valid name", c.host);
	if (!(inv = lab_target_inventory(inv_path)))
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	rl_signals_install();
	r = hm_agent_run(inv, &c);
	inventory_free(inv);
	return r;
}

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
			r = opt_ms(cmd, "--duration", optarg, 1, 86400000LL * 365, &duration);
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
				r = table_opt(cmd, az_opts, o, &cfg);
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
			rl_warn("analyze: records left out: %llu refused (over the bounds on input "
				"from the network, README), %llu late, %llu of unknown RNICs",
				(unsigned long long)t.refused, (unsigned long long)t.late,
				(unsigned long long)t.unknown_rnic);
	}
	az_free(az);
	if (out != stdout)
		fclose(out);
	inventory_free(inv);
	return r;
}
