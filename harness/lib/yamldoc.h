/* SPDX-License-Identifier: MIT */
/*
 * Loading the YAML files people write (inventories, scenarios) with the
 * limits a file someone was handed needs: no aliases, bounded nesting.
 */
#ifndef ROCELAB_YAMLDOC_H
#define ROCELAB_YAMLDOC_H

#include <stddef.h>
#include <yaml.h>

#define RL_YAML_MAX_DEPTH 32 /* keep the message in yamldoc.c in step */

/* Where a document failed to load, and why (line and col 1-based). */
struct rl_yaml_err {
	unsigned line, col;
	char why[160];
};

/*
 * The first document of text into doc (yaml_document_delete() it), or
 * -EINVAL with e filled.  Refused before anything is built: an alias (*x),
 * since aliases nested in aliases expand without bound when walked (a
 * "billion laughs" in a 1 KB file), and nesting deeper than
 * RL_YAML_MAX_DEPTH.
 */
int rl_yaml_load(const char *text, size_t len, yaml_document_t *doc, struct rl_yaml_err *e);

#endif
