// SPDX-License-Identifier: MIT
/*
 * A plot's description (report*.plot.json) as 'rocelab report' reads it from a results
 * folder anyone could have written (harness/component/component.c, comp_plot_desc_read),
 * then its component's replot checking the parameters.  The folder it would write to does
 * not exist: the checks run, nothing is drawn.
 */
#include "harness/component/component.h"
#include "harness/lib/common.h"
#include "harness/run/registry.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct comp_plot_desc d;
	const struct component_ops *ops;
	char err[320];

	if (!comp_plot_desc_read(&d, (const char *)data, size, err, sizeof(err)) &&
	    (ops = component_find(d.component)) && ops->replot) {
		d.r.dir = "/nonexistent/rocelab-fuzz";
		ops->replot(&d.r, d.params, err, sizeof(err));
	}
	comp_plot_desc_free(&d);
	return 0;
}
