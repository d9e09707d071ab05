// SPDX-License-Identifier: MIT
/*
 * 'rocelab load rc': a load in RDMA terms, RC WRITEs over rdma-core (transport/dp/rcload.h), run
 * on a lab's host as 'rocelab run' starts it there: '--serve' on the receiving RNIC's host, then
 * the senders on theirs.  Every other 'rocelab load' goes to cmd_load (injectors/cmd).
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "injectors/cmd/inject.h"
#include "transport/dp/rcload.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness/cli/cli.h"

#define bad(...) rl_usage_error("load rc", __VA_ARGS__)

enum { O_COMMON = 0x200 };

struct rc_args {
	char inv[PATH_MAX], host[INV_NAME_MAX + 1], rnic[INV_NAME_MAX + 1], flows[2048];
	long long for_ms;
	int priority, dscp, size, pps, port, depth, timeout;
	bool serve, progress;
};

#define RA(f) offsetof(struct rc_args, f)

static const struct opt_desc rc_opts[] = {
    {.name = "inventory",
     .type = OPT_STR,
     .off = RA(inv),
     .size = PATH_MAX,
     .help = "the lab's inventory"},
    {.name = "host",
     .type = OPT_STR,
     .off = RA(host),
     .size = INV_NAME_MAX + 1,
     .help = "the host this runs on"},
    {.name = "serve", .type = OPT_BOOL, .off = RA(serve), .help = "receive on --rnic"},
    {.name = "rnic",
     .type = OPT_STR,
     .off = RA(rnic),
     .size = INV_NAME_MAX + 1,
     .help = "--serve: the receiving RNIC of --host"},
    {.name = "flows",
     .type = OPT_STR,
     .off = RA(flows),
     .size = 2048,
     .help = "sending: RNIC:ADDRESS[,...], from an RNIC of --host to the receiver's address"},
    {"for", OPT_MS, 10, 3600000, RA(for_ms), "how long"},
    {"pps", OPT_INT, 0, 10000000, RA(pps), "WRITEs per second per flow (0: as fast as it can)"},
    {"size", OPT_INT, 1, RCL_SIZE_MAX, RA(size), "bytes a WRITE"},
    {"depth", OPT_INT, 1, 1024, RA(depth), "WRITEs a flow keeps outstanding at most"},
    {"qp-timeout", OPT_INT, 1, 31, RA(timeout),
     "the QPs' ACK timeout, 4.096 us << N (18: 1.07 s, NCCL's; 14: ibv_rc_pingpong's)"},
    {"priority", OPT_INT, 0, 7, RA(priority), "PFC priority (DSCP class selector)"},
    {"dscp", OPT_INT, 0, 63, RA(dscp),
     "the DSCP sent (without it: the priority's class selector, priority << 3)"},
    {"port", OPT_INT, 1024, 65535, RA(port), "the TCP port of the exchange at the receiver"},
    {.name = "progress",
     .type = OPT_BOOL,
     .off = RA(progress),
     .help = "what each flow has had completed, every 100 ms on stdout: 'sent FLOW SECONDS "
	     "COUNT REFUSED'"},
    OPT_TABLE_END,
};

/* Whether a is an RNIC's address in the inventory (ctx): the only peers and receivers. */
static bool lab_rnic(struct in_addr a, void *ctx)
{
	const struct inventory *inv = ctx;

	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t r = 0; r < inv->hosts[h].n_rnics; r++)
			if (inv->hosts[h].rnics[r].addr.addr.s_addr == a.s_addr)
				return true;
	return false;
}

static const struct inv_rnic *host_rnic(const struct inv_host *h, const char *name)
{
	for (size_t r = 0; r < h->n_rnics; r++)
		if (!strcmp(h->rnics[r].name, name))
			return &h->rnics[r];
	return NULL;
}

