// SPDX-License-Identifier: MIT
/*
 * dcqcn-off (injectors/kinds/dcqcn_off.c): its switch written by the host
 * verb's script, run for real against a /sys/class/net of its own (a
 * tmpfs in a private mount namespace), hostile words refused as data
 * (its read-back, "sysfs", is readback_test.c's).
 */
#define _GNU_SOURCE
#include "injectors/host_cmd.h"
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SW "/sys/class/net/rnic9/ecn/roce_np/enable/3"

/* The op's command run as the host would run it: its exit status. */
static int run(const char *op)
{
	char buf[4096], err[160];
	const char *argv[HOST_CMD_MAX_WORDS];
	int st;
	pid_t pid;

	cr_assert_eq(host_op_command(op, buf, sizeof(buf), argv, err, sizeof(err)), 0, "%s", err);
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	cr_assert_gt(pid, 0);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *value(const char *path)
{
	static char v[16];
	FILE *f = fopen(path, "re");

	v[0] = '\0';
	if (f) {
		if (!fgets(v, sizeof(v), f))
			v[0] = '\0';
		fclose(f);
	}
	v[strcspn(v, "\n")] = '\0';
	return v;
}

/* A /sys/class/net of this test's own, with rnic9's np switch for priority 3 at 1. */
static void fake_sysfs(void)
{
	FILE *f;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/sys/class/net", "tmpfs", 0, "size=64k"))
		cr_skip_test("needs root for a private mount namespace (%s)", strerror(errno));
	cr_assert_eq(system("mkdir -p /sys/class/net/rnic9/ecn/roce_np/enable "
			    "/sys/class/net/rnic9/ecn/roce_rp/enable"),
		     0);
	cr_assert_not_null(f = fopen(SW, "we"));
	fputs("1\n", f);
	fclose(f);
}

Test(dcqcn_off, the_verb_writes_the_switch_and_its_undo_writes_it_back)
{
	fake_sysfs();
	cr_assert_not_null(fault_kind_find("dcqcn-off"));
	cr_assert_eq(run("dcqcn rnic9 3 np 0"), 0);
	cr_assert_str_eq(value(SW), "0");
	cr_assert_eq(run("dcqcn rnic9 3 np 1"), 0);
	cr_assert_str_eq(value(SW), "1");
	cr_assert_eq(run("dcqcn rnic9 4 np 0"), 1, "a priority without its switch");
	cr_assert_eq(run("dcqcn rnic8 3 np 0"), 1, "an RNIC without switches");
}

Test(dcqcn_off, hostile_words_are_data_and_refused)
{
	fake_sysfs();
	/* each word checked by the script: a path, another point, value or priority */
	cr_assert_eq(run("dcqcn ../rnic9 3 np 0"), 2);
	cr_assert_eq(run("dcqcn rnic9 3 ../np 0"), 2);
	cr_assert_eq(run("dcqcn rnic9 3 np 1;touch"), 2);
	cr_assert_eq(run("dcqcn rnic9 33 np 0"), 2);
	cr_assert_eq(run("dcqcn rnic9 3 xp 0"), 2);
	cr_assert_str_eq(value(SW), "1", "nothing written");
	/* words that would run commands, were they code */
	cr_assert_eq(run("dcqcn $(touch${IFS}/sys/class/net/ran) 3 np 0"), 2);
	unlink("ran");
	cr_assert_eq(run("dcqcn $(touch${IFS}ran) 3 np 0"), 1, "no such RNIC");
	cr_assert_eq(access("ran", F_OK), -1, "the word ran as a command");
	cr_assert_eq(access("/sys/class/net/ran", F_OK), -1, "the word ran as a command");
}
