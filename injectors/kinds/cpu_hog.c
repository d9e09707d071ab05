// SPDX-License-Identifier: MIT
/*
 * cpu-hog: a host's CPU overloaded under its monitor agents (Hostmesh's
 * problem #7; R-Pingmesh's host-processing), so that what they measure is
 * their host's delay, not the network's.  Busy threads run beside rocelab's
 * agents in one CPU cgroup, pinned to one CPU (cpuset) and capped at
 * --quota % of it (CFS bandwidth): the agents wait in the run queue behind
 * the threads and the cap, which verify measures (/proc/PID/schedstat's
 * run-queue delay over a second).  Emulated: on the virtual lab every host
 * shares this machine's CPUs, so busy threads alone would slow every host;
 * the cgroup confines the overload to the target host's agents.  On a host
 * reached over SSH the same commands run there (cgroup v2 or v1).  The undo
 * puts the agents back in the cgroups they were found in (kept in
 * /run/rocelab-cpu-hog-HOST), kills the threads and removes the cgroups.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/host_cmd.h"
#include "injectors/kinds/kinds.h"

#include <stdlib.h>
#include <string.h>

/*
 * cpu-hog-on HOST QUOTA THREADS CPU: a CPU cgroup (v2, or v1's cpu and cpuset
 * hierarchies) named for the host, capped at QUOTA % of one core and pinned
 * to CPU ("last": the highest), where rocelab's monitor agents in the host's
 * network namespace go (their cgroups as found kept in /run for the undo),
 * and THREADS busy shells beside them (their $0 names the host).
 */
static const char cpu_hog_on[] =
    "set -e; h=$1 q=$2 n=$3 cpu=$4 re=$5; st=/run/rocelab-cpu-hog-$h\n"
    /* the host's name in a pattern: its dots are dots, not any character (another host's) */
    "hq=$(printf '%s' \"$h\" | sed 's/[.]/[.]/g')\n"
    "[ ! -e \"$st\" ] || { echo \"a cpu-hog is on $h already ($st)\" >&2; exit 1; }\n"
    "[ \"$cpu\" != last ] || cpu=$(($(nproc) - 1))\n"
    "if [ -f /sys/fs/cgroup/cgroup.controllers ]; then\n"
    "  dirs=/sys/fs/cgroup/rocelab-cpu-hog-$h; mkdir \"$dirs\"\n"
    "  echo \"$((q * 1000)) 100000\" > \"$dirs/cpu.max\"; echo \"$cpu\" > \"$dirs/cpuset.cpus\"\n"
    "else\n"
    "  c=/sys/fs/cgroup/cpu/rocelab-cpu-hog-$h s=/sys/fs/cgroup/cpuset/rocelab-cpu-hog-$h\n"
    "  dirs=\"$c $s\"; mkdir $dirs\n"
    "  echo 100000 > $c/cpu.cfs_period_us; echo $((q * 1000)) > $c/cpu.cfs_quota_us\n"
    "  echo \"$cpu\" > $s/cpuset.cpus; cat /sys/fs/cgroup/cpuset/cpuset.mems > $s/cpuset.mems\n"
    "fi\n"
    ": > \"$st\"\n"
    "for p in $(pgrep --ns $$ --nslist net -f \"$re\"); do\n"
    "  awk -F: -v p=$p '$2 == \"\" || $2 == \"cpu\" || $2 == \"cpu,cpuacct\" || $2 == \"cpuset\" "
    "{ print p, ($2 == \"\" ? \"v2\" : $2), $3 }' /proc/$p/cgroup >> \"$st\"\n"
    "  for d in $dirs; do echo $p > $d/cgroup.procs; done\n"
    "done\n"
    "i=0; while [ $i -lt $n ]; do\n"
    "  setsid sh -c 'n=$1; shift; for d; do echo $$ > $d/cgroup.procs; done; "
    "exec sh -c \"while :; do :; done\" $n' hog rocelab-cpu-hog-$h $dirs "
    "</dev/null >/dev/null 2>&1 &\n"
    "  i=$((i + 1))\n"
    "done\n"
    "i=0; while [ \"$(pgrep -fc \"^sh -c while :; do :; done rocelab-cpu-hog-$hq\\$\")\" -lt $n ] "
    "&& "
    "[ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done\n";