static int load_rc(int argc, char **argv)
{
	static const struct option own[] = {{"help", no_argument, NULL, 'h'}, {0}};
	struct rc_args a = {.for_ms = 5000,
			    .priority = 3,
			    .dscp = -1,
			    .size = 1000,
			    .pps = 1000,
			    .port = RCL_PORT,
			    .depth = 64,
			    .timeout = RCL_TIMEOUT},
		       def = a;
	struct rcl_flow flows[RCL_FLOWS];
	struct option lo[20];
	struct inventory *inv;
	const struct inv_host *h;
	char msg[300], given[2048], *save = NULL;
	size_t n = 0;
	uint8_t tos;
	int c, rc;

	optind = 1;
	opterr = 0;
	opt_longopts(rc_opts, O_COMMON, own, lo, ARRAY_SIZE(lo));
	while ((c = getopt_long(argc, argv, ":i:h", lo, NULL)) != -1) {
		if (c == 'h') {
			fputs("usage: rocelab load rc -i INVENTORY --host HOST --serve --rnic RNIC "
			      "[options]\n"
			      "       rocelab load rc -i INVENTORY --host HOST --flows "
			      "RNIC:ADDRESS[,...] "
			      "[options]\n"
			      "A load in RDMA terms: RDMA WRITEs on RC QPs over rdma-core (as "
			      "ib_write_bw), from\nthis host's RNICs to one RNIC, which '--serve' "
			      "runs first on its host; the two ends\nexchange QPNs over TCP at the "
			      "receiver's address.  What 'rocelab run' starts for a\nscenario's "
			      "load with 'transport: rc'.\n\n",
			      stdout);
			opt_help(rc_opts, &def, 2, stdout);
			return RL_EXIT_OK;
		}
		if (c == 'i')
			snprintf(a.inv, sizeof(a.inv), "%s", optarg);
		else if (c == ':')
			return bad("option '%s' needs a value", argv[optind - 1]);
		else if (c < O_COMMON)
			return bad("unknown option '%s'", argv[optind - 1]);
		else if (opt_set(&rc_opts[c - O_COMMON], &a, optarg, msg, sizeof(msg)))
			return bad("--%s", msg);
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (!a.inv[0] || !a.host[0] || a.serve == !!a.flows[0] || (a.serve && !a.rnic[0]))
		return bad("needs -i INVENTORY, --host HOST, and --serve --rnic RNIC or --flows "
			   "RNIC:ADDRESS[,...]");
	if (!(inv = inventory_load(a.inv, stderr)))
		return RL_EXIT_USAGE;
	if (!(h = inventory_host(inv, a.host))) {
		inventory_free(inv);
		return bad("--host %s is not a host of %s", a.host, a.inv);
	}
	tos = (uint8_t)((a.dscp >= 0 ? a.dscp : a.priority << 3) << 2);
	rl_signals_install();
	if (a.serve) {
		const struct inv_rnic *r = host_rnic(h, a.rnic);
		struct rcl_serve_cfg sc;

		if (!r) {
			inventory_free(inv);
			return bad("--rnic %s is not an RNIC of %s", a.rnic, a.host);
		}
		sc = (struct rcl_serve_cfg){.rnic = pt_rnic_cfg(r, tos),
					    .timeout = a.timeout,
					    .port = (uint16_t)a.port,
					    .ms = a.for_ms,
					    .peer_ok = lab_rnic,
					    .ctx = inv};
		rc = rcl_serve(&sc, msg, sizeof(msg));
		if (rc < 0)
			rl_err("%s", msg);
		else
			printf("load rc: %s:%s served %d flow(s)\n", a.host, a.rnic, rc);
		inventory_free(inv);
		return rc < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
	}
	snprintf(given, sizeof(given), "%s", a.flows);
	for (char *t = strtok_r(a.flows, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(t, ':');
		const struct inv_rnic *r;

		if (colon)
			*colon = '\0';
		r = host_rnic(h, t);
		if (!colon || !r || n == ARRAY_SIZE(flows) ||
		    inet_pton(AF_INET, colon + 1, &flows[n].dst) != 1 ||
		    !lab_rnic(flows[n].dst, inv)) {
			inventory_free(inv);
			return bad(
			    "--flows: '%s%s%s' is not RNIC:ADDRESS with an RNIC of %s and an "
			    "RNIC's address of the lab (at most %d flows)",
			    t, colon ? ":" : "", colon ? colon + 1 : "", a.host, RCL_FLOWS);
		}
		flows[n++].src = pt_rnic_cfg(r, tos);
	}
	setpriority(PRIO_PROCESS, 0, 19); /* as the UDP loads: never before the agents */
	struct rcl_send_cfg sc = {.flows = flows,
				  .n = n,
				  .port = (uint16_t)a.port,
				  .size = a.size,
				  .pps = (unsigned long long)a.pps,
				  .ms = a.for_ms,
				  .tos = tos,
				  .depth = a.depth,
				  .timeout = a.timeout,
				  .progress_fd = a.progress ? STDOUT_FILENO : -1};
	long long done = rcl_send(&sc, msg, sizeof(msg));

	if (done < 0)
		rl_err("%s", msg);
	else
		printf("load rc: %zu flow(s) from %s (%s), %d pps each: %lld WRITEs of %d bytes "
		       "completed\n",
		       n, a.host, given, a.pps, done, a.size);
	inventory_free(inv);
	return done < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
}

int cmd_load_any(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "rc"))
		return load_rc(argc - 1, argv + 1);
	return cmd_load(argc, argv);
}
