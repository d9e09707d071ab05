// SPDX-License-Identifier: MIT
/*
 * The SSH lab: every host and switch reached at its inventory mgmt address
 * with its credential (lab_cli()).  Commands run in a POSIX shell with every
 * word quoted; background processes run in their own session on the device,
 * with their log in a run folder there that is fetched when they stop and
 * removed when the lab is closed.  A run folder names its run (this
 * machine, pid, start time) in its file 'owner'; one whose run is gone
 * without closing its lab (kill -9, a crash) is swept by the next run's
 * pre-flight or by 'rocelab revert'.
 */
#define _GNU_SOURCE
#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"

#include <libgen.h>
#include <limits.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * A run's folder on a device: mktemp -d there (0700, a name no one can guess and
 * make first: a folder a local user made could hold a binary they swap, which
 * then runs as root).  /tmp/rocelab-run.PID.XXXXXX; older runs' /tmp/rocelab-run.PID
 * are still swept.
 */
#define RUN_DIR_PREFIX "/tmp/rocelab-run."
#define RUN_DIR_FMT    RUN_DIR_PREFIX "%d"

/*
 * Whether the processes started on a device still run is asked once a second,
 * for all of them at once (a run's agents for both monitors, its rig, its
 * load): one round trip a device, not one a process.  A thread of the lab's
 * own asks every such device (lab_each(): fanout at once) and lab_alive()
 * reads its last answers: asked from the scenario's own loop, 64 hosts one
 * after another took 40 s out of every 6 s phase.
 */
#define ALIVE_EVERY_NS 1000000000ULL

struct tracked {
	ssize_t dev; /* lab_dev_index() */
	pid_t pid;
	bool live; /* at the device's last answer */
};

/* A file this run put on a device (ssh_share), as it was: put again only when it changed. */
struct shared {
	ssize_t dev;
	char local[PATH_MAX], there[PATH_MAX];
	off_t size;
	struct timespec mtime;
};

struct ssh_priv {
	struct tracked *tr; /* started here and not stopped (under l->priv_mu, as the rest) */
	size_t n_tr;
	char (*lost)[200]; /* per device: why its processes could not be asked at the last
			      try, "" when it answered */
	pthread_t poller;  /* asks after tracked processes (poll_thread()) */
	pthread_cond_t wake;
	bool polling, stop;
	char (*dir)[64];       /* per device (hosts, then switches): its run folder, "" until
				  made there */
	char (*copy)[96];      /* per device: where a 'rocelab: copy' host runs this binary */
	struct shared *shared; /* files put there this run, and as what */
	size_t n_shared;
	unsigned n_logs; /* remote log files named so far */
	char owner[128]; /* "<machine-id> <pid> <start time>": this run, in DIR/owner */
};

/* This machine's id (systemd's /etc/machine-id, else the hostname). */
static void machine_id(char *buf, size_t len)
{
	char *id = rl_read_file("/etc/machine-id", NULL);

	if (!id || !id[0]) {
		free(id);
		id = rl_xcalloc(1, 256);
		gethostname(id, 255);
	}
	id[strcspn(id, " \n")] = '\0';
	snprintf(buf, len, "%s", id);
	free(id);
}

/* "<mid> <pid> <start time>" of process pid here (mid: machine_id()), or "" when it is not running.
 */
static void run_owner(const char *mid, pid_t pid, char *buf, size_t len)
{
	unsigned long long t = rl_proc_start(pid);

	buf[0] = '\0';
	if (t)
		snprintf(buf, len, "%s %d %llu", mid, (int)pid, t);
}

static struct ssh_priv *priv(struct lab *l)
{
	struct ssh_priv *p;
	char mid[64];

	pthread_mutex_lock(&l->priv_mu);
	if (!(p = l->priv)) {
		size_t n = l->inv->n_hosts + l->inv->n_switches + 1;

		p = rl_xcalloc(1, sizeof(*p));
		p->dir = rl_xcalloc(n, sizeof(*p->dir));
		p->copy = rl_xcalloc(n, sizeof(*p->copy));
		p->lost = rl_xcalloc(n, sizeof(*p->lost));
		pthread_cond_init(&p->wake, NULL);
		machine_id(mid, sizeof(mid));
		run_owner(mid, getpid(), p->owner, sizeof(p->owner));
		l->priv = p;
	}
	pthread_mutex_unlock(&l->priv_mu);
	return p;
}

