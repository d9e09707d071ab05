// SPDX-License-Identifier: MIT
/* Unit tests of the fault journal: append, mark, a crash mid-line, reload. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/state.h"
#include "injectors/journal.h"
#include "injectors/kinds/kinds.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/rocelab-journal-test.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	setenv("ROCELAB_STATE_DIR", dir, 1);
}

static void teardown(void)
{
	rl_rm_rf(dir);
}

TestSuite(journal, .init = setup, .fini = teardown);

/* A plan of two actions, the second with stdin, as 'inject' journals it. */
static void plan(struct fault_plan *p, const struct fault_kind_ops *k, const char *target)
{
	memset(p, 0, sizeof(*p));
	p->kind = k;
	snprintf(p->target, sizeof(p->target), "%s", target);
	fault_plan_add(p, FB_HOST, "host1", "link-down rnic1", NULL, "link-up rnic1");
	fault_plan_add(p, FB_SSH, "rail1", "nft -f -", "table inet rocelab_f1 {}\n",
		       "nft delete table inet rocelab_f1");
	snprintf(p->note, sizeof(p->note), "emulated: nothing");
}

static void append_raw(const char *text)
{
	char path[4096];
	int fd = open(journal_path(path, sizeof(path)), O_WRONLY | O_APPEND);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

Test(journal, empty_journal_loads_nothing)
{
	struct journal_rec *r;
	size_t n = 7;

	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(journal_next_id(), 1);
}

Test(journal, append_mark_reload)
{
	struct fault_plan a, b;
	struct journal_rec *r;
	size_t n;

	plan(&a, &fk_link_flap, "host1:rnic1");
	plan(&b, &fk_acl_error, "spine1:Ethernet1/1");
	cr_assert_eq(journal_append(&a, 1), 0);
	cr_assert_eq(journal_append(&b, 2), 0);
	cr_assert_eq(journal_mark(1, JS_APPLIED), 0);
	cr_assert_eq(journal_mark(2, JS_APPLIED), 0);
	cr_assert_eq(journal_mark(2, JS_REVERTED), 0);
	cr_assert_eq(journal_mark(99, JS_REVERTED), 0, "a mark of an unknown id is harmless");

	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(r[0].id, 1);
	cr_assert_str_eq(r[0].kind, "link-flap");
	cr_assert_str_eq(r[0].target, "host1:rnic1");
	cr_assert_eq(r[0].state, JS_APPLIED);
	cr_assert_eq(r[0].pid, getpid());
	cr_assert_str_eq(r[0].note, "emulated: nothing");
	cr_assert_eq(r[0].n_acts, 2);
	cr_assert_eq(r[0].acts[0].backend, FB_HOST);
	cr_assert_str_eq(r[0].acts[0].device, "host1");
	cr_assert_str_eq(r[0].acts[0].revert, "link-up rnic1");
	cr_assert_null(r[0].acts[0].apply_input);
	cr_assert_eq(r[0].acts[1].backend, FB_SSH);
	cr_assert_str_eq(r[0].acts[1].apply_input, "table inet rocelab_f1 {}\n");
	cr_assert_str_eq(r[1].target, "spine1:Ethernet1/1");
	cr_assert_eq(r[1].state, JS_REVERTED);
	cr_assert_eq(journal_next_id(), 3);
	journal_free(r, n);
	fault_plan_clear(&a);
	fault_plan_clear(&b);
}

/*
 * A dead-man timer (issue 63) is journaled as a shell line and comes back one:
 * its cancel runs; an EOS switch's, a configuration session, as a session.
 */
Test(journal, a_dead_man_timer_comes_back_as_a_shell_action)
{
	struct fault_plan a;
	struct journal_rec *r;
	size_t n;

	memset(&a, 0, sizeof(a));
	a.kind = &fk_ipid_drop;
	snprintf(a.target, sizeof(a.target), "spine2:swp1");
	fault_plan_add(&a, FB_SHELL, "spine2", "arm", NULL, "cancel");
	fault_plan_add(&a, FB_SSH, "spine2", "nft -f -", "table inet rocelab_f1 {}\n",
		       "nft delete table inet rocelab_f1");
	fault_plan_add(&a, FB_SESSION, "sw-eos", "configure session s\nend", NULL,
		       "configure session s commit");
	cr_assert_eq(journal_append(&a, 1), 0);
	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(r[0].acts[0].backend, FB_SHELL);
	cr_assert_str_eq(r[0].acts[0].revert, "cancel");
	cr_assert_eq(r[0].acts[1].backend, FB_SSH);
	cr_assert_eq(r[0].acts[2].backend, FB_SESSION);
	cr_assert_str_eq(r[0].acts[2].revert, "configure session s commit");
	journal_free(r, n);
	fault_plan_clear(&a);
}

Test(journal, a_crash_mid_line_loses_only_that_line)
{
	struct fault_plan a, b;
	struct journal_rec *r;
	size_t n;

	plan(&a, &fk_ipid_drop, "spine2:swp1");
	cr_assert_eq(journal_append(&a, 1), 0);
	/* kill -9 while the next record was being written: a torn line without its newline */
	append_raw("{\"id\": 2, \"event\": \"planned\", \"kind\": \"link-fl");
	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(n, 1, "the record before the torn line stands");
	cr_assert_eq(r[0].state, JS_PLANNED, "planned and never marked: revert undoes it");
	journal_free(r, n);

	/* The next fault after the crash is journaled on a line of its own, not glued to the tear.
	 */
	plan(&b, &fk_link_degrade, "rail3:swp7");
	cr_assert_eq(journal_append(&b, journal_next_id()), 0);
	cr_assert_eq(journal_mark(1, JS_REVERTED), 0);
	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(r[0].state, JS_REVERTED);
	cr_assert_str_eq(r[1].kind, "link-degrade");
	cr_assert_eq(r[1].id, 2);
	journal_free(r, n);
	fault_plan_clear(&a);
	fault_plan_clear(&b);
}

/* A real lab's journal: in the folder the lab names, each record naming its inventory. */
Test(journal, a_lab_folder_and_its_inventory)
{
	char lib[4200], inv[4200], sha[65];
	struct fault_plan p;
	struct journal_rec *r;
	size_t n;

	snprintf(lib, sizeof(lib), "%s/lib", dir);
	snprintf(inv, sizeof(inv), "%s/lab.yaml", dir);
	cr_assert_eq(rl_write_file(inv, "lab: x\n", 7), 0);
	cr_assert_eq(rl_sha256_file(inv, sha), 0);
	/* sha256sum of "lab: x\n" */
	cr_assert_str_eq(sha, "89fb6281f54bf992f2ce707225a4e93cd9fd79bec95114afaf83e01b089b671b");
	journal_use(lib, inv, sha);
	plan(&p, &fk_ipid_drop, "spine2:swp1");
	cr_assert_eq(journal_append(&p, journal_next_id()), 0);
	cr_assert_eq(access(lib, F_OK), 0, "the lab's folder is made");
	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(r[0].inventory, inv);
	cr_assert_str_eq(r[0].inv_sha256, sha);
	journal_free(r, n);
	journal_use(dir, NULL, NULL);
	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(n, 0, "the state folder's journal is another one");
	fault_plan_clear(&p);
}

/* On a lab reached over SSH, host op lines run there as commands: journaled as ssh host ops. */
Test(journal, host_ops_over_ssh_are_labelled_so)
{
	struct fault_plan a;
	struct journal_rec *r;
	char path[4096], *text;
	size_t n;

	plan(&a, &fk_link_flap, "host1:rnic1");
	a.host_cmds = true;
	cr_assert_eq(journal_append(&a, 1), 0);
	text = rl_read_file(journal_path(path, sizeof(path)), NULL);
	cr_assert_not_null(text);
	cr_assert_not_null(
	    strstr(text, "\"backend\":\"ssh\",\"host_op\":true,\"device\":\"host1\""), "%s", text);
	cr_assert_null(strstr(text, "netlink"), "nothing ran by netlink: %s", text);
	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(r[0].acts[0].backend, FB_HOST, "still a host op line to revert");
	cr_assert_eq(r[0].acts[1].backend, FB_SSH);
	free(text);
	journal_free(r, n);
	fault_plan_clear(&a);
}

/*
 * A line that is no record (not one a crash cut short) is an error naming it, never
 * skipped: revert would say "nothing to revert" over a fault whose undo it holds (issue 56).
 */
Test(journal, a_line_that_is_no_record_is_an_error_that_names_it)
{
	struct fault_plan a;
	struct journal_rec *r;
	size_t n;

	plan(&a, &fk_ipid_drop, "spine2:swp1");
	cr_assert_eq(journal_append(&a, 1), 0);
	append_raw("garbage, not json\n");
	cr_assert_eq(journal_append(&a, 2), 0);
	cr_assert_eq(journal_load(&r, &n), -EBADMSG);
	cr_assert_eq(n, 0);
	cr_assert_null(r);
	fault_plan_clear(&a);
}

Test(journal, an_unknown_event_is_an_error)
{
	struct fault_plan a;
	struct journal_rec *r;
	size_t n;
	char err[256];
	FILE *f;

	plan(&a, &fk_ipid_drop, "spine2:swp1");
	cr_assert_eq(journal_append(&a, 1), 0);
	append_raw("{\"id\": 1, \"event\": \"forgotten\"}\n");
	cr_assert_eq(journal_load(&r, &n), -EBADMSG);
	f = fmemopen((void *)"{\"id\":1,\"event\":\"planned\"}\n[1]\n", 30, "r");
	cr_assert_eq(journal_read(f, &r, &n, err, sizeof(err)), -EBADMSG);
	cr_assert(strstr(err, "2: not a journal record"), "%s", err);
	cr_assert_eq(n, 1);
	journal_free(r, n);
	fclose(f);
	fault_plan_clear(&a);
}

/* A folder or a FIFO where the journal should be: an error, not "nothing to revert", no hang. */
Test(journal, a_journal_that_is_no_file_is_an_error, .timeout = 10)
{
	char path[4096];
	struct journal_rec *r;
	size_t n;

	journal_path(path, sizeof(path));
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(journal_load(&r, &n), -EINVAL);
	cr_assert_eq(rmdir(path), 0);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(journal_load(&r, &n), -EINVAL);
}

/* The process that applied a fault is named by its pid and its start time. */
Test(journal, the_holder_is_journaled_with_its_start_time)
{
	struct fault_plan a;
	struct journal_rec *r;
	size_t n;

	plan(&a, &fk_ipid_drop, "spine2:swp1");
	cr_assert_eq(journal_append(&a, 1), 0);
	cr_assert_eq(journal_load(&r, &n), 0);
	cr_assert_eq(r[0].pid, getpid());
	cr_assert_neq(r[0].pid_start, 0);
	cr_assert_eq(r[0].pid_start, rl_proc_start(getpid()));
	journal_free(r, n);
	fault_plan_clear(&a);
}
