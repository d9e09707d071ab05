// SPDX-License-Identifier: MIT
/* Picks the lab kind for an inventory, fills missing ops with -EOPNOTSUPP, and keeps SSH sessions
 * per device. */
#define _GNU_SOURCE
#include "harness/lab/lab.h"

#include "harness/lab/vlab.h"
#include "harness/lab/vlab_sshd.h"
#include "harness/lib/common.h"
#include "harness/lib/netns.h"
#include "harness/lib/sbuf.h"
#include "harness/lib/sshc.h"
#include "harness/lib/state.h"
#include "harness/lib/version.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SSH_LOGIN_TIMEOUT_S 10
#define SSH_CMD_TIMEOUT_MS  30000
/*
 * A device whose login timed out or found no route is not tried again for
 * this long: every step of a run that lost a host (revert there, stop its
 * agents, fetch their logs, post-flight) would wait out the login timeout
 * again, a minute in all.  Each says it gave up, and since when.
 */
#define SSH_LOST_HOLD_S 30

ssize_t lab_dev_index(const struct lab *l, const char *dev)
{
	const struct inv_host *h = inventory_host(l->inv, dev);
	const struct inv_switch *s;

	if (h)
		return h - l->inv->hosts;
	s = inventory_switch(l->inv, dev);
	return s ? (ssize_t)l->inv->n_hosts + (s - l->inv->switches) : -1;
}

/* What every kind of lab keeps per device: sessions, lost logins, locks. */
static void lab_init(struct lab *l, const struct inventory *inv, const struct lab_ops *ops)
{
	size_t n = inv->n_hosts + inv->n_switches;
	pthread_mutexattr_t a;

	memset(l, 0, sizeof(*l));
	l->inv = inv;
	l->ops = ops;
	l->ssh = rl_xcalloc(n + 1, sizeof(*l->ssh));
	l->lost = rl_xcalloc(n + 1, sizeof(*l->lost));
	l->sudo = rl_xcalloc(n + 1, sizeof(*l->sudo));
	l->dev_mu = rl_xcalloc(n + 1, sizeof(*l->dev_mu));
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	for (size_t i = 0; i < n; i++)
		pthread_mutex_init(&l->dev_mu[i], &a);
	pthread_mutexattr_destroy(&a);
	pthread_mutex_init(&l->priv_mu, NULL);
}

int lab_open(struct lab *l, const struct inventory *inv)
{
	struct inventory *up =
	    inv->kind == INV_LAB_VIRTUAL && vlab_is_up() ? vlab_inventory(NULL) : NULL;
	bool virtual = up && !strcmp(up->name, inv->name);

	inventory_free(up);
	lab_init(l, inv, virtual ? &vlab_lab_ops : &ssh_lab_ops);
	/* The virtual lab's sshd keys live and die with it; a real lab's are kept. */
	if (virtual) {
		vlab_known_hosts_path(l->known_hosts, sizeof(l->known_hosts));
		vlab_lab_key_path(l->lab_key, sizeof(l->lab_key));
		snprintf(l->state, sizeof(l->state), "%s", state_dir());
	} else {
		state_lib_path(l->known_hosts, sizeof(l->known_hosts), "known_hosts");
		snprintf(l->state, sizeof(l->state), "%s", state_lib_dir());
	}
	return 0;
}

/* This machine is the device: its sockets are opened where the process is. */
static int here_enter(struct lab *l, const char *dev, int *saved)
{
	(void)l, (void)dev;
	*saved = -1;
	return 0;
}

static void here_leave(struct lab *l, int saved)
{
	(void)l, (void)saved;
}

static const struct lab_ops here_lab_ops = {
    .name = "here",
    .enter = here_enter,
    .leave = here_leave,
};

void lab_open_here(struct lab *l, const struct inventory *inv)
{
	lab_init(l, inv, &here_lab_ops);
}

void lab_close(struct lab *l)
{
	if (!l->ops)
		return;
	if (l->ops->close)
		l->ops->close(l);
	for (size_t i = 0; l->ssh && i < l->inv->n_hosts + l->inv->n_switches; i++)
		sshc_close(l->ssh[i]);
	for (size_t i = 0; l->dev_mu && i < l->inv->n_hosts + l->inv->n_switches; i++)
		pthread_mutex_destroy(&l->dev_mu[i]);
	if (l->dev_mu)
		pthread_mutex_destroy(&l->priv_mu);
	free(l->ssh);
	free(l->lost);
	free(l->sudo);
	free(l->clock);
	free(l->dev_mu);
	l->ssh = NULL;
	l->lost = NULL;
	l->sudo = NULL;
	l->clock = NULL;
	l->dev_mu = NULL;
	l->ops = NULL;
}

