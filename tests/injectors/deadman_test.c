// SPDX-License-Identifier: MIT
/*
 * The dead-man timer's shell lines run for real with /bin/sh, as a device
 * runs them (issue 63): one left alone fires and runs the undo, newest
 * first; one re-armed does not; one cancelled is gone at once; a re-arm
 * after it fired says so (DEADMAN_GONE) and when.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/proc.h"
#include "injectors/deadman.h"
#include "injectors/effect.h"
#include "injectors/fault.h"
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB "injectors/dialect-lab.yaml"

static char home[] = "/tmp/rocelab-deadman-test.XXXXXX";
static char lease[PATH_MAX];
static struct inventory *inv;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(home));
	/* where the timers keep their leases: this test's own folder, not /run */
	setenv("ROCELAB_DEADMAN_DIR", home, 1);
	inv = inventory_load(LAB, stderr);
	cr_assert_not_null(inv);
}

static void teardown(void)
{
	inventory_free(inv);
	rl_rm_rf(home);
}

TestSuite(deadman, .init = setup, .fini = teardown);

/* Run line with sh -c as a device would; its exit status, its output in *out (may be NULL). */
static int sh(const char *line, char **out)
{
	const char *argv[] = {"sh", "-c", line, NULL};

	return proc_capture(argv, NULL, NULL, out, NULL);
}

/*
 * A held fault of two steps on host h1 (its own shell lines: each undo appends
 * its name to a file), the timer of a 3 s lease planned before them.
 */
static void plan(struct fault_plan *p)
{
	struct fault_spec s;
	char why[256], undo[PATH_MAX + 64];

	memset(p, 0, sizeof(*p));
	p->kind = fault_kind_find("link-flap");
	fault_spec_init(&s, p->kind);
	s.hold = true;
	s.deadman_ms = 3000;
	snprintf(undo, sizeof(undo), "echo first >>'%s/undone'", home);
	fault_plan_add(p, FB_SSH, "h1", "true", NULL, undo);
	snprintf(undo, sizeof(undo), "echo second >>'%s/undone'", home);
	fault_plan_add(p, FB_SSH, "h1", "true", NULL, undo);
	cr_assert_eq(fault_plan_deadman(p, inv, &s, 9, "0wner0id", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(p->n_acts, 3);
	cr_assert(fault_action_is_deadman(&p->acts[0]), "the timer comes first");
	snprintf(lease, sizeof(lease), "%s/f9-h1-0wner0id", home);
}

static char *undone(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/undone", home);
	return rl_read_file(path, NULL);
}

static bool exists(const char *suffix)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s%s", lease, suffix);
	return access(path, F_OK) == 0;
}

Test(deadman, left_alone_it_fires_and_undoes_newest_first)
{
	struct fault_plan p;
	char *out = NULL, *u;

	plan(&p);
	cr_assert_eq(sh(p.acts[0].apply, NULL), 0, "arming exits 0");
	cr_assert(exists("") && exists(".pid"), "its lease and pid are there");
	sleep(2);
	cr_assert_null(undone(), "the first deadline leaves the verification its time");
	/* verified: the injector re-arms it to its lease, then stops */
	cr_assert_eq(sh(p.acts[0].rearm, NULL), 0, "the re-arm after verification exits 0");
	sleep(5);
	u = undone();
	cr_assert_not_null(u, "the timer fired within its 3 s lease (and a second)");
	cr_assert_str_eq(u, "second\nfirst\n", "the undo ran newest first");
	cr_assert(!exists("") && exists(".fired"), "its lease gone, a note of when it fired left");
	cr_assert_eq(sh(p.acts[0].rearm, &out), DEADMAN_GONE, "a re-arm finds it gone");
	cr_assert(out && strlen(out) > 10, "and says when it fired: '%s'", out ? out : "");
	cr_assert_eq(sh(p.acts[0].revert, NULL), 0, "the cancel exits 0 after it fired");
	cr_assert(!exists(".fired"), "and removes the note");
	free(out);
	free(u);
	fault_plan_clear(&p);
}

Test(deadman, rearmed_it_holds_then_cancelled_it_is_gone)
{
	struct fault_plan p;
	char *u;

	plan(&p);
	cr_assert_eq(sh(p.acts[0].apply, NULL), 0);
	for (int i = 0; i < 5; i++) {
		sleep(1);
		cr_assert_eq(sh(p.acts[0].rearm, NULL), 0, "re-arm %d exits 0", i);
	}
	cr_assert_null(u = undone(), "re-armed every second, a 3 s lease never fired: %s",
		       u ? u : "");
	cr_assert_eq(sh(p.acts[0].revert, NULL), 0);
	cr_assert(!exists("") && !exists(".pid"), "the cancel removed its lease and pid");
	cr_assert_neq(sh("pgrep -f '[r]ocelab-deadman .*/f9-h1-0wner0id'", NULL), 0,
		      "and the timer process is gone");
	sleep(4);
	cr_assert_null(undone(), "a cancelled timer never fires");
	cr_assert_eq(sh(p.acts[0].rearm, NULL), DEADMAN_GONE, "a re-arm after the cancel: gone");
	fault_plan_clear(&p);
}

Test(deadman, a_fault_left_until_revert_has_none)
{
	struct fault_spec s;
	struct fault_plan p = {.kind = fault_kind_find("pfc-misconfig")};
	char why[256];

	fault_spec_init(&s, p.kind);
	fault_plan_add(&p, FB_SSH, "h1", "true", NULL, "true");
	cr_assert_eq(fault_plan_deadman(&p, inv, &s, 9, "0wner0id", why, sizeof(why)), 0);
	cr_assert_eq(p.n_acts, 1, "no injector stays to re-arm: no timer");
	fault_plan_clear(&p);
}

/*
 * EOS, whose login is its CLI (issue 63): its timer is a configuration
 * session committed empty with a commit timer, armed before the switch's
 * first step and after the host's own; given again to re-arm; confirmed at
 * the revert, after the switch's undo (the plan runs its undo newest first).
 * It is journaled as a session, and a plan has no device without a timer.
 */
Test(deadman, eos_gets_a_configuration_sessions_commit_timer)
{
	struct fault_spec s;
	struct fault_plan p = {.kind = fault_kind_find("pfc-misconfig")};
	struct fault_action *t;
	char why[256];

	fault_spec_init(&s, p.kind);
	s.for_ms = 1000;
	s.deadman_ms = 90000;
	fault_plan_add(&p, FB_SSH, "h1", "true", NULL, "true");
	fault_plan_add(&p, FB_SSH, "sw-eos", "configure\ninterface Ethernet1\nshutdown\nend", NULL,
		       "configure\ninterface Ethernet1\nno shutdown\nend");
	cr_assert_eq(fault_plan_deadman(&p, inv, &s, 9, "0wner0id", why, sizeof(why)), 0, "%s",
		     why);
	cr_assert_eq(p.n_acts, 4, "h1's timer, h1's step, sw-eos's timer, sw-eos's step");
	t = &p.acts[2];
	cr_assert_eq(t->backend, FB_SESSION);
	cr_assert(fault_action_is_deadman(t));
	cr_assert_str_eq(t->device, "sw-eos");
	cr_assert_str_eq(t->apply, "configure session rocelab-f9-0wner0id\nend\n"
				   "configure session rocelab-f9-0wner0id commit timer 00:02:00");
	cr_assert_str_eq(t->rearm, "configure session rocelab-f9-0wner0id commit timer 00:01:30");
	cr_assert_str_eq(t->revert, "configure session rocelab-f9-0wner0id commit");
	cr_assert_eq(t->lease_ms, 90000);
	cr_assert_str_eq(t->fires, "EOS rolls back to its configuration as armed, undoing: "
				   "configure; interface Ethernet1; no shutdown; end");
	cr_assert_str_eq(fault_action_via(&p, t), "session");
	cr_assert_eq(p.note[0], '\0', "every device has a timer: %s", p.note);
	fault_plan_clear(&p);
}

/* What 'nv config diff -o commands' printed: its pending changes counted, anything else not. */
Test(deadman, nvue_pending_changes_are_counted_from_their_command_lines)
{
	cr_assert_eq(fault_nvue_pending_text(""), 0);
	cr_assert_eq(fault_nvue_pending_text("\n"), 0);
	cr_assert_eq(fault_nvue_pending_text("nv set interface swp1 link state down\n"
					     "  nv unset acl rocelab_f3\n"
					     "# a comment, not a change\n"),
		     2);
}

/* A lease in this test's folder, its timer's pid beside it. */
static void lease_at(const char *name, pid_t pid)
{
	char path[PATH_MAX + 16], buf[32];

	snprintf(path, sizeof(path), "%s/%s", home, name);
	cr_assert_eq(rl_write_file(path, "1\n", 2), 0);
	snprintf(path, sizeof(path), "%s/%s.pid", home, name);
	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	cr_assert_eq(rl_write_file(path, buf, strlen(buf)), 0);
}

static bool there(const char *name)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/%s", home, name);
	return access(path, F_OK) == 0;
}

