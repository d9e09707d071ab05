// SPDX-License-Identifier: MIT
/*
 * A MANIFEST as 'rocelab verify' reads it from a folder anyone could have written
 * (reports/qualify.c, qualify_manifest_check), against a small folder of files.
 */
#include "harness/lib/common.h"
#include "reports/qualify.h"
#include "tests/fuzz/fuzz.h"

static char d[] = "/tmp/rocelab-fuzz-manifest.XXXXXX";

/* libFuzzer ends with exit(): the folder goes with it (make check left two a run). */
static void folder_remove(void)
{
	rl_rm_rf(d);
}

static const char *folder(void)
{
	static bool made;
	char p[PATH_MAX];

	if (!made) {
		if (!mkdtemp(d))
			abort();
		atexit(folder_remove);
		snprintf(p, sizeof(p), "%s/sub", d);
		if (rl_mkdir_p(p, 0755))
			abort();
		snprintf(p, sizeof(p), "%s/results.json", d);
		rl_write_file(p, "{}\n", 3);
		snprintf(p, sizeof(p), "%s/sub/inject.log", d);
		rl_write_file(p, "log\n", 4);
		made = true;
	}
	return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);

	qualify_manifest_check(folder(), text, fuzz_null());
	free(text);
	return 0;
}