bool lab_can(const struct lab *l, enum lab_cap cap)
{
	return (!(cap & LAB_CAP_NETLINK) || l->ops->nsctx) &&
	       (!(cap & LAB_CAP_ENTER) || (l->ops->enter && l->ops->leave));
}

static int unsupported(const struct lab *l, const char *what, const char *dev, char *err,
		       size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: the %s lab cannot %s", dev, l->ops->name, what);
	return -EOPNOTSUPP;
}

int lab_exec(struct lab *l, const char *dev, const char *const argv[], const char *input,
	     char **out, char *err, size_t errlen)
{
	if (out)
		*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!l->ops->exec)
		return unsupported(l, "run commands there", dev, err, errlen);
	return l->ops->exec(l, dev, argv, input, out, err, errlen);
}

int lab_spawn(struct lab *l, const char *dev, const char *const argv[], const char *log,
	      struct lab_proc *p)
{
	memset(p, 0, sizeof(*p));
	if (!l->ops->spawn)
		return unsupported(l, "start processes there", dev, NULL, 0);
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	snprintf(p->log, sizeof(p->log), "%s", log);
	return l->ops->spawn(l, dev, argv, log, p);
}

int lab_stop(struct lab *l, struct lab_proc *p, int grace_ms)
{
	int r;

	if (p->pid <= 0)
		return -ESRCH;
	if (!l->ops->stop)
		return unsupported(l, "stop processes there", p->dev, NULL, 0);
	r = l->ops->stop(l, p, grace_ms);
	p->pid = 0;
	return r;
}

struct stop_job {
	struct lab *l;
	struct lab_proc *p;
	int grace_ms;
};

static void *stop_job_run(void *arg)
{
	struct stop_job *j = arg;

	lab_stop(j->l, j->p, j->grace_ms);
	return NULL;
}

void lab_stop_each(struct lab *l, struct lab_proc *procs, size_t n, int grace_ms)
{
	struct stop_job *jobs = rl_xcalloc(n + 1, sizeof(*jobs));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (procs[i].pid > 0)
			jobs[k++] = (struct stop_job){l, &procs[i], grace_ms};
	lab_each(l, jobs, k, sizeof(*jobs), stop_job_run);
	free(jobs);
}

void lab_recheck(struct lab *l)
{
	if (l->ops->recheck)
		l->ops->recheck(l);
}

bool lab_alive(struct lab *l, struct lab_proc *p)
{
	p->why[0] = '\0';
	return p->pid > 0 && l->ops->alive && l->ops->alive(l, p);
}

int lab_put(struct lab *l, const char *dev, const char *local, const char *path)
{
	if (!l->ops->put)
		return unsupported(l, "receive files", dev, NULL, 0);
	return l->ops->put(l, dev, local, path);
}

int lab_get(struct lab *l, const char *dev, const char *path, const char *local)
{
	if (!l->ops->get)
		return unsupported(l, "send files", dev, NULL, 0);
	return l->ops->get(l, dev, path, local);
}

const char *lab_program(struct lab *l, const char *dev, const char *self)
{
	return l->ops->program ? l->ops->program(l, dev, self) : self;
}

int lab_sweep(struct lab *l, const char *when)
{
	int n = 0;

	for (size_t h = 0; l->ops->sweep && h < l->inv->n_hosts; h++) {
		int r = l->ops->sweep(l, l->inv->hosts[h].name, when);

		n += r > 0 ? r : 0;
	}
	return n;
}

int lab_share(struct lab *l, const char *dev, const char *local, char *path, size_t len)
{
	if (!l->ops->share) {
		snprintf(path, len, "%s", local);
		return 0;
	}
	return l->ops->share(l, dev, local, path, len);
}

int lab_nsctx(struct lab *l, const char *dev, struct nsctx *c)
{
	if (!l->ops->nsctx)
		return unsupported(l, "give netlink access", dev, NULL, 0);
	return l->ops->nsctx(l, dev, c);
}

int lab_enter(struct lab *l, const char *dev, int *saved)
{
	if (!l->ops->enter || !l->ops->leave)
		return unsupported(l, "open sockets there", dev, NULL, 0);
	return l->ops->enter(l, dev, saved);
}

