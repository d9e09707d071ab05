// SPDX-License-Identifier: MIT
/* rocelab controller pinglist: R-Pingmesh's pinglists for a host, offline (pinglist.h). */
#define _GNU_SOURCE
#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "harness/lib/out.h"
#include "probe/monitor.h"
#include "probe/recin.h"
#include "probe/rpingmesh/agent.h"
#include "probe/rpingmesh/analyzer.h"
#include "probe/rpingmesh/ctl.h"
#include "probe/rpingmesh/params.h"
#include "probe/rpingmesh/pinglist.h"
#include "probe/rpingmesh/rpingmesh.h"
#include "probe/rpingmesh/rpmrec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPT_BASE 0x200

static const char *const list_names[RPM_LISTS] = {"tor-mesh", "inter-tor", "service"};

static void pinglist_help(void)
{
	fputs(
	    "usage: rocelab controller pinglist --host HOST [-i INVENTORY] [options] [-j]\n"
	    "\n"
	    "R-Pingmesh's pinglists for HOST's RNICs, as its controller hands them out\n"
	    "(SIGCOMM'24): each RNIC's ToR-mesh targets (the RNICs under the same ToR, other\n"
	    "hosts) and inter-ToR targets (RNICs under the other ToRs), each with the UDP source\n"
	    "ports that reach every ECMP path between the two ToRs with probability --coverage\n"
	    "(the paper's Eq. (1)). An RNIC's ToR is the switch its link ends at. With tenants\n"
	    "in the inventory, both RNICs of a pair share one. Touches nothing.\n"
	    "\n"
	    "  --host HOST            the host whose pinglists to print\n"
	    "  --inter-tor all|N      every RNIC of each other ToR (default), or N of each,\n"
	    "                         drawn by --seed\n"
	    "  --sports auto|N        source ports per target: Eq. (1) with m the paths between\n"
	    "                         the two ToRs (default), or N (1..64)\n"
	    "  --coverage P           Eq. (1)'s probability, 0 < P < 1 (default 0.9)\n"
	    "  --same-host            probe the host's own RNICs too (default: they measure the\n"
	    "                         host, not the fabric)\n"
	    "  --seed N               picks and ports (default 1)\n"
	    "  -j, --json             one JSON object\n"
	    "exit: 0 done; 2 bad options or inventory.\n",
	    stdout);
}

/* A whole number in [lo, hi] from v, or -1. */
static long whole(const char *v, long lo, long hi)
{
	char *end;
	long n = strtol(v, &end, 10);

	return end == v || *end || n < lo || n > hi ? -1 : n;
}

static void print(const struct inventory *inv, const struct rpm_pinglist *pl, struct out *o)
{
	const struct inv_host *h = &inv->hosts[pl->host];

	out_open_object(o, NULL);
	out_string(o, PRINT_ANY, "host", "%s: ", h->name);
	out_uint(o, PRINT_ANY, "targets_count", "%llu targets\n", pl->n);
	out_open_array(o, "targets");
	for (size_t i = 0; i < pl->n; i++) {
		const struct rpm_target *t = &pl->t[i];
		const struct inv_rnic *to = &inv->hosts[t->host].rnics[t->rnic];
		char from[2 * INV_NAME_MAX + 2], dst[2 * INV_NAME_MAX + 2], a[INET_ADDRSTRLEN];

		snprintf(from, sizeof(from), "%s:%s", h->name, h->rnics[t->src_rnic].name);
		snprintf(dst, sizeof(dst), "%s:%s", inv->hosts[t->host].name, to->name);
		inet_ntop(AF_INET, &to->addr.addr, a, sizeof(a));
		out_open_object(o, NULL);
		out_string(o, PRINT_ANY, "from", "  %s", from);
		out_string(o, PRINT_ANY, "to", " -> %s", dst);
		out_string(o, PRINT_ANY, "address", " (%s)", a);
		out_string(o, PRINT_ANY, "list", " %s", list_names[t->list]);
		out_uint(o, PRINT_ANY, "paths", ", ECMP paths %llu", t->paths);
		out_uint(o, PRINT_TEXT, NULL, ", source ports (%llu):", t->n_sports);
		out_open_array(o, "sports");
		for (unsigned k = 0; k < t->n_sports; k++)
			out_uint(o, PRINT_ANY, NULL, " %llu", t->sports[k]);
		out_close(o);
		out_text(o, "\n");
		out_close(o);
	}
	out_close(o);
	out_close(o);
}

