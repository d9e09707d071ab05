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

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SSH_LOGIN_TIMEOUT_S 10
#define SSH_CMD_TIMEOUT_MS  30000

/* Index of dev among the lab's devices (hosts, then switches), or -1. */
static ssize_t dev_index(const struct lab *l, const char *dev)
{
	const struct inv_host *h = inventory_host(l->inv, dev);
	const struct inv_switch *s;

	if (h)
		return h - l->inv->hosts;
	s = inventory_switch(l->inv, dev);
	return s ? (ssize_t)l->inv->n_hosts + (s - l->inv->switches) : -1;
}

int lab_open(struct lab *l, const struct inventory *inv)
{
	struct inventory *up = vlab_is_up() ? vlab_inventory(NULL) : NULL;
	bool virtual = up && !strcmp(up->name, inv->name);

	inventory_free(up);
	memset(l, 0, sizeof(*l));
	l->inv = inv;
	l->ops = virtual ? &vlab_lab_ops : &ssh_switch_lab_ops;
	l->ssh = rl_xcalloc(inv->n_hosts + inv->n_switches, sizeof(*l->ssh));
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

void lab_close(struct lab *l)
{
	if (!l->ops)
		return;
	if (l->ops->close)
		l->ops->close(l);
	for (size_t i = 0; l->ssh && i < l->inv->n_hosts + l->inv->n_switches; i++)
		sshc_close(l->ssh[i]);
	free(l->ssh);
	l->ssh = NULL;
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

bool lab_alive(struct lab *l, const struct lab_proc *p)
{
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

int lab_cli(struct lab *l, const char *dev, const char *cmd, const char *input, char **out,
	    char *err, size_t errlen)
{
	ssize_t i = dev_index(l, dev);
	struct sshc_target t;
	char *errout = NULL;
	int ret;

	if (out)
		*out = NULL;
	err[0] = '\0';
	if (i < 0 || lab_ssh_target(l, dev, &t)) {
		snprintf(err, errlen, "%s: no such device with a management address in %s", dev,
			 l->inv->path);
		return -ENOENT;
	}
	if (!l->ssh[i]) {
		l->ssh[i] = sshc_connect(&t, SSH_LOGIN_TIMEOUT_S, err, errlen);
		if (!l->ssh[i])
			return -errno;
	}
	ret = sshc_exec(l->ssh[i], cmd, input, out, &errout, SSH_CMD_TIMEOUT_MS);
	if (ret < 0) {
		snprintf(err, errlen, "%s: ssh: %s", dev, strerror(-ret));
		/* A broken session is not reused. */
		sshc_close(l->ssh[i]);
		l->ssh[i] = NULL;
	} else if (ret > 0) {
		errout[strcspn(errout, "\n")] = '\0';
		snprintf(err, errlen, "%s: '%.120s' exited %d%s%.200s", dev, cmd, ret,
			 errout[0] ? ": " : "", errout);
	}
	free(errout);
	return ret;
}

/* ---- the SSH lab (switches now; hosts come with their agents over SSH) ----------------- */

/* argv as one POSIX shell command line, every word single-quoted. */
static char *shell_join(const char *const argv[])
{
	struct sbuf b = {0};

	for (size_t i = 0; argv[i]; i++) {
		sb_add(&b, i ? " '" : "'", i ? 2 : 1);
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'')
				sb_add(&b, "'\\''", 4);
			else
				sb_add(&b, p, 1);
		}
		sb_add(&b, "'", 1);
	}
	return sb_take(&b);
}

static int ssh_exec(struct lab *l, const char *dev, const char *const argv[], const char *input,
		    char **out, char *err, size_t errlen)
{
	char *cmd = shell_join(argv);
	int r = lab_cli(l, dev, cmd, input, out, err, errlen);

	free(cmd);
	return r;
}

const struct lab_ops ssh_switch_lab_ops = {
    .name = "ssh",
    .exec = ssh_exec,
};

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
	if (vlab_up(inv_path, true))
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