void lab_leave(struct lab *l, int saved)
{
	if (l->ops->leave)
		l->ops->leave(l, saved);
}

int lab_socket(struct lab *l, const char *dev, int domain, int type, int protocol)
{
	int saved, fd, r = lab_enter(l, dev, &saved);

	if (r)
		return r;
	fd = socket(domain, type, protocol);
	r = fd < 0 ? -errno : fd;
	lab_leave(l, saved);
	return r;
}

int lab_ssh_target(const struct lab *l, const char *dev, struct sshc_target *t)
{
	const struct inv_host *h = inventory_host(l->inv, dev);
	const struct inv_switch *s = h ? NULL : inventory_switch(l->inv, dev);

	if (!h && !s)
		return -ENOENT;
	if (h && !h->has_mgmt)
		return -ENOENT;
	*t = (struct sshc_target){
	    .name = h ? h->name : s->name,
	    .addr = h ? h->mgmt : s->mgmt,
	    .ssh = h ? &h->ssh : &s->ssh,
	    .known_hosts = l->known_hosts,
	    .lab_key = l->lab_key[0] ? l->lab_key : NULL,
	};
	return 0;
}

/*
 * A host's commands change its links, routes, qdiscs and DCB: root's.  A
 * login that is not root ('user:' in the inventory) runs them under
 * 'sudo -n', which must work without a password (a prompt would hang the
 * run at 3 a.m.): asked once, at login, so that pre-flight says so before
 * anything is touched.  0, or -EACCES with what to do in err.
 */
static int become_root(struct lab *l, size_t i, struct sshc *c, const char *user, char *err,
		       size_t errlen)
{
	char *out = NULL, *errout = NULL;
	const char *dev = l->inv->hosts[i].name;
	int r = sshc_exec(c, "id -u", NULL, &out, &errout, SSH_CMD_TIMEOUT_MS);

	if (r || !out) {
		snprintf(err, errlen, "%s: 'id -u' as %s: %s", dev, user,
			 r < 0 ? strerror(-r) : "it failed");
		r = -EACCES;
		goto out;
	}
	out[strcspn(out, "\r\n")] = '\0';
	if (!strcmp(out, "0")) /* a root login by another name */
		goto out;
	free(errout);
	errout = NULL;
	r = sshc_exec(c, "sudo -n true", NULL, NULL, &errout, SSH_CMD_TIMEOUT_MS);
	if (r) {
		char *last = errout ? errout : "";
		size_t n = strlen(last);

		/* sudo's own word is its last line (a login's warnings come first) */
		while (n && (last[n - 1] == '\n' || last[n - 1] == '\r'))
			last[--n] = '\0';
		if (strrchr(last, '\n'))
			last = strrchr(last, '\n') + 1;
		snprintf(err, errlen,
			 "%s: logged in as '%s' (uid %.12s), not root, and 'sudo -n true' failed "
			 "(%.160s): rocelab changes links, routes and qdiscs there; give '%s' "
			 "passwordless sudo (NOPASSWD) or log in as root",
			 dev, user, out, last[0] ? last : "no sudo there", user);
		r = -EACCES;
		goto out;
	}
	l->sudo[i] = true;
out:
	free(out);
	free(errout);
	return r;
}

/* dev's SSH session, opened on first use; NULL with a reason in err. */
static struct sshc *session(struct lab *l, const char *dev, char *err, size_t errlen)
{
	ssize_t i = lab_dev_index(l, dev);
	struct sshc_target t;
	struct lab_lost *lost;

	if (i < 0 || lab_ssh_target(l, dev, &t)) {
		snprintf(err, errlen, "%s: no such device with a management address in %s", dev,
			 l->inv->path);
		errno = ENOENT;
		return NULL;
	}
	if (l->ssh[i])
		return l->ssh[i];
	lost = &l->lost[i];
	if (lost->at && rl_now_ns() - lost->at < SSH_LOST_HOLD_S * 1000000000ULL) {
		snprintf(err, errlen, "%s (%.0f s ago; not tried again for %d s)", lost->why,
			 (double)(rl_now_ns() - lost->at) / 1e9, SSH_LOST_HOLD_S);
		errno = lost->err;
		return NULL;
	}
	l->ssh[i] = sshc_connect(&t, SSH_LOGIN_TIMEOUT_S, err, errlen);
	if (l->ssh[i] && (size_t)i < l->inv->n_hosts && strcmp(t.ssh->user, "root") &&
	    t.ssh->user[0] && become_root(l, (size_t)i, l->ssh[i], t.ssh->user, err, errlen)) {
		sshc_close(l->ssh[i]);
		l->ssh[i] = NULL;
		errno = EACCES;
		return NULL;
	}
	if (!l->ssh[i] && (errno == ETIMEDOUT || errno == EHOSTUNREACH)) {
		*lost = (struct lab_lost){.at = rl_now_ns(), .err = errno};
		snprintf(lost->why, sizeof(lost->why), "%s", err);
	} else if (l->ssh[i])
		lost->at = 0;
	return l->ssh[i];
}

