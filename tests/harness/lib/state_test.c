// SPDX-License-Identifier: MIT
/* The inventory a command acts on: the one named, else the copy of the lab that is up. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/state.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/rocelab-state-test-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	setenv("ROCELAB_STATE_DIR", dir, 1);
	cr_redirect_stderr();
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(state, .init = setup, .fini = teardown);

Test(state, no_lab_up_and_no_file_says_what_to_do)
{
	errno = 0;
	cr_assert_null(state_target_inventory(NULL));
	cr_assert_eq(errno, ENOENT);
	fflush(stderr);
	cr_assert_stderr_eq_str("rocelab: error: no lab is up: start one with 'rocelab lab up', or "
				"give -i INVENTORY\n");
}

Test(state, the_lab_that_is_up_or_the_file_named)
{
	char copy[4096], up[4096], cmd[8400];
	struct inventory *inv;

	snprintf(cmd, sizeof(cmd), "cp ../lab-inventory/vm-rail2.yaml %s && touch %s",
		 state_path(copy, sizeof(copy), "inventory.yaml"),
		 state_path(up, sizeof(up), "up"));
	cr_assert_eq(system(cmd), 0);
	inv = state_target_inventory(NULL);
	cr_assert_not_null(inv);
	cr_assert_str_eq(inv->name, "vm-rail2");
	inventory_free(inv);
	inv = state_target_inventory("../lab-inventory/vm-rail.yaml");
	cr_assert_not_null(inv);
	cr_assert_str_eq(inv->name, "vm-rail");
	inventory_free(inv);
	errno = 0;
	cr_assert_null(state_target_inventory("../lab-inventory/no-such.yaml"));
	cr_assert_eq(errno, ENOENT);
}
