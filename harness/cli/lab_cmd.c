// SPDX-License-Identifier: MIT
/* 'rocelab lab': bring the virtual lab up or down, show it, trust and ssh into its switches. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/lab/trust.h"
#include "harness/lab/vlab.h"
#include "harness/lib/sshc.h"
#include "harness/run/runner.h"
#include "injectors/deadman.h"

#include <limits.h>
#include <string.h>

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
    "management bridge and the state directory; and the dead-man leases of timers that\n"
    "ran in its namespaces and went with them.\n";
static const char lab_status_help[] =
    "usage: rocelab lab status [-j]\n"
    "Show the lab that is up: who brought it up (pid, session, when), hosts and RNICs,\n"
    "switches and their sshd, link states.\n"
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
	int r = cli_parse_opts(argc, argv, &o, extra, set_flag, &remote);

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
	int r = cli_parse_opts(argc, argv, &o, NULL, NULL, NULL);

	if (r)
		return r;
	if (o.help)
		return fputs(lab_down_help, stdout), 0;
	if (optind != argc)
		return usage_error("lab down: unexpected argument '%s'", argv[optind]);
	/* Its timers went with the namespaces; their leases here said they kept faults there. */
	char **devs;
	size_t n = vlab_devices(&devs);
	int ret = vlab_down(o.quiet), swept = fault_deadman_sweep_local(devs, n);

	if (swept && !o.quiet)
		rl_info("lab down: removed %d dead-man lease(s) of timers that went with the lab",
			swept);
	for (size_t i = 0; i < n; i++)
		free(devs[i]);
	free(devs);
	return ret;
}

static int lab_status(int argc, char **argv)
{
	struct opts o = {0};
	int r = cli_parse_opts(argc, argv, &o, NULL, NULL, NULL);

	if (r)
		return r;
	if (o.help)
		return fputs(lab_status_help, stdout), 0;
	if (optind != argc)
		return usage_error("lab status: unexpected argument '%s'", argv[optind]);
	return vlab_status(o.json);
}

/* The lab that is up, or a clear error. */
struct inventory *cli_running_inventory(void)
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
	int r = cli_parse_opts(argc, argv, &o, extra, trust_opt, &to);

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
	int r = cli_parse_opts(argc, argv, &o, NULL, NULL, NULL);

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

int cmd_lab(int argc, char **argv)
{
	return cli_dispatch(lab_cmds, "lab", argc, argv);
}
