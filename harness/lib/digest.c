// SPDX-License-Identifier: MIT
/*
 * rl_sha256_file (common.h): apart from common.c, so that what does not hash
 * (rocelab-agent) maps no libcrypto.
 */
#include "harness/lib/common.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

int rl_sha256_file(const char *path, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	size_t len;
	char *data = rl_read_file(path, &len);
	int ok;

	if (!data)
		return -errno;
	ok = EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	free(data);
	if (!ok || mdlen != 32)
		return -EIO;
	for (unsigned i = 0; i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}
