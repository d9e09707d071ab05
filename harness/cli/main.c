// SPDX-License-Identifier: MIT
/* The rocelab command line: table-driven subcommands, results on stdout, logs on stderr. */
#define _GNU_SOURCE
#include "harness/cli/agents.h"
#include "harness/lab/lab.h"
#include "harness/lab/trust.h"
#include "harness/lab/vlab.h"
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/invgen.h"
#include "harness/lib/opt.h"
#include "harness/lib/out.h"
#include "harness/lib/sshc.h"
#include "harness/lib/state.h"
#include "harness/lib/topo.h"
#include "harness/lib/version.h"
#include "harness/run/registry.h"
#include "harness/run/runner.h"
#include "harness/run/scenario.h"
#include "harness/run/scengen.h"
#include "injectors/cmd/inject.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/observe.h"
#include "probe/rpingmesh/rpingmesh.h"
#include "probe/trace.h"
#include "reports/history.h"
#include "reports/pages.h"
#include "reports/qualify.h"
#include "reports/report.h"
#include "transport/mpr_ep.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <glob.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	bool stop_at_arg;   /* options end at the first argument (lab ssh SWITCH CMD -x ...) */
	const char *shorts; /* the command's own short options ("n:"), handled by extra_fn */
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
	char shorts[32];
	int c;

	for (; extra && extra[n - 5].name && n < ARRAY_SIZE(lo) - 1; n++)
		lo[n] = extra[n - 5];
	optind = 1;
	opterr = 0;
	/* ':' first: a missing value is reported as such, not as an unknown option */
	snprintf(shorts, sizeof(shorts), "%s:i:jqvh%s", o->stop_at_arg ? "+" : "",
		 o->shorts ? o->shorts : "");
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
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

static int set_str(int c, const char *arg, void *ctx)
{
	(void)c;
	*(const char **)ctx = arg;
	return 0;
}

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
    "usage: rocelab inventory gen [--hosts N] [--rnics N] [--spines N] [--pods N] [--name NAME]\n"
    "                             [--speed S]\n"
    "Print a rail-optimized virtual-lab inventory (defaults: 4 hosts, 4 RNICs, 4 spines, 1 pod).\n"
    "--pods N: N rail groups of --hosts hosts each, every pod with its own --rnics rail\n"
    "switches, all sharing the spines; hosts are numbered across pods. Past 250 hosts or\n"
    "250 rail switches in all, a larger address plan inside 198.18.0.0/15 (the file's\n"
    "header says it): up to 10,000 hosts x 8 RNICs, e.g. --hosts 250 --pods 40.\n";

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
	case 'O':
		return parse_count(arg, "--pods", &g->pods);
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
	    {"hosts", required_argument, NULL, 'H'},
	    {"rnics", required_argument, NULL, 'R'},
	    {"spines", required_argument, NULL, 'S'},
	    {"name", required_argument, NULL, 'N'},
	    {"speed", required_argument, NULL, 'P'},
	    {"pods", required_argument, NULL, 'O'},
	    {0},
	};
	struct invgen_opts g = {
	    .name = "vlab-rail", .hosts = 4, .rnics = 4, .spines = 4, .pods = 1, .speed = "100g"};
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

/* ---- scenario ---------------------------------------------------------- */

static const char scn_gen_help[] =
    "usage: rocelab scenario gen --seed N -o DIR [-i INVENTORY] [--faults N] [--fault-free N]\n"
    "                            [--fault-free-phase DURATION] [--kinds LIST]\n"
    "Write random Hostmesh scenarios for an inventory (default: the built-in lab) into DIR\n"
    "(new or empty): the seed draws each one's fault kind, its target by role (rail, host,\n"
    "spine), its parameters and its load; the expectation (class, time to detect) follows\n"
    "from the kind and target. Each carries the CI suite's Hostmesh parameters and is\n"
    "checked by the scenario loader. Run them with 'rocelab run -i INVENTORY DIR/*.yaml'.\n"
    "  --faults N      fault scenarios (default 20)\n"
    "  --fault-free N  scenarios with no fault (default 2)\n"
    "  --fault-free-phase DURATION\n"
    "                  a fault-free scenario's fault phase, 1s to 1h (default 30s)\n"
    "  --kinds LIST    draw only from these kinds (comma-separated; default: every kind\n"
    "                  that fits the lab)\n";

struct scn_gen_args {
	struct scengen_opts g;
	bool seeded;
};

static int scn_gen_opt(int c, const char *arg, void *ctx)
{
	struct scn_gen_args *a = ctx;
	char *end;
	long v;

	switch (c) {
	case 's':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 0 || v > 0x7fffffffL) {
			usage_error("--seed '%s' is not a whole number from 0 to 2147483647", arg);
			return 1;
		}
		a->g.seed = (unsigned)v;
		a->seeded = true;
		return 0;
	case 'o':
		a->g.dir = arg;
		return 0;
	case 'F':
	case 'Z':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 0 || v > 999) {
			usage_error("%s '%s' is not a whole number from 0 to 999",
				    c == 'F' ? "--faults" : "--fault-free", arg);
			return 1;
		}
		*(c == 'F' ? &a->g.faults : &a->g.fault_free) = (int)v;
		return 0;
	case 'K':
		a->g.kinds = arg;
		return 0;
	case 'P':
		return opt_cli_ms("scenario gen", "--fault-free-phase", arg, 1000, 3600000,
				  &a->g.free_ms) != 0;
	}
	return 1;
}