/* argv as one POSIX shell command line, every word single-quoted. */
static void add_argv(struct sbuf *b, const char *const argv[])
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sb_add(b, " ", 1);
		sb_add_shell_word(b, argv[i]);
	}
}

static int run(struct lab *l, const char *dev, struct sbuf *cmd, const char *input, char **out,
	       char *err, size_t errlen)
{
	char *c = sb_take(cmd);
	int r = lab_cli(l, dev, c ? c : "", input, out, err, errlen);

	free(c);
	return r;
}

static int ssh_exec(struct lab *l, const char *dev, const char *const argv[], const char *input,
		    char **out, char *err, size_t errlen)
{
	struct sbuf b = {0};

	add_argv(&b, argv);
	return run(l, dev, &b, input, out, err, errlen);
}

/* Is dir a run folder's name as this run's mktemp makes them: PREFIX<pid>.<6 of [A-Za-z0-9]>? */
static bool run_dir_name_ok(const char *dir, int pid)
{
	char want[64];
	size_t n = (size_t)snprintf(want, sizeof(want), RUN_DIR_FMT ".", pid);

	return !strncmp(dir, want, n) && strlen(dir + n) == 6 &&
	       strspn(dir + n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
		   6;
}

/*
 * This run's folder on dev, made on first use by mktemp -d (0700, its owner file
 * in it); the same folder after.  NULL with err when it could not be made.
 */
static const char *run_dir(struct lab *l, const char *dev, char *err, size_t errlen)
{
	struct ssh_priv *p = priv(l);
	ssize_t i = lab_dev_index(l, dev);
	struct sbuf b = {0};
	char *out = NULL;
	int r;

	if (i < 0) {
		snprintf(err, errlen, "%s: no such device", dev);
		return NULL;
	}
	lab_dev_lock(l, dev); /* one folder a device, made once */
	if (p->dir[i][0]) {
		lab_dev_unlock(l, dev);
		return p->dir[i];
	}
	sb_printf(&b,
		  "umask 077 && d=$(mktemp -d " RUN_DIR_FMT
		  ".XXXXXX) && echo '%s' >\"$d/owner\" && "
		  "printf '%%s\\n' \"$d\"",
		  (int)getpid(), p->owner);
	r = run(l, dev, &b, NULL, &out, err, errlen);
	if (!r && out) {
		out[strcspn(out, "\n")] = '\0';
		if (run_dir_name_ok(out, (int)getpid()))
			snprintf(p->dir[i], sizeof(p->dir[i]), "%s", out);
		else
			snprintf(err, errlen, "%s: mktemp -d gave '%.60s', not a run folder", dev,
				 out);
	}
	lab_dev_unlock(l, dev);
	free(out);
	return p->dir[i][0] ? p->dir[i] : NULL;
}

static void *poll_thread(void *arg);

static int ssh_spawn(struct lab *l, const char *dev, const char *const argv[], const char *log,
		     struct lab_proc *p)
{
	struct ssh_priv *sp = priv(l);
	char err[512], *out = NULL, *end;
	const char *dir;
	struct sbuf b = {0};
	unsigned nlog;
	long pid;
	int r;

	(void)log;
	if (!(dir = run_dir(l, dev, err, sizeof(err)))) {
		rl_err("%s", err);
		p->rlog[0] = '\0';
		return -EIO;
	}
	pthread_mutex_lock(&l->priv_mu);
	nlog = ++sp->n_logs;
	pthread_mutex_unlock(&l->priv_mu);
	snprintf(p->rlog, sizeof(p->rlog), "%s/%s.%u.log", dir, dev, nlog);
	/* Its own session: stopped as a process group, deaf to the SSH channel's end. */
	sb_printf(&b, "{ setsid ");
	add_argv(&b, argv);
	sb_printf(&b, " </dev/null >'%s' 2>&1 & echo $!; }", p->rlog);
	r = run(l, dev, &b, NULL, &out, err, sizeof(err));
	pid = r ? 0 : strtol(out ? out : "", &end, 10);
	free(out);
	if (r || pid <= 1) {
		rl_err("%s", r ? err : "could not start a process there (no pid)");
		p->rlog[0] = '\0';
		return r < 0 ? r : -EIO;
	}
	p->pid = (pid_t)pid;
	pthread_mutex_lock(&l->priv_mu);
	*RL_PUSH(sp->tr, sp->n_tr) = (struct tracked){lab_dev_index(l, dev), p->pid, true};
	if (!sp->polling && !sp->stop)
		sp->polling = !pthread_create(&sp->poller, NULL, poll_thread, l);
	pthread_mutex_unlock(&l->priv_mu);
	return 0;
}

/* p's index among the tracked (under l->priv_mu), or -1 when it was not started here. */
static ssize_t tracked(struct lab *l, const struct lab_proc *p)
{
	struct ssh_priv *sp = l->priv;
	ssize_t dev = lab_dev_index(l, p->dev);

	for (size_t i = 0; sp && i < sp->n_tr; i++)
		if (sp->tr[i].pid == p->pid && sp->tr[i].dev == dev)
			return (ssize_t)i;
	return -1;
}

/* Fetch p's log into its local file and remove it on the device. */
static void fetch_log(struct lab *l, struct lab_proc *p)
{
	char err[512], *out = NULL;
	struct sbuf b = {0};

	if (!p->rlog[0])
		return;
	sb_printf(&b, "cat '%s' && rm -f '%s'", p->rlog, p->rlog);
	if (run(l, p->dev, &b, NULL, &out, err, sizeof(err)) == 0 && p->log[0])
		rl_write_file_mode(p->log, out ? out : "", out ? strlen(out) : 0, 0644);
	else
		rl_warn("the log of process %d on %s could not be fetched: %s", (int)p->pid, p->dev,
			err);
	free(out);
	p->rlog[0] = '\0';
}

static int ssh_stop(struct lab *l, struct lab_proc *p, int grace_ms)
{
	struct ssh_priv *sp = priv(l);
	char err[512], *out = NULL;
	struct sbuf b = {0};
	ssize_t t;
	bool killed;
	int r;

	/*
	 * Gone is no process of its session but zombies: its parent there is the
	 * host's init, which may take seconds to reap one (kill -0 finds a
	 * zombie; it took 1.9 s of every agent's stop in the SSH lab here).
	 * Without ps, kill -0.  A group is "-$p" with no "--" before it: dash's
	 * kill (sh on Debian, which runs a command under sudo) takes "--" for a
	 * number, and so does busybox's.
	 */
	sb_printf(&b,
		  "p=%d; kill -TERM -$p 2>/dev/null || exit 0; i=0; "
		  "live() { if command -v ps >/dev/null; then ps -o stat= -s $p | grep -q '^[^Z]'; "
		  "else kill -0 -$p 2>/dev/null; fi; }; "
		  "while live; do i=$((i+1)); "
		  "if [ $i -gt %d ]; then kill -KILL -$p; echo killed; exit 0; fi; "
		  "sleep 0.05; done",
		  (int)p->pid, grace_ms / 50);
	pthread_mutex_lock(&l->priv_mu);
	if ((t = tracked(l, p)) >= 0)
		sp->tr[t] = sp->tr[--sp->n_tr];
	pthread_mutex_unlock(&l->priv_mu);
	r = run(l, p->dev, &b, NULL, &out, err, sizeof(err));
	killed = out && strstr(out, "killed");
	free(out);
	if (r)
		rl_warn("%s", err);
	fetch_log(l, p);
	return r ? (r < 0 ? r : -EIO) : killed ? -ECANCELED : 0;
}

/* Is pid among the " PID " lines the liveness command printed? */
static bool listed(const char *out, pid_t pid)
{
	char word[24];

	snprintf(word, sizeof(word), " %d \n", (int)pid);
	return out && strstr(out, word);
}

/* Ask dev whether these pids run: 0 with *out its " PID " lines, or the round trip's error. */
static int ask_live(struct lab *l, const char *dev, const pid_t *pids, size_t n, char **out,
		    char *err, size_t errlen)
{
	struct sbuf b = {0};

	sb_printf(&b, "for p in");
	for (size_t i = 0; i < n; i++)
		sb_printf(&b, " %d", (int)pids[i]);
	sb_printf(&b, "; do kill -0 -$p 2>/dev/null && echo \" $p \"; done; true");
	return run(l, dev, &b, NULL, out, err, errlen);
}

/* The device name of index i (hosts, then switches). */
static const char *dev_name(const struct lab *l, size_t i)
{
	return i < l->inv->n_hosts ? l->inv->hosts[i].name
				   : l->inv->switches[i - l->inv->n_hosts].name;
}

struct poll_job {
	struct lab *l;
	ssize_t dev;
};

/* One device's tracked processes asked after, their answer kept. */
static void *poll_dev(void *arg)
{
	struct poll_job *j = arg;
	struct lab *l = j->l;
	struct ssh_priv *sp = l->priv;
	char err[512], *out = NULL;
	pid_t *pids = NULL;
	size_t n = 0;
	int r;

	pthread_mutex_lock(&l->priv_mu);
	for (size_t i = 0; i < sp->n_tr; i++)
		if (sp->tr[i].dev == j->dev)
			*RL_PUSH(pids, n) = sp->tr[i].pid;
	pthread_mutex_unlock(&l->priv_mu);
	if (!n)
		return NULL;
	r = ask_live(l, dev_name(l, (size_t)j->dev), pids, n, &out, err, sizeof(err));
	pthread_mutex_lock(&l->priv_mu);
	/* not an answer: the host is lost, not (yet) its processes */
	if (r < 0)
		snprintf(sp->lost[j->dev], sizeof(sp->lost[j->dev]), "%.190s", err);
	else
		sp->lost[j->dev][0] = '\0';
	for (size_t i = 0; !r && i < sp->n_tr; i++)
		if (sp->tr[i].dev == j->dev)
			for (size_t k = 0; k < n; k++)
				if (pids[k] == sp->tr[i].pid)
					sp->tr[i].live = listed(out, pids[k]);
	pthread_mutex_unlock(&l->priv_mu);
	free(out);
	free(pids);
	return NULL;
}

/* Every device with a process started here asked, fanout at once (under l->priv_mu). */
static void poll_all(struct lab *l)
{
	struct ssh_priv *sp = l->priv;
	size_t n_dev = l->inv->n_hosts + l->inv->n_switches, n = 0;
	struct poll_job *jobs = rl_xcalloc(n_dev + 1, sizeof(*jobs));
	bool *due = rl_xcalloc(n_dev + 1, sizeof(*due));

	for (size_t i = 0; i < sp->n_tr; i++)
		if (sp->tr[i].dev >= 0 && (size_t)sp->tr[i].dev < n_dev)
			due[sp->tr[i].dev] = true;
	for (size_t d = 0; d < n_dev; d++)
		if (due[d])
			jobs[n++] = (struct poll_job){l, (ssize_t)d};
	pthread_mutex_unlock(&l->priv_mu);
	lab_each(l, jobs, n, sizeof(*jobs), poll_dev);
	pthread_mutex_lock(&l->priv_mu);
	free(jobs);
	free(due);
}

/* Every second, poll_all(), until the lab closes. */
static void *poll_thread(void *arg)
{
	struct lab *l = arg;
	struct ssh_priv *sp = l->priv;

	pthread_mutex_lock(&l->priv_mu);
	while (!sp->stop) {
		struct timespec until;

		poll_all(l);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)(ALIVE_EVERY_NS / 1000000000ULL);
		while (!sp->stop && pthread_cond_timedwait(&sp->wake, &l->priv_mu, &until) == 0)
			;
	}
	pthread_mutex_unlock(&l->priv_mu);
	return NULL;
}

