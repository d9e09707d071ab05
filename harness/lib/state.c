// SPDX-License-Identifier: MIT
/* Locates the lab state directory and serialises commands that change the lab. */
#define _GNU_SOURCE
#include "harness/lib/state.h"

#include "harness/lib/common.h"
#include "harness/lib/inventory.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static int lock_fd = -1;

/* $var when set and not empty, else def. */
static const char *env_dir(const char *var, const char *def)
{
	const char *d = getenv(var);

	return d && *d ? d : def;
}

const char *state_dir(void)
{
	return env_dir("ROCELAB_STATE_DIR", STATE_DIR_DEFAULT);
}

char *state_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", state_dir(), rel);
	return buf;
}

const char *state_lib_dir(void)
{
	return env_dir("ROCELAB_LIB_DIR", STATE_LIB_DIR_DEFAULT);
}

char *state_lib_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", state_lib_dir(), rel);
	return buf;
}

int state_lock(void)
{
	char path[4096];

	if (lock_fd >= 0)
		return 0;
	/* The lock sits beside the state directory so that removing the directory keeps it. */
	snprintf(path, sizeof(path), "%s.lock", state_dir());
	lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd < 0)
		return -errno;
	if (flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			rl_info("waiting for another rocelab command to finish with the lab...");
			if (flock(lock_fd, LOCK_EX) == 0)
				return 0;
		}
		int e = errno;

		close(lock_fd);
		lock_fd = -1;
		return -e;
	}
	return 0;
}

void state_unlock(void)
{
	if (lock_fd >= 0) {
		close(lock_fd);
		lock_fd = -1;
	}
}

struct inventory *state_up_inventory(FILE *errf)
{
	char p[4096];

	if (access(state_path(p, sizeof(p), STATE_UP), F_OK)) {
		errno = ENOENT;
		return NULL;
	}
	return inventory_load(state_path(p, sizeof(p), STATE_INVENTORY), errf);
}

struct inventory *state_target_inventory(const char *path)
{
	struct inventory *inv;

	if (path)
		return inventory_load(path,
				      stderr); /* errno EINVAL (bad file) or that of the open */
	inv = state_up_inventory(stderr);
	if (!inv && errno == ENOENT)
		rl_err("no lab is up: start one with 'rocelab lab up', or give -i INVENTORY");
	return inv;
}

/* ---- the run lock of a lab ------------------------------------------------------------------ */

static int run_fd = -1;

/* Where a lab's run lock is: beside the virtual lab's state folder (which 'lab down' removes
 * mid-run), in a real lab's persistent folder, named by the lab. */
static int run_lock_path(const char *lab_state, const char *name, char *buf, size_t len)
{
	int r;

	if (!rl_name_ok(name, 64))
		return -EINVAL;
	if (!strcmp(lab_state, state_dir()))
		return snprintf(buf, len, "%s.run.lock", state_dir()) >= (int)len ? -ENAMETOOLONG
										  : 0;
	if ((r = rl_mkdir_p(lab_state, 0700)))
		return r;
	return snprintf(buf, len, "%s/run-%s.lock", lab_state, name) >= (int)len ? -ENAMETOOLONG
										 : 0;
}

/* Who holds it, as the holder wrote it: "PID START USER SINCE"; true when read. */
static bool run_holder(int fd, pid_t *pid, unsigned long long *start, char *say, size_t len)
{
	char buf[256] = "", user[64] = "?", since[32] = "?";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int p = 0;

	if (n <= 0 || sscanf(buf, "%d %llu %63s %31s", &p, start, user, since) != 4) {
		snprintf(say, len, "another rocelab run (its holder unreadable)");
		return false;
	}
	*pid = (pid_t)p;
	snprintf(say, len, "run %d of %s since %s", p, user, since);
	return true;
}

/* Is pid (started at start) this process or one of its ancestors? */
static bool ancestor(pid_t pid, unsigned long long start)
{
	pid_t p = getpid();

	for (int depth = 0; p > 1 && depth < 8; depth++) {
		char path[64], *stat, *c;

		if (p == pid && rl_proc_start(p) == start)
			return true;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
		if (!(stat = rl_read_file(path, NULL)))
			return false;
		c = strrchr(stat, ')'); /* field 4, the parent, after the state */
		p = c ? (pid_t)strtol(c + 4, NULL, 10) : 0;
		free(stat);
	}
	return false;
}

int state_run_lock(const char *lab_state, const char *name, char *holder, size_t len)
{
	char path[4096], line[256], since[32];
	struct passwd *pw = getpwuid(geteuid());
	pid_t pid;
	unsigned long long start;
	int r;

	if ((r = run_lock_path(lab_state, name, path, sizeof(path))))
		return r;
	if ((run_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return -errno;
	if (flock(run_fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		run_holder(run_fd, &pid, &start, holder, len);
		close(run_fd);
		run_fd = -1;
		return r;
	}
	rl_utc((double)time(NULL), "%Y-%m-%dT%H:%M:%SZ", since, sizeof(since));
	r = snprintf(line, sizeof(line), "%d %llu %s %s\n", (int)getpid(), rl_proc_start(getpid()),
		     pw && rl_name_ok(pw->pw_name, 60) ? pw->pw_name : "?", since);
	if (ftruncate(run_fd, 0) < 0 || pwrite(run_fd, line, (size_t)r, 0) != r) {
		r = -errno;
		state_run_unlock();
		return r;
	}
	return 0;
}

void state_run_unlock(void)
{
	if (run_fd >= 0) {
		close(run_fd);
		run_fd = -1;
	}
}

int state_run_check(const char *lab_state, const char *name, char *holder, size_t len)
{
	char path[4096];
	pid_t pid = 0;
	unsigned long long start = 0;
	int fd, r;

	if (run_fd >= 0)
		return 0; /* this process is the run */
	if ((r = run_lock_path(lab_state, name, path, sizeof(path))))
		return r;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno;
	r = 0;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		/* a run's own injectors and revert act on its lab as the run */
		if (r == -EBUSY && run_holder(fd, &pid, &start, holder, len) &&
		    ancestor(pid, start))
			r = 0;
	}
	close(fd);
	return r;
}
