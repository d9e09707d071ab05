// SPDX-License-Identifier: MIT
/* rocelab rig: this machine's CPU pressure, sampled for a run on a lab reached over SSH. */
#define _GNU_SOURCE
#include "harness/run/rig.h"

#include <errno.h>
#include <string.h>

#include "harness/cli/cli.h"

static const char rig_usage[] =
    "usage: rocelab rig [--interval DURATION]\n"
    "\n"
    "Sample this machine every --interval (100ms) until SIGINT or SIGTERM: a line each,\n"
    "'rig T SOME BUSY SELF LATE_MS STEAL RUNQ' (T realtime seconds; SOME /proc/pressure/cpu's\n"
    "'some' share of the interval, -1 without PSI; BUSY and STEAL /proc/stat's shares;\n"
    "LATE_MS how late a 5 ms timer woke; RUNQ the tasks runnable then, /proc/loadavg).\n"
    "'rocelab run' starts it on every host of a lab\n"
    "reached over SSH and grades against what it printed (results.json rig_hosts).\n";

static int rig_opt(int c, const char *arg, void *ctx)
{
	long long ms;

	if (c != 'I')
		return -1;
	if (rl_parse_duration_ms(arg, &ms) || ms < 10 || ms > 60000)
		return usage_error("rig: --interval '%s': a duration from 10ms to 60s", arg);
	*(double *)ctx = (double)ms / 1e3;
	return 0;
}

int cmd_rig(int argc, char **argv)
{
	static const struct option lo[] = {{"interval", required_argument, NULL, 'I'}, {0}};
	struct opts o = {0};
	double interval = RIG_INTERVAL_S;
	int r = cli_parse_opts(argc, argv, &o, lo, rig_opt, &interval);

	if (r)
		return r;
	if (o.help) {
		fputs(rig_usage, stdout);
		return RL_EXIT_OK;
	}
	if (optind < argc)
		return usage_error("rig: unexpected argument '%s'", argv[optind]);
	rl_signals_install();
	if ((r = rig_print(interval, stdout))) {
		rl_err("rig: cannot sample: %s", strerror(-r));
		return RL_EXIT_SETUP;
	}
	return RL_EXIT_OK;
}
