/* SPDX-License-Identifier: MIT */
/*
 * libibverbs loaded on first use (verbs_dl.c): the ibv_* functions rocelab
 * calls are defined in verbs_dl.c and find rdma-core's own in
 * libibverbs.so.1 the first time one runs, so that a program that never
 * opens an RNIC (an agent probing over UDP) never maps libibverbs, libnl-3
 * and libnl-route-3.  Nothing to call first: the verbs work as declared in
 * <infiniband/verbs.h>; one that cannot be found fails as the verbs fail
 * (NULL with errno ENOSYS, or ENOSYS).
 */
#ifndef ROCELAB_VERBS_DL_H
#define ROCELAB_VERBS_DL_H

/* Why libibverbs could not be loaded (for a message), or NULL when it is. Loads it. */
const char *verbs_dl_error(void);

#endif