static int scn_gen(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"seed", required_argument, NULL, 's'},
	    {"output", required_argument, NULL, 'o'},
	    {"faults", required_argument, NULL, 'F'},
	    {"fault-free", required_argument, NULL, 'Z'},
	    {"kinds", required_argument, NULL, 'K'},
	    {"fault-free-phase", required_argument, NULL, 'P'},
	    {0},
	};
	struct scn_gen_args a = {.g = {.faults = 20, .fault_free = 2}};
	struct opts o = {.shorts = "o:"};
	char builtin[PATH_MAX];
	struct inventory *inv;
	int r = parse_opts(argc, argv, &o, extra, scn_gen_opt, &a);

	if (r)
		return r;
	if (o.help)
		return fputs(scn_gen_help, stdout), 0;
	if (optind != argc)
		return usage_error("scenario gen: unexpected argument '%s'", argv[optind]);
	if (!a.seeded)
		return usage_error("scenario gen: give --seed N (the same seed writes the same "
				   "scenarios)");
	if (!a.g.dir)
		return usage_error("scenario gen: give -o DIR, a new or empty folder");
	a.g.inv_path = o.inventory ? o.inventory : lab_builtin_inventory(builtin, sizeof(builtin));
	if (!(inv = inventory_load(a.g.inv_path, stderr)))
		return RL_EXIT_USAGE;
	a.g.inv = inv;
	r = scengen_write(&a.g, o.quiet ? NULL : stdout);
	if (!r && !o.quiet)
		printf("scenario gen: seed %u: %d fault scenario(s), %d fault-free, in %s, for lab "
		       "'%s'\n",
		       a.g.seed, a.g.faults, a.g.fault_free, a.g.dir, inv->name);
	inventory_free(inv);
	return r ? RL_EXIT_USAGE : RL_EXIT_OK;
}

static const struct cmd scenario_cmds[] = {
    {"gen", scn_gen, "write random Hostmesh scenarios for an inventory"},
    {0},
};

static int cmd_scenario(int argc, char **argv)
{
	return dispatch(scenario_cmds, "scenario", argc, argv);
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

/* ---- history and compare ------------------------------------------------------------------ */

static const char history_help[] =
    "usage: rocelab history [SCENARIO] [--db FILE] [--lab NAME | -i INVENTORY] [-n N] [-j]\n"
    "       rocelab history --import [--db FILE] RESULTS_DIR...\n"
    "List the runs recorded in the run history, newest first: when, lab, seed, how many\n"
    "scenarios passed, failed or were invalid.  With SCENARIO, that scenario in each run:\n"
    "verdict, time to detect, rank of the fault's element, precision, false positives.\n"
    "  --db FILE     the history (default $ROCELAB_DB, else " STATE_LIB_DIR_DEFAULT
    "/history.sqlite)\n"
    "  --lab NAME    runs of this lab only (-i: of this inventory's lab)\n"
    "  -n N          at most N rows (default 20; 0: all)\n"
    "  --import      record runs from their results.json (runs made with --no-history, or\n"
    "                recorded in another history)\n"
    "  --html DIR    DIR/index.html: the runs, and per scenario a trend of its time to\n"
    "                detect and false positives with failed runs marked (gnuplot, inlined)\n"
    "exit: 0; 2 bad input; 3 no history or an unreadable one.\n";

static const char compare_help[] =
    "usage: rocelab compare [RUN_A [RUN_B]] [--db FILE] [--lab NAME | -i INVENTORY] [-j]\n"
    "                       [--ttd-margin S] [--margin FRAC] [--precision-margin P]\n"
    "Compare run B with run A scenario by scenario and print B's regressions: pass\n"
    "turned fail or invalid, a fault no longer detected or detected later, its element\n"
    "ranked lower, precision dropped, new false positives, and metrics worse in the\n"
    "direction the scenario's expectation names.  Improvements are listed too.\n"
    "A run is an id, a unique prefix of one, last, or last~N (N runs before the last).\n"
    "Default: B the last run (of --lab, else of the newest run's lab), A the one before.\n"
    "  --ttd-margin S        a detection later by at most S seconds, or a quarter of A's\n"
    "                        time when more, is noise (default 2: one CI window; give\n"
    "                        the monitor's window for the paper's 20 s windows)\n"
    "  --margin FRAC         a metric worse by at most FRAC of A's value is noise\n"
    "                        (default 0.1)\n"
    "  --precision-margin P  a drop in precision of at most P is noise (default 0.25)\n"
    "exit: 0 no regression; 1 regressions; 2 bad input; 3 no such run, or no history.\n";

struct hist_opts {
	const char *db, *lab, *html;
	long limit;
	bool import;
	struct history_margins m;
};

static int number_arg(const char *what, const char *arg, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = rl_strtod(arg, &end);
	if (errno || end == arg || *end || !(*v >= lo && *v <= hi))
		return usage_error("%s '%s': a number from %g to %g", what, arg, lo, hi);
	return 0;
}

static int hist_opt(int c, const char *arg, void *ctx)
{
	struct hist_opts *h = ctx;
	double v;

	switch (c) {
	case 'D':
		h->db = arg;
		return 0;
	case 'L':
		h->lab = arg;
		return 0;
	case 'I':
		h->import = true;
		return 0;
	case 'W':
		h->html = arg;
		return 0;
	case 'n':
		if (number_arg("-n", arg, 0, 1e9, &v))
			return RL_EXIT_USAGE;
		if (v != (long)v)
			return usage_error("-n '%s': a whole number of rows", arg);
		h->limit = (long)v;
		return 0;
	case 'T':
		return number_arg("--ttd-margin", arg, 0, 3600, &h->m.ttd_abs);
	case 'M':
		return number_arg("--margin", arg, 0, 10, &h->m.metric);
	case 'P':
		return number_arg("--precision-margin", arg, 0, 1, &h->m.precision);
	}
	return 1;
}

/* --lab, or the name of -i's inventory; NULL: any lab.  -1 when the inventory is bad. */
static int hist_lab(const struct opts *o, struct hist_opts *h, char *buf, size_t len)
{
	struct inventory *inv;

	if (!o->inventory)
		return 0;
	if (h->lab)
		return usage_error("give --lab or -i, not both");
	if (!(inv = inventory_load(o->inventory, stderr)))
		return RL_EXIT_USAGE;
	snprintf(buf, len, "%s", inv->name);
	inventory_free(inv);
	h->lab = buf;
	return 0;
}

static int history_import(const char *db, int argc, char **argv)
{
	char path[PATH_MAX], err[512];
	int ret = RL_EXIT_OK;

	if (optind == argc)
		return usage_error("history --import: give at least one RESULTS_DIR");
	for (int i = optind; i < argc; i++) {
		json_error_t je;
		json_t *root;

		snprintf(path, sizeof(path), "%s/results.json", argv[i]);
		if (!(root = json_load_file(path, 0, &je))) {
			rl_err("%s:%d:%d: %s", path, je.line, je.column, je.text);
			ret = RL_EXIT_USAGE;
			continue;
		}
		if (history_record(db, root, argv[i], err, sizeof(err))) {
			rl_err("history --import %s: %s", argv[i], err);
			ret = ret ? ret : RL_EXIT_SETUP;
		} else
			printf("recorded %s from %s\n",
			       json_string_value(json_object_get(root, "run_id")), path);
		json_decref(root);
	}
	return ret;
}

static const struct option hist_long[] = {
    {"db", required_argument, NULL, 'D'},
    {"lab", required_argument, NULL, 'L'},
    {"import", no_argument, NULL, 'I'},
    {"limit", required_argument, NULL, 'n'},
    {"ttd-margin", required_argument, NULL, 'T'},
    {"margin", required_argument, NULL, 'M'},
    {"precision-margin", required_argument, NULL, 'P'},
    {"html", required_argument, NULL, 'W'},
    {0},
};

/* history and compare: the common options, theirs, and -n N. */
static int hist_parse(int argc, char **argv, struct opts *o, struct hist_opts *h)
{
	o->shorts = "n:";
	return parse_opts(argc, argv, o, hist_long, hist_opt, h);
}

/*
 * rocelab analyze [--monitor hostmesh|rpingmesh]: each monitor's analyzer
 * parses its own options (hostmesh when none is given).
 */
static int cmd_analyzes(int argc, char **argv)
{
	const char *mon = "hostmesh";
	char **av = rl_xcalloc((size_t)argc + 1, sizeof(*av));
	int n = 0, r;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--monitor") && i + 1 < argc) {
			mon = argv[++i];
			continue;
		}
		if (!strncmp(argv[i], "--monitor=", 10)) {
			mon = argv[i] + 10;
			continue;
		}
		av[n++] = argv[i];
	}
	if (!strcmp(mon, "rpingmesh"))
		r = cmd_rpm_analyze(n, av);
	else if (!strcmp(mon, "hostmesh"))
		r = cmd_analyze(n, av);
	else
		r = rl_usage_error("analyze", "--monitor '%s': give hostmesh or rpingmesh", mon);
	free(av);
	return r;
}

