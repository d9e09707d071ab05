// SPDX-License-Identifier: MIT
/* The rig during a scenario: CPU pressure, CPU use, the controller's own (rig.h). */
#define _GNU_SOURCE
#include "harness/run/rig.h"

#include "harness/lib/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* /proc/pressure/cpu's "some ... total=US"; false when unreadable. */
static bool psi_total(unsigned long long *us)
{
	FILE *f = fopen("/proc/pressure/cpu", "re");
	char line[256];
	bool ok = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		const char *t = strstr(line, "total=");

		if (!strncmp(line, "some ", 5) && t) {
			*us = strtoull(t + 6, NULL, 10);
			ok = true;
		}
	}
	fclose(f);
	return ok;
}

/* /proc/stat's first line: the jiffies busy, stolen by a hypervisor, and in all. */
static bool cpu_jiffies(unsigned long long *busy, unsigned long long *steal,
			unsigned long long *all)
{
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long v[8] = {0};
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		    &v[4], &v[5], &v[6], &v[7]) == 8;
	fclose(f);
	if (!ok)
		return false;
	*all = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	*busy = *all - v[3] - v[4]; /* less idle and iowait */
	*steal = v[7];
	return true;
}

/* The tasks runnable now, the caller among them (/proc/loadavg's "R/T"): -1 unread. */
static double run_queue(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	unsigned runnable = 0, total = 0;
	bool ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%*f %*f %*f %u/%u", &runnable, &total) == 2;
	fclose(f);
	return ok ? (double)runnable : -1;
}

/* This process's CPU (all its threads), in ns. */
static unsigned long long self_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void sample(struct rig *r, double t, double dt)
{
	unsigned long long psi = 0, busy = 0, steal = 0, all = 0, self = self_ns();
	struct rig_sample s = {.t = t, .some = -1, .runq = run_queue()};

	if (r->psi && psi_total(&psi))
		s.some = (double)(psi - r->psi_last) / 1e6 / dt, r->psi_last = psi;
	if (cpu_jiffies(&busy, &steal, &all) && all > r->cpu_all_last) {
		s.busy = (double)(busy - r->cpu_busy_last) / (double)(all - r->cpu_all_last);
		s.steal = (double)(steal - r->cpu_steal_last) / (double)(all - r->cpu_all_last);
		r->cpu_busy_last = busy, r->cpu_steal_last = steal, r->cpu_all_last = all;
	}
	s.self = (double)(self - r->self_last) / 1e9 / dt;
	r->self_last = self;
	s.some = s.some > 1 ? 1 : s.some;
	pthread_mutex_lock(&r->mu);
	s.late_ms = (double)r->late_ns / 1e6;
	r->late_ns = 0;
	*RL_PUSH(r->s, r->n) = s;
	pthread_mutex_unlock(&r->mu);
}

/*
 * The stall detector: sleeps RIG_TICK_MS at a time and keeps how late it
 * woke (CLOCK_MONOTONIC, which runs on through a stall), the most since the
 * last sample.  A timer here wakes within a fraction of a millisecond; a
 * machine that stops, for whatever reason, shows as a wake-up that late.
 */
static void *ticker(void *arg)
{
	struct rig *r = arg;
	const struct timespec iv = {0, RIG_TICK_MS * 1000000L};

	for (;;) {
		unsigned long long t0 = rl_now_ns(), late;
		bool stop;

		nanosleep(&iv, NULL);
		late = rl_now_ns() - t0;
		late = late > RIG_TICK_MS * 1000000ULL ? late - RIG_TICK_MS * 1000000ULL : 0;
		pthread_mutex_lock(&r->mu);
		r->late_ns = late > r->late_ns ? late : r->late_ns;
		stop = r->stop;
		pthread_mutex_unlock(&r->mu);
		if (stop)
			return NULL;
	}
}

