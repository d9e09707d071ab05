#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark (issue 59): the controller's reach over SSH.  For virtual labs of 8, 16, 32 and
# 64 hosts x 2 RNICs brought up with 'lab up --remote' (an sshd in every host, the run
# reaching them over SSH only, as a real lab), one run of tests/bench/fanout.yaml (nothing
# injected, both monitors at the paper's rates) with the default fan-out (16 hosts at once)
# and one with --fan-out 1 (one host after another), side by side on the same lab:
#   fanout_start_<N>h      invocation to the baseline's start: pre-flight (version, clock,
#                          sweep, links), every agent and rig started
#   fanout_overrun_<N>h    how much longer the baseline and fault phases took than written
#                          (liveness asked over SSH every second must not eat into them)
#   fanout_end_<N>h        the recovery's end to the verdict: agents and rigs stopped, their
#                          logs fetched, graded
# and the start's growth per doubling of hosts (sub-linear: below 2).  Each is one run (a
# 64-host lab takes a minute to bring up); the serial run is the comparison, in one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=$PWD/build/rocelab
SIZES=${FANOUT_SIZES:-"8 16 32 64"}
if [ "$(id -u)" -ne 0 ]; then echo "bench: run as root" >&2; exit 2; fi
if "$RL" lab status -j >/dev/null 2>&1; then echo "bench: a lab is up; take it down first" >&2; exit 3; fi
dir=$(mktemp -d)
trap '"$RL" lab down -q >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT

# stamp: each stderr line of a run, prefixed with the time it was read.
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done; }
# at LOG PATTERN: when the first line matching PATTERN was printed.
at() { awk -v p="$2" '$0 ~ p { print $1; exit }' "$1"; }

declare -A start
prev=
for n in $SIZES; do
	# the SSH lab's journal and known_hosts: this lab's own (each lab up makes new host keys)
	export ROCELAB_LIB_DIR="$dir/lib-$n"
	"$RL" inventory gen --hosts "$n" --rnics 2 --spines 2 --name "fan$n" >"$dir/fan$n.yaml"
	"$RL" lab up -q -i "$dir/fan$n.yaml" --remote
	si=$("$RL" lab status -j | jq -r .ssh_inventory)
	"$RL" lab trust -i "$si" --yes >/dev/null
	for fan in 16 1; do
		log="$dir/run-$n-$fan.log"
		t0=$(date +%s.%N)
		"$RL" run -i "$si" -o "$dir/out-$n-$fan" --seed 7 --no-history --fan-out "$fan" \
			tests/bench/fanout.yaml 2>&1 | stamp >"$log" || true
		tb=$(at "$log" "no-fault|fanout: baseline")
		tf=$(at "$log" "fanout: fault phase")
		tr=$(at "$log" "fanout: recovery")
		tv=$(at "$log" "fanout: (PASS|fail|invalid)")
		if [ -z "$tb" ] || [ -z "$tf" ] || [ -z "$tr" ] || [ -z "$tv" ]; then
			echo "bench: the run on $n hosts (fan-out $fan) did not get through; its log:" >&2
			cut -d' ' -f2- "$log" | grep -v "pre-flight: host" | tail -20 >&2
			exit 1
		fi
		sfx=$([ "$fan" = 1 ] && echo _serial || true)
		s=$(echo "$tb - $t0" | bc -l)
		[ "$fan" = 16 ] && start[$n]=$s
		printf 'bench fanout_start_%sh%s %.2f s\n' "$n" "$sfx" "$s"
		printf 'bench fanout_overrun_%sh%s %.2f s\n' "$n" "$sfx" "$(echo "$tr - $tb - 6" | bc -l)"
		printf 'bench fanout_end_%sh%s %.2f s\n' "$n" "$sfx" "$(echo "$tv - $tr - 1" | bc -l)"
		echo "bench: $n hosts, fan-out $fan: $(cut -d' ' -f2- "$log" | grep -m1 -E 'fanout: (PASS|fail|invalid)')" >&2
	done
	"$RL" lab down -q
	if [ -n "$prev" ]; then
		printf 'bench fanout_start_growth_%sh_to_%sh %.2f ratio_per_doubling\n' "$prev" "$n" \
			"$(echo "${start[$n]} / ${start[$prev]}" | bc -l)"
	fi
	prev=$n
done
