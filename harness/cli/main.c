// SPDX-License-Identifier: MIT
/* The rocelab command line: table-driven subcommands, results on stdout, logs on stderr. */
#define _GNU_SOURCE
#include "harness/lab/lab.h"
#include "harness/lab/trust.h"
#include "harness/lab/vlab.h"
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/invgen.h"
#include "harness/lib/out.h"
#include "harness/lib/sshc.h"
#include "harness/lib/state.h"
#include "harness/lib/topo.h"
#include "harness/lib/version.h"
#include "harness/run/runner.h"
#include "injectors/cmd/inject.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/trace.h"
#include "reports/report.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* Common options: -i INVENTORY, -j (JSON), -q, -v, -h. */
struct opts {
	const char *inventory;
	bool json, quiet, help;
	bool stop_at_arg; /* options end at the first argument (lab ssh SWITCH CMD -x ...) */
};

#define usage_error(...) rl_usage_error(NULL, __VA_ARGS__)

/*
 * Parse the common options plus extra long options; unknown options are usage
 * errors.  extra_fn handles extra options and returns nonzero to reject.
 */
static int parse_opts(int argc, char **argv, struct opts *o, const struct option *extra,
		      int (*extra_fn)(int c, const char *arg, void *ctx), void *ctx)
{
	struct option lo[32] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"json", no_argument, NULL, 'j'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	};
	size_t n = 5;
	int c;

	for (; extra && extra[n - 5].name && n < ARRAY_SIZE(lo) - 1; n++)
		lo[n] = extra[n - 5];
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, o->stop_at_arg ? "+i:jqvh" : "i:jqvh", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'i':
			o->inventory = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			o->help = true;
			break;
		case '?':
			if (optopt)
				return usage_error("%s: unknown option '-%c'", argv[0], optopt);
			return usage_error("%s: unknown option '%s'", argv[0], argv[optind - 1]);
		case ':':
			return usage_error("%s: option '%s' needs a value", argv[0],
					   argv[optind - 1]);
		default:
			if (!extra_fn || extra_fn(c, optarg, ctx))
				return RL_EXIT_USAGE;
		}
	}
	return 0;
}

static int dispatch(const struct cmd *tbl, const char *what, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: rocelab %s COMMAND [options]\n\ncommands:\n", what);
		for (const struct cmd *c = tbl; c->name; c++)
			fprintf(f, "  %-10s %s\n", c->name, c->summary);
		fprintf(f, "\nEach command takes --help.\n");
		return argc < 2 ? RL_EXIT_USAGE : RL_EXIT_OK;
	}
	for (const struct cmd *c = tbl; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->fn(argc - 1, argv + 1);
	return usage_error("unknown %s command '%s'", what, argv[1]);
}

/* ---- lab ------------------------------------------------------------- */

static const char lab_up_help[] =
    "usage: rocelab lab up [-i INVENTORY] [--remote] [-q]\n"
    "Build the virtual lab: a network namespace per host and switch, a veth per link,\n"
    "ECMP routing, per-RNIC policy routing on hosts, and an sshd per switch.\n"
    "Default inventory: the built-in " VLAB_BUILTIN_INVENTORY ".\n"
    "--remote   an sshd in every host namespace too, and the lab written as an inventory\n"
    "           of kind ssh ('lab status' names it): run with it, rocelab reaches every\n"
    "           host and switch over SSH only, as on a real lab\n";
static const char lab_down_help[] =
    "usage: rocelab lab down [-q]\n"
    "Remove the lab that is up (or its leftovers): processes, namespaces, veths, the\n"
    "management bridge and the state directory.\n";
static const char lab_status_help[] =
    "usage: rocelab lab status [-j]\n"
    "Show the lab that is up: hosts and RNICs, switches and their sshd, link states.\n"
    "Exit 3 when no lab is up.\n";
static const char lab_ssh_help[] =
    "usage: rocelab lab ssh [-i INVENTORY] SWITCH COMMAND...\n"
    "Run COMMAND on SWITCH over SSH (libssh, strict host-key checking against the lab's\n"
    "known_hosts). Prints its output; exits with its exit status, or 3 if the login fails.\n"
    "Without -i the switch is one of the lab that is up.\n";

