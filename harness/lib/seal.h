/* SPDX-License-Identifier: MIT */
/*
 * Seals on the scripts rocelab writes (report.gp): an HMAC-SHA256 under a key of this
 * machine's, so that 'rocelab report DIR' runs again only what rocelab itself wrote, never
 * a script someone planted in a results folder.
 */
#ifndef ROCELAB_SEAL_H
#define ROCELAB_SEAL_H

#include <stddef.h>

/* The seal file beside a script: NAME.seal. */
#define SEAL_SUFFIX ".seal"

/*
 * Seal the file at path: path.seal gets "hmac-sha256 HEX".  The key is
 * state_lib_dir()/seal.key, made (0600, random) on first use; one that is not
 * a regular file of this user's, readable by it alone, is refused (-EPERM).
 * 0 or -errno.
 */
int seal_file(const char *path);

/*
 * Read name in dirfd (no link followed) and its seal; 0 with the bytes in
 * *text (free()) when the seal is this machine's for exactly those bytes,
 * -EBADMSG when it is not (no seal, another key, or changed since), other
 * -errno when either could not be read.
 */
int seal_read_at(int dirfd, const char *name, char **text, size_t *len);

#endif
