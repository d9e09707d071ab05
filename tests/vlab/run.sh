#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every virtual-lab integration test (tests/vlab/*_test.sh) and prints "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
require_root
if [ -n "$(leftovers)" ]; then
	echo "a lab (or its leftovers) is up; the tests need the machine to themselves:" >&2
	leftovers >&2
	echo "remove it with '$RL lab down' and run again" >&2
	exit 2
fi
# Whatever a test leaves up comes down at exit (after the tests' own deferred cleanups).
# KEEP=DIR keeps the tests' files (results, analyzer output, logs) there for a look afterwards.
trap 'run_deferred; "$RL" lab down -q >/dev/null 2>&1; [ -z "${KEEP:-}" ] || cp -a "$T" "$KEEP"; rm -rf "$T"' EXIT
run_tests "$(dirname "$0")"
summary
