// SPDX-License-Identifier: MIT
/*
 * The crash journal as 'rocelab revert' and 'faults' load it after a crash
 * (injectors/journal.c): JSON lines, the last one possibly torn.
 */
#include "injectors/journal.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_rec *recs;
	size_t n;
	char err[256];
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	if (journal_read(f, &recs, &n, err, sizeof(err)) && !err[0])
		abort(); /* an error says which line */
	fclose(f);
	for (size_t i = 0; i < n; i++)
		journal_state_name(recs[i].state);
	journal_free(recs, n);
	return 0;
}