static int set_flag(int c, const char *arg, void *ctx)
{
	(void)c, (void)arg;
	*(bool *)ctx = true;
	return 0;
}

static int lab_up(int argc, char **argv)
{
	static const struct option extra[] = {{"remote", no_argument, NULL, 'R'}, {0}};
	struct opts o = {0};
	char buf[PATH_MAX];
	bool remote = false;
	int r = parse_opts(argc, argv, &o, extra, set_flag, &remote);

	if (r)
		return r;
	if (o.help)
		return fputs(lab_up_help, stdout), 0;
	if (optind != argc)
		return usage_error("lab up: unexpected argument '%s'", argv[optind]);
	return vlab_up(o.inventory ? o.inventory : vlab_builtin_inventory(buf, sizeof(buf)),
		       o.quiet, remote);
}

static int lab_down(int argc, char **argv)
{
	struct opts o = {0};
	int r = parse_opts(argc, argv, &o, NULL, NULL, NULL);

	if (r)
		return r;
	if (o.help)
		return fputs(lab_down_help, stdout), 0;
	if (optind != argc)
		return usage_error("lab down: unexpected argument '%s'", argv[optind]);
	return vlab_down(o.quiet);
}

static int lab_status(int argc, char **argv)
{
	struct opts o = {0};
	int r = parse_opts(argc, argv, &o, NULL, NULL, NULL);

	if (r)
		return r;
	if (o.help)
		return fputs(lab_status_help, stdout), 0;
	if (optind != argc)
		return usage_error("lab status: unexpected argument '%s'", argv[optind]);
	return vlab_status(o.json);
}

/* The lab that is up, or a clear error. */
static struct inventory *running_inventory(void)
{
	struct inventory *inv = vlab_inventory(stderr);

	if (!inv && errno == ENOENT)
		rl_err("no lab is up: start one with 'rocelab lab up'");
	return inv;
}

static const char lab_trust_help[] =
    "usage: rocelab lab trust [-i INVENTORY] [--known-hosts FILE] [--yes] [-j]\n"
    "Read the host key of every device the lab reaches over SSH and print its type,\n"
    "SHA256 fingerprint and state against the lab's known_hosts: known, new, or CHANGED.\n"
    "With --yes, new keys are added; nothing is written while any device is unreachable\n"
    "or has a key other than the one on file (exit 3).  known_hosts: the virtual lab's\n"
    "own while it is up, else $ROCELAB_LIB_DIR/known_hosts (default /var/lib/rocelab).\n"
    "Without -i the lab is the one that is up.\n";

struct trust_opts {
	bool yes;
	const char *known_hosts;
};

static int trust_opt(int c, const char *arg, void *ctx)
{
	struct trust_opts *t = ctx;

	if (c == 'y')
		t->yes = true;
	else if (c == 'K')
		t->known_hosts = arg;
	else
		return -1;
	return 0;
}

static int lab_trust_cmd(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"yes", no_argument, NULL, 'y'},
	    {"known-hosts", required_argument, NULL, 'K'},
	    {0},
	};
	struct trust_opts to = {0};
	struct opts o = {0};
	struct inventory *inv;
	struct lab lab;
	int r = parse_opts(argc, argv, &o, extra, trust_opt, &to);

	if (r)
		return r;
	if (o.help)
		return fputs(lab_trust_help, stdout), 0;
	if (optind != argc)
		return usage_error("lab trust: unexpected argument '%s'", argv[optind]);
	if (to.known_hosts && strlen(to.known_hosts) >= sizeof(lab.known_hosts))
		return usage_error("lab trust: --known-hosts path too long");
	inv = lab_target_inventory(o.inventory);
	if (!inv)
		return o.inventory ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	lab_open(&lab, inv);
	if (to.known_hosts)
		snprintf(lab.known_hosts, sizeof(lab.known_hosts), "%s", to.known_hosts);
	r = lab_trust(&lab, to.yes, o.json);
	lab_close(&lab);
	inventory_free(inv);
	return r;
}