static void *sampler(void *arg)
{
	struct rig *r = arg;
	double last = (double)rl_realtime_ns() / 1e9;

	for (;;) {
		struct timespec iv = {(time_t)r->interval,
				      (long)((r->interval - (double)(time_t)r->interval) * 1e9)};
		double t;
		bool stop;

		nanosleep(&iv, NULL);
		t = (double)rl_realtime_ns() / 1e9;
		sample(r, t, t - last > 1e-3 ? t - last : 1e-3);
		last = t;
		pthread_mutex_lock(&r->mu);
		stop = r->stop;
		pthread_mutex_unlock(&r->mu);
		if (stop)
			return NULL;
	}
}

int rig_start(struct rig *r, double interval_s)
{
	unsigned long long psi;
	int rc;

	rig_free(r);
	*r = (struct rig){.interval = interval_s > 0.01 ? interval_s : 0.01, .init = true};
	pthread_mutex_init(&r->mu, NULL);
	r->psi = psi_total(&psi);
	r->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->cpus = r->cpus > 0 ? r->cpus : 0;
	r->psi_last = r->psi ? psi : 0;
	cpu_jiffies(&r->cpu_busy_last, &r->cpu_steal_last, &r->cpu_all_last);
	r->self_last = self_ns();
	if ((rc = pthread_create(&r->tick, NULL, ticker, r)))
		return -rc;
	if ((rc = pthread_create(&r->th, NULL, sampler, r))) {
		pthread_mutex_lock(&r->mu);
		r->stop = true;
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->tick, NULL);
		return -rc;
	}
	r->running = true;
	return 0;
}

void rig_stop(struct rig *r)
{
	if (!r->running)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->th, NULL);
	pthread_join(r->tick, NULL);
	r->running = false;
}

void rig_free(struct rig *r)
{
	if (!r->init)
		return;
	rig_stop(r);
	free(r->s);
	r->s = NULL;
	r->n = 0;
	pthread_mutex_destroy(&r->mu);
	r->init = false;
}

double rig_pressure(const struct rig *r, double from, double to)
{
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->s[i].some >= 0 && r->s[i].t - r->interval >= from - 1e-9 &&
		    r->s[i].t <= to + 1e-9)
			sum += r->s[i].some, k++;
	return k ? sum / (double)k : -1;
}

json_t *rig_json(const struct rig *r, const char *source, const char *const *name,
		 const double *from, const double *to, size_t n)
{
	json_t *phases = json_object(), *samples = json_array();
	double t0 = n ? from[0] : r->n ? r->s[0].t : 0;

	for (size_t p = 0; p < n; p++) {
		double some = 0, max = 0, busy = 0, self = 0, late = 0, steal = 0, rq = 0,
		       rq_max = -1;
		size_t k = 0, over = 0, n_rq = 0;

		for (size_t i = 0; i < r->n; i++) {
			const struct rig_sample *s = &r->s[i];

			if (s->t - r->interval < from[p] - 1e-9 || s->t > to[p] + 1e-9)
				continue;
			k++;
			some += s->some > 0 ? s->some : 0;
			max = s->some > max ? s->some : max;
			over += s->some >= RIG_PRESSURE_BOUND;
			busy += s->busy;
			self += s->self;
			late = s->late_ms > late ? s->late_ms : late;
			steal += s->steal;
			if (s->runq >= 0) {
				rq += s->runq, n_rq++;
				rq_max = s->runq > rq_max ? s->runq : rq_max;
			}
		}
		if (!k)
			continue;
		json_object_set_new(
		    phases, name[p],
		    json_pack("{s:o,s:o,s:f,s:f,s:f,s:f,s:f,s:o,s:o}", "pressure_mean",
			      r->psi ? json_real(some / (double)k) : json_null(), "pressure_max",
			      r->psi ? json_real(max) : json_null(), "over_bound",
			      (double)over / (double)k, "busy_mean", busy / (double)k,
			      "controller_cpu", self / (double)k, "stall_max_ms", late,
			      "steal_mean", steal / (double)k, "runq_mean",
			      n_rq ? json_real(rq / (double)n_rq) : json_null(), "runq_max",
			      n_rq ? json_real(rq_max) : json_null()));
	}
	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(samples,
				      json_pack("[f,f,f,f,f,f,f]", r->s[i].t - t0, r->s[i].some,
						r->s[i].busy, r->s[i].self, r->s[i].late_ms,
						r->s[i].steal, r->s[i].runq));
	return json_pack("{s:s,s:f,s:b,s:f,s:i,s:f,s:o,s:o,s:o*}", "source", source, "interval_s",
			 r->interval, "psi", r->psi, "pressure_bound", RIG_PRESSURE_BOUND,
			 "tick_ms", RIG_TICK_MS, "t0", t0, "phases", phases, "samples", samples,
			 "cpus", r->cpus > 0 ? json_integer(r->cpus) : NULL);
}