/*
 * 'lab down' took the namespaces and every timer in them: the leases of those
 * timers go; one whose timer runs, another device's, another controller's stay.
 */
Test(deadman, lab_down_sweeps_the_leases_of_timers_that_went)
{
	char own[16], n[5][64], path[PATH_MAX + 16];
	pid_t dead = fork(), live;

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	fault_deadman_owner(own, sizeof(own));
	snprintf(n[0], 64, "f3-spine1-%s", own);
	snprintf(n[1], 64, "f4-spine1-%s", own);
	snprintf(n[2], 64, "f5-host9-%s", own);
	snprintf(n[3], 64, "f6-spine1-0ther0id");
	snprintf(n[4], 64, "f7-spine10-%s", own);
	snprintf(path, sizeof(path), "%s/%s", home, n[1]);
	if ((live = fork()) == 0) { /* a timer as armed: sh -c BODY rocelab-deadman LEASE */
		execl("/bin/sh", "sh", "-c", "sleep 30", "rocelab-deadman", path, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 5; i++)
		lease_at(n[i], i == 1 ? live : dead);
	snprintf(path, sizeof(path), "%s/f3-spine1-%s.fired", home, own);
	cr_assert_eq(rl_write_file(path, "2026\n", 5), 0);
	snprintf(path, sizeof(path), "f3-spine1-%s.fired", own);
	usleep(200000); /* the timer's exec */

	char *devs[] = {"spine1", "host1"};

	cr_assert_eq(fault_deadman_sweep_local(devs, 2), 1, "one lease swept");
	cr_assert(!there(n[0]) && !there(path), "the lease of a timer that went, and its note");
	snprintf(path, sizeof(path), "%s.pid", n[0]);
	cr_assert(!there(path), "and its pid");
	cr_assert(there(n[1]), "a lease whose timer runs stays");
	cr_assert(there(n[2]) && there(n[3]) && there(n[4]),
		  "another device's, another controller's, spine10's stay");
	kill(live, SIGKILL);
	waitpid(live, NULL, 0);
}
