/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer harnesses (tests/fuzz/NAME_fuzz.c, built with clang,
 * ASan and UBSan by 'make fuzz').  Each harness is one entry point that reads
 * input people write or the network sends; a crash, a hang, a leak or a
 * sanitizer report is a finding.
 */
#ifndef ROCELAB_FUZZ_H
#define ROCELAB_FUZZ_H

#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A packet harness's input: byte 0 holds flags, the rest is the packet,
 * copied to the heap so ASan sees its end (*len bytes); free() it.  With
 * flag bit 0, fix (when not NULL) rewrites the packet's checksum first, so
 * the fuzzer gets past it.  NULL when there is no byte 0.
 */
static inline uint8_t *fuzz_packet(const uint8_t *data, size_t size, size_t *len,
				   void (*fix)(uint8_t *pkt, size_t len))
{
	uint8_t *pkt;

	if (size < 1)
		return NULL;
	*len = size - 1;
	pkt = malloc(*len ? *len : 1);
	if (!pkt)
		abort();
	memcpy(pkt, data + 1, *len);
	if ((data[0] & 1) && fix)
		fix(pkt, *len);
	return pkt;
}

/* data as a NUL-terminated string (what rl_read_file gives the parsers); free() it. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);

	if (!t)
		abort();
	memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

/* A file of the source tree (e.g. "lab-inventory/vlab-rail.yaml"), found from the harness's
 * place in build/fuzz/. */
static inline const char *fuzz_tree_file(const char *rel, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		abort();
	exe[n] = '\0';
	snprintf(buf, len, "%s/../../%s", dirname(exe), rel);
	if (access(buf, R_OK)) {
		fprintf(stderr, "fuzz: %s not found beside the build\n", buf);
		abort();
	}
	return buf;
}

/* A sink for the parsers' messages (a fuzzer reads millions of bad inputs). */
static inline FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "we")))
		abort();
	return f;
}

#endif
