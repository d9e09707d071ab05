// SPDX-License-Identifier: MIT
/*
 * An agent's record stream to a file: records written at once without a
 * linger, held up to it with one, and never lost at the end.
 */
#define _GNU_SOURCE
#include "probe/rec.h"
#include "probe/recout.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint8_t hello[] = {1, 0, 2, 0, 'h', 'i'}; /* a frame: type 1, 2 bytes */

static off_t size_of(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	return st.st_size;
}

static void open_file(struct recout *o, char *path, unsigned linger_ms)
{
	char err[256];
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(
	    recout_open(o, "test", NULL, NULL, path, 4096, hello, sizeof(hello), err, sizeof(err)),
	    0, "%s", err);
	recout_linger(o, linger_ms);
}

Test(recout, a_file_gets_each_record_at_once_without_a_linger)
{
	char path[] = "/tmp/recout-test.XXXXXX";
	struct recout o;
	const uint8_t body[10] = {0};

	open_file(&o, path, 0);
	cr_assert_eq(size_of(path), (off_t)sizeof(hello), "the hello first");
	recout_emit(&o, 7, body, sizeof(body));
	cr_assert_eq(size_of(path), (off_t)(sizeof(hello) + sizeof(struct rec_frame) + 10));
	cr_assert_eq(recout_due(&o), ULLONG_MAX, "nothing waits");
	recout_close(&o);
	unlink(path);
}

Test(recout, records_linger_and_the_last_ones_are_not_lost)
{
	char path[] = "/tmp/recout-test.XXXXXX";
	struct recout o;
	const uint8_t body[10] = {0};
	const off_t one = (off_t)(sizeof(struct rec_frame) + sizeof(body));

	open_file(&o, path, 60000);
	recout_emit(&o, 7, body, sizeof(body));
	recout_emit(&o, 7, body, sizeof(body));
	recout_service(&o);
	cr_assert_eq(size_of(path), (off_t)sizeof(hello), "held: the linger is a minute");
	cr_assert_neq(recout_due(&o), ULLONG_MAX, "they wait, due within the linger");
	recout_finish(&o);
	cr_assert_eq(size_of(path), (off_t)sizeof(hello) + 2 * one, "finish writes what waits");
	cr_assert_eq(recout_due(&o), ULLONG_MAX);
	recout_close(&o);
	unlink(path);
}
