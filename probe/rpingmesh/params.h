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

/*
 * The pinglist's options (struct rpm_pl_cfg), one table entry each, in the
 * agent's table and the controller's: OFF(f) gives the offset of the
 * rpm_pl_cfg field f in the table's struct.
 */
/* clang-format off */
#define RPM_PL_OPTS(OFF)                                                                       \
	{"inter-tor", OPT_CUSTOM, 0, 0, OFF(inter_tor_per_tor),                                \
	 "inter-ToR targets: every RNIC of each other ToR (all), or N of each",                \
	 rpm_parse_inter_tor, rpm_print_inter_tor},                                            \
	{"sports", OPT_CUSTOM, 0, 0, OFF(sports),                                              \
	 "source ports per target: Eq. (1) over the ECMP paths between the ToRs (auto), or N", \
	 rpm_parse_sports, rpm_print_sports},                                                  \
	{"coverage", OPT_CUSTOM, 0, 0, OFF(coverage),                                          \
	 "Eq. (1)'s probability that every ECMP path gets a source port",                      \
	 rpm_parse_coverage, rpm_print_coverage},                                              \
	{"same-host", OPT_BOOL, 0, 0, OFF(same_host),                                          \
	 "probe the host's own RNICs too (they measure the host, not the fabric)"}
/* clang-format on */

/* And back, for command lines and help. */
const char *rpm_print_inter_tor(const void *field, char *buf, size_t len);
const char *rpm_print_sports(const void *field, char *buf, size_t len);
const char *rpm_print_coverage(const void *field, char *buf, size_t len);

#endif
