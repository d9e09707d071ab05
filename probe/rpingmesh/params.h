/* SPDX-License-Identifier: MIT */
/* Parsers of R-Pingmesh's pinglist options, shared by the agent's table and 'controller pinglist'.
 */
#ifndef ROCELAB_RPM_PARAMS_H
#define ROCELAB_RPM_PARAMS_H

#include "harness/lib/opt.h"

/* "all" or N (1..1024) into an unsigned (0: all). */
int rpm_parse_inter_tor(const struct opt_desc *d, const char *v, void *field, char *err,
			size_t errlen);
/* "auto" or N (1..RPM_SPORTS_MAX) into an unsigned (0: auto). */
int rpm_parse_sports(const struct opt_desc *d, const char *v, void *field, char *err,
		     size_t errlen);
/* A probability in (0, 1) into a double. */
int rpm_parse_coverage(const struct opt_desc *d, const char *v, void *field, char *err,
		       size_t errlen);

/* And back, for command lines and help. */
const char *rpm_print_inter_tor(const void *field, char *buf, size_t len);
const char *rpm_print_sports(const void *field, char *buf, size_t len);
const char *rpm_print_coverage(const void *field, char *buf, size_t len);

#endif
