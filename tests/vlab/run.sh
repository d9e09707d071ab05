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
# Scratch files of the tests (lib.sh's check output too); removed with the lab at exit.
T=$(mktemp -d /tmp/rocelab-vlab.XXXXXX)
export T
trap '"$RL" lab down -q >/dev/null 2>&1; rm -rf "$T"' EXIT
for t in "$(dirname "$0")"/*_test.sh; do
	[ -n "${ONLY:-}" ] && [[ "$t" != *"$ONLY"* ]] && continue
	. "$t"
done
summary
