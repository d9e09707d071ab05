// SPDX-License-Identifier: MIT
/* The NOS rooms by dialect: one line each. */
#include "injectors/nos/nos_ops.h"

#include <stdlib.h>

static const struct nos_ops *const rooms[INV_DIALECT_N] = {
    [INV_DIALECT_LINUX] = &nos_linux,
    [INV_DIALECT_SONIC] = &nos_sonic,
    [INV_DIALECT_EOS] = &nos_eos,
    [INV_DIALECT_NVUE] = &nos_nvue,
};

const struct nos_ops *nos_ops_of(enum inv_dialect d)
{
	if ((unsigned)d >= INV_DIALECT_N || !rooms[d])
		abort(); /* the inventory only names dialects that have a room */
	return rooms[d];
}