static int lab_ssh(int argc, char **argv)
{
	struct opts o = {.stop_at_arg = true};
	struct inventory *inv;
	struct lab lab;
	struct sshc_target t;
	struct sshc *c;
	char err[512], cmd[8192] = "";
	char *out = NULL, *errout = NULL;
	int r = parse_opts(argc, argv, &o, NULL, NULL, NULL);

	if (r)
		return r;
	if (o.help)
		return fputs(lab_ssh_help, stdout), 0;
	if (argc - optind < 2)
		return usage_error("lab ssh: give a switch and a command");
	for (int i = optind + 1; i < argc; i++) {
		if (strlen(cmd) + strlen(argv[i]) + 2 >= sizeof(cmd))
			return usage_error("lab ssh: command too long");
		strcat(cmd, i > optind + 1 ? " " : "");
		strcat(cmd, argv[i]);
	}
	inv = lab_target_inventory(o.inventory);
	if (!inv)
		return o.inventory ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	lab_open(&lab, inv);
	if (lab_ssh_target(&lab, argv[optind], &t)) {
		rl_err("lab ssh: no device named '%s' with a management address in %s",
		       argv[optind], inv->path);
		r = RL_EXIT_USAGE;
		goto close_lab;
	}
	c = sshc_connect(&t, 10, err, sizeof(err));
	if (!c) {
		rl_err("lab ssh: %s", err);
		r = RL_EXIT_SETUP;
		goto close_lab;
	}
	r = sshc_exec(c, cmd, NULL, &out, &errout, 30000);
	fputs(out, stdout);
	fputs(errout, stderr);
	if (r < 0) {
		rl_err("lab ssh: %s: %s", t.name, strerror(-r));
		r = RL_EXIT_SETUP;
	}
	free(out);
	free(errout);
	sshc_close(c);
close_lab:
	lab_close(&lab);
	inventory_free(inv);
	return r;
}

static const struct cmd lab_cmds[] = {
    {"up", lab_up, "bring the virtual lab up"},
    {"down", lab_down, "remove the virtual lab and everything of it"},
    {"status", lab_status, "show the lab that is up (-j: JSON)"},
    {"ssh", lab_ssh, "run a command on a switch over SSH"},
    {"trust", lab_trust_cmd, "show the SSH host keys of a lab's devices; record new ones"},
    {0},
};

static int cmd_lab(int argc, char **argv)
{
	return dispatch(lab_cmds, "lab", argc, argv);
}

/* ---- inventory --------------------------------------------------------- */

static const char inv_check_help[] =
    "usage: rocelab inventory check [--virtual] [-j] FILE...\n"
    "Parse and validate inventories without touching any lab. Errors are printed as\n"
    "file:line:col: message. --virtual also checks what a virtual lab needs\n"
    "(two tiers, addresses in 198.18.0.0/15). Exit 2 when any file is invalid.\n";
static const char inv_gen_help[] =
    "usage: rocelab inventory gen [--hosts N] [--rnics N] [--spines N] [--name NAME] [--speed S]\n"
    "Print a rail-optimized virtual-lab inventory (defaults: 4 hosts, 4 RNICs, 4 spines).\n";

static int check_virtual;

static int inv_check_opt(int c, const char *arg, void *ctx)
{
	(void)arg;
	(void)ctx;
	if (c == 'V') {
		check_virtual = 1;
		return 0;
	}
	return 1;
}

