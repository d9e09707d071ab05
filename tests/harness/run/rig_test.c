// SPDX-License-Identifier: MIT
/* The rig's stall detector: a machine stopped as a whole shows as a late wake-up (rig.h). */
#define _GNU_SOURCE
#include "harness/run/rig.h"

#include "harness/lib/common.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A process sampling the rig is stopped whole for 150 ms (SIGSTOP: every
 * thread, as a stalled machine stops every task; none waits on a run queue,
 * so PSI sees nothing): its stall detector says a wake-up at least 100 ms
 * late, in the samples and in results.json's phases.
 */
Test(rig, a_process_stopped_whole_shows_as_a_late_wake_up)
{
	int p[2];
	double got[2] = {0};
	pid_t c;

	cr_assert_eq(pipe(p), 0);
	c = fork();
	cr_assert_geq(c, 0);
	if (c == 0) {
		struct rig r = {0};
		double t0 = (double)rl_realtime_ns() / 1e9, out[2] = {0};
		const char *name[] = {"all"};
		double from[] = {t0}, to[1];
		json_t *j;

		if (rig_start(&r, 0.05))
			_exit(1);
		sleep_ms(900);
		rig_stop(&r);
		to[0] = (double)rl_realtime_ns() / 1e9;
		for (size_t i = 0; i < r.n; i++)
			out[0] = r.s[i].late_ms > out[0] ? r.s[i].late_ms : out[0];
		j = rig_json(&r, "test", name, from, to, 1);
		out[1] = json_real_value(json_object_get(
		    json_object_get(json_object_get(j, "phases"), "all"), "stall_max_ms"));
		json_decref(j);
		rig_free(&r);
		_exit(write(p[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
	}
	close(p[1]);
	sleep_ms(300);
	kill(c, SIGSTOP);
	sleep_ms(150);
	kill(c, SIGCONT);
	cr_assert_eq(read(p[0], got, sizeof(got)), (ssize_t)sizeof(got));
	waitpid(c, NULL, 0);
	cr_assert_geq(got[0], 100, "the worst wake-up was %.1f ms late", got[0]);
	cr_assert_float_eq(got[1], got[0], 1e-9, "results.json's phase says %.1f ms", got[1]);
}
