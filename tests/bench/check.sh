#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benches' figures against the baseline kept in the tree (issue 59).
#
#   tests/bench/check.sh BASELINE CURRENT     exit 1 if a figure regressed, 2 on bad input
#   tests/bench/check.sh --record CURRENT     a new baseline on stdout, from a 'make bench' output
#
# CURRENT is what 'make bench' printed: its "bench NAME VALUE UNIT" lines (anything else is left
# out).  BASELINE has a line "NAME VALUE UNIT DIRECTION" per figure ('#' starts a comment):
# lower, a figure that must not rise by more than BENCH_TOLERANCE (25%) of its baseline; higher,
# one that must not fall by more; info, one printed and never checked (what the bench was set to
# do: probes a second, packets on the wire).  A rise or fall within the figure's resolution does
# not count, however large a share of a small figure it is: a CPU share read in 10 ms ticks over
# 10-20 s moves by 0.05-0.1 points from one tick more (% resolution 0.1 points; MB 0.1 MB; s 0.02
# s).  A name printed twice is judged by its first.
# A figure in the baseline that the run did not print is said, and fails the check; a new one is
# said and passes (record a baseline to keep it).
set -euo pipefail
TOL=${BENCH_TOLERANCE:-25}

# How a figure of NAME in UNIT is judged: lower, higher or info.
direction() {
	local name=$1 unit=$2
	case "$name" in
	# the paper's figures on the simulator: deterministic, compared with the paper in
	# transport/README.md (make figures-check), bounded in figures_test.c, not against a baseline
	sim_*) echo info && return ;;
	*_vs_*) echo higher && return ;;	  # the share of a ceiling reached
	*_share_of_*) echo info && return ;; # where the time went, not how much of it
	*_serial) echo info && return ;;     # one host after another: the comparison, not a target
	# the VM tier under TCG: its ratios, verbs over udp, not its absolute figures (verbs_bench.sh)
	vm_*) { [ "$unit" = x ] && echo lower || echo info; } && return ;;
	esac
	case "$unit" in
	records/s | Gbit/s | Mbit/s) echo higher ;;
	# what the bench was set to do, what the lab is, and the scaling printed beside its times
	probes/s | packets/s | bit/s | count | ratio_per_doubling) echo info ;;
	*) echo lower ;;
	esac
}

# The change a figure of NAME may make without counting, in its UNIT: its resolution (times
# from /usr/bin/time and date are in 10 ms steps; CPU shares in 10 ms ticks over 10-60 s).
resolution() {
	case "$1" in
	# how much longer a run's phases took than written: tens of ms of a loaded machine's
	# scheduling are noise; what it guards against was 36 s a phase (fanout_bench.sh)
	fanout_overrun_*) echo 0.5 && return ;;
	esac
	case "$2" in
	%) echo 0.1 ;;
	MB) echo 0.1 ;;
	s) echo 0.02 ;;
	*) echo 0 ;;
	esac
}

# The "bench NAME VALUE UNIT" lines of a bench output, as "NAME VALUE UNIT".
figures() {
	awk '$1 == "bench" && NF >= 4 && $2 ~ /^[A-Za-z0-9_.-]+$/ && $3 ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ &&
		$4 ~ /^[A-Za-z0-9_.%\/-]+$/ { print $2, $3, $4 }' "$1"
}

if [ "${1:-}" = --record ]; then
	[ $# -eq 2 ] && [ -r "$2" ] || { echo "usage: $0 --record BENCH_OUTPUT" >&2; exit 2; }
	echo "# rocelab bench baseline (tests/bench/check.sh): NAME VALUE UNIT DIRECTION"
	echo "# recorded $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) CPU(s), $(uname -r), at $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
	# a name printed twice (both agent benches run the Hostmesh analyzer's): its first
	figures "$2" | awk '!seen[$1]++' | while read -r name value unit; do
		echo "$name $value $unit $(direction "$name" "$unit")"
	done
	exit 0
fi
[ $# -eq 2 ] && [ -r "$1" ] && [ -r "$2" ] || { echo "usage: $0 BASELINE BENCH_OUTPUT | --record BENCH_OUTPUT" >&2; exit 2; }
base=$1 cur=$2
bad=$(awk '!/^#/ && NF && (NF != 4 || $2 !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ || $4 !~ /^(lower|higher|info)$/) { print FILENAME ":" FNR ": " $0; exit }' "$base")
if [ -n "$bad" ]; then
	echo "bench-check: $bad: not 'NAME VALUE UNIT lower|higher|info'" >&2
	exit 2
fi
regressed=0 checked=0
while read -r name value unit dir; do
	case "$name" in '#'* | '') continue ;; esac
	now=$(figures "$cur" | awk -v n="$name" '$1 == n { print $2, $3; exit }')
	if [ -z "$now" ]; then
		echo "bench-check: $name: in the baseline ($value $unit), not printed by this run: FAIL"
		regressed=$((regressed + 1))
		continue
	fi
	read -r v u <<<"$now"
	if [ "$u" != "$unit" ]; then
		echo "bench-check: $name: $v $u, the baseline's is in $unit: FAIL (record a new baseline)"
		regressed=$((regressed + 1))
		continue
	fi
	[ "$dir" = info ] && continue
	checked=$((checked + 1))
	verdict=$(awk -v b="$value" -v c="$v" -v d="$dir" -v t="$TOL" -v r="$(resolution "$name" "$unit")" 'BEGIN {
		ch = b != 0 ? (c - b) / (b < 0 ? -b : b) * 100 : (c != 0 ? (c > 0 ? 1e9 : -1e9) : 0)
		worse = d == "lower" ? c - b : b - c
		printf "%s %+.1f", (worse > r && (d == "lower" ? ch > t : -ch > t)) ? "REGRESSED" : "ok", ch }')
	read -r what pct <<<"$verdict"
	if [ "$what" = REGRESSED ]; then
		echo "bench-check: $name: $v $unit against $value ($pct%; $dir is better, $TOL% allowed): REGRESSED"
		regressed=$((regressed + 1))
	fi
done <"$base"
figures "$cur" | awk '!seen[$1]++' | while read -r name value unit; do
	awk -v n="$name" '$1 == n { f = 1 } END { exit !f }' "$base" ||
		echo "bench-check: $name: $value $unit, new (not in the baseline; record one to keep it)"
done
if [ "$regressed" -gt 0 ]; then
	echo "bench-check: $regressed figure(s) regressed or missing of $checked checked against $base" >&2
	exit 1
fi
echo "bench-check: $checked figure(s) within $TOL% of $base"