/* Asked now, from this thread: a device the poller waits on answers this as soon as it. */
static void ssh_recheck(struct lab *l)
{
	if (!l->priv)
		return;
	pthread_mutex_lock(&l->priv_mu);
	poll_all(l);
	pthread_mutex_unlock(&l->priv_mu);
}

static bool ssh_alive(struct lab *l, struct lab_proc *p)
{
	struct ssh_priv *sp = priv(l);
	ssize_t dev = lab_dev_index(l, p->dev), t;
	char err[512], *out = NULL;
	bool live = false;
	int r;

	pthread_mutex_lock(&l->priv_mu);
	if ((t = tracked(l, p)) >= 0) {
		live = sp->tr[t].live && !sp->lost[dev][0];
		if (sp->lost[dev][0])
			snprintf(p->why, sizeof(p->why), "%s", sp->lost[dev]);
	}
	pthread_mutex_unlock(&l->priv_mu);
	if (t >= 0)
		return live;
	/* Not started here: asked now. */
	r = ask_live(l, p->dev, &p->pid, 1, &out, err, sizeof(err));
	if (r < 0)
		snprintf(p->why, sizeof(p->why), "%.190s", err);
	live = !r && listed(out, p->pid);
	free(out);
	return live;
}

/*
 * A file to dev, byte for byte (a binary too: base64 over the channel, decoded
 * there by coreutils), executable there when it is here.
 */