int lab_login(struct lab *l, const char *dev, char *err, size_t errlen)
{
	int r;

	err[0] = '\0';
	lab_dev_lock(l, dev);
	r = session(l, dev, err, errlen) ? 0 : -errno;
	lab_dev_unlock(l, dev);
	return r;
}

int lab_cli(struct lab *l, const char *dev, const char *cmd, const char *input, char **out,
	    char *err, size_t errlen)
{
	struct sshc *c;
	char *errout = NULL;
	struct sbuf wrapped = {0};
	const char *shown = cmd;
	ssize_t i;
	int ret;

	if (out)
		*out = NULL;
	err[0] = '\0';
	lab_dev_lock(l, dev);
	if (!(c = session(l, dev, err, errlen))) {
		ret = -errno;
		lab_dev_unlock(l, dev);
		return ret;
	}
	i = lab_dev_index(l, dev);
	if (i >= 0 && l->sudo[i]) {
		/* the whole line, as one shell's under sudo: sudo -n -- sh -c 'LINE' */
		sb_printf(&wrapped, "sudo -n -- sh -c ");
		sb_add_shell_word(&wrapped, cmd);
		if (!wrapped.p) {
			lab_dev_unlock(l, dev);
			snprintf(err, errlen, "%s: out of memory", dev);
			return -ENOMEM;
		}
		cmd = wrapped.p;
	}
	ret = sshc_exec(c, cmd, input, out, &errout, SSH_CMD_TIMEOUT_MS);
	if (ret < 0) {
		snprintf(err, errlen, "%s: ssh: %s", dev, strerror(-ret));
		/* A broken session is not reused; a connection the device stopped answering
		 * (SSH_DEAD_PEER_S) is a lost device, like a login that timed out. */
		sshc_close(c);
		l->ssh[i] = NULL;
		if (ret == -EIO) {
			l->lost[i] = (struct lab_lost){.at = rl_now_ns(), .err = EHOSTUNREACH};
			snprintf(l->lost[i].why, sizeof(l->lost[i].why), "%s", err);
		}
	} else if (ret > 0) {
		errout[strcspn(errout, "\n")] = '\0';
		snprintf(err, errlen, "%s: '%.120s' exited %d%s%.200s", dev, shown, ret,
			 errout[0] ? ": " : "", errout);
	}
	lab_dev_unlock(l, dev);
	free(errout);
	sb_free(&wrapped);
	return ret;
}

#define CLOCK_SKEW_MAX_S 1.0
/* Exchanges a clock reading takes: the first carries the command's start and is left out. */
#define CLOCK_EXCHANGES 5
#define CLOCK_CMD	"while read -r _; do date +%s.%N; done"

struct lab_clock lab_clock_estimate(const double (*t)[3], size_t n)
{
	size_t best = n > 1 ? 1 : 0;
	double skew, within;

	if (!n)
		return (struct lab_clock){0};
	for (size_t i = best + 1; i < n; i++)
		if (t[i][2] - t[i][0] < t[best][2] - t[best][0])
			best = i;
	skew = t[best][1] - (t[best][0] + t[best][2]) / 2;
	within = (t[best][2] - t[best][0]) / 2;
	/* A skew is taken off only when it is beyond its own measurement's error. */
	return (struct lab_clock){
	    .skew = skew, .within = within, .offset = fabs(skew) > within ? skew : 0};
}

bool lab_clock_too_far(const struct lab_clock *c, double bound)
{
	return fabs(c->skew) - c->within > bound;
}

/*
 * The host's clock against ours, NTP's way: over an SSH lab, CLOCK_EXCHANGES
 * stamps on one channel that is already running (a login or a slow login shell
 * is in none of them but the first); elsewhere one 'date' a stamp.
 */