/* rocelab agent hostmesh|rpingmesh: as rocelab-agent when it is installed beside rocelab. */
static int cmd_agents(int argc, char **argv)
{
	cli_agents_exec_lean(argc, argv);
	return cli_agents(argc, argv);
}

static int cmd_history(int argc, char **argv)
{
	struct opts o = {0};
	struct hist_opts h = {.limit = 20};
	char db[PATH_MAX], labbuf[INV_NAME_MAX + 1], err[512];
	const char *scenario = NULL;
	json_t *list;
	int r = hist_parse(argc, argv, &o, &h);

	if (r)
		return r;
	if (o.help)
		return fputs(history_help, stdout), 0;
	if ((r = hist_lab(&o, &h, labbuf, sizeof(labbuf))))
		return r;
	history_path(h.db, db, sizeof(db));
	if (h.import)
		return history_import(db, argc, argv);
	if (optind < argc)
		scenario = argv[optind++];
	if (optind != argc)
		return usage_error("history: unexpected argument '%s'", argv[optind]);
	if (!(list = history_list(db, h.lab, scenario, h.limit ? (int)h.limit : -1, err,
				  sizeof(err)))) {
		rl_err("history: %s", err);
		return RL_EXIT_SETUP;
	}
	if (h.html) {
		json_t *tr = scenario ? NULL
				      : history_trends(db, h.lab, h.limit ? (int)h.limit : -1, err,
						       sizeof(err));

		if (scenario)
			r = usage_error(
			    "history --html: leave out SCENARIO (a trend per scenario)");
		else if (!tr || pages_trends(h.html, list, tr, err, sizeof(err))) {
			rl_err("history --html: %s", err);
			r = RL_EXIT_SETUP;
		} else
			printf("%s/index.html: %zu run(s), %zu scenario trend(s)\n", h.html,
			       json_array_size(list), json_object_size(tr));
		json_decref(tr);
		json_decref(list);
		return r;
	}
	if (o.json)
		json_dumpf(list, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER), putchar('\n');
	else
		history_print_list(list, scenario, stdout);
	json_decref(list);
	return RL_EXIT_OK;
}

