// SPDX-License-Identifier: MIT
/* Renders host op lines as ip/tc/dcb commands and runs them through the lab's exec. */
#define _GNU_SOURCE
#include "injectors/host_cmd.h"

#include "harness/lib/common.h"
#include "harness/lib/nl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Split op into words in place; returns how many. */
static size_t split(char *s, char *w[], size_t max)
{
	size_t n = 0;

	for (char *save = NULL, *t = strtok_r(s, " ", &save); t && n < max;
	     t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	return n;
}

struct cmd {
	const char **argv;
	size_t n;
	char *buf;
	size_t len, used;
	bool overflow;
};

static void word(struct cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void word(struct cmd *c, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (c->n + 1 >= HOST_CMD_MAX_WORDS || c->used >= c->len) {
		c->overflow = true;
		return;
	}
	va_start(ap, fmt);
	k = vsnprintf(c->buf + c->used, c->len - c->used, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= c->len - c->used) {
		c->overflow = true;
		return;
	}
	c->argv[c->n++] = c->buf + c->used;
	c->used += (size_t)k + 1;
}

/* A word that is a static string (a script): not copied. */
static void fixed(struct cmd *c, const char *s)
{
	if (c->n + 1 >= HOST_CMD_MAX_WORDS) {
		c->overflow = true;
		return;
	}
	c->argv[c->n++] = s;
}

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

static void words(struct cmd *c, const char *const *w)
{
	for (; *w; w++)
		word(c, "%s", *w);
}

int host_op_command(const char *op, char *buf, size_t len, const char *argv[HOST_CMD_MAX_WORDS],
		    char *err, size_t errlen)
{
	char copy[512], *w[HOST_CMD_MAX_WORDS];
	size_t n;
	struct cmd c = {.argv = argv, .buf = buf, .len = len};
	const char *v;

	snprintf(copy, sizeof(copy), "%s", op);
	n = split(copy, w, ARRAY_SIZE(w));
	v = n ? w[0] : "";
	if (n == 1 && !strcmp(v, "noop")) {
		/* nothing to run */
	} else if ((!strcmp(v, "link-down") || !strcmp(v, "link-up")) && n == 2) {
		words(&c, (const char *const[]){"ip", "link", "set", "dev", w[1],
						!strcmp(v, "link-up") ? "up" : "down", NULL});
	} else if ((!strcmp(v, "rule-del") || !strcmp(v, "rule-add")) && n == 5) {
		words(&c,
		      (const char *const[]){"ip", "rule", v + 5, "pref", w[1], "from", w[2], NULL});
		if (strcmp(w[3], "-"))
			words(&c, (const char *const[]){"iif", w[3], NULL});
		words(&c, (const char *const[]){"table", w[4], NULL});
	} else if (!strcmp(v, "route-del") && n == 3) {
		words(&c, (const char *const[]){"ip", "route", "del", w[2], "table", w[1], NULL});
	} else if (!strcmp(v, "route-add") && n == 5) {
		words(&c, (const char *const[]){"ip", "route", "add", w[2], NULL});
		if (strcmp(w[3], "-"))
			words(&c, (const char *const[]){"via", w[3], NULL});
		/* As nl_route_add() writes it. */
		words(&c,
		      (const char *const[]){"dev", w[4], "table", w[1], "proto", "static", NULL});
	} else if (!strcmp(v, "tbf") && n == 3) {
		/* As nl_qdisc_tbf() makes it. */
		unsigned long long kbit = strtoull(w[2], NULL, 10);

		words(&c, (const char *const[]){"tc", "qdisc", "replace", "dev", w[1], "root",
						"handle", "1:", "tbf", NULL});
		word(&c, "rate");
		word(&c, "%llukbit", kbit);
		word(&c, "burst");
		word(&c, "%llub", nl_tbf_burst(kbit));
		word(&c, "latency");
		word(&c, "%dms", NL_TBF_LATENCY_MS);
	} else if (!strcmp(v, "qdisc-del") && n == 2) {
		words(&c, (const char *const[]){"tc", "qdisc", "del", "dev", w[1], "root", NULL});
	} else if (!strcmp(v, "ecn-unmark") && n == 2) {
		words(&c, (const char *const[]){"tc", "qdisc", "del", "dev", w[1], "clsact", NULL});
	} else if (!strcmp(v, "ecn-mark")) {
		snprintf(err, errlen,
			 "'%s': the emulated ECN marker is a BPF program this machine loads into "
			 "its own kernel: the virtual lab only",
			 op);
		return -EOPNOTSUPP;
	} else if (!strcmp(v, "dcb-pfc") && n == 4) {
		words(&c,
		      (const char *const[]){"dcb", "pfc", "set", "dev", w[1], "prio-pfc", NULL});
		word(&c, "%s:%s", w[2], w[3]);
	} else if ((!strcmp(v, "agents-stop") || !strcmp(v, "agents-cont")) && n == 1) {
		/*
		 * rocelab's monitor agents in the host's network namespace (a host of the
		 * virtual lab, or the one a host reached over SSH runs its sessions in), by
		 * their command line; none is no error (pkill's 1).
		 */
		word(&c, "sh");
		word(&c, "-c");
		word(&c, "pkill -%s --ns $$ --nslist net -f '%s'; [ $? -le 1 ]",
		     !strcmp(v, "agents-stop") ? "STOP" : "CONT", HOST_AGENTS_RE);
	} else if (!strcmp(v, "cpu-hog-on") && n == 5) {
		words(&c, (const char *const[]){"sh", "-c", NULL});
		fixed(&c, cpu_hog_on);
		words(&c, (const char *const[]){"cpu-hog", w[1], w[2], w[3], w[4], NULL});
		fixed(&c, HOST_AGENTS_RE);
	} else if (!strcmp(v, "cpu-hog-off") && n == 2) {
		words(&c, (const char *const[]){"sh", "-c", NULL});
		fixed(&c, cpu_hog_off);
		words(&c, (const char *const[]){"cpu-hog", w[1], NULL});
	} else if (!strcmp(v, "ip") && n > 1) {
		for (size_t i = 0; i < n; i++)
			word(&c, "%s", w[i]);
	} else {
		snprintf(err, errlen, "unknown or malformed host op '%s'", op);
		return -EINVAL;
	}
	if (c.overflow) {
		snprintf(err, errlen, "host op '%.200s' is too long", op);
		return -E2BIG;
	}
	argv[c.n] = NULL;
	return 0;
}

const char *host_op_text(const char *op, char *buf, size_t len)
{
	char words_buf[512], err[256];
	const char *argv[HOST_CMD_MAX_WORDS];
	size_t used = 0;

	buf[0] = '\0';
	if (host_op_command(op, words_buf, sizeof(words_buf), argv, err, sizeof(err))) {
		snprintf(buf, len, "%s", op);
		return buf;
	}
	if (!argv[0])
		snprintf(buf, len, "(nothing)");
	for (size_t i = 0; argv[i] && used < len; i++) {
		int k = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);

		used += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* What iproute2 says when the state an undo wants is there already. */
static bool already(const char *err)
{
	static const char *const said[] = {
	    "File exists",
	    "No such process",
	    "No such file or directory",
	    "Cannot find device",
	    "Cannot delete qdisc with handle of zero",
	    "FIB table does not exist",
	    "address already assigned",
	};

	for (size_t i = 0; i < ARRAY_SIZE(said); i++)
		if (strstr(err, said[i]))
			return true;
	return false;
}

int host_op_exec(struct lab *l, const char *host, const char *op, bool undo, char *err,
		 size_t errlen)
{
	char buf[512];
	const char *argv[HOST_CMD_MAX_WORDS];
	int r = host_op_command(op, buf, sizeof(buf), argv, err, errlen);

	if (r || !argv[0])
		return r;
	r = lab_exec(l, host, argv, NULL, NULL, err, errlen);
	if (r > 0 && undo && already(err)) {
		err[0] = '\0';
		return 0;
	}
	if (r > 0 && strstr(err, "Operation not supported"))
		return -EOPNOTSUPP;
	return r > 0 ? -EIO : r;
}