static int clock_read(struct lab *l, const char *host, struct lab_clock *clock, char *err,
		      size_t errlen)
{
	double t[CLOCK_EXCHANGES][3];
	struct sshc_stamp st[CLOCK_EXCHANGES];
	struct sshc *c;
	int r = 0;

	if (l->ops == &ssh_lab_ops) {
		lab_dev_lock(l, host);
		if (!(c = session(l, host, err, errlen)))
			r = -errno;
		else if ((r = sshc_exchange(c, CLOCK_CMD, st, CLOCK_EXCHANGES,
					    SSH_CMD_TIMEOUT_MS))) {
			snprintf(err, errlen, "%s: reading its clock ('date' over SSH): %s", host,
				 strerror(-r));
			/* as lab_cli(): a broken session is not reused */
			sshc_close(c);
			l->ssh[lab_dev_index(l, host)] = NULL;
		}
		lab_dev_unlock(l, host);
		if (r)
			return r;
	} else {
		for (int i = 0; i < CLOCK_EXCHANGES && !r; i++) {
			char *out = NULL;

			st[i].sent = (double)rl_realtime_ns() / 1e9;
			r = lab_exec(l, host, (const char *const[]){"date", "+%s.%N", NULL}, NULL,
				     &out, err, errlen);
			st[i].got = (double)rl_realtime_ns() / 1e9;
			snprintf(st[i].reply, sizeof(st[i].reply), "%s", out ? out : "");
			free(out);
		}
		if (r)
			return r > 0 ? -EIO : r;
	}
	for (int i = 0; i < CLOCK_EXCHANGES; i++) {
		char *end;

		t[i][0] = st[i].sent;
		t[i][2] = st[i].got;
		t[i][1] = strtod(st[i].reply, &end);
		if (end == st[i].reply || (*end && *end != '\n')) {
			snprintf(err, errlen, "%s: 'date +%%s.%%N' gave no time", host);
			return -EIO;
		}
	}
	*clock = lab_clock_estimate((const double(*)[3])t, CLOCK_EXCHANGES);
	return 0;
}

json_t *lab_exec_json(struct lab *l, const char *dev, const char *const argv[], char *err,
		      size_t errlen)
{
	char *out = NULL;
	json_error_t je;
	json_t *v = NULL;

	if (lab_exec(l, dev, argv, NULL, &out, err, errlen) == 0 &&
	    !(v = json_loads(out ? out : "", JSON_DECODE_ANY, &je)))
		snprintf(err, errlen, "%s: '%s' gave no JSON: %s", dev, argv[0], je.text);
	free(out);
	return v;
}

void lab_dev_lock(struct lab *l, const char *dev)
{
	ssize_t i = lab_dev_index(l, dev);

	if (i >= 0 && l->dev_mu)
		pthread_mutex_lock(&l->dev_mu[i]);
}

void lab_dev_unlock(struct lab *l, const char *dev)
{
	ssize_t i = lab_dev_index(l, dev);

	if (i >= 0 && l->dev_mu)
		pthread_mutex_unlock(&l->dev_mu[i]);
}

struct each_pool {
	void *jobs;
	size_t n, size;
	atomic_size_t next;
	void *(*fn)(void *job);
};

static void *each_worker(void *p)
{
	struct each_pool *e = p;

	for (size_t i; (i = atomic_fetch_add(&e->next, 1)) < e->n;)
		e->fn((char *)e->jobs + i * e->size);
	return NULL;
}

