/* SPDX-License-Identifier: MIT */
/* The lab state directory: where the running lab, its keys, sshd files and the fault journal live.
 */
#ifndef ROCELAB_STATE_H
#define ROCELAB_STATE_H

#include <stddef.h>
#include <stdio.h>

#define STATE_DIR_DEFAULT "/run/rocelab"

/* The state directory ($ROCELAB_STATE_DIR or /run/rocelab). Borrowed string. */
const char *state_dir(void);

/* state_dir()/rel into buf; returns buf. */
char *state_path(char *buf, size_t len, const char *rel);

#define STATE_LIB_DIR_DEFAULT "/var/lib/rocelab"

/*
 * Persistent state ($ROCELAB_LIB_DIR or /var/lib/rocelab): what must outlive
 * a reboot, such as the host keys of a real lab.  Borrowed string.
 */
const char *state_lib_dir(void);

/* state_lib_dir()/rel into buf; returns buf. */
char *state_lib_path(char *buf, size_t len, const char *rel);

/* The virtual lab's marks in the state directory: it is up; the copy of its inventory. */
#define STATE_UP	"up"
#define STATE_INVENTORY "inventory.yaml"

/*
 * The copy of the inventory of the virtual lab that is up (errors in it said
 * on errf, NULL: not said); NULL with errno ENOENT when no lab is up.
 */
struct inventory;
struct inventory *state_up_inventory(FILE *errf);

/*
 * The inventory a command acts on: path's, else that of the virtual lab that
 * is up (its copy in the state directory).  NULL with errno EINVAL (a bad
 * file), ENOENT (no path and no lab up) or that of the open, said on stderr.
 */
struct inventory *state_target_inventory(const char *path);

/* Take the machine-wide lab lock (serialises up/down/inject/revert); -errno on failure. */
int state_lock(void);
void state_unlock(void);

/*
 * The run lock of a lab: 'run' holds it from pre-flight to the end, so that no second
 * run, and no 'inject' or 'revert' of anyone else, acts on the lab meanwhile; the run's
 * own injectors and revert (its descendants) act as the run.  lab_state: the lab's state
 * folder (struct lab's state); name: its inventory's name.
 * state_run_lock(): 0, held until state_run_unlock() or exit; -EBUSY with who holds it
 * in holder ("run PID of USER since TIME").  state_run_check(): 0 when the lab is free
 * or this process is the run or one of its descendants, -EBUSY with holder otherwise.
 */
int state_run_lock(const char *lab_state, const char *name, char *holder, size_t len);
void state_run_unlock(void);
int state_run_check(const char *lab_state, const char *name, char *holder, size_t len);

#endif