/* cpu-hog-off HOST: the agents back where they were, the busy shells gone, the cgroups too. */
static const char cpu_hog_off[] =
    "set -e; h=$1; st=/run/rocelab-cpu-hog-$h; hq=$(printf '%s' \"$h\" | sed 's/[.]/[.]/g')\n"
    "if [ -f /sys/fs/cgroup/cgroup.controllers ]; then dirs=/sys/fs/cgroup/rocelab-cpu-hog-$h\n"
    "else dirs=\"/sys/fs/cgroup/cpu/rocelab-cpu-hog-$h /sys/fs/cgroup/cpuset/rocelab-cpu-hog-$h\"; "
    "fi\n"
    "if [ -f \"$st\" ]; then\n"
    "  while read p k path; do\n"
    "    [ -d /proc/$p ] || continue\n"
    "    case $k in v2) d=/sys/fs/cgroup$path;; cpuset) d=/sys/fs/cgroup/cpuset$path;;\n"
    "      *) d=/sys/fs/cgroup/cpu$path;; esac\n"
    "    echo $p > \"$d/cgroup.procs\" || true\n"
    "  done < \"$st\"\n"
    "fi\n"
    "pkill -9 -f \"^sh -c while :; do :; done rocelab-cpu-hog-$hq\\$\" || true\n"
    "for d in $dirs; do\n"
    "  [ -d $d ] || continue\n"
    "  i=0; while [ -n \"$(cat $d/cgroup.procs)\" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); "
    "done\n"
    "  rmdir $d\n"
    "done\n"
    "rm -f \"$st\"\n";

/* "cpu-hog-on HOST QUOTA THREADS CPU": the script, its arguments after it ($0 cpu-hog). */
static void hog_on(struct host_cmd *c, char *const w[], size_t n)
{
	(void)n;
	host_cmd_words(c, (const char *const[]){"sh", "-c", NULL});
	host_cmd_fixed(c, cpu_hog_on);
	host_cmd_words(c, (const char *const[]){"cpu-hog", w[1], w[2], w[3], w[4], NULL});
	host_cmd_fixed(c, HOST_AGENTS_RE);
}

static void hog_off(struct host_cmd *c, char *const w[], size_t n)
{
	(void)n;
	host_cmd_words(c, (const char *const[]){"sh", "-c", NULL});
	host_cmd_fixed(c, cpu_hog_off);
	host_cmd_words(c, (const char *const[]){"cpu-hog", w[1], NULL});
}

static const struct host_verb verb_on = {"cpu-hog-on", 5, hog_on},
			      verb_off = {"cpu-hog-off", 2, hog_off};
HOST_VERB(verb_on)
HOST_VERB(verb_off)

struct cpu_hog_opts {
	/*
	 * busy threads beside the host's monitor agents in a CPU cgroup capped at
	 * hog_quota % of one core, pinned to CPU hog_cpu (-1: the last); verified
	 * once the agents' run-queue delay reaches hog_min_delay_ms a second
	 */
	int hog_threads, hog_quota, hog_cpu;
	long long hog_min_delay_ms;
};
FAULT_KIND_OPTS(hog, struct cpu_hog_opts)

#define FS(f) offsetof(struct cpu_hog_opts, f)

static const struct opt_desc opts[] = {
    {"threads", OPT_INT, 1, 64, FS(hog_threads), "busy threads beside the agents"},
    {"quota", OPT_INT, 1, 100, FS(hog_quota),
     "% of one CPU the agents and the busy threads share (CFS bandwidth)"},
    {"cpu", OPT_INT, -1, 4095, FS(hog_cpu), "the CPU they are pinned to (-1: the host's last)"},
    {"min-delay", OPT_MS, 1, 1000, FS(hog_min_delay_ms),
     "run-queue delay a second, at least, that verify must measure on the agents"},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	hog_rw(s)->hog_threads = 2;
	hog_rw(s)->hog_quota = 10;
	hog_rw(s)->hog_cpu = -1;
	hog_rw(s)->hog_min_delay_ms = 100;
}