void lab_pool(void *jobs, size_t n, size_t size, void *(*fn)(void *job), size_t k)
{
	struct each_pool e = {.jobs = jobs, .n = n, .size = size, .fn = fn};
	size_t started = 0;
	pthread_t *th;

	atomic_init(&e.next, 0);
	if (k < 2 || n < 2) {
		each_worker(&e);
		return;
	}
	k = k < n ? k : n;
	th = rl_xcalloc(k, sizeof(*th));
	/* This thread is a worker too: with no thread to be had, it does them all. */
	for (size_t i = 1; i < k; i++)
		if (!pthread_create(&th[started], NULL, each_worker, &e))
			started++;
	each_worker(&e);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

void lab_each(struct lab *l, void *jobs, size_t n, size_t size, void *(*fn)(void *job))
{
	lab_pool(jobs, n, size, fn,
		 l->ops != &ssh_lab_ops ? 1
		 : l->fanout		? l->fanout
					: LAB_FANOUT_DEFAULT);
}

/* A JSON list a host prints (ip -j ...); NULL with why. */
static json_t *host_list(struct lab *l, const char *host, const char *const argv[], char *why,
			 size_t whylen)
{
	char err[384];
	json_t *j = lab_exec_json(l, host, argv, err, sizeof(err));

	if (!j)
		snprintf(why, whylen, "cannot read %s: %s", host, err);
	else if (!json_is_array(j))
		snprintf(why, whylen, "%s: '%s %s' did not answer in JSON", host, argv[0], argv[2]);
	if (j && !json_is_array(j)) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* Where a probe from r goes to check its routing: an RNIC of another host and rail if any. */
static const char *probe_dst(const struct inventory *inv, const struct inv_rnic *r, char *buf)
{
	const struct inv_rnic *best = NULL;

	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t k = 0; h != r->host && k < inv->hosts[h].n_rnics; k++) {
			const struct inv_rnic *x = &inv->hosts[h].rnics[k];

			if (!best || (best->rail == r->rail && x->rail != r->rail))
				best = x;
		}
	return inet_ntop(AF_INET, best ? &best->addr.addr : &r->gateway, buf, INET_ADDRSTRLEN);
}

int lab_rnic_found(const struct inventory *inv, const struct inv_rnic *r, const json_t *links,
		   char *why, size_t whylen)
{
	const char *host = inv->hosts[r->host].name, *state;
	char addr[INET_ADDRSTRLEN];
	const json_t *link = NULL, *ai;
	size_t i;

	inet_ntop(AF_INET, &r->addr.addr, addr, sizeof(addr));
	json_array_foreach(
	    links, i, link) if (!strcmp(json_string_value(json_object_get(link, "ifname")) ?: "",
					r->netdev)) break;
	if (i == json_array_size(links)) {
		snprintf(why, whylen, "%s:%s: %s has no interface %s", host, r->name, host,
			 r->netdev);
		return -1;
	}
	state = json_string_value(json_object_get(link, "operstate")) ?: "?";
	if (strcmp(state, "UP")) {
		snprintf(why, whylen, "%s:%s: the link of %s is %s, not UP", host, r->name,
			 r->netdev, state);
		return -1;
	}
	json_array_foreach(json_object_get(link, "addr_info"), i, ai)
	{
		const char *local = json_string_value(json_object_get(ai, "local"));

		if (local && !strcmp(local, addr) &&
		    (r->addr.len < 0 ||
		     json_integer_value(json_object_get(ai, "prefixlen")) == r->addr.len))
			return 0;
	}
	snprintf(why, whylen, "%s:%s: %s does not have %s/%d", host, r->name, r->netdev, addr,
		 r->addr.len);
	return -1;
}

void lab_problem(const char *when, const char *what, char *why, size_t whylen, size_t *bad)
{
	rl_err("%s: %s", when, what);
	if (!(*bad)++)
		snprintf(why, whylen, "%s: %s", when, what);
}

/* What lab_health reads from one host: its links, and per RNIC where its traffic goes. */
struct health_job {
	struct lab *l;
	size_t h;
	json_t *links, **routes; /* NULL: not read, why in one / rwhy */
	char one[512], (*rwhy)[512];
};

static void *health_read(void *p)
{
	struct health_job *j = p;
	const struct inventory *inv = j->l->inv;
	const struct inv_host *host = &inv->hosts[j->h];

	j->links =
	    host_list(j->l, host->name, (const char *const[]){"ip", "-j", "addr", "show", NULL},
		      j->one, sizeof(j->one));
	for (size_t k = 0; j->links && k < host->n_rnics; k++) {
		const struct inv_rnic *r = &host->rnics[k];
		char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];

		/* Traffic from the RNIC's address must leave by it: its rule and routes. */
		inet_ntop(AF_INET, &r->addr.addr, src, sizeof(src));
		j->routes[k] =
		    host_list(j->l, host->name,
			      (const char *const[]){"ip", "-j", "route", "get",
						    probe_dst(inv, r, dst), "from", src, NULL},
			      j->rwhy[k], sizeof(j->rwhy[k]));
	}
	return NULL;
}