static int cmd_compare(int argc, char **argv)
{
	struct opts o = {0};
	struct hist_opts h = {.m = HISTORY_MARGINS_DEFAULT};
	char db[PATH_MAX], labbuf[INV_NAME_MAX + 1], err[512], a[40], b[40];
	json_t *c;
	size_t n;
	int r = hist_parse(argc, argv, &o, &h);

	if (r)
		return r;
	if (o.help)
		return fputs(compare_help, stdout), 0;
	if ((r = hist_lab(&o, &h, labbuf, sizeof(labbuf))))
		return r;
	if (h.import)
		return usage_error("compare: --import is an option of 'rocelab history'");
	if (argc - optind > 2)
		return usage_error("compare: unexpected argument '%s'", argv[optind + 2]);
	history_path(h.db, db, sizeof(db));
	if (!h.lab && argc - optind < 2) { /* the lab of the newest run */
		json_t *l = history_list(db, NULL, NULL, 1, err, sizeof(err));

		if (!l) {
			rl_err("compare: %s", err);
			return RL_EXIT_SETUP;
		}
		snprintf(labbuf, sizeof(labbuf), "%s",
			 json_string_value(json_object_get(json_array_get(l, 0), "lab")) ?: "");
		json_decref(l);
		h.lab = labbuf[0] ? labbuf : NULL;
	}
	r = history_resolve(db, h.lab, optind < argc ? argv[optind] : "last~1", a, sizeof(a), err,
			    sizeof(err));
	if (!r)
		r = history_resolve(db, h.lab, optind + 1 < argc ? argv[optind + 1] : "last", b,
				    sizeof(b), err, sizeof(err));
	if (r) {
		rl_err("compare: %s", err);
		return r == -EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	}
	if (!(c = history_compare(db, a, b, &h.m, err, sizeof(err)))) {
		rl_err("compare: %s", err);
		return RL_EXIT_SETUP;
	}
	if (o.json) {
		n = json_array_size(json_object_get(c, "regressions"));
		json_dumpf(c, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER), putchar('\n');
	} else
		n = history_print_compare(c, stdout);
	json_decref(c);
	return n ? RL_EXIT_FAIL : RL_EXIT_OK;
}

/* ---- observe: what each monitor can localize on a lab ---------------------------------- */

static const char observe_help[] =
    "usage: rocelab observe [-i INVENTORY] [--monitor NAME [--set KEY=VALUE]...] [-j]\n"
    "What each monitor can localize on a lab, before anything runs (network tomography of\n"
    "its probes): every equal-cost path between the RNICs it probes is one of its probe\n"
    "paths; links and switches on exactly the same probe paths cannot be told apart by it\n"
    "(one class), and one on no probe path is unobservable by it. Prints, per monitor with\n"
    "its default parameters, the share of links, RNICs and switches it can name alone and\n"
    "the classes it cannot; the run grades localization against these classes. An RNIC is\n"
    "its link here (no probe crosses one and not the other), a switch port its link.\n"
    "Default: the built-in lab, every monitor. Touches no lab.\n"
    "  --monitor NAME     only this monitor (hostmesh, rpingmesh)\n"
    "  --set KEY=VALUE    one of its parameters, as a scenario gives it (profile=ci, or\n"
    "                     e.g. inter-tor=1: on thousands of hosts R-Pingmesh's default of\n"
    "                     every RNIC of every other ToR is billions of pairs)\n";

struct observe_args {
	const char *monitor;
	const char *set[16];
	size_t n_set;
};

static int observe_opt(int c, const char *arg, void *ctx)
{
	struct observe_args *a = ctx;

	if (c == 'm') {
		a->monitor = arg;
		return 0;
	}
	if (c != 's')
		return 1;
	if (a->n_set == sizeof(a->set) / sizeof(a->set[0])) {
		usage_error("observe: at most %zu --set", a->n_set);
		return 1;
	}
	a->set[a->n_set++] = arg;
	return 0;
}

/* The monitor's parameters: its defaults, then each --set (profile=NAME applies a profile). */
static void *observe_cfg(const struct component_ops *ops, const struct observe_args *a)
{
	void *cfg = rl_xcalloc(1, ops->cfg_size);
	char err[320];

	ops->defaults(cfg);
	for (size_t i = 0; i < a->n_set; i++) {
		const char *kv = a->set[i], *eq = strchr(kv, '=');
		char key[64];
		const struct opt_desc *d;

		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - kv) : 0, kv);
		if (!eq || !key[0]) {
			usage_error("observe: --set '%s' is not KEY=VALUE", kv);
			goto bad;
		}
		if (!strcmp(key, "profile")) {
			if (component_profile_apply(ops, cfg, eq + 1, err, sizeof(err))) {
				usage_error("observe: %s", err);
				goto bad;
			}
			continue;
		}
		if (!(d = opt_find(ops->params, key))) {
			char names[1024];

			usage_error("observe: %s has no parameter '%s' (it has: profile, %s)",
				    ops->name, key, opt_names(ops->params, names, sizeof(names)));
			goto bad;
		}
		if (opt_set(d, cfg, eq + 1, err, sizeof(err))) {
			usage_error("observe: --set %s: %s", kv, err);
			goto bad;
		}
	}
	return cfg;
bad:
	free(cfg);
	return NULL;
}

