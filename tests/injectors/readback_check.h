/* SPDX-License-Identifier: MIT */
/* What the read-back parsers' tests share: a read that must parse, and one that must not. */
#ifndef ROCELAB_TESTS_READBACK_CHECK_H
#define ROCELAB_TESTS_READBACK_CHECK_H

#include "injectors/nos/readback.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

/* What the read printed (out), parsed as read_as says: it must parse. */
static inline struct readback parse_ok(const char *as, const char *out)
{
	struct readback rb;
	char err[256] = "";

	cr_assert_eq(readback_parse(as, out, &rb, err, sizeof(err)), 0, "%s: %s", as, err);
	return rb;
}

/* ... and one that must not, its error saying says. */
static inline void parse_bad(const char *as, const char *out, const char *says)
{
	struct readback rb;
	char err[256] = "";

	cr_assert_eq(readback_parse(as, out, &rb, err, sizeof(err)), -EINVAL, "%s", as);
	cr_assert(strstr(err, says), "'%s' does not say '%s'", err, says);
}

#endif
