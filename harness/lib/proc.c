// SPDX-License-Identifier: MIT
/* fork/exec helpers that enter a namespace first, and namespace-wide process reaping. */
#define _GNU_SOURCE
#include "harness/lib/proc.h"

#include "harness/lib/common.h"
#include "harness/lib/netns.h"
#include "harness/lib/sbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In the child: enter ns, wire stdio, exec. Never returns. */
void proc_tie_to_parent(pid_t parent)
{
	/* SIGTERM when the spawning thread dies; it may have died already. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(125);
}

static void child_exec(const char *const argv[], const char *ns, const char *logpath, bool session,
		       pid_t tied_to)
{
	int saved, fd;

	if (tied_to)
		proc_tie_to_parent(tied_to);
	if (session)
		setsid();
	if (ns && *ns && netns_enter_name(ns, &saved) < 0)
		_exit(126);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	fd =
	    open(logpath ? logpath : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	/* Leave the parent's signal handling behind. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

static int exit_status(int st)
{
	if (WIFEXITED(st)) {
		if (WEXITSTATUS(st) == 127)
			return -ENOENT;
		if (WEXITSTATUS(st) == 126)
			return -ENXIO;
		return WEXITSTATUS(st);
	}
	return -ECANCELED;
}

int proc_run(const char *const argv[], const char *ns, const char *logpath)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_exec(argv, ns, logpath, false, 0);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return exit_status(st);
}

int proc_gnuplot(const char *dir, const char *gp)
{
	char cd[PATH_MAX * 2 + 8], log[PATH_MAX + 16];
	const char *argv[] = {PROC_GNUPLOT, "-e", cd, gp, NULL};
	size_t o = (size_t)snprintf(cd, sizeof(cd), "cd '");

	/* gnuplot's single-quoted strings take a quote doubled */
	for (const char *p = dir; *p && o + 4 < sizeof(cd); p++) {
		if (*p == '\'')
			cd[o++] = '\'';
		cd[o++] = *p;
	}
	snprintf(cd + o, sizeof(cd) - o, "'");
	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	if (access(argv[0], X_OK))
		return -ENOENT;
	return proc_run(argv, NULL, log);
}

int proc_capture(const char *const argv[], const char *ns, const char *input, char **out,
		 char **errout)
{
	int in[2], o[2], e[2], st, saved;
	struct sbuf bo = {0}, be = {0};
	size_t ilen = input ? strlen(input) : 0, done = 0;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(o, O_CLOEXEC) < 0 || pipe2(e, O_CLOEXEC) < 0) {
		int r = -errno;

		close(in[0]), close(in[1]);
		return r;
	}
	pid = fork();
	if (pid == 0) {
		if (ns && *ns && netns_enter_name(ns, &saved) < 0)
			_exit(126);
		dup2(in[0], 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(o[1]);
	close(e[1]);
	if (pid < 0) {
		close(in[1]), close(o[0]), close(e[0]);
		return -errno;
	}
	if (!ilen) {
		close(in[1]);
		in[1] = -1;
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	for (int open_fds = 2; open_fds > 0;) {
		struct pollfd pf[3] = {{o[0], POLLIN, 0}, {e[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
		char buf[4096];

		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			ssize_t n;

			if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pf[k].fd, buf, sizeof(buf));
			if (n > 0) {
				sb_add(k ? &be : &bo, buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(pf[k].fd);
				*(k ? &e[0] : &o[0]) = -1;
				open_fds--;
			}
		}
		if (in[1] >= 0 && (pf[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = write(in[1], input + done, ilen - done);

			if (n > 0)
				done += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || done == ilen) {
				close(in[1]);
				in[1] = -1;
			}
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = 0;
			break;
		}
	if (out)
		*out = sb_take(&bo);
	if (errout)
		*errout = sb_take(&be);
	sb_free(&bo);
	sb_free(&be);
	return exit_status(st);
}

int proc_stop(pid_t pid, int grace_ms)
{
	int st = 0;

	if (pid <= 0)
		return -ESRCH;
	kill(pid, SIGTERM);
	for (int waited = 0; waited < grace_ms; waited += 20) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return exit_status(st);
		if (r < 0 && errno == ECHILD)
			return -ECHILD;
		nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -ECANCELED;
}

static pid_t spawn(const char *const argv[], const char *ns, const char *logpath, bool tied)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_exec(argv, ns, logpath, true, tied ? parent : 0);
	return pid;
}

pid_t proc_spawn(const char *const argv[], const char *ns, const char *logpath)
{
	return spawn(argv, ns, logpath, false);
}

pid_t proc_spawn_tied(const char *const argv[], const char *ns, const char *logpath)
{
	return spawn(argv, ns, logpath, true);
}

static int ns_inode(const char *path, ino_t *ino, dev_t *dev)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	*ino = st.st_ino;
	*dev = st.st_dev;
	return 0;
}

int netns_pids(const char *ns, pid_t **pids)
{
	char path[300];
	ino_t ino = 0;
	dev_t dev = 0;
	DIR *d;
	struct dirent *e;
	int n = 0;

	*pids = NULL;
	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, ns);
	if (ns_inode(path, &ino, &dev) < 0)
		return 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		ino_t pino = 0;
		dev_t pdev = 0;

		if (*end || pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (ns_inode(path, &pino, &pdev) == 0 && pino == ino && pdev == dev) {
			*pids = rl_xrealloc(*pids, (size_t)n + 1, sizeof(**pids));
			(*pids)[n++] = (pid_t)pid;
		}
	}
	closedir(d);
	return n;
}

bool proc_alive(pid_t pid)
{
	char path[64], buf[256];
	FILE *f;
	bool alive = false;

	if (pid <= 0 || kill(pid, 0) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');

		alive = p && p[1] == ' ' && p[2] != 'Z';
	}
	fclose(f);
	return alive;
}

static void reap_children(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int netns_kill_all(const char *ns, int grace_ms)
{
	pid_t *pids;
	int n = netns_pids(ns, &pids), left;

	if (n <= 0)
		return n;
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	for (int waited = 0; waited <= grace_ms; waited += 20) {
		reap_children();
		left = 0;
		for (int i = 0; i < n; i++)
			left += proc_alive(pids[i]);
		if (!left)
			break;
		nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
	}
	for (int i = 0; i < n; i++)
		if (proc_alive(pids[i]))
			kill(pids[i], SIGKILL);
	reap_children();
	free(pids);
	return n;
}
