/* SPDX-License-Identifier: MIT */
/*
 * Dead-man timers (issue 63): every device a fault changes reverts the fault
 * by itself unless the controller that applied it keeps saying it lives.
 *
 * On a device whose login is a POSIX shell (a host; a Linux, SONiC or NVUE
 * switch, whose CLIs are commands of bash; the virtual lab's namespaces) the timer is a plain
 * process there, started in a session of its own before the fault's first action on that device: it
 * holds a lease (a deadline in seconds of the device's own clock, in a file
 * of DEADMAN_DIR) and, when the deadline passes, runs the undo
 * of every action of the fault on that device, newest first, as the journal
 * has them.  The controller moves the deadline on while it lives (every
 * third of the lease) and, at the revert, cancels the timer after the undo;
 * 'rocelab revert' after a crash does the same from the journal.  A process
 * rather than systemd-run, for it works alike on every such device and in a
 * network namespace, where a systemd unit would run in the root one; and
 * rather than NVUE's 'nv config apply --confirm', whose rollback cannot be
 * moved on (its reference gives --confirm TIME and --confirm-status only), so
 * a held fault would outlive it.  EOS, whose login is its own CLI, gets EOS's
 * own: an empty configuration session committed with a commit timer, given
 * again to re-arm and confirmed at the revert (FB_SESSION; deadman.c says
 * whence the commands).
 */
#ifndef ROCELAB_DEADMAN_H
#define ROCELAB_DEADMAN_H

#include "harness/lib/inventory.h"
#include "injectors/fault.h"

#include <stdbool.h>
#include <stdio.h>

struct fault_run;

/* The default lease: how long a fault outlives a controller that stopped. */
#define DEADMAN_LEASE_MS 30000LL

/*
 * The first deadline leaves this much more for the fault's verification (ACL
 * counters a NOS polls every 10 s, test traffic the hosts send), after which
 * the injector re-arms every timer to its lease.
 */
#define DEADMAN_VERIFY_MS 30000LL

/*
 * Where the timers of a device keep their leases, as a shell line that sets
 * d: /run/rocelab-deadman for a login that can write /run (root), else
 * /tmp/rocelab-deadman-UID; not $HOME, which a device may mount read-only
 * and another login (a revert after a crash) may name otherwise.
 * ROCELAB_DEADMAN_DIR names it instead (the unit tests).
 */
#define DEADMAN_DIR "/run/rocelab-deadman"
#define DEADMAN_DIR_SH                                                                             \
	"d=${ROCELAB_DEADMAN_DIR:-}; if [ -z \"$d\" ] && [ -w /run ]; then d=" DEADMAN_DIR         \
	"; elif [ -z \"$d\" ]; then d=/tmp/rocelab-deadman-$(id -u); fi; "

/* The exit status of a re-arm that found its timer gone (fired, or cancelled by hand). */
#define DEADMAN_GONE 3

/*
 * This controller, as timers name it: 8 characters of this machine's id
 * (letters and digits), so that two controllers' fault 7 on one device do
 * not share a lease.
 */
const char *fault_deadman_owner(char *buf, size_t len);

/*
 * Does s's injector stay while the fault lives (--for, --hold, or a kind
 * with its own course), to keep the devices' timers?  A fault left until
 * 'rocelab revert' has no injector to: it gets none.
 */
bool fault_spec_stays(const struct fault_spec *s);

/*
 * For a fault of s whose injector stays: a timer (s->deadman_ms, else
 * DEADMAN_LEASE_MS) in p before the first action of each device whose undo
 * can run in its shell (fault id, this controller owner): a shell action
 * (FB_SHELL) whose apply arms it, whose revert cancels it and whose rearm
 * moves its deadline on; on EOS a configuration session (FB_SESSION) whose
 * commit timer rolls the switch back.  A device with neither is said in the
 * plan's note.  0, or -E2BIG with why when an undo cannot be written as a
 * shell line.
 */
int fault_plan_deadman(struct fault_plan *p, const struct inventory *inv,
		       const struct fault_spec *s, unsigned id, const char *owner, char *why,
		       size_t whylen);

/* Is a a dead-man timer of fault_plan_deadman()? */
bool fault_action_is_deadman(const struct fault_action *a);

/* A timer's line in a plan's transcript: the device, its lease, and what it runs when it fires. */
void fault_deadman_format(const struct fault_action *a, FILE *f);

/*
 * While the fault lives: each timer's deadline moved on when a third of its
 * lease has passed since the last (now: every timer).  A timer found gone
 * (DEADMAN_GONE: it fired, the device reverted the fault itself) ends the
 * fault: f->deadman_fired, and f->short_of says which device and when.  A
 * device that cannot be reached is warned of and tried again a second later.
 */
void fault_deadman_beat(struct fault_run *f, bool now);

/*
 * After 'lab down' took the virtual lab's namespaces, and every process in them, away: the
 * leases in this machine's dead-man folder of this controller's timers on those devices
 * whose timer no longer runs, removed (lease, .pid, .new, .fired), and the folder if that
 * empties it.  A lease whose timer still runs stays.  Returns how many leases went.
 */
int fault_deadman_sweep_local(char *const *devices, size_t n);

#endif