static int cmd_pinglist(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"host", required_argument, NULL, 'H'},
	    {"inventory", required_argument, NULL, 'i'},
	    {"inter-tor", required_argument, NULL, 'T'},
	    {"sports", required_argument, NULL, 'S'},
	    {"coverage", required_argument, NULL, 'c'},
	    {"same-host", no_argument, NULL, 'O'},
	    {"seed", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static const char *const cmd = "controller pinglist";
	struct rpm_pl_cfg c;
	struct rpm_pinglist pl;
	const char *host = NULL, *inv_path = NULL;
	struct inventory *inv;
	struct inv_host *h;
	struct out o;
	bool json = false;
	char err[160];
	long n;
	int opt, r;

	rpm_pl_cfg_default(&c);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "i:jh", lo, NULL)) != -1) {
		switch (opt) {
		case 'H':
			host = optarg;
			break;
		case 'i':
			inv_path = optarg;
			break;
		case 'T':
			if (rpm_parse_inter_tor(NULL, optarg, &c.inter_tor_per_tor, err,
						sizeof(err)))
				return rl_usage_error(cmd, "--%s", err);
			break;
		case 'S':
			if (rpm_parse_sports(NULL, optarg, &c.sports, err, sizeof(err)))
				return rl_usage_error(cmd, "--%s", err);
			break;
		case 'c':
			if (rpm_parse_coverage(NULL, optarg, &c.coverage, err, sizeof(err)))
				return rl_usage_error(cmd, "--%s", err);
			break;
		case 'O':
			c.same_host = true;
			break;
		case 's':
			if ((n = whole(optarg, 0, 0x7fffffff)) < 0)
				return rl_usage_error(cmd, "--seed '%s': give a whole number",
						      optarg);
			c.seed = (unsigned)n;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return pinglist_help(), 0;
		case ':':
			return rl_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return rl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!host)
		return rl_usage_error(cmd, "--host HOST is required (whose pinglists to print)");
	if (!rl_name_ok(host, INV_NAME_MAX))
		return rl_usage_error(cmd, "--host '%s' is not a valid name", host);
	if (!(inv = lab_target_inventory(inv_path)))
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	if (!(h = inventory_host(inv, host))) {
		fprintf(stderr, "rocelab: %s: no host '%s' in %s (see its hosts:)\n", cmd, host,
			inv->path);
		inventory_free(inv);
		return RL_EXIT_USAGE;
	}
	r = rpm_pinglist(inv, (size_t)(h - inv->hosts), &c, &pl);
	if (!r && !pl.n)
		fprintf(stderr, "rocelab: %s: %s probes nothing: %s%s\n", cmd, host,
			inv->n_tenants ? "its RNICs' tenants hold no RNIC of another host"
				       : "no other host has an RNIC cabled to a switch",
			c.same_host ? "" : " (--same-host adds its own RNICs)");
	if (!r) {
		out_init(&o, stdout, json ? OUT_JSON : OUT_TEXT);
		print(inv, &pl, &o);
		rpm_pinglist_free(&pl);
	}
	inventory_free(inv);
	return r ? RL_EXIT_SETUP : RL_EXIT_OK;
}

static void controller_help(void)
{
	struct rpm_ctl_cfg d;

	rpm_ctl_defaults(&d);
	fputs("usage: rocelab controller --listen ADDR[:PORT] [-i INVENTORY] [options]\n"
	      "       rocelab controller pinglist --host HOST [-i INVENTORY] [options] [-j]\n"
	      "\n"
	      "R-Pingmesh's controller (SIGCOMM'24).  Agents ('agent rpingmesh --controller')\n"
	      "register their host and each RNIC's probe QPN; each gets the pinglists of its\n"
	      "RNICs over the hosts registered now, with the targets' QPNs, again every --refresh\n"
	      "and whenever a host registers or is dropped.  A host unseen for --stale is dropped\n"
	      "from every pinglist.  'pinglist' prints what it would hand HOST's agent with every\n"
	      "host registered, offline ('rocelab controller pinglist --help').\n"
	      "\n"
	      "  --listen ADDR[:PORT]   take agents over TCP (port " RL_STR(RPM_CTL_PORT) ")\n",
	      stdout);
	opt_help(rpm_ctl_opts, &d, 2, stdout);
	fputs("  --duration D           stop after D (default: at SIGINT/SIGTERM)\n"
	      "exit: 0 done; 2 bad options or inventory; 3 cannot listen.\n",
	      stdout);
}

