// SPDX-License-Identifier: MIT
/*
 * lab_each(): every job once, at most the lab's fan-out at once on a lab
 * reached over SSH, one after another elsewhere (issue 59).
 */
#define _GNU_SOURCE
#include "harness/lab/lab.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int running, most;

struct job {
	int runs;
	int order; /* when it started, among all */
};

static atomic_int started;

static void *job_run(void *arg)
{
	struct job *j = arg;
	int now = atomic_fetch_add(&running, 1) + 1, m = atomic_load(&most);

	while (now > m && !atomic_compare_exchange_weak(&most, &m, now))
		;
	j->order = atomic_fetch_add(&started, 1);
	j->runs++;
	nanosleep(&(struct timespec){0, 100000000}, NULL); /* a round trip */
	atomic_fetch_sub(&running, 1);
	return NULL;
}

static void reset(void)
{
	atomic_store(&running, 0);
	atomic_store(&most, 0);
	atomic_store(&started, 0);
}

Test(fanout, every_job_once_and_never_more_at_once_than_the_fan_out)
{
	struct lab l = {.ops = &ssh_lab_ops, .fanout = 4};
	struct job jobs[10] = {0};

	reset();
	lab_each(&l, jobs, 10, sizeof(jobs[0]), job_run);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(jobs[i].runs, 1, "job %d ran %d times", i, jobs[i].runs);
	cr_assert(atomic_load(&most) <= 4, "%d at once, fan-out 4", atomic_load(&most));
	/* ten 0.1 s jobs: the first four start before the first ends */
	cr_assert(atomic_load(&most) >= 2, "%d at once: not in parallel", atomic_load(&most));
}

Test(fanout, a_fan_out_of_one_is_one_after_another_in_order)
{
	struct lab l = {.ops = &ssh_lab_ops, .fanout = 1};
	struct job jobs[5] = {0};

	reset();
	lab_each(&l, jobs, 5, sizeof(jobs[0]), job_run);
	cr_assert_eq(atomic_load(&most), 1);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(jobs[i].order, i, "job %d started %d-th", i, jobs[i].order);
}

Test(fanout, a_lab_on_this_machine_goes_in_turn)
{
	struct lab l = {.ops = &vlab_lab_ops, .fanout = 8};
	struct job jobs[3] = {0};

	reset();
	lab_each(&l, jobs, 3, sizeof(jobs[0]), job_run);
	cr_assert_eq(atomic_load(&most), 1);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(jobs[i].runs, 1);
}

Test(fanout, no_job_no_thread_and_the_default_fan_out)
{
	struct lab l = {.ops = &ssh_lab_ops};
	struct job jobs[40] = {0};

	reset();
	lab_each(&l, jobs, 0, sizeof(jobs[0]), job_run);
	cr_assert_eq(atomic_load(&started), 0);
	lab_each(&l, jobs, 40, sizeof(jobs[0]), job_run);
	cr_assert(atomic_load(&most) <= LAB_FANOUT_DEFAULT, "%d at once", atomic_load(&most));
	for (int i = 0; i < 40; i++)
		cr_assert_eq(jobs[i].runs, 1);
}

/* The pool under it, given its own width (the devices-under-test read: hosts and switches). */
Test(fanout, the_pool_takes_its_width_whatever_the_lab)
{
	struct job jobs[9] = {0};

	reset();
	lab_pool(jobs, 9, sizeof(jobs[0]), job_run, 3);
	cr_assert(atomic_load(&most) <= 3, "%d at once, width 3", atomic_load(&most));
	cr_assert(atomic_load(&most) >= 2, "%d at once: not in parallel", atomic_load(&most));
	for (int i = 0; i < 9; i++)
		cr_assert_eq(jobs[i].runs, 1);
}