static void print_sample(FILE *out, const struct rig_sample *s)
{
	fprintf(out, "rig %.3f %.4f %.4f %.4f %.3f %.4f %.0f\n", s->t, s->some, s->busy, s->self,
		s->late_ms, s->steal, s->runq);
}

int rig_print(double interval_s, FILE *out)
{
	struct rig r = {0};
	size_t done = 0;
	int rc;

	if ((rc = rig_start(&r, interval_s)))
		return rc;
	fprintf(out, "rig: sampling every %.3f s, PSI %s\nrig-cpus %d\n", r.interval,
		r.psi ? "read" : "not readable", r.cpus);
	fflush(out);
	while (!rl_interrupted) {
		nanosleep(&(struct timespec){0, 50000000L}, NULL);
		pthread_mutex_lock(&r.mu);
		for (; done < r.n; done++)
			print_sample(out, &r.s[done]);
		pthread_mutex_unlock(&r.mu);
		fflush(out);
	}
	rig_stop(&r);
	for (; done < r.n; done++)
		print_sample(out, &r.s[done]);
	fflush(out);
	rig_free(&r);
	return 0;
}

size_t rig_read(struct rig *r, const char *path, double interval_s, double offset)
{
	FILE *f = fopen(path, "re");
	char line[256];

	rig_free(r);
	*r = (struct rig){.interval = interval_s > 0.01 ? interval_s : 0.01, .init = true};
	pthread_mutex_init(&r->mu, NULL);
	while (f && fgets(line, sizeof(line), f)) {
		struct rig_sample s = {.runq = -1};
		int cpus, n;

		if (sscanf(line, "rig-cpus %d", &cpus) == 1) {
			r->cpus = cpus > 0 && cpus <= 65536 ? cpus : 0;
			continue;
		}
		n = sscanf(line, "rig %lf %lf %lf %lf %lf %lf %lf", &s.t, &s.some, &s.busy, &s.self,
			   &s.late_ms, &s.steal, &s.runq);

		/* six fields from a host's older 'rocelab rig' (no run queue), seven now */
		if ((n != 6 && n != 7) || (n == 7 && !(s.runq >= -1 && s.runq < 1e6)) ||
		    !isfinite(s.t) || s.t <= 0 || !(s.some >= -1 && s.some <= 1) ||
		    !(s.busy >= 0 && s.busy <= 1) || !(s.self >= 0 && s.self < 1e6) ||
		    !(s.late_ms >= 0 && s.late_ms < 1e9) || !(s.steal >= 0 && s.steal <= 1))
			continue;
		s.t -= offset;
		r->psi |= s.some >= 0;
		*RL_PUSH(r->s, r->n) = s;
	}
	if (f)
		fclose(f);
	return r->n;
}

double rig_worst_at(const struct rig *rigs, size_t n, double t, double interval)
{
	double worst = -1;

	for (size_t h = 0; h < n; h++) {
		const struct rig_sample *s = rigs[h].s;
		size_t lo = 0, hi = rigs[h].n;

		/* its samples are in time order: the first after t - interval */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s[mid].t > t - interval + 1e-9)
				hi = mid;
			else
				lo = mid + 1;
		}
		for (; lo < rigs[h].n && s[lo].t <= t + 1e-9; lo++)
			worst = s[lo].some > worst ? s[lo].some : worst;
	}
	return worst;
}
