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

/*
 * A host's own samples ('rocelab rig' there) read back: its clock corrected,
 * and whatever it printed that is not a sample in range left out (the file
 * came from a host: untrusted).
 */
Test(rig, a_hosts_lines_read_back_clock_corrected_and_bad_lines_left_out)
{
	char path[] = "/tmp/rocelab-rig-test.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct rig r = {0};

	cr_assert_not_null(f);
	fputs("rig: sampling every 0.100 s, PSI read\n"
	      "rig 1000.100 0.2000 0.5000 0.0100 0.150 0.0000\n"
	      "rig 1000.200 0.8000 0.9000 0.0100 0.150 0.0000\n"
	      "rig 1000.300 nan 0.5 0.01 0.1 0\n"		   /* not finite */
	      "rig 1000.400 1.5000 0.5000 0.0100 0.150 0.0000\n"   /* a share over 1 */
	      "rig 1000.500 0.5000 -0.100 0.0100 0.150 0.0000\n"   /* a negative share */
	      "rig 1000.600 0.5000 0.5000\n"			   /* cut short */
	      "rig -5 0.5000 0.5000 0.0100 0.150 0.0000\n"	   /* no time */
	      "`touch /tmp/x` 1000.7 0.5 0.5 0.01 0.1 0\n"	   /* not a sample */
	      "rig 1000.800 -1.0000 0.2000 0.0100 0.150 0.0100\n", /* no PSI there */
	      f);
	fclose(f);
	cr_assert_eq(rig_read(&r, path, 0.1, 2.0), 3);
	cr_assert_float_eq(r.s[0].t, 998.1, 1e-9); /* its clock 2 s ahead of ours */
	cr_assert(r.psi);
	/* the mean over samples wholly in [998.0, 998.25]: 0.2 and 0.8 */
	cr_assert_float_eq(rig_pressure(&r, 998.0, 998.25), 0.5, 1e-9);
	cr_assert_float_eq(r.s[0].runq, -1, 1e-9, "an older host's six fields: no run queue");
	cr_assert_eq(rig_read(&r, "/nonexistent/rig.log", 0.1, 0), 0);
	rig_free(&r);
	unlink(path);
}

/*
 * Issue 64: the run queue (tasks runnable at each sample, /proc/loadavg)
 * sampled here, printed by 'rocelab rig' as a seventh field, read back, and
 * in results.json's phases and samples.
 */
Test(rig, the_run_queue_is_sampled_printed_and_read_back)
{
	char path[] = "/tmp/rocelab-rig-test.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct rig r = {0};
	const char *name[] = {"all"};
	double from[1], to[1];
	json_t *j, *ph, *s0;

	cr_assert_eq(rig_start(&r, 0.05), 0);
	from[0] = (double)rl_realtime_ns() / 1e9;
	sleep_ms(300);
	rig_stop(&r);
	to[0] = (double)rl_realtime_ns() / 1e9;
	cr_assert_gt(r.n, 2);
	for (size_t i = 0; i < r.n; i++)
		cr_assert_geq(r.s[i].runq, 1, "the sampler itself runs: %.0f", r.s[i].runq);
	j = rig_json(&r, "test", name, from, to, 1);
	ph = json_object_get(json_object_get(j, "phases"), "all");
	cr_assert_geq(json_real_value(json_object_get(ph, "runq_mean")), 1);
	cr_assert_geq(json_real_value(json_object_get(ph, "runq_max")), 1);
	s0 = json_array_get(json_object_get(j, "samples"), 0);
	cr_assert_eq(json_array_size(s0), 7);
	cr_assert_geq(json_real_value(json_array_get(s0, 6)), 1);
	cr_assert_eq(json_integer_value(json_object_get(j, "cpus")), sysconf(_SC_NPROCESSORS_ONLN),
		     "the report draws the run queue per CPU");
	json_decref(j);
	rig_free(&r);
	cr_assert_not_null(f);
	fputs("rig-cpus 4\n"
	      "rig 1000.100 0.2000 0.5000 0.0100 0.150 0.0000 3\n"
	      "rig 1000.200 0.2000 0.5000 0.0100 0.150 0.0000 -7\n" /* a run queue below -1 */
	      "rig 1000.300 0.2000 0.5000 0.0100 0.150 0.0000\n",
	      f);
	fclose(f);
	cr_assert_eq(rig_read(&r, path, 0.1, 0), 2);
	cr_assert_float_eq(r.s[0].runq, 3, 1e-9);
	cr_assert_float_eq(r.s[1].runq, -1, 1e-9);
	cr_assert_eq(r.cpus, 4, "its rig-cpus line");
	rig_free(&r);
	unlink(path);
}

/*
 * Issue 64: over SSH the report draws the most loaded host at each of the
 * controller's samples: the worst pressure any host sampled in (t - interval,
 * t]; none sampled there (or a host without PSI): -1.  A host that says it
 * has no CPUs, or a million, is not believed.
 */
Test(rig, the_worst_host_at_a_time)
{
	struct rig h[2] = {0};
	struct rig_sample a[] = {{.t = 10.0, .some = 0.2},
				 {.t = 10.1, .some = 0.9},
				 {.t = 10.2, .some = 0.1}},
			  b[] = {{.t = 10.05, .some = 0.4},
				 {.t = 10.15, .some = -1},
				 {.t = 10.25, .some = 0.3}};
	char path[] = "/tmp/rocelab-rig-test.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	h[0].s = a, h[0].n = 3, h[1].s = b, h[1].n = 3;
	cr_assert_float_eq(rig_worst_at(h, 2, 10.1, 0.1), 0.9, 1e-9);  /* a's 10.1, b's 10.05 */
	cr_assert_float_eq(rig_worst_at(h, 2, 10.05, 0.1), 0.4, 1e-9); /* a's 10.0, b's 10.05 */
	cr_assert_float_eq(rig_worst_at(h, 2, 10.2, 0.1), 0.1, 1e-9);  /* b's 10.15 has no PSI */
	cr_assert_float_eq(rig_worst_at(h, 2, 11.0, 0.1), -1, 1e-9);
	cr_assert_float_eq(rig_worst_at(h, 0, 10.1, 0.1), -1, 1e-9);
	cr_assert_not_null(f);
	fputs("rig-cpus 1000000\nrig 1000.100 0.2000 0.5000 0.0100 0.150 0.0000 3\n", f);
	fclose(f);
	cr_assert_eq(rig_read(&h[0], path, 0.1, 0), 1);
	cr_assert_eq(h[0].cpus, 0);
	rig_free(&h[0]);
	unlink(path);
}
