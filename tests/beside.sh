#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check's CPU-bound tiers (unit, fuzz-check, figures-check) as the busy core the Hostmesh
# CI suite is graded beside (issue 62: one core of two kept busy, every verdict as on a quiet
# machine).  They used to run before the integration tier, and stress-ng kept that core busy;
# beside it they cost make check none of their time.
#   beside.sh run OUT TARGET...   (hostmesh_test.sh as its CI suite starts, in a session of
#                                  its own)
#       'make TARGET' for each, one after another, on one CPU (the last one this process may
#       use), stress-ng --cpu 1 at nice 19 on the same CPU filling their gaps; once they are
#       done, stress-ng --cpu 1 (nice 0, any CPU) as before, until ended.  Once OUT/free
#       appears (the suite ended before them; the caller has released their processes to
#       every CPU, tests/vlab/lib.sh free_beside), the rest runs on every CPU, with no
#       stress-ng: nothing is graded beside it any more.
#       OUT/TARGET.log is each one's output, OUT/status a line "TARGET EXIT SECONDS" each,
#       OUT/done is written when the last one ended, OUT/pgid is the group that ends it all.
#       build/rocelab and rocelab-agent are never remade (make -o): the integration tier is
#       running them.
#   beside.sh rest OUT TARGET...       (make check, after the integration tier)
#       each TARGET that ran beside: says how long it took; one that did not (ONLY=, or the
#       tier stopped before the suite): runs it now.  Exit 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-} out=${2:-}
[ $# -ge 2 ] && { [ "$mode" = run ] || [ "$mode" = rest ]; } ||
	{ echo "usage: $0 run|rest OUT TARGET..." >&2; exit 2; }
shift 2
build=${BUILD:-build}
mk=(make --no-print-directory -o "$build/rocelab" -o "$build/rocelab-agent")

if [ "$mode" = rest ]; then
	rc=0
	for t in "$@"; do
		line=$(awk -v t="$t" '$1 == t' "$out/status" 2>/dev/null | tail -1)
		if [ -n "$line" ]; then
			read -r _ trc secs <<<"$line"
			if [ "$trc" = 0 ]; then
				echo "check: $t took $secs s (beside the Hostmesh suite)"
			else
				echo "check: $t FAILED beside the Hostmesh suite (exit $trc): $out/$t.log" >&2
				rc=1
			fi
			continue
		fi
		s=$(date +%s)
		if "${mk[@]}" "$t"; then
			echo "check: $t took $(($(date +%s) - s)) s (not run beside the Hostmesh suite: run now)"
		else
			echo "check: $t FAILED (not run beside the Hostmesh suite: run now)" >&2
			rc=1
		fi
	done
	exit $rc
fi

command -v stress-ng >/dev/null || { echo "beside: stress-ng is missing (scripts/deps.sh installs it)" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out" || exit 2
echo $$ >"$out/pgid" # under setsid: this session's group, for the caller to end whole
# BESIDE_OWNER (the integration tier's shell): killed (-9, a CI timeout), it cannot end this
# group; the group ends itself once its owner is gone, stress-ng and all.
if [[ "${BESIDE_OWNER:-}" =~ ^[0-9]+$ ]]; then
	(while kill -0 "$BESIDE_OWNER" 2>/dev/null; do sleep 1; done; kill -- -$$) &
fi
# The last CPU this process may use: "0-1" -> 1, "0,2-5" -> 5.
cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
cpu=${cpus##*[,-]}
[[ "$cpu" =~ ^[0-9]+$ ]] || cpu=0
fill=
stop() { [ -z "$fill" ] || kill "$fill" 2>/dev/null; }
# on the one CPU until the caller frees the rest
pin() { if [ -e "$out/free" ]; then "$@"; else taskset -c "$cpu" "$@"; fi; }
trap 'stop; exit 143' TERM INT

taskset -c "$cpu" nice -n 19 stress-ng --cpu 1 --timeout 0 --quiet &
fill=$!
for t in "$@"; do
	s=$(date +%s)
	pin "${mk[@]}" "$t" >"$out/$t.log" 2>&1
	echo "$t $? $(($(date +%s) - s))" >>"$out/status"
done
kill "$fill" 2>/dev/null
wait "$fill" 2>/dev/null
echo "cpu $cpu" >"$out/done"
[ -e "$out/free" ] && exit 0
stress-ng --cpu 1 --timeout 0 --quiet &
fill=$!
wait "$fill"
