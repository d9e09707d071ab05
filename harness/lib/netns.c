// SPDX-License-Identifier: MIT
/* Creates, enters and removes named network namespaces the way iproute2 does. */
#define _GNU_SOURCE
#include "harness/lib/netns.h"

#include "harness/lib/common.h"

#include <fcntl.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int ns_path(char *buf, size_t len, const char *name)
{
	if (!rl_name_ok(name, 60) || strchr(name, '/'))
		return -EINVAL;
	snprintf(buf, len, "%s/%s", NETNS_RUN_DIR, name);
	return 0;
}

/* /run/netns must be a shared mount so that namespace bind mounts show in every mount ns. */
static int prepare_run_dir(void)
{
	bool made_bind = false;

	if (mkdir(NETNS_RUN_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	while (mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL) < 0) {
		if (errno != EINVAL || made_bind)
			return -errno;
		if (mount(NETNS_RUN_DIR, NETNS_RUN_DIR, "none", MS_BIND | MS_REC, NULL) < 0)
			return -errno;
		made_bind = true;
	}
	return 0;
}

int netns_add(const char *name)
{
	char path[256];
	int fd, saved, ret;

	if ((ret = ns_path(path, sizeof(path), name)))
		return ret;
	if ((ret = prepare_run_dir()))
		return ret;
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (saved < 0) {
		ret = -errno;
		goto unlink_path;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		ret = -errno;
		goto close_saved;
	}
	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL) < 0)
		ret = -errno;
	if (setns(saved, CLONE_NEWNET) < 0 && !ret)
		ret = -errno;
close_saved:
	close(saved);
	if (!ret)
		return 0;
unlink_path:
	unlink(path);
	return ret;
}

int netns_del(const char *name)
{
	char path[256];
	int ret;

	if ((ret = ns_path(path, sizeof(path), name)))
		return ret;
	if (umount2(path, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
		return -errno;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

bool netns_exists(const char *name)
{
	char path[256];

	return ns_path(path, sizeof(path), name) == 0 && access(path, F_OK) == 0;
}

static int open_ns_fd(const char *name)
{
	char path[256];
	int fd, ret;

	if (!name || !*name)
		fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	else if ((ret = ns_path(path, sizeof(path), name)))
		return ret;
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int netns_enter(const struct nsctx *c, int *saved)
{
	*saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*saved < 0)
		return -errno;
	if (setns(c->fd, CLONE_NEWNET) < 0) {
		int e = errno;

		close(*saved);
		*saved = -1;
		return -e;
	}
	return 0;
}

int netns_enter_name(const char *name, int *saved)
{
	struct nsctx c = {.fd = open_ns_fd(name)};
	int ret;

	if (c.fd < 0)
		return c.fd;
	ret = netns_enter(&c, saved);
	close(c.fd);
	return ret;
}

void netns_leave(int saved)
{
	if (saved < 0)
		return;
	if (setns(saved, CLONE_NEWNET) < 0) {
		/* Continuing in the wrong namespace would change the wrong network. */
		rl_err("cannot return to the original network namespace: %s", strerror(errno));
		abort();
	}
	close(saved);
}

int nsctx_open(struct nsctx *c, const char *name)
{
	int saved, ret;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	c->fd = open_ns_fd(name);
	if (c->fd < 0)
		return c->fd;
	if ((ret = netns_enter(c, &saved)))
		goto close_fd;
	/* A netlink socket belongs to the namespace it was created in. */
	c->sk = nl_socket_alloc();
	if (!c->sk) {
		ret = -ENOMEM;
	} else if (nl_connect(c->sk, NETLINK_ROUTE) < 0) {
		nl_socket_free(c->sk);
		c->sk = NULL;
		ret = -EIO;
	}
	netns_leave(saved);
	if (!ret)
		return 0;
close_fd:
	close(c->fd);
	c->fd = -1;
	return ret;
}

void nsctx_close(struct nsctx *c)
{
	if (c->sk)
		nl_socket_free(c->sk);
	if (c->fd >= 0)
		close(c->fd);
	c->sk = NULL;
	c->fd = -1;
}

int netns_sysctl(const struct nsctx *c, const char *key, const char *value)
{
	char path[256];
	int saved, ret, fd;

	snprintf(path, sizeof(path), "/proc/sys/%s", key);
	if ((ret = netns_enter(c, &saved)))
		return ret;
	/* /proc/sys/net shows the namespace of whoever opens it. */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
	} else {
		if (write(fd, value, strlen(value)) < 0)
			ret = -errno;
		close(fd);
	}
	netns_leave(saved);
	return ret;
}
