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
 * iproute2 command as it stands (rules and routes found on a host), and a
 * verb a fault kind adds (host_verb: host-down's agents-stop, cpu-hog's
 * cpu-hog-on ...) is the command its kind writes.
 * 0, or -EINVAL with a reason in err for a malformed op.
 */
int host_op_command(const char *op, char *buf, size_t len, const char *argv[HOST_CMD_MAX_WORDS],
		    char *err, size_t errlen);

/* A command being written: its words, and the room they are kept in. */
struct host_cmd {
	const char **argv;
	size_t n;
	char *buf;
	size_t len, used;
	bool overflow;
};

/* Add a word to c (printf); one that does not fit marks c overflowed. */
void host_cmd_word(struct host_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Add a static string (a script) to c as one word: not copied. */
void host_cmd_fixed(struct host_cmd *c, const char *s);
/* Add the words of w (NULL-ended) to c. */
void host_cmd_words(struct host_cmd *c, const char *const *w);

/*
 * A verb a fault kind adds to the host op lines, defined in the kind's own
 * file: its name, how many words its op has (the verb's too; 0: any), and
 * the command it writes into c from those words.  It runs as that command
 * through the lab's exec on any lab, netlink or not (netlink_op_run), and a
 * journal's undo names it after a crash as it did before.  HOST_VERB(v)
 * registers v at start-up.
 */
struct host_verb {
	const char *name;
	size_t words;
	void (*command)(struct host_cmd *c, char *const w[], size_t n);
};

void host_verb_register(const struct host_verb *v);
/* The verb a kind registered as name, or NULL. */
const struct host_verb *host_verb_find(const char *name);

#define HOST_VERB(v)                                                                               \
	__attribute__((constructor)) static void host_verb_register_##v(void)                      \
	{                                                                                          \
		host_verb_register(&v);                                                            \
	}

/* op as one command line, for plans and transcripts; returns buf. */
const char *host_op_text(const char *op, char *buf, size_t len);

/*
 * Run op on host through the lab's exec.  With undo set, state already as
 * wanted ("File exists", "No such process", ...) counts as success.
 */
int host_op_exec(struct lab *l, const char *host, const char *op, bool undo, char *err,
		 size_t errlen);

#endif
