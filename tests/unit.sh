#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make unit: each Criterion test binary (from tests/, where their fixtures are), UNIT_JOBS of
# them at a time (default 3: most wait on timers and child processes, not the CPU), each with
# --jobs 2.  A binary's output is printed whole when it ends, under "== BINARY"; the failed
# ones are named at the end, and any makes the exit status 1.
set -uo pipefail
cd "$(dirname "$0")"
jobs=${UNIT_JOBS:-3}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed=()
declare -A name_of=()
finish() { # one that ended: its output, and whether it passed
	local pid=$1 rc=$2 t=${name_of[$1]}
	echo "== $t" >&2
	cat "$logs/${t//\//_}.log" >&2
	[ "$rc" -eq 0 ] || failed+=("$t")
	unset "name_of[$pid]"
}
for t in "$@"; do
	while [ ${#name_of[@]} -ge "$jobs" ]; do
		wait -n -p done_pid
		finish "$done_pid" $?
	done
	"../$t" --jobs 2 >"$logs/${t//\//_}.log" 2>&1 &
	name_of[$!]=$t
done
while [ ${#name_of[@]} -gt 0 ]; do
	wait -n -p done_pid
	finish "$done_pid" $?
done
if [ ${#failed[@]} -gt 0 ]; then
	printf 'unit: failed: %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "unit: $# test binaries passed" >&2
