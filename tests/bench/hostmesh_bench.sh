#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: Hostmesh agent overhead (8 RNICs at 10 probes/s each, AGENT_S seconds, default 60)
# and analyzer throughput on synthetic records (1,000 hosts x 8 RNICs, one 20 s window).
# Prints "bench <name> <value> <unit>" lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=build/rocelab
AGENT_S=${AGENT_S:-60}
if [ "$(id -u)" -ne 0 ]; then echo "bench: run as root" >&2; exit 2; fi
if "$RL" lab status -j >/dev/null 2>&1; then echo "bench: a lab is up; take it down first" >&2; exit 3; fi
inv=$(mktemp --suffix=.yaml)
out=$(mktemp -d)
cleanup() {
	[ -n "${AZ:-}" ] && kill "$AZ" 2>/dev/null && wait "$AZ" 2>/dev/null
	"$RL" lab down -q >/dev/null 2>&1 || true
	rm -rf "$inv" "$out"
}
trap cleanup EXIT

build/bench/az_bench

"$RL" inventory gen --hosts 2 --rnics 8 --spines 2 --name bench-agent >"$inv"
"$RL" lab up -q -i "$inv"
"$RL" analyze -i "$inv" --listen 198.19.128.1:4790 -o "$out/az.jsonl" 2>"$out/az.log" &
AZ=$!
# The paper's parameters: 100 ms interval (10 probes/s per RNIC), 500 ms timeout.
ip netns exec rl-host1 "$RL" agent hostmesh -i "$inv" --host host1 --analyzer 198.19.128.1 \
	2>"$out/agent.log" &
AG=$!
sleep 2 # past start-up (inventory, sockets, first traces)
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$AG/stat"; }
t0=$(date +%s.%N); c0=$(ticks)
echo "bench: measuring the agent for $AGENT_S s (AGENT_S=...)" >&2
sleep "$AGENT_S"
t1=$(date +%s.%N); c1=$(ticks)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$AG/status")
kill -TERM "$AG"; wait "$AG" || true
cpu=$(echo "($c1 - $c0) / $hz / ($t1 - $t0) * 100" | bc -l)
printf 'bench hostmesh_agent_cpu_8rnic_10pps %.3f %%\n' "$cpu"
printf 'bench hostmesh_agent_peak_rss_8rnic %.1f MB\n' "$(echo "$hwm / 1024" | bc -l)"
probes=$(grep '"type":"agent"' "$out/az.jsonl" | tail -1 | jq .probes)
echo "bench: agent sent $probes probes; the paper's agent used 0.8% CPU and 7.7 MB" >&2