int lab_health(struct lab *l, const char *when, char *why, size_t whylen)
{
	const struct inventory *inv = l->inv;
	struct health_job *jobs = rl_xcalloc(inv->n_hosts ? inv->n_hosts : 1, sizeof(*jobs));
	size_t n_ok = 0, bad = 0;
	char one[512];

	why[0] = '\0';
	for (size_t h = 0; h < inv->n_hosts; h++) {
		jobs[h] = (struct health_job){.l = l, .h = h};
		jobs[h].routes = rl_xcalloc(inv->hosts[h].n_rnics + 1, sizeof(json_t *));
		jobs[h].rwhy = rl_xcalloc(inv->hosts[h].n_rnics + 1, sizeof(*jobs[h].rwhy));
	}
	lab_each(l, jobs, inv->n_hosts, sizeof(*jobs), health_read);
	for (size_t h = 0; h < inv->n_hosts; h++) {
		const struct inv_host *host = &inv->hosts[h];
		struct health_job *j = &jobs[h];

		for (size_t k = 0; k < host->n_rnics; k++) {
			const struct inv_rnic *r = &host->rnics[k];
			char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
			json_t *route = j->routes[k];
			const char *dev;
			bool ok;

			if (!j->links) {
				snprintf(one, sizeof(one), "%s", j->one);
				goto failed;
			}
			if (lab_rnic_found(inv, r, j->links, one, sizeof(one)))
				goto failed;
			inet_ntop(AF_INET, &r->addr.addr, src, sizeof(src));
			probe_dst(inv, r, dst);
			if (!route)
				snprintf(one, sizeof(one), "%s", j->rwhy[k]);
			dev = route ? json_string_value(
					  json_object_get(json_array_get(route, 0), "dev"))
				    : NULL;
			ok = dev && !strcmp(dev, r->netdev);
			if (route && !ok)
				snprintf(one, sizeof(one),
					 "%s:%s: traffic from %s to %s leaves %s by %s, not %s (a "
					 "policy rule or route is missing)",
					 host->name, r->name, src, dst, host->name,
					 dev ? dev : "nothing", r->netdev);
			if (ok) {
				n_ok++;
				continue;
			}
		failed:
			lab_problem(when, one, why, whylen, &bad);
			if (!j->links)
				break; /* the host could not be read at all: one line for it */
		}
		for (size_t k = 0; k < host->n_rnics; k++)
			json_decref(j->routes[k]);
		json_decref(j->links);
		free(j->routes);
		free(j->rwhy);
	}
	free(jobs);
	if (bad)
		return -EHOSTUNREACH;
	fprintf(stderr,
		"%s: %zu RNIC(s) up with their addresses, each one's traffic leaving by it\n", when,
		n_ok);
	return 0;
}

/*
 * What pre-flight does on a host: this binary copied there ('rocelab: copy'),
 * the rocelab there asked its version, its clock read, what ended runs left
 * there swept.
 */
struct preflight_job {
	struct lab *l;
	const char *host, *self, *prog;
	bool copy, not_copied;
	char *out, err[512];
	int r, clock_r;
	struct lab_clock clock;
};

static void *preflight_read(void *p)
{
	struct preflight_job *j = p;
	char there[PATH_MAX];

	/* 'rocelab: copy': this binary goes there for the run, then answers like any. */
	if (j->copy && lab_share(j->l, j->host, j->self, there, sizeof(there))) {
		j->not_copied = true;
		return NULL;
	}
	j->prog = lab_program(j->l, j->host, j->self);
	j->r = lab_exec(j->l, j->host, (const char *const[]){j->prog, "version", NULL}, NULL,
			&j->out, j->err, sizeof(j->err));
	if (j->out)
		j->out[strcspn(j->out, "\n")] = '\0';
	if (!j->r)
		j->clock_r = clock_read(j->l, j->host, &j->clock, j->err, sizeof(j->err));
	if (!j->r && !j->clock_r && j->l->ops->sweep)
		j->l->ops->sweep(j->l, j->host, "pre-flight");
	return NULL;
}

struct login_job {
	struct lab *l;
	const char *dev;
	char err[512];
	int r;
};

static void *login_job_run(void *p)
{
	struct login_job *j = p;

	j->r = lab_login(j->l, j->dev, j->err, sizeof(j->err));
	return NULL;
}

