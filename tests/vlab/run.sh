#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every virtual-lab integration test (tests/vlab/*_test.sh) and prints "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
require_root
if [ -n "$(leftovers)" ] && interrupted_run; then
	echo "removing what an interrupted test run left (pid $(awk '{print $1}' "$RUN_MARK"), $(date -r "$RUN_MARK" '+%F %T')):" >&2
	leftovers | sed 's/^/  /' >&2
	"$RL" lab down -q >&2
	pgrep -f "rocelab transport " >/dev/null || rm -rf /tmp/rocelab-transport.*
fi
stale=$(interrupted_run_leases)
if [ -n "$stale" ]; then
	echo "removing the dead-man leases an interrupted test run left (their timers gone):" >&2
	sed 's/^/  /' <<<"$stale" >&2
	for f in $stale; do rm -f "$f" "$f.pid" "$f.new" "$f.fired"; done
	rmdir /run/rocelab-deadman 2>/dev/null
fi
stale=$(ended_run_folders)
if [ -n "$stale" ]; then # as 'rocelab run' sweeps them on a device's next run
	echo "removing the folders of runs that have ended:" >&2
	sed 's/^/  /' <<<"$stale" >&2
	xargs -r rm -rf <<<"$stale"
fi
if [ -n "$(leftovers)" ]; then
	echo "a lab (or its leftovers) is up; the tests need the machine to themselves:" >&2
	leftovers >&2
	"$RL" lab status 2>/dev/null | grep '^brought up by' >&2
	echo "remove it with '$RL lab down' and run again" >&2
	exit 2
fi
echo "$$ $(ps -o sid= $$ | tr -d ' ')" >"$RUN_MARK"
# Whatever a test leaves up comes down at exit (after the tests' own deferred cleanups).
# KEEP=DIR keeps the tests' files (results, analyzer output, logs) there for a look afterwards.
trap 'run_deferred; end_beside; "$RL" lab down -q >/dev/null 2>&1; rm -f "$RUN_MARK"; [ -z "${KEEP:-}" ] || cp -a "$T" "$KEEP"; rm -rf "$T"' EXIT
run_tests "$(dirname "$0")"
summary
