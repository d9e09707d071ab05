#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run the libFuzzer harnesses (make fuzz, make fuzz-nightly, make fuzz-check).
#   run.sh check S BIN...  replay each harness's corpus (tests/fuzz/corpus/NAME: seeds and
#                          reproducers) once, then fuzz it S seconds from there; two at a time
#   run.sh fuzz S BIN...   fuzz each S seconds or FUZZ_RUNS executions (default 10^7), whichever
#                          comes first; new inputs kept in build/fuzz/corpus/NAME
# A crash, leak, timeout (10 s an input) or sanitizer report fails the run; its input is kept
# as build/fuzz/findings/NAME/crash-* (or leak-, timeout-, oom-) and its report is printed.
# Prints a table: harness, executions, seconds, coverage (edges), corpus, findings.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=$1 secs=$2
shift 2
out=build/fuzz
mkdir -p "$out/logs"

one() { # one harness; its summary line goes to $out/logs/NAME.sum
	local bin=$1 name seeds work dict=() opts rc
	name=$(basename "$bin")
	seeds=tests/fuzz/corpus/$name
	rm -rf "$out/findings/$name" && mkdir -p "$out/findings/$name" "$out/corpus/$name"
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	opts=(-timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1
		-artifact_prefix="$out/findings/$name/" "${dict[@]}")
	local log=$out/logs/$name.log start=$SECONDS
	: > "$log"
	if [ "$mode" = check ]; then
		# Replay: every input once, each file by name (a directory would be fuzzed too).
		if ! "$bin" "${opts[@]}" -runs=1 "$seeds"/* >> "$log" 2>&1; then
			echo "$name replay FAILED" > "$out/logs/$name.sum"
			return 1
		fi
		work=$(mktemp -d)
		"$bin" "${opts[@]}" -close_fd_mask=3 -max_total_time="$secs" "$work" "$seeds" \
			>> "$log" 2>&1
		rc=$?
		rm -rf "$work"
	else
		"$bin" "${opts[@]}" -close_fd_mask=3 -max_total_time="$secs" \
			-runs="${FUZZ_RUNS:-10000000}" "$out/corpus/$name" "$seeds" >> "$log" 2>&1
		rc=$?
	fi
	local execs cov corp found
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	found=$(find "$out/findings/$name" -type f | wc -l)
	printf '%-10s %12s %6s %8s %7s %9s\n' "$name" "${execs:-?}" "$((SECONDS - start))" \
		"${cov:-?}" "${corp:-?}" "$found" > "$out/logs/$name.sum"
	[ "$rc" -eq 0 ] && [ "$found" -eq 0 ]
}

failed=()
declare -A name_of=()
for bin in "$@"; do
	if [ ${#name_of[@]} -ge 2 ]; then # two cores: two harnesses at a time
		wait -n -p done_pid || failed+=("${name_of[$done_pid]}")
		unset "name_of[$done_pid]"
	fi
	one "$bin" &
	name_of[$!]=$(basename "$bin")
done
while [ ${#name_of[@]} -gt 0 ]; do
	wait -n -p done_pid || failed+=("${name_of[$done_pid]}")
	unset "name_of[$done_pid]"
done

echo "fuzz ($mode, ${secs} s each): harness executions seconds coverage corpus findings"
for bin in "$@"; do
	cat "$out/logs/$(basename "$bin").sum"
done
if [ ${#failed[@]} -gt 0 ]; then
	for n in "${failed[@]}"; do
		echo "fuzz: $n FAILED; its report ($out/logs/$n.log):"
		grep -A40 -m1 -E '^==[0-9]+==ERROR|runtime error|^ALARM|deadly signal|round trip' \
			"$out/logs/$n.log" | head -60
		ls "$out/findings/$n" 2>/dev/null | sed "s|^|  finding: $out/findings/$n/|"
	done
	exit 1
fi
