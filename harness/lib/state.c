// SPDX-License-Identifier: MIT
/* Locates the lab state directory and serialises commands that change the lab. */
#define _GNU_SOURCE
#include "harness/lib/state.h"

#include "harness/lib/common.h"
#include "harness/lib/inventory.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static int lock_fd = -1;

/* $var when set and not empty, else def. */
static const char *env_dir(const char *var, const char *def)
{
	const char *d = getenv(var);

	return d && *d ? d : def;
}

const char *state_dir(void)
{
	return env_dir("ROCELAB_STATE_DIR", STATE_DIR_DEFAULT);
}

char *state_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", state_dir(), rel);
	return buf;
}

const char *state_lib_dir(void)
{
	return env_dir("ROCELAB_LIB_DIR", STATE_LIB_DIR_DEFAULT);
}

char *state_lib_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", state_lib_dir(), rel);
	return buf;
}

int state_lock(void)
{
	char path[4096];

	if (lock_fd >= 0)
		return 0;
	/* The lock sits beside the state directory so that removing the directory keeps it. */
	snprintf(path, sizeof(path), "%s.lock", state_dir());
	lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd < 0)
		return -errno;
	if (flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			rl_info("waiting for another rocelab command to finish with the lab...");
			if (flock(lock_fd, LOCK_EX) == 0)
				return 0;
		}
		int e = errno;

		close(lock_fd);
		lock_fd = -1;
		return -e;
	}
	return 0;
}

void state_unlock(void)
{
	if (lock_fd >= 0) {
		close(lock_fd);
		lock_fd = -1;
	}
}

struct inventory *state_up_inventory(FILE *errf)
{
	char p[4096];

	if (access(state_path(p, sizeof(p), STATE_UP), F_OK)) {
		errno = ENOENT;
		return NULL;
	}
	return inventory_load(state_path(p, sizeof(p), STATE_INVENTORY), errf);
}

struct inventory *state_target_inventory(const char *path)
{
	struct inventory *inv;

	if (path)
		return inventory_load(path,
				      stderr); /* errno EINVAL (bad file) or that of the open */
	inv = state_up_inventory(stderr);
	if (!inv && errno == ENOENT)
		rl_err("no lab is up: start one with 'rocelab lab up', or give -i INVENTORY");
	return inv;
}
