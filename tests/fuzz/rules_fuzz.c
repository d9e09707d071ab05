// SPDX-License-Identifier: MIT
/* Qualification rules people write: parsed, then checked against a run's results. */
#include "reports/qualify.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct qrules q;

	if (!qualify_rules_parse("fuzz.yaml", text, size, &q, fuzz_null())) {
		json_t *res = json_pack(
		    "{s:[{s:s,s:s,s:f,s:n,s:i,s:{s:{s:{s:{s:f}}}}}]}", "scenarios", "name",
		    "rnic-flap", "verdict", "pass", "time_to_detect_s", 2.5, "precision", "rank", 1,
		    "components", "x", "metrics", "goodput-vs-optimal", "value", 0.9);
		size_t failed;
		json_t *out = qualify_check(&q, res, &failed);

		json_decref(out);
		json_decref(res);
		qualify_rules_free(&q);
	}
	free(text);
	return 0;
}
