// SPDX-License-Identifier: MIT
/*
 * rocelab transport: MP-RDMA's endpoints (send, recv: run where the RNIC
 * is) and 'run', which starts both through the lab and reports goodput.
 */
#define _GNU_SOURCE
#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "transport/mpr_comp.h"
#include "transport/mpr_ep.h"
#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPT_BASE 0x200

static void help(FILE *f)
{
	struct ep_params d;

	ep_defaults(&d);
	fputs(
	    "usage: rocelab transport run  [-i INV] --from HOST:RNIC --to HOST:RNIC [options]\n"
	    "       rocelab transport send [-i INV] --from HOST:RNIC --to HOST:RNIC [options]\n"
	    "       rocelab transport recv [-i INV] --at HOST:RNIC [options]\n"
	    "       rocelab transport paths [-i INV] --from HOST:RNIC --to HOST:RNIC [--vps N]\n"
	    "                              [--duration T]\n"
	    "       rocelab transport sim [--figure NAME] [--mode paper|rocelab] [--seeds N] ...\n"
	    "\n"
	    "MP-RDMA (NSDI'18), the multi-path RDMA transport, as RoCEv2 packets on the lab's\n"
	    "real data path: a backlogged sender spreads one window over virtual paths (UDP\n"
	    "source ports, which ECMP maps to spines), the receiver ACKs each packet on its path.\n"
	    "'run' starts the receiver on --to's host and the sender on --from's through the lab,\n"
	    "waits --duration and prints goodput; 'send' and 'recv' are the endpoints it starts\n"
	    "(JSON lines on stdout: one per --interval, one at the end).  ECN is emulated from\n"
	    "one-way delay unless --ecn wire (this machine's kernel has no RED).  'paths' traces\n"
	    "each VP's route from where it runs (the ground truth of which links a VP crosses):\n"
	    "a JSON line per VP, once, or a sweep a second for --duration.  --workload spray runs\n"
	    "Eunomia's workload instead: --conns finite connections sprayed over the VPs against\n"
	    "a receiver NIC of the --receiver kind (eunomia, bitmap 256/64, gbn).  'sim' runs\n"
	    "the paper's figures on the path simulator, beside the paper's values\n"
	    "('rocelab transport sim --help').\n"
	    "\n",
	    f);
	opt_help(ep_opts, &d, 2, f);
	fputs("  (run: --duration 0 is 3 s)\n"
	      "  --json                 run: print the endpoints' summaries as one JSON object\n"
	      "  -o DIR                 run: keep the endpoints' logs here (default: a folder in\n"
	      "                         /tmp, removed when the run ends well)\n"
	      "exit: 0 done; 2 bad options; 3 an endpoint could not start or failed.\n",
	      f);
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static int do_run(const char *inv_path, const char *from, const char *to, const char *outdir,
		  const struct ep_params *p, bool json)
{
	struct inventory *inv = lab_target_inventory(inv_path);
	char self[PATH_MAX], dir[PATH_MAX], slog[PATH_MAX + 16], rlog[PATH_MAX + 16], why[300];
	struct mpr_flow fl;
	long long dur = p->duration_ms ? p->duration_ms : 3000;
	json_t *se = NULL, *re = NULL;
	struct lab l;
	ssize_t k;
	int r = RL_EXIT_SETUP;

	if (!inv)
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	if (mpr_flow_check(inv, from, to, why, sizeof(why))) {
		fprintf(stderr, "rocelab: transport run: --from and --to: %s\n", why);
		inventory_free(inv);
		return RL_EXIT_USAGE;
	}
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0) {
		inventory_free(inv);
		return RL_EXIT_SETUP;
	}
	self[k] = '\0';
	if (outdir) {
		snprintf(dir, sizeof(dir), "%s", outdir);
		if (rl_mkdir_p(dir, 0755)) {
			fprintf(stderr, "rocelab: transport run: -o %s: %s\n", dir,
				strerror(errno));
			inventory_free(inv);
			return RL_EXIT_USAGE;
		}
	} else {
		snprintf(dir, sizeof(dir), "/tmp/rocelab-transport.XXXXXX");
		if (!mkdtemp(dir)) {
			inventory_free(inv);
			return RL_EXIT_SETUP;
		}
	}
	snprintf(rlog, sizeof(rlog), "%s/recv.log", dir);
	snprintf(slog, sizeof(slog), "%s/send.log", dir);
	if (lab_open(&l, inv)) {
		fprintf(stderr, "rocelab: transport run: cannot open the lab %s\n", inv->name);
		inventory_free(inv);
		return RL_EXIT_SETUP;
	}
	rl_signals_install();
	if (mpr_flow_start(&fl, &l, self, inv->path, from, to, p, dur, slog, rlog, why,
			   sizeof(why))) {
		fprintf(stderr, "rocelab: transport run: %s\n", why);
		goto out;
	}
	fprintf(stderr, "rocelab: transport run: %s -> %s for %.1f s (logs in %s%s)\n", from, to,
		(double)dur / 1e3, dir, outdir ? "" : " until it ends well");
	for (long long waited = 0; lab_alive(&l, &fl.snd) && !rl_interrupted; waited += 50) {
		if (waited > dur + 10000) {
			fprintf(stderr,
				"rocelab: transport run: the sender did not end; stopped\n");
			break;
		}
		usleep(50000);
	}
	mpr_flow_stop(&fl);
	se = mpr_last_line(slog, "snd-end");
	re = mpr_last_line(rlog, "rcv-end");
	if (rl_interrupted) {
		r = RL_EXIT_FAIL;
	} else if (!se || !re) {
		fprintf(stderr, "rocelab: transport run: no summary from the %s; see %s\n",
			se ? "receiver" : "sender", se ? rlog : slog);
	} else if (json) {
		json_t *o = json_pack("{s:s,s:s,s:O,s:O}", "from", from, "to", to, "sender", se,
				      "receiver", re);

		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
		r = RL_EXIT_OK;
	} else if (!strcmp(p->workload, "spray")) {
		double secs = num(se, "seconds"), deliv = num(re, "delivered");

		printf("%s -> %s: %u connections at once sprayed over the VPs, a %s receiver, "
		       "%.2f s\n",
		       from, to, p->conns, json_string_value(json_object_get(re, "receiver")),
		       secs);
		printf("  goodput      %.1f Mbit/s (%.0f packets of %d B delivered in order)\n",
		       secs > 0 ? deliv * MPR_WIRE_PAYLOAD * 8 / secs / 1e6 : 0, deliv,
		       MPR_WIRE_PAYLOAD);
		printf(
		    "  connections  %.0f completed, FCT mean %.1f ms, p99 %.1f ms; %.0f stalled\n",
		    num(se, "completed"), num(se, "fct_ms_mean"), num(se, "fct_ms_p99"),
		    num(se, "stalled"));
		printf("  application  %.0f misordered, %.0f duplicated, %.0f payload errors\n",
		       num(re, "misordered"), num(re, "duplicated"), num(re, "pattern_bad"));
		printf("  replies      %.0f SACKs, %.0f NACKs (%.0f dropped past the bitmap); "
		       "%.0f retransmitted, %.0f timeouts, %.0f go-backs\n",
		       num(re, "sacks"), num(re, "nacks"), num(re, "cap_drops"), num(se, "retx"),
		       num(se, "rtos"), num(se, "go_backs"));
		printf("  receiver     reorder distance p99 %.0f, max %.0f; ordering memory mean "
		       "%.0f B, most %.0f B\n",
		       num(re, "ood_p99"), num(re, "ood_max"), num(re, "mem_mean"),
		       num(re, "mem_high"));
		printf("  rig          %.0f send-queue full, %.0f receive overflows\n",
		       num(se, "tx_full") + num(re, "tx_full"),
		       num(se, "rx_overflow") + num(re, "rx_overflow"));
		r = RL_EXIT_OK;
	} else {
		double secs = num(se, "seconds"), deliv = num(re, "delivered");

		printf("%s -> %s: %s, %.2f s\n", from, to,
		       p->single_path ? "single path (go-back-N)" : "MP-RDMA", secs);
		printf("  goodput      %.1f Mbit/s (%.0f packets of %d B delivered in order)\n",
		       secs > 0 ? deliv * MPR_WIRE_PAYLOAD * 8 / secs / 1e6 : 0, deliv,
		       MPR_WIRE_PAYLOAD);
		printf("  sent         %.0f (%.0f retransmitted, %.0f probes), %zu VPs used\n",
		       num(se, "sent"), num(se, "retx"), num(se, "probes"),
		       json_array_size(json_object_get(se, "per_vp")));
		printf("  ACKs         %.0f (%.0f NACKs), %.0f prunes, %.0f RTOs\n",
		       num(se, "acks"), num(se, "nacks"), num(se, "prunes"), num(se, "rtos"));
		printf("  receiver     OOD p99.9 %.0f, max %.0f; %.0f dropped beyond the bitmap; "
		       "%.0f CE (%s)\n",
		       num(re, "ood_p999"), num(re, "ood_max"), num(re, "overflow_drops"),
		       num(re, "ce"), !strcmp(p->ecn, "sojourn") ? "emulated" : p->ecn);
		printf("  rig          %.0f send-queue full, %.0f receive overflows, payload "
		       "errors %.0f\n",
		       num(se, "tx_full") + num(re, "tx_full"),
		       num(se, "rx_overflow") + num(re, "rx_overflow"), num(re, "pattern_bad"));
		r = RL_EXIT_OK;
	}
out:
	json_decref(se);
	json_decref(re);
	lab_close(&l);
	/* A folder of our own goes once the summary is out; kept (and named above) on failure. */
	if (!outdir && r == RL_EXIT_OK) {
		unlink(slog);
		unlink(rlog);
		rmdir(dir);
	}
	inventory_free(inv);
	return r;
}

