// SPDX-License-Identifier: MIT
/* 'rocelab inventory': check, generate and import lab inventories. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/lib/clabimport.h"
#include "harness/lib/invgen.h"
#include "harness/lib/out.h"
#include "harness/run/runner.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

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

static const char inv_import_help[] =
    "usage: rocelab inventory import containerlab TOPO.clab.yml [-o FILE]\n"
    "Write the inventory of a containerlab topology (a lab of kind ssh), to check, edit\n"
    "and use: sonic-vs, sonic-vm and dell_sonic nodes are SONiC switches; ceos,\n"
    "arista_ceos and arista_veos EOS; cvx and cumulus_cvx NVUE; linux nodes hosts (or,\n"
    "with label rocelab.role: switch, Linux switches).  Each host's links to switches\n"
    "are its RNICs, their addresses from its exec lines 'ip addr add ADDR/LEN dev IFACE';\n"
    "switches with hosts on them are rails, the others spines; each node's mgmt-ipv4 is\n"
    "its mgmt; the management network's gateway the controller.  What the topology does\n"
    "not say, or rocelab cannot drive, is reported as TOPO:LINE:COL and left as a\n"
    "comment where it goes.\n"
    "  -o FILE   write the inventory there (a new file; default: stdout)\n"
    "exit: 0 the inventory is whole; 1 written, with what to add reported; 2 bad use, or\n"
    "not a topology (nothing written).\n";

static int check_virtual;

/*
 * --virtual of a standing lab (kind ssh): one line, not what each of its
 * real addresses and NOSes would be wrong for on this machine (issue 58).
 */
static bool virtual_of_ssh(const struct inventory *inv)
{
	if (!check_virtual || inv->kind != INV_LAB_SSH)
		return false;
	fprintf(stderr,
		"%s:%u:%u: lab %s is of kind ssh, a standing lab reached over SSH, which rocelab "
		"never brings up on this machine: --virtual checks what a virtual lab needs; check "
		"it without --virtual\n",
		inv->path, inv->kind_loc.line, inv->kind_loc.col, inv->name);
	return true;
}

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
	int r = cli_parse_opts(argc, argv, &o, extra, inv_check_opt, NULL), ret = RL_EXIT_OK;

	if (r)
		return r;
	if (o.help)
		return fputs(inv_check_help, stdout), 0;
	if (optind >= argc)
		return usage_error("inventory check: give at least one file");
	for (int i = optind; i < argc; i++) {
		struct inventory *inv = inventory_load(argv[i], stderr);
		struct topo *t =
		    inv && !virtual_of_ssh(inv) ? topo_build(inv, check_virtual, stderr) : NULL;
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
	int r = cli_parse_opts(argc, argv, &o, extra, inv_gen_opt, &g);

	if (r)
		return r;
	if (o.help)
		return fputs(inv_gen_help, stdout), 0;
	if (optind != argc)
		return usage_error("inventory gen: unexpected argument '%s'", argv[optind]);
	return invgen_write(stdout, &g) ? RL_EXIT_USAGE : RL_EXIT_OK;
}

static int inv_import(int argc, char **argv)
{
	const char *outpath = NULL;
	struct opts o = {.shorts = "o:"};
	FILE *out = stdout;
	int r = cli_parse_opts(
	    argc, argv, &o, (const struct option[]){{"output", required_argument, NULL, 'o'}, {0}},
	    cli_set_str, &outpath);

	if (r)
		return r;
	if (o.help)
		return fputs(inv_import_help, stdout), 0;
	if (argc - optind != 2 || strcmp(argv[optind], "containerlab"))
		return usage_error("inventory import: give 'containerlab TOPO.clab.yml' (the one "
				   "format it imports)");
	/* a new file: an inventory someone wrote is never overwritten */
	if (outpath && !(out = fopen(outpath, "wx"))) {
		rl_err("inventory import: %s: %s%s", outpath, strerror(errno),
		       errno == EEXIST ? ": give a new file" : "");
		return RL_EXIT_USAGE;
	}
	r = clab_import(argv[optind + 1], out, stderr);
	if (out != stdout && (fclose(out) || r < 0))
		unlink(outpath); /* nothing written when the topology was not read */
	if (r < 0)
		return RL_EXIT_USAGE;
	if (r)
		rl_warn("inventory import: %d thing(s) to add or fix (above)%s%s", r,
			outpath ? " in " : "", outpath ? outpath : "");
	return r ? RL_EXIT_FAIL : RL_EXIT_OK;
}

static const struct cmd inventory_cmds[] = {
    {"check", inv_check, "validate inventory files (file:line:col errors)"},
    {"gen", inv_gen, "generate a rail-optimized virtual-lab inventory"},
    {"import", inv_import, "an inventory from a containerlab topology"},
    {0},
};

int cmd_inventory(int argc, char **argv)
{
	return cli_dispatch(inventory_cmds, "inventory", argc, argv);
}
