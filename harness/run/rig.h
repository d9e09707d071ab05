/* SPDX-License-Identifier: MIT */
/*
 * The rig during a scenario (issue 64): this machine's CPU pressure, what
 * its CPUs did and the controller's own CPU, sampled every interval while
 * the scenario runs; and its stalls, which PSI does not see (a whole machine
 * stopped, or a hypervisor's steal, delays every task alike and none waits
 * on a run queue): how late a thread that wakes every RIG_TICK_MS came, and
 * the CPUs' steal time.  On the virtual lab every host is this machine, so its
 * pressure is every host's; a lab reached over SSH has its own hosts, of
 * which this says nothing (only of the controller).
 */
#ifndef ROCELAB_RIG_H
#define ROCELAB_RIG_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A host-processing verdict for a window in which some task of this machine
 * waited for a CPU this share of the time or more (/proc/pressure/cpu
 * "some") is a right verdict of a measured event: the hosts' processing was
 * slow, because the rig's CPUs were: more than half the window, a runnable
 * task had no CPU to run on (docs/real-labs.md: The rig, for what CI runs measured).
 */
#define RIG_PRESSURE_BOUND 0.5
#define RIG_INTERVAL_S	   0.1 /* the sampler's period */
#define RIG_TICK_MS	   5   /* the stall detector's period */

struct rig_sample {
	double t;	/* CLOCK_REALTIME seconds, the interval's end */
	double some;	/* share of the interval some task waited for a CPU (-1: no PSI) */
	double busy;	/* share of this machine's CPUs busy (all of them: 1) */
	double self;	/* the controller's own CPU, in CPUs (its threads; not its children) */
	double late_ms; /* the stall detector's latest wake-up within the interval, in ms */
	double steal;	/* share of the CPUs' time a hypervisor took (/proc/stat steal) */
	/* tasks runnable at the sample, the sampler among them: the run queue (/proc/loadavg;
	 * -1: not read, as from a host's older 'rocelab rig') */
	double runq;
};

struct rig {
	double interval;
	struct rig_sample *s;
	size_t n;
	bool psi; /* /proc/pressure/cpu was readable */
	int cpus; /* the sampled machine's CPUs online (0: not known, as from an older host) */
	/* the sampler, and the stall detector (tick) */
	pthread_t th, tick;
	pthread_mutex_t mu;
	bool init, running, stop;
	unsigned long long psi_last, cpu_busy_last, cpu_all_last, cpu_steal_last, self_last;
	unsigned long long late_ns; /* the tick's latest wake-up since the last sample (mu) */
};

/* Start sampling every interval_s (a thread); 0 or -errno. */
int rig_start(struct rig *r, double interval_s);
/* Stop the sampler (its samples stay until rig_free(); read them only once stopped). */
void rig_stop(struct rig *r);
void rig_free(struct rig *r);

/*
 * The mean pressure ("some") over the samples whose interval lies in [from,
 * to]; -1 when none do or PSI was not readable.
 */
double rig_pressure(const struct rig *r, double from, double to);

/*
 * results.json's rig block: {source, interval_s, psi, pressure_bound,
 * tick_ms, cpus (when known), phases: {NAME: {pressure_mean, pressure_max, over_bound,
 * busy_mean, controller_cpu, stall_max_ms, steal_mean}}, samples: [[t - t0,
 * some, busy, self, late_ms, steal], ...]}, for the phases [from[i], to[i]]
 * named name[i] (t0: the first phase's start).
 */
json_t *rig_json(const struct rig *r, const char *source, const char *const *name,
		 const double *from, const double *to, size_t n);

/*
 * 'rocelab rig' on a host of a lab reached over SSH: this machine sampled
 * every interval_s until a signal, first "rig-cpus N" (its CPUs online), then a
 * line each on out, "rig T SOME BUSY SELF LATE_MS STEAL RUNQ" (a struct
 * rig_sample; SOME -1 without PSI, RUNQ -1 unread; rig_read() takes the six
 * fields of a host's older one too, and no rig-cpus line).  0 or -errno.
 */
int rig_print(double interval_s, FILE *out);

/*
 * The lines rig_print() wrote, from the file at path, into r (as a stopped
 * rig; rig_free() it), each time less offset (the host's clock minus this
 * machine's).  Lines that are not samples, or whose fields are not finite
 * and in range, are left out: the file came from a host.  How many were read.
 */
size_t rig_read(struct rig *r, const char *path, double interval_s, double offset);

/*
 * The worst pressure ("some") of the rigs' samples in (t - interval, t]: on a
 * lab reached over SSH, the most loaded host at time t.  -1 when none has one.
 */
double rig_worst_at(const struct rig *rigs, size_t n, double t, double interval);

#endif
