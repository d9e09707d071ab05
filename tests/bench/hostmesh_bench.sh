#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: Hostmesh agent overhead (8 RNICs at 10 probes/s each, AGENT_S seconds, default 60):
# its whole CPU (with the virtual fabric's forwarding the kernel charges to it) beside its own
# (without it), user-space CPU, system calls and callgrind instructions per probe, and RSS;
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
uticks() { awk '{print $14}' "/proc/$AG/stat"; }
# "probes time" of the agent's last stats record (it sends one every 5 s), "0 0" before the first.
agent_probes() { { grep '"type":"agent"' "$out/az.jsonl" || true; } | tail -1 | jq -rs '"\(.[0].probes // 0) \(.[0].time // 0)"'; }
for _ in $(seq 1 50); do [ "$(agent_probes)" != "0 0" ] && break; sleep 0.2; done
t0=$(date +%s.%N); c0=$(ticks); u0=$(uticks)
read -r p0 pt0 < <(agent_probes)
echo "bench: measuring the agent for $AGENT_S s (AGENT_S=...): CPU, system calls, kernel profile" >&2
# System calls: the raw_syscalls tracepoint counts each one the agent enters. The profile
# (cpu-clock samples with call chains) says where its kernel time goes.
perf stat -x, -e raw_syscalls:sys_enter -p "$AG" -o "$out/syscalls.csv" -- sleep "$AGENT_S" &
PS=$!
perf record -q -F 997 -g -p "$AG" -o "$out/perf.data" -- sleep "$AGENT_S" >/dev/null 2>&1 &
PR=$!
sleep "$AGENT_S"
wait "$PS" "$PR" || true
t1=$(date +%s.%N); c1=$(ticks); u1=$(uticks)
# Which system calls, for a person to read: strace counts them for 5 s (it slows the agent while
# it does, so after the measurement).
timeout -s INT 5 strace -c -f -p "$AG" -o "$out/strace.txt" >/dev/null 2>&1 || true
read -r p1 pt1 < <(agent_probes) # strace took 5 s: a stats record came
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$AG/status")
# RSS is the agent's own memory (anonymous: heap, stacks, buffers) plus the pages of the
# binary and shared libraries it touched, most of them shared with every process on the host.
anon=$(awk '/RssAnon/ {print $2}' "/proc/$AG/status")
file=$(awk '/RssFile/ {print $2}' "/proc/$AG/status")
top=$(awk '/^[0-9a-f]+-[0-9a-f]+ / {f = $6} /^Rss:/ && f ~ /\// {r[f] += $2}
	END {for (k in r) printf "%d %s\n", r[k], k}' "/proc/$AG/smaps" | sort -rn | head -6 |
	awk '{n = split($2, p, "/"); printf "%s%s %.1f MB", (NR > 1 ? ", " : ""), p[n], $1 / 1024}')
kill -TERM "$AG"; wait "$AG" || true
secs=$(echo "$t1 - $t0" | bc -l)
cpu=$(echo "($c1 - $c0) / $hz / $secs * 100" | bc -l)
ucpu=$(echo "($u1 - $u0) / $hz / $secs * 100" | bc -l)
# The probe rate between two stats records, over the measured seconds.
probes=$(echo "($p1 - $p0) / ($pt1 - $pt0) * $secs" | bc -l | cut -d. -f1)
printf 'bench hostmesh_agent_cpu_8rnic_10pps %.3f %%\n' "$cpu"
printf 'bench hostmesh_agent_peak_rss_8rnic %.1f MB\n' "$(echo "$hwm / 1024" | bc -l)"
printf 'bench hostmesh_agent_rss_anon_8rnic %.1f MB\n' "$(echo "$anon / 1024" | bc -l)"
printf 'bench hostmesh_agent_rss_file_8rnic %.1f MB\n' "$(echo "$file / 1024" | bc -l)"
echo "bench: file-backed RSS by mapping: $top" >&2
# On the virtual lab a probe's whole trip through the fabric (veth, the switches' forwarding,
# nftables, the peer's receive) runs in softirq on the sending CPU and is charged to the agent:
# on a real host the NIC and the switches do that work. The agent's own share is its CPU time
# less the profile's samples under the softirq entry points.
perf report -i "$out/perf.data" --stdio --children --sort sym -g none 2>/dev/null >"$out/perf.txt" || true
total=$(perf report -i "$out/perf.data" --stdio -F sample --sort comm 2>/dev/null | awk '/^ *[0-9]/ {s += $1} END {print s + 0}')
soft=$(perf script -i "$out/perf.data" -F ip,sym 2>/dev/null | awk '
	/^$/ { if (n) { c++; if (f) fw++ } n = 0; f = 0; next }
	{ n++; if ($2 ~ /^(__do_softirq|net_rx_action|do_softirq|handle_softirqs)$/) f = 1 }
	END { if (n) { c++; if (f) fw++ } printf "%d %d\n", c, fw }')
read -r samples fwd <<<"$soft"
own=$(echo "$cpu * (1 - ${fwd:-0} / (${samples:-0} + 0.000001))" | bc -l)
printf 'bench hostmesh_agent_cpu_own_8rnic_10pps %.3f %%\n' "$own"
printf 'bench hostmesh_agent_cpu_user_8rnic_10pps %.3f %%\n' "$ucpu"
printf 'bench hostmesh_agent_fabric_share_of_cpu %.1f %%\n' "$(echo "${fwd:-0} * 100 / (${samples:-0} + 0.000001)" | bc -l)"
sc=$(awk -F, '/raw_syscalls/ {print $1}' "$out/syscalls.csv")
if [ "$probes" -gt 0 ] && [ -n "$sc" ]; then
	printf 'bench hostmesh_agent_syscalls_per_probe %.2f calls\n' "$(echo "$sc / $probes" | bc -l)"
	echo "bench: system calls (strace -c, 5 s): $(awk '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ {printf "%s%s %s", (n++ ? ", " : ""), $NF, $4}' "$out/strace.txt")" >&2
fi
echo "bench: agent sent $probes probes in ${secs%.*} s; $samples profile samples, $fwd in softirq (the fabric); the paper's agent used 0.8% CPU and 7.7 MB" >&2

# User-space instructions per probe (tests/bench/agent_cg.sh).
. tests/bench/agent_cg.sh
agent_instructions hostmesh_agent_instructions_per_probe \
	hostmesh -i "$inv" --host host1 --analyzer 198.19.128.1
