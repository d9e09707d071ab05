/* SPDX-License-Identifier: MIT */
/* Running programs without a shell, optionally inside a namespace, and reaping what a namespace
 * holds. */
#ifndef ROCELAB_PROC_H
#define ROCELAB_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Run argv[0] (an absolute path) with argv, inside namespace ns (NULL: here),
 * stdin from /dev/null, stdout+stderr to logpath (NULL: /dev/null).  No shell
 * is involved.  Returns the exit status (0..255), or -errno if it could not run
 * or was killed.
 */
int proc_run(const char *const argv[], const char *ns, const char *logpath);

/*
 * Draw a gnuplot script (gp: its path, or a name in dir) with gnuplot run in
 * dir ('cd DIR' first, so the script's relative paths are those of dir, and
 * it redraws from there as it is); its output to dir/gnuplot.log.  Its
 * exit status as proc_run() gives it, or -ENOENT when gnuplot is not
 * installed.
 */
#define PROC_GNUPLOT "/usr/bin/gnuplot"
int proc_gnuplot(const char *dir, const char *gp);

/*
 * Run argv (argv[0] found on PATH) inside ns (NULL: here) with input (NULL:
 * nothing) on stdin.  *out and *errout (each may be NULL) receive new
 * NUL-terminated buffers (free()).  Returns the exit status (0..255), or
 * -errno when it could not run (-ENOENT: no such program) or was killed.
 */
int proc_capture(const char *const argv[], const char *ns, const char *input, char **out,
		 char **errout);

/* SIGTERM pid, wait up to grace_ms, then SIGKILL. Its exit status, or -errno (-ECANCELED: killed).
 */
int proc_stop(pid_t pid, int grace_ms);

/* Start argv in ns as a new session leader; returns its pid or -errno. */
pid_t proc_spawn(const char *const argv[], const char *ns, const char *logpath);

/*
 * proc_spawn(), tied to this process: SIGTERM when it dies, even by SIGKILL,
 * so that a run killed with -9 leaves no analyzer, agent or injector behind
 * (injectors revert on SIGTERM).  Not for daemons that outlive the command.
 */
pid_t proc_spawn_tied(const char *const argv[], const char *ns, const char *logpath);

/* In a forked child: SIGTERM when parent dies (exits 125 if it already has). */
void proc_tie_to_parent(pid_t parent);

/* pids of the processes whose network namespace is ns; returns the count (array: free()). */
int netns_pids(const char *ns, pid_t **pids);

/* SIGTERM every process in ns, wait up to grace_ms, then SIGKILL the rest. Returns how many. */
int netns_kill_all(const char *ns, int grace_ms);

/* True when pid is alive (and not a zombie). */
bool proc_alive(pid_t pid);

#endif