static int cmd_observe(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"monitor", required_argument, NULL, 'm'}, {"set", required_argument, NULL, 's'}, {0}};
	struct observe_args a = {0};
	const char *monitor;
	void *cfg = NULL;
	struct opts o = {0};
	struct inventory *inv;
	struct topo *t;
	char builtin[4096];
	int r = parse_opts(argc, argv, &o, extra, observe_opt, &a), ret = RL_EXIT_OK;
	size_t shown = 0;

	if (r)
		return r;
	if (o.help)
		return fputs(observe_help, stdout), 0;
	if (optind < argc)
		return usage_error("observe: unexpected argument '%s'", argv[optind]);
	monitor = a.monitor;
	if (a.n_set && !monitor)
		return usage_error("observe: --set needs --monitor (whose parameter it is)");
	if (monitor) {
		const struct component_ops *ops = component_find(monitor);

		if (!ops || !ops->probe_pairs)
			return usage_error("observe: --monitor '%s' is not a monitor (hostmesh, "
					   "rpingmesh)",
					   monitor);
		if (!(cfg = observe_cfg(ops, &a)))
			return RL_EXIT_USAGE;
	}
	inv = inventory_load(
	    o.inventory ? o.inventory : lab_builtin_inventory(builtin, sizeof(builtin)), stderr);
	if (!inv) {
		free(cfg);
		return RL_EXIT_USAGE;
	}
	/* Two tiers: what the paths are made of (the loader said what and where, if not). */
	t = topo_build(inv, false, stderr);
	if (!t) {
		inventory_free(inv);
		free(cfg);
		return RL_EXIT_USAGE;
	}
	topo_free(t);
	for (size_t i = 0; component_at(i); i++) {
		const struct component_ops *ops = component_at(i);
		struct observe *ob;
		struct out out;
		size_t n_pairs;

		if (!ops->probe_pairs || (monitor && strcmp(monitor, ops->name)))
			continue;
		ob = component_observe(ops, cfg, inv, 1, &n_pairs);
		if (!ob) {
			rl_err("observe: %s: %s", ops->name, strerror(errno));
			ret = RL_EXIT_SETUP;
			continue;
		}
		out_init(&out, stdout, o.json ? OUT_JSON_LINES : OUT_TEXT);
		observe_print(&out, ops->name, n_pairs, ob);
		observe_free(ob);
		shown++;
	}
	free(cfg);
	inventory_free(inv);
	return shown || ret ? ret : RL_EXIT_SETUP;
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

/* --baseline: which run, resolved before anything is touched. */
static int run_prepare(struct run_info *ri)
{
	char db[PATH_MAX], err[512];

	if (!ri->baseline)
		return 0;
	if (history_resolve(history_path(ri->db, db, sizeof(db)), ri->inv->name, ri->baseline,
			    ri->baseline_id, sizeof(ri->baseline_id), err, sizeof(err))) {
		rl_err("run: --baseline %s: %s; nothing was started", ri->baseline, err);
		return RL_EXIT_USAGE;
	}
	rl_info("run: baseline %s", ri->baseline_id);
	return 0;
}

/* Recorded in the history, and compared with the baseline: its regressions, or -1. */
static json_t *run_history(const struct run_info *ri, json_t *root)
{
	static const struct history_margins m = HISTORY_MARGINS_DEFAULT;
	char db[PATH_MAX], err[512];
	json_t *cmp;

	if (ri->no_history)
		return NULL;
	history_path(ri->db, db, sizeof(db));
	if (history_record(db, root, ri->outdir, err, sizeof(err))) {
		rl_warn("run: not recorded in the run history: %s", err);
		return NULL;
	}
	rl_info("run: recorded as %s in %s", ri->run_id, db);
	if (!ri->baseline_id[0])
		return NULL;
	if (!(cmp = history_compare(db, ri->baseline_id, ri->run_id, &m, err, sizeof(err)))) {
		rl_warn("run: cannot compare with the baseline: %s", err);
		return NULL;
	}
	history_print_compare(cmp, stderr);
	return cmp;
}

static int run_reported(const struct run_info *ri, struct scn_result *r, size_t n)
{
	json_t *root = report_results(ri, r, n), *cmp = run_history(ri, root);
	int a, b, worse = cmp && json_array_size(json_object_get(cmp, "regressions"));

	if (ri->baseline_id[0])
		json_object_set_new(root, "baseline",
				    cmp ? json_incref(cmp)
					: json_pack("{s:s,s:s}", "run_id", ri->baseline_id, "error",
						    "not compared"));
	a = report_write_results(ri, root);
	b = report_junit(ri, r, n, cmp);
	if (pages_suite_index(ri->outdir, root))
		rl_warn("run: cannot write %s/index.html", ri->outdir);
	json_decref(root);
	json_decref(cmp);
	if (ri->baseline_id[0] && !cmp)
		return -EIO; /* asked for, and not done */
	return a ? a : b ? b : worse;
}

static int cmd_run_reported(int argc, char **argv)
{
	static const struct run_sink sink = {run_prepare, scenario_reported, run_reported};

	return cmd_run(argc, argv, &sink);
}

/* ---- qualify and verify ------------------------------------------------------------------ */

static const char qualify_help[] =
    "usage: rocelab qualify --rules RULES [-i INVENTORY] [--suite DIR] [--key KEY]\n"
    "                       [-o OUTDIR] [--seed N] [--db FILE | --no-history]\n"
    "Run a qualification suite (every DIR/*.yaml; default the shipped\n"
    "scenarios/qualification) as 'rocelab run' does, then check RULES against its\n"
    "results, e.g.\n"
    "    rules:\n"
    "      - scenario: rnic-flap            # or \"*\": every scenario of the suite\n"
    "        require: [time_to_detect_s <= 5, precision >= 0.9, verdict == pass]\n"
    "Fields: time_to_detect_s, precision, false_positives, rank, detected, localized,\n"
    "class_ok, duration_s, verdict, or any metric a component reports\n"
    "(goodput-vs-optimal ...).  Rules and scenarios are validated before anything runs.\n"
    "OUTDIR (default rocelab-results/qualify-TIME) gets the run's files, rules.yaml,\n"
    "copies of the inventory and scenarios (inputs/), qualification.json (each rule:\n"
    "value, pass or fail; DUT identity, inventory fingerprint, the binary's sha256,\n"
    "the signing time) and MANIFEST, the sha256 of every file, signed with KEY (ssh-keygen\n"
    "-Y sign: a private key, or a public key whose private half ssh-agent holds) as\n"
    "MANIFEST.sig with the public key as signer.pub.  'rocelab verify OUTDIR' checks it.\n"
    "exit: 0 every rule holds; 1 a rule does not; 2 bad input (nothing ran);\n"
    "3 the lab or a fault could not be set up, or signing failed.\n";

