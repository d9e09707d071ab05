/* SPDX-License-Identifier: MIT */
/* A lab: where each inventory device lives and how to run something there, whatever the lab's kind.
 */
#ifndef ROCELAB_LAB_H
#define ROCELAB_LAB_H

#include "harness/lib/inventory.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct lab;
struct nsctx;
struct sshc;

/* A background process on a lab device. */
struct lab_proc {
	char dev[INV_NAME_MAX + 1];
	pid_t pid;	/* the process (on dev: its process group on an SSH lab) */
	char log[4096]; /* the local log file */
	char rlog[256]; /* its log on dev while it runs ("" : written locally) */
	char why[200];	/* set when lab_alive() could not ask dev at all (host lost) */
};

/*
 * What a lab kind implements.  A slot left NULL answers -EOPNOTSUPP through
 * the lab_* wrappers below (as rdma-core's verbs_set_ops() fills dummies), so
 * callers never NULL-check; capabilities a caller must know about first are
 * asked with lab_can().  dev is an inventory device name (host or switch).
 */
struct lab_ops {
	const char *name; /* "vlab", "ssh" */
	/*
	 * Run argv (argv[0] a command name or absolute path) on dev to completion,
	 * input (NULL: none) on its stdin.  *out (may be NULL) receives its stdout
	 * (free()).  Returns its exit status (0..255) or -errno, with a one-line
	 * reason in err when it could not run.
	 */
	int (*exec)(struct lab *l, const char *dev, const char *const argv[], const char *input,
		    char **out, char *err, size_t errlen);
	/* Start argv on dev in the background, stdout and stderr to the local file log. */
	int (*spawn)(struct lab *l, const char *dev, const char *const argv[], const char *log,
		     struct lab_proc *p);
	/* SIGTERM p, SIGKILL after grace_ms; its exit status, or -errno (-ECANCELED: killed). */
	int (*stop)(struct lab *l, struct lab_proc *p, int grace_ms);
	/* Is p still running? */
	bool (*alive)(struct lab *l, struct lab_proc *p);
	/* Copy a local file to path on dev (put), or path on dev to a local file (get). */
	int (*put)(struct lab *l, const char *dev, const char *local, const char *path);
	int (*get)(struct lab *l, const char *dev, const char *path, const char *local);
	/* The rocelab binary to run on dev; self is this one. */
	const char *(*program)(struct lab *l, const char *dev, const char *self);
	/* A path on dev with the content of the local file (copied there if need be). */
	int (*share)(struct lab *l, const char *dev, const char *local, char *path, size_t len);
	/*
	 * Optional: remove what runs of this machine that have ended left on dev
	 * (a run killed with -9); each removal printed as "WHEN: DEV: ...".  How
	 * many, or -errno.
	 */
	int (*sweep)(struct lab *l, const char *dev, const char *when);
	/* Optional: every process started here asked after now, where alive() reads answers
	 * asked a while ago (a lab that asks in the background). */
	void (*recheck)(struct lab *l);
	/*
	 * Optional fast paths of a lab that shares this machine's kernel: a
	 * netlink context on dev, and entering dev's network context in this
	 * thread (for sockets), left with leave(saved).
	 */
	int (*nsctx)(struct lab *l, const char *dev, struct nsctx *c);
	int (*enter)(struct lab *l, const char *dev, int *saved);
	void (*leave)(struct lab *l, int saved);
	void (*close)(struct lab *l);
};

/* A host's clock against this machine's, from pre-flight (seconds). */
struct lab_clock {
	double skew;   /* its clock minus ours: its stamp against the midpoint of the quickest
			  round trip */
	double within; /* ± that much: half that round trip */
	double offset; /* what its records' times are corrected by: skew, or 0 when |skew| is
			  within the measurement's own error (no better than no correction) */
};

/*
 * A clock from n exchanges t[i] = {sent here, its stamp there, answer back here}
 * (seconds), NTP's way with one stamp there (t2 = t3): offset t2 - (t1 + t4) / 2,
 * error half the round trip, from the exchange of least round trip, the first left
 * out when there are more (it carries the channel's set-up).
 */
struct lab_clock lab_clock_estimate(const double (*t)[3], size_t n);
/* Is c off by more than bound even at the near end of its error?  (Then pre-flight refuses.) */
bool lab_clock_too_far(const struct lab_clock *c, double bound);

/* A device that did not answer a login: not tried again for a while (lab.c). */
struct lab_lost {
	unsigned long long at; /* monotonic ns; 0: never */
	int err;	       /* errno of the failed login */
	char why[232];
};

