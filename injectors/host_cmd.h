/* SPDX-License-Identifier: MIT */
/*
 * Host op lines (netlink_op.h) as iproute2 commands, for labs whose hosts are
 * reached over SSH: ip, tc and dcb run there, their JSON read back by verify.
 */
#ifndef ROCELAB_HOST_CMD_H
#define ROCELAB_HOST_CMD_H

#include "harness/lab/lab.h"

#include <stdbool.h>
#include <stddef.h>

#define HOST_CMD_MAX_WORDS 40

/* rocelab's monitor agents' command lines (pkill -f, an extended regex). */
#define HOST_AGENTS_RE "^[^ ]*rocelab agent (hostmesh|rpingmesh)( |$)"

/*
 * The command for op: its words in argv (pointing into buf), NULL-terminated;
 * argv[0] NULL for "noop".  Besides the netlink ops, "ip WORD..." is an
 * iproute2 command as it stands (rules and routes found on a host), and
 * "agents-stop" / "agents-cont" freeze and thaw rocelab's monitor agents on
 * the host (SIGSTOP, SIGCONT: host-down); "cpu-hog-on HOST QUOTA THREADS CPU" and
 * "cpu-hog-off HOST" put them in a CPU cgroup with busy threads and take them
 * out again (cpu-hog).
 * 0, or -EINVAL with a reason in err for a malformed op.
 */
int host_op_command(const char *op, char *buf, size_t len, const char *argv[HOST_CMD_MAX_WORDS],
		    char *err, size_t errlen);

/* op as one command line, for plans and transcripts; returns buf. */
const char *host_op_text(const char *op, char *buf, size_t len);

/*
 * Run op on host through the lab's exec.  With undo set, state already as
 * wanted ("File exists", "No such process", ...) counts as success.
 */
int host_op_exec(struct lab *l, const char *host, const char *op, bool undo, char *err,
		 size_t errlen);

#endif
