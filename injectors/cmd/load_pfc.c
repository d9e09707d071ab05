// SPDX-License-Identifier: MIT
/*
 * 'rocelab load pfc': a PFC storm from one netdev of the device it runs on
 * (pfc-storm starts it on the RNIC's host), and 'load pfc --count': the PFC
 * frames arriving on a netdev (pfc-storm's check on a Linux switch port).
 */
#define _GNU_SOURCE
#include "harness/lab/pfc.h"
#include "harness/lib/common.h"
#include "harness/lib/opt.h"
#include "injectors/cmd/inject.h"

#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define bad(...) rl_usage_error("load pfc", __VA_ARGS__)

enum { O_PFC = 0x200 }; /* getopt values of the option table */

struct pfc_args {
	char dev[IF_NAMESIZE];
	char while_path[256];
	int priority;
	unsigned quanta, pps, frames;
	long long for_ms, orphan_ms;
	bool count;
};

#define PA(f) offsetof(struct pfc_args, f)

static const struct opt_desc pfc_opts[] = {
    {.name = "dev",
     .type = OPT_STR,
     .off = PA(dev),
     .size = IF_NAMESIZE,
     .help = "the netdev to send from (or count on)"},
    {"priority", OPT_INT, 0, 7, PA(priority), "the priority paused (class-enable bit)"},
    {"quanta", OPT_UINT, 1, PFC_QUANTA_MAX, PA(quanta), "pause time of each frame, in quanta"},
    {"pps", OPT_UINT, 1, PFC_STORM_PPS_MAX, PA(pps), "frames per second"},
    {"for", OPT_MS, 0, 86400000, PA(for_ms), "how long (0: until SIGINT or SIGTERM)"},
    {"frames", OPT_UINT, 0, UINT_MAX, PA(frames), "stop after this many frames (0: no cap)"},
    {"count", OPT_BOOL, 0, 0, PA(count), "count the PFC frames arriving instead, for --for"},
    {.name = "while",
     .type = OPT_STR,
     .off = PA(while_path),
     .size = sizeof(((struct pfc_args *)0)->while_path),
     .help = "stop once this file is gone (pfc-storm's marker in its run folder, which "
	     "'rocelab revert' sweeps after a crash)"},
    {"orphan-after", OPT_MS, 0, 86400000, PA(orphan_ms),
     "with --while: stop once the file has not been touched for this long (its controller's "
     "heartbeat; 0: not watched)"},
    OPT_TABLE_END,
};

/*
 * (What it says as it stops holds no "pfc: ": pfc-storm reads its count after that.)
 * --while: the storm ends when its marker goes.  Started on a host over
 * SSH, the sender outlives an injector killed with -9; 'rocelab revert'
 * then removes that run's folder, and with it the marker.  --orphan-after:
 * it also ends when the injector stops touching the marker (its heartbeat):
 * a controller dead or cut off leaves no storm behind for long.
 */
struct watch {
	const char *path;
	long long orphan_ms;
};

static void *watch_marker(void *arg)
{
	const struct watch *w = arg;
	const struct timespec tick = {0, 200000000L};
	struct stat st;

	while (!rl_interrupted) {
		if (stat(w->path, &st)) {
			rl_info("load pfc stops: %s is gone", w->path);
			rl_interrupted = 1;
			break;
		}
		if (w->orphan_ms && rl_realtime_ns() / 1000000ULL >
					(unsigned long long)st.st_mtim.tv_sec * 1000ULL +
					    (unsigned long long)st.st_mtim.tv_nsec / 1000000ULL +
					    (unsigned long long)w->orphan_ms) {
			rl_info("load pfc stops: no heartbeat from its controller for %lld ms (%s "
				"not touched)",
				w->orphan_ms, w->path);
			rl_interrupted = 1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	return NULL;
}

int load_pfc(int argc, char **argv)
{
	static const struct option own[] = {{"help", no_argument, NULL, 'h'}, {0}};
	struct pfc_args a = {.priority = 3, .quanta = PFC_QUANTA_MAX, .pps = 2000}, def = a;
	struct option lo[16];
	char msg[160];
	int c;

	opt_longopts(pfc_opts, O_PFC, own, lo, ARRAY_SIZE(lo));
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		if (c == 'h') {
			fputs("usage: rocelab load pfc --dev NETDEV [options]\n"
			      "Send IEEE 802.1Qbb PFC frames from NETDEV of this device (what "
			      "pfc-storm starts on the RNIC's host),\nor with --count, count those "
			      "arriving on NETDEV for --for and print them as JSON.\n\n",
			      stdout);
			opt_help(pfc_opts, &def, 2, stdout);
			return RL_EXIT_OK;
		}
		if (c == ':')
			return bad("option '%s' needs a value", argv[optind - 1]);
		if (c < O_PFC)
			return bad("unknown option '%s'", argv[optind - 1]);
		if (opt_set(&pfc_opts[c - O_PFC], &a, optarg, msg, sizeof(msg)))
			return bad("--%s", msg);
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (!a.dev[0] || !if_nametoindex(a.dev))
		return bad("--dev: %s", a.dev[0] ? "no such netdev here" : "give the netdev");
	rl_signals_install();
	if (a.count) {
		struct pfc_count n;
		int r = pfc_count_here(a.dev, a.priority, a.for_ms ? a.for_ms : 1000, &n);

		if (r) {
			rl_err("load pfc: counting on %s: %s", a.dev, strerror(-r));
			return RL_EXIT_SETUP;
		}
		/* on stdout: pfc-storm reads it back from the switch */
		printf("{\"dev\": \"%s\", \"secs\": %.3f, \"frames\": %llu, \"paused\": %llu, "
		       "\"priority\": %d, \"quanta\": %u, \"malformed\": %llu}\n",
		       a.dev, n.secs, n.frames, n.paused, a.priority, n.quanta, n.malformed);
		return RL_EXIT_OK;
	}
	struct pfc_frame f = {.enable = (uint8_t)(1u << a.priority)};
	unsigned long long t0 = rl_now_ns();
	static struct watch w;
	pthread_t watcher;
	long long sent;

	if (a.orphan_ms && !a.while_path[0])
		return bad("--orphan-after: give the file it watches with --while");
	if (a.while_path[0]) {
		if (access(a.while_path, F_OK))
			return bad("--while: %s is not there", a.while_path);
		w = (struct watch){a.while_path, a.orphan_ms};
		if (pthread_create(&watcher, NULL, watch_marker, &w) || pthread_detach(watcher)) {
			rl_err("load pfc: cannot watch %s", a.while_path);
			return RL_EXIT_SETUP;
		}
	}

	f.quanta[a.priority] = (uint16_t)a.quanta;
	sent = pfc_storm_here(a.dev, &f, a.pps, a.for_ms, a.frames, &rl_interrupted);
	if (sent < 0) {
		rl_err("load pfc: sending on %s: %s", a.dev, strerror((int)-sent));
		return RL_EXIT_SETUP;
	}
	if (a.frames && (unsigned long long)sent >= a.frames)
		rl_info("load pfc stops: its cap of %u frames reached", a.frames);
	else if (a.for_ms && !rl_interrupted)
		rl_info("load pfc stops: its deadline (%lld ms) reached", a.for_ms);
	printf("pfc: %lld frames sent on %s in %.2f s (priority %d, quanta %u, %u/s)\n", sent,
	       a.dev, (double)(rl_now_ns() - t0) / 1e9, a.priority, a.quanta, a.pps);
	return RL_EXIT_OK;
}