static int plan_host(struct render_ctx *rc)
{
	const struct inv_host *h = &rc->inv->hosts[rc->spec->tdev];
	const struct fault_spec *s = rc->spec;
	struct fault_plan *p = rc->plan;
	char cpu[16];

	if (hog_of(s)->hog_cpu < 0)
		snprintf(cpu, sizeof(cpu), "last");
	else
		snprintf(cpu, sizeof(cpu), "%d", hog_of(s)->hog_cpu);
	fault_plan_host_op(p, h->name, "cpu-hog-on %s %d %d %s", "cpu-hog-off %s", h->name,
			   hog_of(s)->hog_quota, hog_of(s)->hog_threads, cpu, h->name);
	if (hog_of(s)->hog_cpu < 0)
		snprintf(cpu, sizeof(cpu), "its last");
	p->emulated = true;
	snprintf(p->note, sizeof(p->note),
		 "emulated: %d busy thread(s) beside %s's monitor agents in a CPU cgroup on "
		 "CPU %s, capped at %d%% of it (the cgroup keeps the overload to this host)",
		 hog_of(s)->hog_threads, h->name, cpu, hog_of(s)->hog_quota);
	return 0;
}

/* Before anything changes: cgroups with the cpu and cpuset controllers, the CPU, schedstat. */
static int precheck(struct fault_run *f)
{
	const struct inv_host *h = &f->inv->hosts[f->spec->tdev];
	char script[512], *out = NULL;
	int r, cpus;

	snprintf(script, sizeof(script),
		 "if [ -f /sys/fs/cgroup/cgroup.controllers ]; then "
		 "c=$(cat /sys/fs/cgroup/cgroup.subtree_control); "
		 "case \" $c \" in *' cpu '*) ;; *) echo no-cpu;; esac; "
		 "case \" $c \" in *' cpuset '*) ;; *) echo no-cpuset;; esac; "
		 "else [ -w /sys/fs/cgroup/cpu/cgroup.procs ] || echo no-cpu; "
		 "[ -w /sys/fs/cgroup/cpuset/cgroup.procs ] || echo no-cpuset; fi; "
		 "[ -r /proc/self/schedstat ] || echo no-schedstat; "
		 "[ ! -e /run/rocelab-cpu-hog-%s ] || echo busy; echo cpus $(nproc)",
		 h->name);
	r = lab_exec(f->lab, h->name, (const char *const[]){"sh", "-c", script, NULL}, NULL, &out,
		     f->err, sizeof(f->err));
	if (r) {
		free(out);
		return -EIO;
	}
	cpus = strstr(out, "cpus ") ? atoi(strstr(out, "cpus ") + 5) : 0;
	if (strstr(out, "no-cpu\n") || strstr(out, "no-cpuset"))
		snprintf(f->err, sizeof(f->err),
			 "%s: no writable CPU cgroup with the cpu and cpuset controllers (cgroup "
			 "v2: enable them in /sys/fs/cgroup/cgroup.subtree_control)",
			 h->name);
	else if (strstr(out, "no-schedstat"))
		snprintf(f->err, sizeof(f->err),
			 "%s: no /proc/PID/schedstat (a kernel without CONFIG_SCHED_INFO): the "
			 "run-queue delay cannot be measured",
			 h->name);
	else if (strstr(out, "busy"))
		snprintf(f->err, sizeof(f->err),
			 "%s: /run/rocelab-cpu-hog-%s is there: a cpu-hog is on already, or one "
			 "was left behind ('rocelab revert')",
			 h->name, h->name);
	else if (hog_of(f->spec)->hog_cpu >= cpus)
		snprintf(f->err, sizeof(f->err), "%s has %d CPU(s): cpu %d is not one of them",
			 h->name, cpus, hog_of(f->spec)->hog_cpu);
	else {
		free(out);
		return 0;
	}
	free(out);
	return -EOPNOTSUPP;
}

/*
 * The busy threads, and per agent (or, with none, per thread) its run-queue
 * delay over one second and whether it is in the host's cgroup.
 */
