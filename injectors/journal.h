/* SPDX-License-Identifier: MIT */
/* The fault journal: every fault and its undo, fsync'd before it is applied, so a crash loses
 * nothing. */
#ifndef ROCELAB_JOURNAL_H
#define ROCELAB_JOURNAL_H

#include "injectors/fault.h"

#include <stdio.h>
#include <sys/types.h>

enum journal_state { JS_PLANNED, JS_APPLIED, JS_REVERTED };

struct journal_rec {
	unsigned id;
	char kind[32];
	char target[72];
	char time[32];
	char note[256];
	pid_t pid;		      /* the rocelab process that applied it */
	unsigned long long pid_start; /* its start time (rl_proc_start()); 0 in older journals */
	char *inventory;	      /* the inventory it was planned on ("" in older journals) */
	char inv_sha256[65];	      /* that file's SHA-256 then */
	enum journal_state state;
	struct fault_action *acts;
	size_t n_acts;
};

/*
 * Where the journal is, and what new records name as their inventory: dir
 * is the lab's state (lab.state: the virtual lab's tmpfs, a real lab's
 * persistent folder).  Until called: state_dir(), no inventory.
 */
void journal_use(const char *dir, const char *inv_path, const char *inv_sha256);

/* <dir>/journal.jsonl */
char *journal_path(char *buf, size_t len);

/* Append the plan as record id (state planned) and fsync; -errno on failure. */
int journal_append(const struct fault_plan *p, unsigned id);
/* Append a state change for id and fsync. */
int journal_mark(unsigned id, enum journal_state st);

/* Every record, oldest first, with its latest state. Caller frees with journal_free(). */
int journal_load(struct journal_rec **recs, size_t *n);
void journal_free(struct journal_rec *recs, size_t n);
/*
 * The records in an open journal file (what journal_load() reads).  A torn
 * last line (a crash mid-append) is left out; any other line that is no
 * record is an error: -EBADMSG with "LINE: why" in err, and the records
 * read so far in *recs (journal_free() them).  journal_load() says such an
 * error itself (path:line), and a journal that is no regular file (-EINVAL).
 */
int journal_read(FILE *f, struct journal_rec **recs, size_t *n, char *err, size_t errlen);

/* One more than the highest id in the journal. */
unsigned journal_next_id(void);

const char *journal_state_name(enum journal_state s);

#endif