struct lab {
	const struct lab_ops *ops;
	const struct inventory *inv; /* borrowed */
	char known_hosts[4096];	     /* the host keys this lab trusts */
	char state[4096];	     /* its fault journal's folder: the virtual lab's tmpfs, else
					persistent ($ROCELAB_LIB_DIR) */
	char lab_key[4096];	     /* the key behind 'credential: lab-key', "" if none */
	struct sshc **ssh;	     /* per device (hosts, then switches), opened on first use */
	struct lab_lost *lost;	     /* per device: when a login to it last failed, and why */
	bool *sudo; /* per device: a host whose login is not root: its commands run under
		       'sudo -n' (checked at login, lab_login()) */
	struct lab_clock *clock; /* per host, measured at pre-flight; NULL: not measured (a
				    virtual lab shares this clock) */
	void *priv;		 /* the kind's own state */
	/*
	 * Several devices at once (lab_each()): per device, a lock held for
	 * each of its round trips (a session is one exchange at a time),
	 * recursive so that an operation of several (a spawn: its run folder,
	 * then the process) holds it across them; priv_mu guards priv.
	 */
	pthread_mutex_t *dev_mu;
	pthread_mutex_t priv_mu;
	unsigned fanout; /* devices reached at once; 0: LAB_FANOUT_DEFAULT */
};

/* How many devices of an SSH lab are reached at once unless told (run --fan-out). */
#define LAB_FANOUT_DEFAULT 16
#define LAB_FANOUT_MAX	   256

/*
 * fn(job) for each of n jobs (an array of elements of size bytes).  On a lab
 * reached over SSH, l->fanout jobs at once, each taking the next job when it
 * finishes one: each is round trips on its own device's session, a fifth of a
 * second each on a busy machine, and 64 hosts one after another was half a
 * minute.  Elsewhere (netlink, local execs: milliseconds) in turn.  fn must
 * not print: the caller reports from the jobs afterwards, in their order, so
 * a problem on every host is said for every host, not only the first.
 */
void lab_each(struct lab *l, void *jobs, size_t n, size_t size, void *(*fn)(void *job));
/* The pool under lab_each(): fn(job) for each of n jobs, k at once (k < 2: in turn, here). */
void lab_pool(void *jobs, size_t n, size_t size, void *(*fn)(void *job), size_t k);
/* dev's lock (l->dev_mu), for an operation of several round trips there. */
void lab_dev_lock(struct lab *l, const char *dev);
void lab_dev_unlock(struct lab *l, const char *dev);

/* Index of dev among l's devices (hosts, then switches), or -1: per-device state. */
ssize_t lab_dev_index(const struct lab *l, const char *dev);

/* Capabilities a caller checks before it plans on them. */
enum lab_cap {
	LAB_CAP_NETLINK = 1 << 0, /* nsctx(): netlink on devices from here */
	LAB_CAP_ENTER = 1 << 1,	  /* enter()/leave(): sockets in devices' network contexts */
};

/*
 * Open the lab that inv describes: the virtual lab when inv is the lab that
 * is up on this machine, otherwise the SSH lab, whose hosts and switches are
 * reached over SSH at their mgmt addresses.  inv is borrowed and must outlive
 * l.  Returns 0 or -errno.
 */
int lab_open(struct lab *l, const struct inventory *inv);
void lab_close(struct lab *l);

/*
 * A lab where this process runs on the device itself (a rocelab subcommand
 * started on a host): sockets open here, whatever the device named.
 */
void lab_open_here(struct lab *l, const struct inventory *inv);

bool lab_can(const struct lab *l, enum lab_cap cap);

int lab_exec(struct lab *l, const char *dev, const char *const argv[], const char *input,
	     char **out, char *err, size_t errlen);
/*
 * Run argv on dev (ip -j, tc -j ...) and parse what it prints as JSON.
 * Returns a new reference (json_decref() it), or NULL with err saying why.
 */
json_t *lab_exec_json(struct lab *l, const char *dev, const char *const argv[], char *err,
		      size_t errlen);
int lab_spawn(struct lab *l, const char *dev, const char *const argv[], const char *log,
	      struct lab_proc *p);
int lab_stop(struct lab *l, struct lab_proc *p, int grace_ms);
/* lab_stop() of every one of procs[n] that runs, lab_each() at once. */
void lab_stop_each(struct lab *l, struct lab_proc *procs, size_t n, int grace_ms);
/*
 * Is p running?  false with p->why set when its device could not be asked.
 * Over SSH the answer is at most a second old (asked in the background), or,
 * from a device that stopped answering, as old as its connection's timeout.
 */