static int verify(struct fault_run *f)
{
	const struct inv_host *h = &f->inv->hosts[f->spec->tdev];
	static const char script[] =
	    "h=$1 re=$2; hq=$(printf '%s' \"$h\" | sed 's/[.]/[.]/g')\n"
	    "hog=\"^sh -c while :; do :; done rocelab-cpu-hog-$hq\\$\"\n"
	    "a=$(pgrep --ns $$ --nslist net -f \"$re\" | tr '\\n' ' ')\n"
	    "t=$(pgrep -f \"$hog\" | tr '\\n' ' ')\n"
	    "echo threads $(echo $t | wc -w)\n"
	    "[ -n \"$a\" ] && w=agent || { w=thread; a=$t; }\n"
	    "d0=; for p in $a; do d0=\"$d0 $(cut -d' ' -f2 /proc/$p/schedstat 2>/dev/null || "
	    "echo 0)\"; done\n"
	    "sleep 1; set -- $d0\n"
	    "for p in $a; do d=$(cut -d' ' -f2 /proc/$p/schedstat 2>/dev/null || echo $1); "
	    "echo $w $p $(( (d - $1) / 1000000 )) $(grep -cF rocelab-cpu-hog-$h /proc/$p/cgroup "
	    "2>/dev/null); shift; done\n";
	char *out = NULL, *save = NULL;
	long long sum = 0, worst = -1;
	size_t n = 0, inside = 0, threads = 0;
	const char *what = "agent";
	int r = lab_exec(
	    f->lab, h->name,
	    (const char *const[]){"sh", "-c", script, "cpu-hog", h->name, HOST_AGENTS_RE, NULL},
	    NULL, &out, f->err, sizeof(f->err));

	if (r) {
		free(out);
		return -EIO;
	}
	for (char *l = strtok_r(out ? out : (char[]){""}, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char w[16];
		int pid;
		long long ms;
		unsigned in;

		if (sscanf(l, "threads %zu", &threads) == 1)
			continue;
		if (sscanf(l, "%15s %d %lld %u", w, &pid, &ms, &in) != 4)
			continue;
		what = strcmp(w, "agent") ? "busy thread" : "agent";
		n++;
		inside += in > 0;
		sum += ms;
		if (worst < 0 || ms < worst)
			worst = ms;
	}
	free(out);
	if (threads != (size_t)hog_of(f->spec)->hog_threads) {
		snprintf(f->err, sizeof(f->err), "%s: %zu busy thread(s) running, not %d", h->name,
			 threads, hog_of(f->spec)->hog_threads);
		return -EIO;
	}
	if (inside < n) {
		snprintf(f->err, sizeof(f->err), "%s: %zu of %zu %s(s) outside the cgroup", h->name,
			 n - inside, n, what);
		return -EIO;
	}
	if (!n || worst < hog_of(f->spec)->hog_min_delay_ms) {
		snprintf(f->err, sizeof(f->err),
			 "%s: the %ss' run-queue delay is %lld ms a second at the least, under the "
			 "%lld ms asked (min-delay): raise threads or lower quota",
			 h->name, what, worst, hog_of(f->spec)->hog_min_delay_ms);
		return -EIO;
	}
	if (strcmp(what, "agent"))
		snprintf(f->evidence, sizeof(f->evidence),
			 "%s: %zu busy thread(s) in a CPU cgroup of %d%% of one CPU, no monitor "
			 "agent there; the threads' run-queue delay %lld ms a second on average "
			 "(least %lld), measured",
			 h->name, threads, hog_of(f->spec)->hog_quota, sum / (long long)n, worst);
	else
		snprintf(f->evidence, sizeof(f->evidence),
			 "%s: %zu busy thread(s) beside %zu monitor agent(s) in a CPU cgroup of "
			 "%d%% of one CPU; the agents' run-queue delay %lld ms a second on average "
			 "(least %lld), measured",
			 h->name, threads, n, hog_of(f->spec)->hog_quota, sum / (long long)n,
			 worst);
	return 0;
}

const struct fault_kind_ops fk_cpu_hog = {
    .name = "cpu-hog",
    .usage = "--target HOST [--threads N] [--quota PCT] [--cpu N] [--min-delay D]",
    .targets = FT_HOST,
    .loads_cpu = true,
    .example = "host3",
    .opts = opts,
    .opts_size = sizeof(struct cpu_hog_opts),
    .defaults = defaults,
    .plan_host = plan_host,
    .precheck = precheck,
    .verify = verify,
    .follows_host = "cgroup v2 cpu.max and cpuset (Documentation/admin-guide/cgroup-v2.rst), v1's "
		    "cpu and cpuset: emulated",
};