int lab_preflight(struct lab *l, const char *self)
{
	const struct inventory *inv = l->inv;
	struct preflight_job *jobs;
	struct login_job *logins;
	char err[512], want[64];
	int bad = 0;

	/* A virtual lab was checked as rocelab built it: only its RNICs are checked again. */
	if (l->ops == &vlab_lab_ops)
		return lab_health(l, "pre-flight", err, sizeof(err));
	snprintf(want, sizeof(want), "rocelab %s", ROCELAB_VERSION);
	free(l->clock);
	l->clock = rl_xcalloc(inv->n_hosts + 1, sizeof(*l->clock));
	logins = rl_xcalloc(inv->n_switches + 1, sizeof(*logins));
	for (size_t i = 0; i < inv->n_switches; i++)
		logins[i] = (struct login_job){.l = l, .dev = inv->switches[i].name};
	lab_each(l, logins, inv->n_switches, sizeof(*logins), login_job_run);
	for (size_t i = 0; i < inv->n_switches; i++)
		if (logins[i].r) {
			rl_err("pre-flight: %s", logins[i].err);
			bad++;
		}
	free(logins);
	jobs = rl_xcalloc(inv->n_hosts ? inv->n_hosts : 1, sizeof(*jobs));
	for (size_t h = 0; h < inv->n_hosts; h++)
		jobs[h] = (struct preflight_job){
		    .l = l,
		    .host = inv->hosts[h].name,
		    .self = self,
		    .copy = !strcmp(inv->hosts[h].rocelab, INV_ROCELAB_COPY)};
	lab_each(l, jobs, inv->n_hosts, sizeof(*jobs), preflight_read);
	for (size_t h = 0; h < inv->n_hosts; h++) {
		struct preflight_job *j = &jobs[h];
		const char *host = j->host, *out = j->out ? j->out : "";

		if (j->not_copied) {
			rl_err("pre-flight: cannot copy %s to %s (see above)", self, host);
			bad++;
			continue;
		}
		if (j->r) {
			rl_err("pre-flight: %s%s", j->err,
			       j->r == 127 && j->copy
				   ? " (the copy of rocelab does not start there: install "
				     "the libraries it links, see docs/real-labs.md)"
			       : j->r == 127
				   ? " (install rocelab there, give its path as 'rocelab:' "
				     "in the inventory, or 'rocelab: copy')"
				   : "");
			bad++;
		} else if (strcmp(out, want)) {
			rl_err("pre-flight: %s runs '%s', this is '%s': install the same version",
			       host, out, want);
			bad++;
		} else if (j->clock_r) {
			rl_err("pre-flight: %s", j->err);
			bad++;
		} else if (lab_clock_too_far(&j->clock, CLOCK_SKEW_MAX_S)) {
			rl_err("pre-flight: %s's clock is %+.3f s (±%.3f) off this machine's (more "
			       "than %.1f s beyond the reading's error): time-to-detect would be "
			       "wrong; synchronise it (NTP/PTP)",
			       host, j->clock.skew, j->clock.within, CLOCK_SKEW_MAX_S);
			bad++;
		} else {
			fprintf(stderr, "pre-flight: %s: %s%s, clock %+.3f s (±%.3f)%s\n", host,
				out, j->copy ? " (copied there)" : "", j->clock.skew,
				j->clock.within,
				j->clock.offset ? ": its record times are corrected" : "");
		}
		l->clock[h] = j->clock;
		free(j->out);
	}
	free(jobs);
	if (!bad && lab_health(l, "pre-flight", err, sizeof(err)))
		bad++;
	return bad ? -EHOSTUNREACH : 0;
}

/* ---- which lab, and bringing it up -------------------------------------------------------- */

struct inventory *lab_target_inventory(const char *path)
{
	return vlab_target_inventory(path);
}

bool lab_virtual_is_up(void)
{
	return vlab_is_up();
}

const char *lab_builtin_inventory(char *buf, size_t len)
{
	return vlab_builtin_inventory(buf, len);
}

int lab_prepare(const struct inventory *inv, const char *inv_path, bool *started)
{
	*started = false;
	if (inv->kind == INV_LAB_SSH) {
		fprintf(stderr, "run: %s is a lab reached over SSH: nothing is brought up\n",
			inv->name);
		return RL_EXIT_OK;
	}
	if (vlab_is_up()) {
		struct inventory *up = vlab_inventory(NULL);
		bool same = up && !strcmp(up->name, inv->name);

		if (!same)
			rl_err("lab '%s' is up, but the scenarios need '%s': take it down first "
			       "('rocelab lab down')",
			       up ? up->name : "?", inv->name);
		inventory_free(up);
		if (!same)
			return RL_EXIT_SETUP;
		fprintf(stderr, "run: using the lab that is up (%s)\n", inv->name);
		return RL_EXIT_OK;
	}
	fprintf(stderr, "run: bringing up the virtual lab %s\n", inv->name);
	if (vlab_up(inv_path, true, false))
		return RL_EXIT_SETUP;
	*started = true;
	return RL_EXIT_OK;
}

int lab_release(bool started)
{
	if (!started)
		return RL_EXIT_OK;
	fprintf(stderr, "run: taking the virtual lab down\n");
	return vlab_down(true);
}
