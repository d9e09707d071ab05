#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark (issue 59): the controller's reach at cluster scale, with no lab up.  For
# rail-optimized labs of 1k, 2k, 5k and 10k hosts x 8 RNICs (pods of 250 hosts, 8 spines,
# written by 'rocelab inventory gen'): the time to write and to check the inventory
# ('inventory check --virtual': parse, validate, plan the virtual lab's routes), and the
# time and peak memory of the identifiability classes ('rocelab observe') for Hostmesh
# (its defaults) and R-Pingmesh (one RNIC of each other ToR: its default of every RNIC
# of every other ToR is 6.4 billion pairs at 10k hosts).  Prints "bench <name> <value>
# <unit>" lines, each the median of RUNS runs, and the ratio per doubling of hosts
# (near 2: linear).  Bounds (issue 59): the 10k inventory checked in under 2 s, its
# classes in seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=build/rocelab
RUNS=${RUNS:-3}
SIZES=${SIZES:-"4 8 20 40"} # pods of 250 hosts: 1k, 2k, 5k, 10k
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A med # NAME -> its median time, for the ratios
# timed NAME CMD...: the median wall time (s) and peak RSS (MB) of RUNS runs of CMD.
timed() {
	local name=$1 s=() m=()
	shift
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null
		read -r e k <"$dir/time"
		s+=("$e") m+=("$(echo "$k / 1024" | bc -l)")
	done
	med[$name]=$(printf '%s\n' "${s[@]}" | median)
	printf 'bench %s_s %.3f s\n' "$name" "${med[$name]}"
	printf 'bench %s_rss %.1f MB\n' "$name" "$(printf '%s\n' "${m[@]}" | median)"
}

echo "bench: median of $RUNS runs each" >&2
for pods in $SIZES; do
	hosts=$((pods * 250))
	inv="$dir/$hosts.yaml"
	timed "inventory_gen_${hosts}x8" "$RL" inventory gen --hosts 250 --rnics 8 --spines 8 \
		--pods "$pods" --name "scale-$hosts"
	"$RL" inventory gen --hosts 250 --rnics 8 --spines 8 --pods "$pods" --name "scale-$hosts" >"$inv"
	timed "inventory_check_${hosts}x8" "$RL" inventory check --virtual "$inv"
	timed "observe_hostmesh_${hosts}x8" "$RL" observe -i "$inv" --monitor hostmesh
	timed "observe_rpingmesh_${hosts}x8" "$RL" observe -i "$inv" --monitor rpingmesh --set inter-tor=1
	printf 'bench observe_rpingmesh_%sx8_pairs %s count\n' "$hosts" \
		"$("$RL" observe -i "$inv" --monitor rpingmesh --set inter-tor=1 -j | jq .pairs)"
done
# The growth: time at N hosts over time at the size before, per doubling of hosts.
prev=
for pods in $SIZES; do
	hosts=$((pods * 250))
	if [ -n "$prev" ]; then
		for what in inventory_check observe_hostmesh observe_rpingmesh; do
			a=${med[${what}_${prev}x8]} b=${med[${what}_${hosts}x8]}
			printf 'bench %s_growth_%s_to_%s %.2f ratio_per_doubling\n' "$what" "$prev" "$hosts" \
				"$(echo "e(l($b / $a) / (l($hosts / $prev) / l(2)))" | bc -l)"
		done
	fi
	prev=$hosts
done

# The analyzers at scale (issue 59): one 20 s window of synthetic records (build/bench/az_bench,
# rpa_bench: every RNIC at 10 probes/s) for clusters of AZ_SIZES hosts x 8 RNICs, the median of
# RUNS runs of its ingest and analysis (and the process's peak RSS), and the ratio per doubling.
# The 1,000-host figures are hostmesh_bench.sh's and rpm_bench.sh's.  Issue 59's bound: 5 s of one
# core and 2 GB a window at 10,000 hosts.
AZ_SIZES=${AZ_SIZES:-"1000 2000 5000 10000"}
declare -A az_med
for hosts in $AZ_SIZES; do
	for b in az_bench:analyzer rpa_bench:rpm_analyzer; do
		prog=${b%%:*} name=${b#*:} t=() m=()
		for _ in $(seq "$RUNS"); do
			if ! out=$(build/bench/$prog "$hosts" 2>"$dir/az.err"); then
				sed 's/^/  /' "$dir/az.err" | grep -v "^  [a-z_]*: [0-9]* probes" >&2 || true
				t=()
				break
			fi
			t+=("$(awk -v n="bench ${name}_window_${hosts}x8_total" 'index($0, n " ") == 1 { print $3 }' <<<"$out")")
			m+=("$(awk -v n="bench ${name}_window_${hosts}x8_rss" 'index($0, n " ") == 1 { print $3 }' <<<"$out")")
		done
		[ ${#t[@]} -gt 0 ] || continue
		az_med[${name}_$hosts]=$(printf '%s\n' "${t[@]}" | median)
		[ "$hosts" = 1000 ] && continue
		printf 'bench %s_window_%sx8_total %.3f s\n' "$name" "$hosts" "${az_med[${name}_$hosts]}"
		printf 'bench %s_window_%sx8_rss %.1f MB\n' "$name" "$hosts" "$(printf '%s\n' "${m[@]}" | median)"
	done
done
prev=
for hosts in $AZ_SIZES; do
	if [ -n "$prev" ]; then
		for name in analyzer rpm_analyzer; do
			a=${az_med[${name}_$prev]:-} b=${az_med[${name}_$hosts]:-}
			[ -n "$a" ] && [ -n "$b" ] || continue
			printf 'bench %s_window_growth_%s_to_%s %.2f ratio_per_doubling\n' "$name" "$prev" "$hosts" \
				"$(echo "e(l($b / $a) / (l($hosts / $prev) / l(2)))" | bc -l)"
		done
	fi
	prev=$hosts
done