static const char verify_help[] =
    "usage: rocelab verify DIR [--signers ALLOWED_SIGNERS]\n"
    "Check a signed qualification folder: the signature of DIR/MANIFEST by a key you\n"
    "trust (ssh-keygen -Y verify; the signing key's fingerprint is printed), then every\n"
    "file's sha256, no file missing and none added, then the qualification's verdict.\n"
    "  --signers FILE  the keys trusted, an allowed_signers file (ssh-keygen(1));\n"
    "                  default: $ROCELAB_LIB_DIR/allowed_signers (/var/lib/rocelab).\n"
    "                  The key the folder carries (signer.pub) vouches for nothing.\n"
    "exit: 0 verified, the qualification passed; 1 verified, the qualification failed;\n"
    "2 bad use; 3 NOT verified: no trusted signer, a bad signature, a file changed,\n"
    "missing or added, or not a signed folder.\n";

struct qual_opts {
	const char *rules, *suite, *key, *out, *seed, *db;
	bool no_history;
};

static int qual_opt(int c, const char *arg, void *ctx)
{
	struct qual_opts *q = ctx;

	switch (c) {
	case 'R':
		q->rules = arg;
		return 0;
	case 'S':
		q->suite = arg;
		return 0;
	case 'K':
		q->key = arg;
		return 0;
	case 'o':
		q->out = arg;
		return 0;
	case 's':
		q->seed = arg;
		return 0;
	case 'D':
		q->db = arg;
		return 0;
	case 'H':
		q->no_history = true;
		return 0;
	}
	return 1;
}

/* The suite's scenario files, sorted; validated, and every rule's scenario among them. */
static int qual_suite(const char *dir, const char *inv, const struct qrules *q, glob_t *g)
{
	char pat[PATH_MAX + 8], builtin[PATH_MAX], (*names)[SCN_NAME_MAX + 1];
	FILE *quiet = fopen("/dev/null", "we"); /* the run itself reports bad scenarios */
	int bad = 0, unloaded = 0;

	snprintf(pat, sizeof(pat), "%s/*.yaml", dir);
	if (!quiet || glob(pat, 0, NULL, g) || !g->gl_pathc) {
		rl_err("qualify: --suite %s: no *.yaml scenario in it", dir);
		if (quiet)
			fclose(quiet);
		return RL_EXIT_USAGE;
	}
	lab_builtin_inventory(builtin, sizeof(builtin));
	names = rl_xcalloc(g->gl_pathc, sizeof(*names));
	for (size_t k = 0; k < g->gl_pathc; k++) {
		struct scenario *s = scenario_load(g->gl_pathv[k], inv, builtin, 0, quiet);

		if (s)
			snprintf(names[k], sizeof(names[k]), "%s", s->name);
		unloaded += !s;
		scenario_free(s);
	}
	fclose(quiet);
	/* A scenario with errors: the run says which, and runs nothing. */
	for (size_t i = 0; i < q->n && !unloaded; i++) {
		bool found = !strcmp(q->r[i].scenario, "*");

		for (size_t k = 0; k < g->gl_pathc && !found; k++)
			found = !strcmp(names[k], q->r[i].scenario);
		if (!found) {
			fprintf(stderr, "%s:%u:%u: scenario '%s' is not in the suite %s\n", q->path,
				q->r[i].sline, q->r[i].scol, q->r[i].scenario, dir);
			bad++;
		}
	}
	free(names);
	return bad ? RL_EXIT_USAGE : 0;
}

/* OUTDIR/qualification.json and the table on stdout; how many rules failed. */
/*
 * What the verdict depends on, signed with it: copies of the inventory and of each
 * scenario file in OUT/inputs/.  The names copied, as a new JSON array.
 */