static int inv_check(int argc, char **argv)
{
	static const struct option extra[] = {{"virtual", no_argument, NULL, 'V'}, {0}};
	struct opts o = {0};
	int r = parse_opts(argc, argv, &o, extra, inv_check_opt, NULL), ret = RL_EXIT_OK;

	if (r)
		return r;
	if (o.help)
		return fputs(inv_check_help, stdout), 0;
	if (optind >= argc)
		return usage_error("inventory check: give at least one file");
	for (int i = optind; i < argc; i++) {
		struct inventory *inv = inventory_load(argv[i], stderr);
		struct topo *t = inv ? topo_build(inv, check_virtual, stderr) : NULL;
		size_t nr = 0;

		struct out out;

		out_init(&out, stdout, o.json ? OUT_JSON_LINES : OUT_TEXT);
		out_open_object(&out, NULL);
		out_string(&out, PRINT_JSON, "file", NULL, argv[i]);
		out_bool(&out, PRINT_JSON, "valid", NULL, inv && t);
		if (!inv || !t) { /* the loader said what and where on stderr */
			ret = RL_EXIT_USAGE;
			out_close(&out);
			inventory_free(inv);
			continue;
		}
		for (size_t h = 0; h < inv->n_hosts; h++)
			nr += inv->hosts[h].n_rnics;
		out_text(&out, "%s: ok: ", argv[i]);
		out_string(&out, PRINT_ANY, "lab", "lab %s", inv->name);
		out_uint(&out, PRINT_ANY, "hosts", ", %llu hosts", inv->n_hosts);
		out_uint(&out, PRINT_ANY, "rnics", ", %llu RNICs", nr);
		out_uint(&out, PRINT_ANY, "switches", ", %llu switches", inv->n_switches);
		out_uint(&out, PRINT_ANY, "links", ", %llu links\n", inv->n_links);
		out_close(&out);
		topo_free(t);
		inventory_free(inv);
	}
	return ret;
}

static int parse_count(const char *arg, const char *what, int *v)
{
	char *end;
	long x = strtol(arg, &end, 10);

	if (*end || end == arg || x < 1 || x > 1000) {
		usage_error("%s must be a whole number from 1 to 1000, not '%s'", what, arg);
		return 1;
	}
	*v = (int)x;
	return 0;
}

static int inv_gen_opt(int c, const char *arg, void *ctx)
{
	struct invgen_opts *g = ctx;

	switch (c) {
	case 'H':
		return parse_count(arg, "--hosts", &g->hosts);
	case 'R':
		return parse_count(arg, "--rnics", &g->rnics);
	case 'S':
		return parse_count(arg, "--spines", &g->spines);
	case 'N':
		g->name = arg;
		return 0;
	case 'P': {
		unsigned long long m;

		if (rl_parse_rate_mbps(arg, &m) || !m || !rl_name_ok(arg, 16)) {
			usage_error("--speed '%s' is not a rate such as 100g", arg);
			return 1;
		}
		g->speed = arg;
		return 0;
	}
	}
	return 1;
}

static int inv_gen(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"hosts", required_argument, NULL, 'H'},  {"rnics", required_argument, NULL, 'R'},
	    {"spines", required_argument, NULL, 'S'}, {"name", required_argument, NULL, 'N'},
	    {"speed", required_argument, NULL, 'P'},  {0},
	};
	struct invgen_opts g = {
	    .name = "vlab-rail", .hosts = 4, .rnics = 4, .spines = 4, .speed = "100g"};
	struct opts o = {0};
	int r = parse_opts(argc, argv, &o, extra, inv_gen_opt, &g);

	if (r)
		return r;
	if (o.help)
		return fputs(inv_gen_help, stdout), 0;
	if (optind != argc)
		return usage_error("inventory gen: unexpected argument '%s'", argv[optind]);
	return invgen_write(stdout, &g) ? RL_EXIT_USAGE : RL_EXIT_OK;
}

static const struct cmd inventory_cmds[] = {
    {"check", inv_check, "validate inventory files (file:line:col errors)"},
    {"gen", inv_gen, "generate a rail-optimized virtual-lab inventory"},
    {0},
};

static int cmd_inventory(int argc, char **argv)
{
	return dispatch(inventory_cmds, "inventory", argc, argv);
}

/* ---- trace ------------------------------------------------------------- */

static const char trace_help[] =
    "usage: rocelab trace FROM TO [--sport N] [--dport N] [--max-ttl N] [--timeout MS] [-j]\n"
    "Trace the fabric path of one UDP 5-tuple from RNIC FROM to RNIC TO (host:rnic) in\n"
    "the lab that is up, and name the inventory link each hop came in on.\n"
    "Defaults: --sport 49152 --dport 4791 (RoCEv2) --max-ttl 8 --timeout 300.\n";

