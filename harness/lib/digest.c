// SPDX-License-Identifier: MIT
/*
 * rl_sha256_file (common.h): apart from common.c, so that what does not hash
 * (rocelab-agent) maps no libcrypto.
 */
#include "harness/lib/common.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int rl_sha256_file(const char *path, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned mdlen = 0;
	EVP_MD_CTX *ctx;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ok, e = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	if (e) {
		close(fd);
		errno = e;
		return -e;
	}
	/* streamed: a file of any size, not read whole (a qualification's logs can be large) */
	ok = (ctx = EVP_MD_CTX_new()) && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (ssize_t n; ok && (n = read(fd, buf, sizeof(buf))) != 0;) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			ok = 0;
		} else
			ok = EVP_DigestUpdate(ctx, buf, (size_t)n);
	}
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen == 32;
	EVP_MD_CTX_free(ctx);
	close(fd);
	if (!ok) {
		errno = e ? e : EIO;
		return -errno;
	}
	for (unsigned i = 0; i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}
