// SPDX-License-Identifier: MIT
/* HMAC-SHA256 seals on the scripts rocelab writes, under a key of this machine's (seal.h). */
#define _GNU_SOURCE
#include "harness/lib/seal.h"

#include "harness/lib/common.h"
#include "harness/lib/state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_LEN 32

/* The key, made on first use; a key file anyone else could read or write is no key. */
static int seal_key(unsigned char key[KEY_LEN])
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret = 0;

	state_lib_path(path, sizeof(path), "seal.key");
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if ((ret = rl_mkdir_p(state_lib_dir(), 0700)))
			return ret;
		if (getrandom(key, KEY_LEN, 0) != KEY_LEN)
			return -EIO;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return errno == EEXIST ? seal_key(key) : -errno; /* made meanwhile */
		if (write(fd, key, KEY_LEN) != KEY_LEN || fsync(fd) < 0)
			ret = -EIO;
		close(fd);
		return ret;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
		 st.st_size != KEY_LEN)
		ret = -EPERM;
	else if (read(fd, key, KEY_LEN) != KEY_LEN)
		ret = -EIO;
	close(fd);
	return ret;
}

static int mac(const char *text, size_t len, char hex[2 * KEY_LEN + 1])
{
	unsigned char key[KEY_LEN], md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	int ret = seal_key(key);

	if (ret)
		return ret;
	if (!HMAC(EVP_sha256(), key, KEY_LEN, (const unsigned char *)text, len, md, &mdlen) ||
	    mdlen != KEY_LEN)
		ret = -EIO;
	OPENSSL_cleanse(key, sizeof(key));
	for (unsigned i = 0; !ret && i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return ret;
}

int seal_file(const char *path)
{
	char hex[2 * KEY_LEN + 1], line[2 * KEY_LEN + 16], sp[PATH_MAX + 8];
	size_t len;
	char *text = rl_read_file(path, &len);
	int ret;

	if (!text)
		return -errno;
	ret = mac(text, len, hex);
	free(text);
	if (ret)
		return ret;
	snprintf(line, sizeof(line), "hmac-sha256 %s\n", hex);
	snprintf(sp, sizeof(sp), "%s" SEAL_SUFFIX, path);
	return rl_write_file_mode(sp, line, strlen(line), 0644);
}

int seal_read_at(int dirfd, const char *name, char **text, size_t *len)
{
	char hex[2 * KEY_LEN + 1], want[2 * KEY_LEN + 16], sn[NAME_MAX + 1];
	char *seal;
	int ret;

	*text = NULL;
	if (snprintf(sn, sizeof(sn), "%s" SEAL_SUFFIX, name) >= (int)sizeof(sn))
		return -ENAMETOOLONG;
	if (!(seal = rl_read_at(dirfd, sn, NULL)))
		return errno == ENOENT ? -EBADMSG : -errno;
	if (!(*text = rl_read_at(dirfd, name, len))) {
		free(seal);
		return -errno;
	}
	ret = mac(*text, *len, hex);
	if (!ret) {
		snprintf(want, sizeof(want), "hmac-sha256 %s\n", hex);
		ret = strlen(seal) == strlen(want) && !CRYPTO_memcmp(seal, want, strlen(want))
			  ? 0
			  : -EBADMSG;
	}
	free(seal);
	if (ret) {
		free(*text);
		*text = NULL;
	}
	return ret;
}
