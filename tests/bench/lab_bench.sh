#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: lab up / lab down wall time for the built-in lab and a 16-host x 8-RNIC lab.
# Prints "bench <name> <value> <unit>" lines; each value is the median of RUNS runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=build/rocelab
RUNS=${RUNS:-5}
if [ "$(id -u)" -ne 0 ]; then echo "bench: run as root" >&2; exit 2; fi
if "$RL" lab status -j >/dev/null 2>&1; then echo "bench: a lab is up; take it down first" >&2; exit 3; fi
big=$(mktemp --suffix=.yaml)
trap '"$RL" lab down -q >/dev/null 2>&1 || true; rm -f "$big"' EXIT

"$RL" inventory gen --hosts 16 --rnics 8 --spines 8 --name bench-16x8 >"$big"

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

bench_lab() { # name inventory
	local ups=() downs=()
	for _ in $(seq "$RUNS"); do
		local t0 t1 t2
		t0=$(now); "$RL" lab up -q -i "$2"; t1=$(now); "$RL" lab down -q; t2=$(now)
		ups+=("$(echo "$t1 - $t0" | bc -l)"); downs+=("$(echo "$t2 - $t1" | bc -l)")
	done
	printf 'bench lab_up_%s %.3f s\n' "$1" "$(printf '%s\n' "${ups[@]}" | median)"
	printf 'bench lab_down_%s %.3f s\n' "$1" "$(printf '%s\n' "${downs[@]}" | median)"
}

echo "bench: median of $RUNS runs each" >&2
bench_lab vlab_rail lab-inventory/vlab-rail.yaml
bench_lab 16x8 "$big"
"$RL" lab up -q -i "$big"
printf 'bench lab_16x8_namespaces %d count\n' "$(ip netns list | grep -c '^rl-')"
printf 'bench lab_16x8_veths %d count\n' "$("$RL" lab status -j | jq '.links|length')"
"$RL" lab down -q
rm -f "$big"