static int ssh_put(struct lab *l, const char *dev, const char *local, const char *path)
{
	size_t len = 0;
	char err[512], *data = rl_read_file(local, &len), *copy = rl_xstrdup(path), *text = NULL;
	struct sbuf b = {0};
	struct stat st;
	int r;

	if (!data) {
		r = -errno;
		goto out;
	}
	text = rl_xcalloc(4 * ((len + 2) / 3) + 1, 1);
	EVP_EncodeBlock((unsigned char *)text, (const unsigned char *)data, (int)len);
	sb_printf(&b, "umask 077 && mkdir -p ");
	sb_add_shell_word(&b, dirname(copy));
	sb_printf(&b, " && base64 -d >");
	sb_add_shell_word(&b, path);
	if (stat(local, &st) == 0 && (st.st_mode & S_IXUSR)) {
		sb_printf(&b, " && chmod 700 ");
		sb_add_shell_word(&b, path);
	}
	r = run(l, dev, &b, text, NULL, err, sizeof(err));
	if (r)
		rl_err("%s", err);
out:
	free(copy);
	free(text);
	free(data);
	return r > 0 ? -EIO : r;
}

static int ssh_get(struct lab *l, const char *dev, const char *path, const char *local)
{
	const char *argv[] = {"cat", path, NULL};
	char err[512], *out = NULL;
	int r = ssh_exec(l, dev, argv, NULL, &out, err, sizeof(err));

	if (!r)
		r = rl_write_file_mode(local, out ? out : "", out ? strlen(out) : 0, 0644);
	else
		rl_err("%s", err);
	free(out);
	return r > 0 ? -EIO : r;
}

