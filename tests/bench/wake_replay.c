// SPDX-License-Identifier: MIT
/*
 * The rig's floor under an agent's CPU figure (issue 59): a process that does
 * nothing but wake at the times an agent woke.  On this machine (a virtual
 * machine) a wake-up costs the woken task 40-300 us of CPU by itself (a
 * process waking 10 times a second for nothing used 0.24% of a core; on a
 * bare-metal host a wake-up costs a few microseconds), so an agent's CPU is
 * mostly that at the rates the monitors run.  rpm_bench.sh records when each
 * agent was switched in (perf, sched:sched_switch) and this replays those
 * times on the agent's CPU: its own CPU time is the wake-ups' share of the
 * agent's, measured side by side on the same lab.
 *
 * wake_replay < TIMES: TIMES is one switch-in time a line, in seconds (perf
 * script -F time), the first as zero.  Prints "WAKES SECONDS CPU_NS": the
 * wake-ups replayed, over how long, and this process's CPU time (schedstat)
 * while it replayed them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* This thread's CPU time so far, in ns, as the scheduler counts it (0: unknown). */
static unsigned long long exec_ns(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static unsigned long long mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

int main(void)
{
	size_t n = 0, cap = 4096;
	unsigned long long *at = malloc(cap * sizeof(*at)), base, c0, c1;
	double t, t0 = -1;
	char line[256];
	unsigned long ln = 0;

	if (!at)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		char *end;

		ln++;
		t = strtod(line, &end);
		if (end == line || (*end && *end != ':' && *end != '\n' && *end != ' ')) {
			fprintf(stderr, "wake_replay: line %lu: not a time in seconds: %s", ln,
				line);
			return 2;
		}
		if (t0 < 0)
			t0 = t;
		if (t < t0) {
			fprintf(stderr,
				"wake_replay: line %lu: time goes back (%.6f before %.6f)\n", ln, t,
				t0);
			return 2;
		}
		if (n == cap) {
			unsigned long long *m = realloc(at, 2 * cap * sizeof(*at));

			if (!m)
				return 1;
			at = m;
			cap *= 2;
		}
		at[n++] = (unsigned long long)((t - t0) * 1e9);
	}
	if (n < 2) {
		fprintf(stderr, "wake_replay: %zu times on input: nothing to replay\n", n);
		return 2;
	}
	base = mono_ns() + 50000000ULL; /* past this program's own start */
	c0 = exec_ns();
	for (size_t i = 0; i < n; i++) {
		unsigned long long w = base + at[i];
		struct timespec ts = {(time_t)(w / 1000000000ULL), (long)(w % 1000000000ULL)};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	c1 = exec_ns();
	printf("%zu %.3f %llu\n", n, (double)at[n - 1] / 1e9, c1 - c0);
	free(at);
	return 0;
}