int cmd_transport(int argc, char **argv)
{
	static const struct option own[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"from", required_argument, NULL, 'F'},
	    {"to", required_argument, NULL, 'T'},
	    {"at", required_argument, NULL, 'A'},
	    {"json", no_argument, NULL, 'j'},
	    {"out", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct option lo[80];
	struct ep_params p;
	const char *inv_path = NULL, *from = NULL, *to = NULL, *at = NULL, *outdir = NULL, *verb;
	enum ep_ecn ecn;
	bool json = false;
	struct inventory *inv;
	char err[300], cmd[32];
	int o, r;

	ep_defaults(&p);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return help(argc < 2 ? stderr : stdout), argc < 2 ? RL_EXIT_USAGE : RL_EXIT_OK;
	verb = argv[1];
	if (!strcmp(verb, "sim"))
		return cmd_transport_sim(argc - 1, argv + 1);
	if (strcmp(verb, "run") && strcmp(verb, "send") && strcmp(verb, "recv") &&
	    strcmp(verb, "paths"))
		return rl_usage_error("transport", "'%s': give run, send, recv, paths or sim",
				      verb);
	snprintf(cmd, sizeof(cmd), "transport %s", verb);
	opt_longopts(ep_opts, OPT_BASE, own, lo, ARRAY_SIZE(lo));
	argc--, argv++;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":i:o:jh", lo, NULL)) != -1) {
		switch (o) {
		case 'i':
			inv_path = optarg;
			break;
		case 'F':
			from = optarg;
			break;
		case 'T':
			to = optarg;
			break;
		case 'A':
			at = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'h':
			return help(stdout), RL_EXIT_OK;
		case ':':
			return rl_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (o >= OPT_BASE &&
			    !opt_set(&ep_opts[o - OPT_BASE], &p, optarg, err, sizeof(err)))
				break;
			if (o >= OPT_BASE)
				return rl_usage_error(cmd, "--%s", err);
			return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return rl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (ep_check(&p, &ecn, err, sizeof(err)))
		return rl_usage_error(cmd, "%s", err);
	if (strcmp(verb, "recv") ? !from || !to : !at)
		return rl_usage_error(cmd, "%s",
				      strcmp(verb, "recv")
					  ? "give --from HOST:RNIC and --to HOST:RNIC"
					  : "give --at HOST:RNIC");
	if (!strcmp(verb, "run"))
		return do_run(inv_path, from, to, outdir, &p, json);
	if (!(inv = lab_target_inventory(inv_path)))
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	rl_signals_install();
	if (!strcmp(verb, "send"))
		r = ep_send(inv, from, to, &p, &rl_interrupted, stdout);
	else if (!strcmp(verb, "paths"))
		r = ep_paths(inv, from, to, &p, &rl_interrupted, stdout);
	else
		r = ep_recv(inv, at, &p, &rl_interrupted, stdout);
	inventory_free(inv);
	return r;
}