/* Where ssh_share() puts local on dev: its run folder (made now), under its own name. */
static int shared_path(struct lab *l, const char *dev, const char *local, char *path, size_t len)
{
	char *copy = rl_xstrdup(local), err[512];
	const char *dir = run_dir(l, dev, err, sizeof(err));

	if (dir)
		snprintf(path, len, "%s/%s", dir, basename(copy));
	else
		rl_err("%s", err);
	free(copy);
	return dir ? 0 : -EIO;
}

static const char *ssh_program(struct lab *l, const char *dev, const char *self)
{
	const struct inv_host *h = inventory_host(l->inv, dev);
	struct ssh_priv *p = priv(l);
	ssize_t i = lab_dev_index(l, dev);

	if (h && i >= 0 && !strcmp(h->rocelab, INV_ROCELAB_COPY)) { /* shared there at pre-flight */
		lab_dev_lock(l, dev);
		if (shared_path(l, dev, self, p->copy[i], sizeof(p->copy[i])))
			snprintf(p->copy[i], sizeof(p->copy[i]), "rocelab"); /* said: not there */
		lab_dev_unlock(l, dev);
		return p->copy[i];
	}
	return h && h->rocelab[0] ? h->rocelab : "rocelab";
}

/*
 * A file shared once is not put again while it is unchanged: the monitors share the
 * inventory to every host at their start, and a load's senders at the fault phase took
 * one more round trip a host (a second a host over SSH here) before the load could run.
 */
static int ssh_share(struct lab *l, const char *dev, const char *local, char *path, size_t len)
{
	struct ssh_priv *p = priv(l);
	ssize_t i = lab_dev_index(l, dev);
	struct stat st;
	int r;

	if (stat(local, &st) < 0)
		return -errno;
	lab_dev_lock(l, dev); /* put once on a device, however many ask at once */
	pthread_mutex_lock(&l->priv_mu);
	for (size_t k = 0; k < p->n_shared; k++) {
		struct shared *x = &p->shared[k];

		if (x->dev == i && !strcmp(x->local, local) && x->size == st.st_size &&
		    x->mtime.tv_sec == st.st_mtim.tv_sec &&
		    x->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			snprintf(path, len, "%s", x->there);
			pthread_mutex_unlock(&l->priv_mu);
			lab_dev_unlock(l, dev);
			return 0;
		}
	}
	pthread_mutex_unlock(&l->priv_mu);
	if (!(r = shared_path(l, dev, local, path, len)) && !(r = ssh_put(l, dev, local, path)) &&
	    strlen(local) < PATH_MAX && strlen(path) < PATH_MAX) {
		pthread_mutex_lock(&l->priv_mu);
		struct shared *x = RL_PUSH(p->shared, p->n_shared);

		*x = (struct shared){.dev = i, .size = st.st_size, .mtime = st.st_mtim};
		snprintf(x->local, sizeof(x->local), "%s", local);
		snprintf(x->there, sizeof(x->there), "%s", path);
		pthread_mutex_unlock(&l->priv_mu);
	}
	lab_dev_unlock(l, dev);
	return r;
}