static int trace_opt(int c, const char *arg, void *ctx)
{
	struct trace_req *t = ctx;
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg)
		v = -1;
	switch (c) {
	case 's':
	case 'd':
		if (v < 1 || v > 65535) {
			usage_error("port '%s' is not 1..65535", arg);
			return 1;
		}
		*(c == 's' ? &t->sport : &t->dport) = (uint16_t)v;
		return 0;
	case 't':
		if (v < 1 || v > TRACE_MAX_HOPS) {
			usage_error("--max-ttl '%s' is not 1..%d", arg, TRACE_MAX_HOPS);
			return 1;
		}
		t->max_ttl = (int)v;
		return 0;
	case 'w':
		if (v < 1 || v > 10000) {
			usage_error("--timeout '%s' is not 1..10000 ms", arg);
			return 1;
		}
		t->timeout_ms = (int)v;
		return 0;
	}
	return 1;
}

/* What stands behind a hop address: its device, the port facing us and that port's link. */
struct hop_names {
	const char *device;
	char port[80], link[170];
};

static void describe_hop(const struct inventory *inv, const struct topo *t,
			 const struct trace_hop *h, struct inv_endpoint *prev, struct hop_names *hn)
{
	struct inv_endpoint ep;
	bool any;

	*hn = (struct hop_names){0};
	if (!h->addr.s_addr || topo_owner(t, h->addr, &ep, &any))
		return;
	hn->device = inventory_device_name(inv, &ep);
	if (any) {
		/* A shared gateway: the port is the one facing the previous hop. */
		for (size_t i = 0; i < inv->n_links; i++) {
			const struct inv_link *l = &inv->links[i];
			const struct inv_endpoint *x = &l->a, *y = &l->b;

			for (int k = 0; k < 2; k++, x = &l->b, y = &l->a) {
				if (x->kind == ep.kind && x->dev == ep.dev &&
				    y->kind == prev->kind && y->dev == prev->dev &&
				    (y->kind != INV_DEV_HOST || y->port == prev->port)) {
					ep.port = x->port;
					any = false;
				}
			}
		}
	}
	if (!any) {
		const struct inv_link *l = inventory_link_at(inv, &ep);
		char an[80], bn[80];

		inventory_endpoint_name(inv, &ep, hn->port, sizeof(hn->port));
		if (l)
			snprintf(hn->link, sizeof(hn->link), "%s -- %s",
				 inventory_endpoint_name(inv, &l->a, an, 80),
				 inventory_endpoint_name(inv, &l->b, bn, 80));
	}
	*prev = ep;
}