static json_t *qual_inputs(const char *out, const json_t *root, const glob_t *g)
{
	char dir[PATH_MAX + 320], path[256];
	const char *inv = json_string_value(json_object_get(root, "inventory"));
	json_t *names = json_array();
	size_t len;
	char *text;

	snprintf(dir, sizeof(dir), "%s/inputs/scenarios", out);
	if (rl_mkdir_p(dir, 0755)) {
		rl_err("qualify: %s: %s", dir, strerror(errno));
		return names;
	}
	for (size_t i = 0; i <= g->gl_pathc; i++) {
		const char *from = i < g->gl_pathc ? g->gl_pathv[i] : inv;
		char base[PATH_MAX];

		if (!from)
			continue;
		snprintf(base, sizeof(base), "%s", from);
		if (i < g->gl_pathc)
			snprintf(path, sizeof(path), "inputs/scenarios/%.200s", basename(base));
		else
			snprintf(path, sizeof(path), "inputs/inventory.yaml");
		if (!(text = rl_read_file(from, &len))) {
			rl_err("qualify: cannot copy %s into the signed folder: %s", from,
			       rl_read_strerror(errno));
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/%s", out, path);
		if (rl_write_file_mode(dir, text, len, 0644))
			rl_err("qualify: cannot write %s", dir);
		else
			json_array_append_new(names, json_string(path));
		free(text);
	}
	return names;
}

static size_t qual_summary(const char *out, const struct qrules *q, const json_t *root,
			   json_t *inputs)
{
	static const char *const keep[] = {
	    "run_id", "lab",	 "lab_kind", "inventory", "inventory_sha256",
	    "seed",   "rocelab", "started",  "ended",	  "dut"};
	char path[PATH_MAX], sha[65] = "", v[32];
	size_t failed, i;
	json_t *rules = qualify_check(q, root, &failed), *sum = json_object(), *x;

	json_object_set_new(sum, "schema_version", json_integer(1));
	for (i = 0; i < ARRAY_SIZE(keep); i++)
		json_object_set(sum, keep[i], json_object_get(root, keep[i]));
	if (rl_sha256_file(q->path, sha))
		sha[0] = '\0';
	json_object_set_new(sum, "rules_file", json_string(q->path));
	json_object_set_new(sum, "rules_sha256", json_string(sha));
	/* the binary that graded, and when it signed: part of what a signature vouches for */
	if (rl_sha256_file("/proc/self/exe", sha))
		sha[0] = '\0';
	json_object_set_new(sum, "rocelab_sha256", json_string(sha));
	json_object_set_new(
	    sum, "signed_at",
	    json_string(rl_utc((double)time(NULL), "%Y-%m-%dT%H:%M:%SZ", v, sizeof(v))));
	json_object_set_new(sum, "inputs", inputs);
	json_object_set_new(sum, "passed", json_boolean(!failed));
	json_object_set_new(sum, "failed", json_integer((json_int_t)failed));
	json_object_set_new(sum, "rules", rules);
	snprintf(path, sizeof(path), "%s/qualification.json", out);
	if (json_dump_file(sum, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		rl_err("qualify: cannot write %s", path);
	printf("%-24s %-32s %-10s %s\n", "SCENARIO", "RULE", "VALUE", "RESULT");
	json_array_foreach(rules, i, x)
	{
		const json_t *val = json_object_get(x, "value");

		if (json_is_number(val))
			snprintf(v, sizeof(v), "%.4g", json_number_value(val));
		else if (json_is_string(val))
			snprintf(v, sizeof(v), "%s", json_string_value(val));
		else if (json_is_boolean(val))
			snprintf(v, sizeof(v), "%s", json_is_true(val) ? "true" : "false");
		else
			snprintf(v, sizeof(v), "-");
		printf("%-24s %-32s %-10s %s%s%s\n",
		       json_string_value(json_object_get(x, "scenario")),
		       json_string_value(json_object_get(x, "rule")), v,
		       json_is_true(json_object_get(x, "pass")) ? "pass" : "FAIL",
		       *json_string_value(json_object_get(x, "why")) ? ": " : "",
		       json_string_value(json_object_get(x, "why")));
	}
	printf("qualification: %zu of %zu rule checks hold; summary in %s\n",
	       json_array_size(rules) - failed, json_array_size(rules), path);
	json_decref(sum);
	return failed;
}

static int cmd_qualify(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"rules", required_argument, NULL, 'R'}, {"suite", required_argument, NULL, 'S'},
	    {"key", required_argument, NULL, 'K'},   {"output", required_argument, NULL, 'o'},
	    {"seed", required_argument, NULL, 's'},  {"db", required_argument, NULL, 'D'},
	    {"no-history", no_argument, NULL, 'H'},  {0},
	};
	struct opts o = {0};
	struct qual_opts q = {0};
	struct qrules rules;
	char suite[PATH_MAX], out[PATH_MAX], path[PATH_MAX], ts[32], err[512];
	const char *rargv[64];
	glob_t g = {0};
	json_t *root, *inputs;
	json_error_t je;
	size_t failed;
	int r, ra = 0;

	o.shorts = "o:";
	if ((r = parse_opts(argc, argv, &o, extra, qual_opt, &q)))
		return r;
	if (o.help)
		return fputs(qualify_help, stdout), 0;
	if (optind != argc)
		return usage_error("qualify: unexpected argument '%s'", argv[optind]);
	if (!q.rules)
		return usage_error("qualify: give --rules RULES (what must hold)");
	if (q.key && access(q.key, R_OK))
		return usage_error("qualify: --key %s: %s", q.key, strerror(errno));
	if (qualify_rules_load(q.rules, &rules, stderr))
		return RL_EXIT_USAGE;
	if (!q.suite)
		q.suite = rl_data_path("scenarios/qualification", suite, sizeof(suite));
	if ((r = qual_suite(q.suite, o.inventory, &rules, &g)) || g.gl_pathc > 40) {
		if (!r)
			rl_err("qualify: --suite %s: %zu scenarios; at most 40", q.suite,
			       g.gl_pathc);
		globfree(&g);
		qualify_rules_free(&rules);
		return r ? r : RL_EXIT_USAGE;
	}
	if (!q.out) {
		snprintf(out, sizeof(out), "rocelab-results/qualify-%s",
			 rl_utc((double)time(NULL), "%Y%m%dT%H%M%SZ", ts, sizeof(ts)));
		q.out = out;
	}
	rargv[ra++] = "run";
	rargv[ra++] = "-o", rargv[ra++] = q.out;
	if (o.inventory)
		rargv[ra++] = "-i", rargv[ra++] = o.inventory;
	if (q.seed)
		rargv[ra++] = "--seed", rargv[ra++] = q.seed;
	if (q.db)
		rargv[ra++] = "--db", rargv[ra++] = q.db;
	if (q.no_history)
		rargv[ra++] = "--no-history";
	for (size_t i = 0; i < g.gl_pathc; i++)
		rargv[ra++] = g.gl_pathv[i];
	rargv[ra] = NULL;
	r = cmd_run_reported(ra, (char **)rargv);
	snprintf(path, sizeof(path), "%s/results.json", q.out);
	if (!(root = json_load_file(path, 0, &je))) {
		rl_err("qualify: the run wrote no results (%s): nothing to qualify", je.text);
		qualify_rules_free(&rules);
		globfree(&g);
		return r ? r : RL_EXIT_SETUP;
	}
	inputs = qual_inputs(q.out, root, &g);
	globfree(&g);
	snprintf(path, sizeof(path), "%s/rules.yaml", q.out);
	{
		size_t len;
		char *text = rl_read_file(q.rules, &len);

		if (!text || rl_write_file_mode(path, text, len, 0644))
			rl_err("qualify: cannot copy %s to %s", q.rules, path);
		free(text);
	}
	failed = qual_summary(q.out, &rules, root, inputs);
	json_decref(root);
	qualify_rules_free(&rules);
	if (qualify_manifest(q.out, err, sizeof(err)) < 0) {
		rl_err("qualify: manifest: %s", err);
		return RL_EXIT_SETUP;
	}
	if (!q.key)
		rl_warn("qualify: %s/MANIFEST is not signed: give --key KEY to sign it", q.out);
	else if (qualify_sign(q.out, q.key, err, sizeof(err))) {
		rl_err("qualify: signing: %s", err);
		return RL_EXIT_SETUP;
	} else
		printf("signed: %s/MANIFEST.sig ('rocelab verify %s' checks it)\n", q.out, q.out);
	return failed ? RL_EXIT_FAIL : r == RL_EXIT_SETUP ? RL_EXIT_SETUP : RL_EXIT_OK;
}

static int cmd_verify(int argc, char **argv)
{
	static const struct option extra[] = {{"signers", required_argument, NULL, 'G'}, {0}};
	struct opts o = {0};
	const char *signers = NULL;
	int r = parse_opts(argc, argv, &o, extra, set_str, &signers);

	if (r)
		return r;
	if (o.help)
		return fputs(verify_help, stdout), 0;
	if (argc - optind != 1)
		return usage_error("verify: give one DIR");
	r = qualify_verify(argv[optind], signers, stdout);
	if (r == QV_PASSED || r == QV_FAILED)
		printf("verified: %s is as it was signed, by a key trusted here; the "
		       "qualification %s\n",
		       argv[optind], r == QV_PASSED ? "passed" : "FAILED");
	else
		printf("NOT verified: %s\n", argv[optind]);
	return r == QV_PASSED ? RL_EXIT_OK : r == QV_FAILED ? RL_EXIT_FAIL : RL_EXIT_SETUP;
}

static const char report_help[] =
    "usage: rocelab report DIR\n"
    "Re-render a results folder of 'rocelab run': redraw each scenario's plots from its\n"
    "report.gp (gnuplot, in a private folder), inline them into its report.html again, and\n"
    "rewrite DIR/index.html (the suite's page) from DIR/results.json.  A results folder\n"
    "is untrusted: only plot scripts this machine's rocelab sealed run (report.gp.seal),\n"
    "no link in it is followed, every field is escaped.\n"
    "exit: 0; 2 bad use; 3 not a results folder, or gnuplot failed.\n";

static int cmd_report(int argc, char **argv)
{
	struct opts o = {0};
	char err[PATH_MAX + 128];
	int r = parse_opts(argc, argv, &o, NULL, NULL, NULL);

	if (r)
		return r;
	if (o.help)
		return fputs(report_help, stdout), 0;
	if (argc - optind != 1)
		return usage_error("report: give one DIR");
	if ((r = pages_rerender(argv[optind], err, sizeof(err))) < 0) {
		rl_err("report: %s", err);
		return RL_EXIT_SETUP;
	}
	printf("%s: %d scenario report(s) redrawn; %s/index.html\n", argv[optind], r, argv[optind]);
	return RL_EXIT_OK;
}

static const struct cmd top_cmds[] = {
    {"lab", cmd_lab, "bring the virtual lab up or down, show it, ssh into switches"},
    {"inventory", cmd_inventory, "validate or generate lab inventories"},
    {"scenario", cmd_scenario, "generate random scenarios for an inventory"},
    {"inject", cmd_inject, "inject a fault (journaled, verified, reverted)"},
    {"revert", cmd_revert, "undo every outstanding fault of the journal"},
    {"faults", cmd_faults, "list outstanding faults (-j: JSON)"},
    {"load", cmd_load, "generate load (incast) in the virtual lab"},
    {"trace", cmd_trace, "trace the fabric path of a UDP 5-tuple between two RNICs"},
    {"observe", cmd_observe, "what each monitor can localize on a lab (identifiability)"},
    {"agent", cmd_agents, "run a monitor's probing agent (hostmesh, rpingmesh) on a host"},
    {"controller", cmd_controller,
     "R-Pingmesh's controller (--listen), or a host's pinglists (pinglist)"},
    {"transport", cmd_transport, "run MP-RDMA between two RNICs (run, send, recv)"},
    {"run", cmd_run_reported, "run scenarios and grade the components under test"},
    {"analyze", cmd_analyzes, "analyze agents' records: verdicts, drop rates, latency"},
    {"history", cmd_history, "list the runs recorded in the run history"},
    {"compare", cmd_compare, "compare two runs of the history: regressions (exit 1)"},
    {"report", cmd_report, "re-render the reports of a results folder"},
    {"qualify", cmd_qualify, "run a suite, check threshold rules, sign the results"},
    {"verify", cmd_verify, "check a signed qualification folder"},
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