static int cmd_serve(int argc, char **argv)
{
	static const struct option own[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"listen", required_argument, NULL, 'l'},
	    {"duration", required_argument, NULL, 'd'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static const char *const cmd = "controller";
	struct option lo[24];
	struct rpm_ctl_cfg cfg;
	const char *inv_path = NULL, *listen_spec = NULL;
	long long duration = 0;
	struct inventory *inv;
	struct rpm_ctl *c;
	char err[160];
	int o, r, lfd;

	rpm_ctl_defaults(&cfg);
	opt_longopts(rpm_ctl_opts, OPT_BASE, own, lo, ARRAY_SIZE(lo));
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "i:vh", lo, NULL)) != -1) {
		switch (o) {
		case 'i':
			inv_path = optarg;
			break;
		case 'l':
			listen_spec = optarg;
			break;
		case 'd':
			if (rl_parse_duration_ms(optarg, &duration) || duration < 1)
				return rl_usage_error(
				    cmd, "--duration '%s': give a duration (e.g. 20s)", optarg);
			break;
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			return controller_help(), 0;
		case ':':
			return rl_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (o >= OPT_BASE) {
				if (opt_set(&rpm_ctl_opts[o - OPT_BASE], &cfg, optarg, err,
					    sizeof(err)))
					return rl_usage_error(cmd, "--%s", err);
				break;
			}
			return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return rl_usage_error(cmd, "unexpected argument '%s' (subcommands: pinglist)",
				      argv[optind]);
	if (!listen_spec)
		return rl_usage_error(cmd, "give --listen ADDR[:PORT] (or the 'pinglist' "
					   "subcommand, offline)");
	if (cfg.stale_ms <= cfg.refresh_ms)
		return rl_usage_error(cmd,
				      "--stale (%lld ms) must be longer than --refresh (%lld ms): "
				      "agents register again once a refresh",
				      cfg.stale_ms, cfg.refresh_ms);
	if (!(inv = lab_target_inventory(inv_path)))
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	if ((lfd = recin_listen(listen_spec, RPM_CTL_PORT, err, sizeof(err))) < 0) {
		rl_err("controller: %s", err);
		inventory_free(inv);
		return lfd == -EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	}
	rl_signals_install();
	c = rpm_ctl_new(inv, &cfg);
	r = rpm_ctl_serve(c, lfd, duration);
	rpm_ctl_free(c);
	close(lfd);
	inventory_free(inv);
	return r;
}

int cmd_controller(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "pinglist"))
		return cmd_pinglist(argc - 1, argv + 1);
	return cmd_serve(argc, argv);
}

/* ---- analyzer ------------------------------------------------------------------------------- */

MON_ANALYZER_FNS(struct rpa, struct rpa_cfg, rpa_new, rpa_free, rpa_stream_take, rpa_tick,
		 rpa_flush, rpa_defaults)

static void left_out(const void *az)
{
	struct rpa_totals t;

	rpa_totals(az, &t);
	if (t.refused || t.late)
		rl_warn("analyze: records left out: %llu refused (naming no RNIC of the "
			"inventory, or from the future), %llu late",
			(unsigned long long)t.refused, (unsigned long long)t.late);
}

const struct mon_analyzer rpingmesh_analyzer = {
    .name = "rpingmesh",
    .title = "R-Pingmesh",
    .about = "Analyze R-Pingmesh records per window: hosts down, RNIC anomalies from the\n"
	     "ToR-mesh, Algorithm 1 voting over the forward and reverse paths of timeouts,\n"
	     "host processing delays, timeouts and RTT percentiles per list.  Writes JSON\n"
	     "lines (window, verdict) to stdout or -o FILE.",
    .port = RPM_DEFAULT_PORT,
    .opts = rpa_opts,
    .cfg_size = sizeof(struct rpa_cfg),
    MON_ANALYZER_OPS,
    .left_out = left_out,
};