static int cmd_trace(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"sport", required_argument, NULL, 's'},
	    {"dport", required_argument, NULL, 'd'},
	    {"max-ttl", required_argument, NULL, 't'},
	    {"timeout", required_argument, NULL, 'w'},
	    {0},
	};
	struct trace_req req = {
	    .sport = 49152, .dport = ROCEV2_UDP_PORT, .max_ttl = 8, .timeout_ms = 300};
	struct trace_hop hops[TRACE_MAX_HOPS];
	struct inv_endpoint from, to;
	struct opts o = {0};
	struct inventory *inv;
	struct topo *t;
	struct lab lab;
	char msg[160];
	int n = 0, saved, r = parse_opts(argc, argv, &o, extra, trace_opt, &req);

	if (r)
		return r;
	if (o.help)
		return fputs(trace_help, stdout), 0;
	if (argc - optind != 2)
		return usage_error("trace: give FROM and TO as host:rnic");
	inv = running_inventory();
	if (!inv)
		return RL_EXIT_SETUP;
	for (int k = 0; k < 2; k++) {
		struct inv_endpoint *ep = k ? &to : &from;

		if (inventory_endpoint(inv, argv[optind + k], ep, msg, sizeof(msg)) ||
		    ep->kind != INV_DEV_HOST) {
			usage_error("trace: %s", ep->kind != INV_DEV_HOST && !msg[0]
						     ? "FROM and TO must be host RNICs"
						     : msg);
			inventory_free(inv);
			return RL_EXIT_USAGE;
		}
		msg[0] = '\0';
	}
	t = topo_build(inv, true, stderr);
	if (!t) {
		inventory_free(inv);
		return RL_EXIT_USAGE;
	}
	req.src = inv->hosts[from.dev].rnics[from.port].addr.addr;
	req.dst = inv->hosts[to.dev].rnics[to.port].addr.addr;
	rl_signals_install();
	lab_open(&lab, inv);
	r = lab_enter(&lab, inv->hosts[from.dev].name, &saved);
	if (r == 0) {
		r = trace_udp(&req, hops, &n);
		lab_leave(&lab, saved);
	} else {
		rl_err("trace: cannot send from %s: %s", inv->hosts[from.dev].name, strerror(-r));
	}
	lab_close(&lab);

	struct inv_endpoint prev = from;
	struct out out;

	out_init(&out, stdout, o.json ? OUT_JSON : OUT_TEXT);
	out_open_object(&out, NULL);
	out_string(&out, PRINT_ANY, "from", "trace %s", argv[optind]);
	out_string(&out, PRINT_ANY, "to", " -> %s", argv[optind + 1]);
	out_uint(&out, PRINT_ANY, "sport", " udp sport %llu", req.sport);
	out_uint(&out, PRINT_ANY, "dport", " dport %llu\n", req.dport);
	out_bool(&out, PRINT_JSON, "reached", NULL, r == 0);
	out_open_array(&out, "hops");
	for (int i = 0; i < n; i++) {
		struct hop_names hn;

		describe_hop(inv, t, &hops[i], &prev, &hn);
		out_open_object(&out, NULL);
		out_int(&out, PRINT_ANY, "ttl", "%2lld", hops[i].ttl);
		if (hops[i].addr.s_addr)
			out_string(&out, PRINT_ANY, "address", "  %-15s", inet_ntoa(hops[i].addr));
		else
			out_null(&out, "address"), out_text(&out, "  %-15s", "*");
		out_float(&out, PRINT_JSON, "rtt_ms", NULL, 3, hops[i].rtt_ms);
		if (hn.device)
			out_string(&out, PRINT_ANY, "device", " %-8s", hn.device);
		else
			out_text(&out, " %-8s", "?");
		if (hn.port[0])
			out_string(&out, PRINT_JSON, "port", NULL, hn.port);
		if (hn.link[0])
			out_string(&out, PRINT_ANY, "link", " %s", hn.link);
		else
			out_text(&out, " ");
		out_text(&out, "\n");
		out_close(&out);
	}
	out_close(&out);
	out_text(&out, "%s\n", r == 0 ? "reached" : "not reached");
	out_close(&out);
	topo_free(t);
	inventory_free(inv);
	return r == 0 ? RL_EXIT_OK : RL_EXIT_FAIL;
}

/* ---- top level ----------------------------------------------------------- */

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("rocelab %s\n", ROCELAB_VERSION);
	return 0;
}

/* ---- run: the run engine, writing through the reports layer ------------------------ */

static void scenario_reported(const struct run_info *ri, struct scn_result *r)
{
	report_incident(ri, r);
}

static int run_reported(const struct run_info *ri, struct scn_result *r, size_t n)
{
	int a = report_results_json(ri, r, n), b = report_junit(ri, r, n);

	return a ? a : b;
}

static int cmd_run_reported(int argc, char **argv)
{
	static const struct run_sink sink = {scenario_reported, run_reported};

	return cmd_run(argc, argv, &sink);
}

static const struct cmd top_cmds[] = {
    {"lab", cmd_lab, "bring the virtual lab up or down, show it, ssh into switches"},
    {"inventory", cmd_inventory, "validate or generate lab inventories"},
    {"inject", cmd_inject, "inject a fault (journaled, verified, reverted)"},
    {"revert", cmd_revert, "undo every outstanding fault of the journal"},
    {"faults", cmd_faults, "list outstanding faults (-j: JSON)"},
    {"load", cmd_load, "generate load (incast) in the virtual lab"},
    {"trace", cmd_trace, "trace the fabric path of a UDP 5-tuple between two RNICs"},
    {"agent", cmd_agent, "run a probing agent (hostmesh) on a host"},
    {"run", cmd_run_reported, "run scenarios and grade the components under test"},
    {"analyze", cmd_analyze, "analyze agents' records: verdicts, drop rates, latency"},
    {"version", cmd_version, "print the version"},
    {0},
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")))
		return cmd_version(argc - 1, argv + 1);
	return dispatch(top_cmds, "", argc, argv);
}