/*
 * The run folders on dev whose run was on this machine and has ended (its
 * pid gone, or another process's now): what a run killed with -9 left.
 * Those of runs still going, or of other machines, stay.
 */
static int ssh_sweep(struct lab *l, const char *dev, const char *when)
{
	static const char list[] = "for d in /tmp/rocelab-run.*; do [ -f \"$d/owner\" ] && "
				   "printf '%s %s\\n' \"$d\" \"$(cat \"$d/owner\")\"; done; exit 0";
	char err[512], mid[64], *out = NULL, *save = NULL;
	int r = ssh_exec(l, dev, (const char *const[]){"sh", "-c", list, NULL}, NULL, &out, err,
			 sizeof(err)),
	    n = 0;

	if (r) {
		rl_warn("%s: %s: run folders not swept: %s", when, dev, err);
		free(out);
		return r < 0 ? r : -EIO;
	}
	machine_id(mid, sizeof(mid));
	for (char *line = strtok_r(out ? out : (char[]){""}, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dir[64], m[64], recorded[128], now[128], ours[64];
		int pid, dpid = 0, k = 0;
		unsigned long long start;

		if (sscanf(line, "%63s %63s %d %llu%n", dir, m, &pid, &start, &k) != 4 || line[k] ||
		    strcmp(m, mid) || pid <= 0 || sscanf(dir, RUN_DIR_FMT, &dpid) != 1)
			continue;
		/* Only a folder named exactly as a run's reaches rm (the host printed it). */
		snprintf(ours, sizeof(ours), RUN_DIR_FMT, dpid);
		if (strcmp(ours, dir) && !run_dir_name_ok(dir, dpid))
			continue;
		snprintf(recorded, sizeof(recorded), "%s %d %llu", m, pid, start);
		run_owner(mid, pid, now, sizeof(now));
		if (!strcmp(now, recorded))
			continue; /* its run goes on */
		if (ssh_exec(l, dev, (const char *const[]){"rm", "-rf", dir, NULL}, NULL, NULL, err,
			     sizeof(err))) {
			rl_warn("%s: %s: %s", when, dev, err);
			continue;
		}
		fprintf(stderr, "%s: %s: removed %s, left by run %d that has ended\n", when, dev,
			dir, pid);
		n++;
	}
	free(out);
	return n;
}

/* Every run folder goes: what ran there has been stopped and its logs fetched. */
static void ssh_close(struct lab *l)
{
	struct ssh_priv *p = l->priv;

	if (p) { /* the poller first: it uses the sessions */
		pthread_mutex_lock(&l->priv_mu);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&l->priv_mu);
		if (p->polling)
			pthread_join(p->poller, NULL);
		p->polling = false;
	}
	for (size_t i = 0; p && i < l->inv->n_hosts + l->inv->n_switches; i++) {
		const char *dev = dev_name(l, i);
		const char *argv[] = {"rm", "-rf", p->dir[i], NULL};
		char err[512];

		if (p->dir[i][0] && ssh_exec(l, dev, argv, NULL, NULL, err, sizeof(err)))
			rl_warn("%s", err);
	}
	if (p) {
		free(p->dir);
		free(p->copy);
		free(p->shared);
		free(p->lost);
		free(p->tr);
		pthread_cond_destroy(&p->wake);
	}
	free(p);
	l->priv = NULL;
}

const struct lab_ops ssh_lab_ops = {
    .name = "ssh",
    .exec = ssh_exec,
    .spawn = ssh_spawn,
    .stop = ssh_stop,
    .alive = ssh_alive,
    .put = ssh_put,
    .get = ssh_get,
    .program = ssh_program,
    .share = ssh_share,
    .sweep = ssh_sweep,
    .recheck = ssh_recheck,
    .close = ssh_close,
};