bool lab_alive(struct lab *l, struct lab_proc *p);
/* What lab_alive() says from now on asked now: when something failed, whether a device is
 * gone is the first thing to know. */
void lab_recheck(struct lab *l);
int lab_put(struct lab *l, const char *dev, const char *local, const char *path);
int lab_get(struct lab *l, const char *dev, const char *path, const char *local);
const char *lab_program(struct lab *l, const char *dev, const char *self);
int lab_share(struct lab *l, const char *dev, const char *local, char *path, size_t len);
/* What ended runs left on every host (none on a lab without sweep); how many removed. */
int lab_sweep(struct lab *l, const char *when);
int lab_nsctx(struct lab *l, const char *dev, struct nsctx *c);
int lab_enter(struct lab *l, const char *dev, int *saved);
void lab_leave(struct lab *l, int saved);

/* A UDP/raw/... socket opened in dev's network context; the fd or -errno. */
int lab_socket(struct lab *l, const char *dev, int domain, int type, int protocol);

/*
 * Run cmd, a command line in dev's own CLI (a switch dialect's, or a shell's),
 * over SSH with the inventory's credential and the lab's known_hosts.
 * Sessions are cached per device.  *out (may be NULL) gets its stdout.
 * Returns the exit status or -errno, with a one-line reason in err when it
 * is not 0.
 */
int lab_cli(struct lab *l, const char *dev, const char *cmd, const char *input, char **out,
	    char *err, size_t errlen);

/* Log into dev over SSH (the session is kept for lab_cli()); 0 or -errno, err says why. */
int lab_login(struct lab *l, const char *dev, char *err, size_t errlen);

/*
 * Before a run on a lab rocelab did not build: every switch can be logged
 * into; every host runs this rocelab version (self: this binary) and has a
 * clock within a second of this machine's (l->clock); then lab_health().  On a virtual
 * lab, lab_health() alone.  Each problem is printed, naming the device.  0,
 * or -EHOSTUNREACH when any check failed.
 */
int lab_preflight(struct lab *l, const char *self);

/*
 * One problem of a check: printed as "WHEN: WHAT"; the first one (*bad 0)
 * also goes to why.  Counts it in *bad.
 */
void lab_problem(const char *when, const char *what, char *why, size_t whylen, size_t *bad);

/*
 * Is every host as the inventory says: each RNIC's link UP with its address,
 * and traffic from that address to an RNIC of another host leaving by that
 * RNIC (its policy rule and routes)?  Read with 'ip -j' through the lab.
 * Problems are printed as "WHEN: HOST:RNIC: ..."; the first also goes to why.
 * 0, or -EHOSTUNREACH.
 */
int lab_health(struct lab *l, const char *when, char *why, size_t whylen);
/*
 * One RNIC against what its host's 'ip -j addr' printed (links, device output: any
 * JSON): its netdev there, UP, with its inventory address.  0, or -1 with why.
 */
int lab_rnic_found(const struct inventory *inv, const struct inv_rnic *r, const json_t *links,
		   char *why, size_t whylen);

/* The SSH target of dev (a host or switch of l->inv); -ENOENT when there is none. */
struct sshc_target;
int lab_ssh_target(const struct lab *l, const char *dev, struct sshc_target *t);

/*
 * The inventory to act on: path (-i) when given, else that of the lab that is
 * up (with a hint to start one or give -i).  A new object (inventory_free());
 * NULL + errno (EINVAL: bad inventory) on failure, the problem printed.
 */
struct inventory *lab_target_inventory(const char *path);

/* Is the virtual lab up on this machine? */
bool lab_virtual_is_up(void);

/* The built-in inventory (the virtual lab): beside the binary in a build tree, else installed. */
const char *lab_builtin_inventory(char *buf, size_t len);

/*
 * Make the lab of inv (read from inv_path) reachable before a run: a virtual
 * lab is brought up unless it is up already; a lab of another name that is up
 * is refused.  *started says whether this call brought it up (give it back to
 * lab_release()).  Returns an rl_exit code.
 */
int lab_prepare(const struct inventory *inv, const char *inv_path, bool *started);

/* Undo what lab_prepare() started; an rl_exit code. */
int lab_release(bool started);

/* The lab kinds. */
extern const struct lab_ops vlab_lab_ops;
extern const struct lab_ops ssh_lab_ops;

#endif
