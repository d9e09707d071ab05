#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the R-Pingmesh agent beside the Hostmesh agent on an 8-RNIC host of a generated
# 16 x 8 lab, measured in one run over RPM_S seconds (default 30): CPU % of one core, peak RSS,
# and per RNIC the probes, wire packets and bits a second.  host1's R-Pingmesh agent probes at its
# defaults (ToR-mesh 10/s and inter-ToR 1/s a target, every RNIC of the other ToRs: 15 + 112
# targets an RNIC); the other hosts' agents answer it and probe at 0.01/s a target (a 2-core
# machine cannot forward every host's probes: 128 RNICs at 262 probes/s, 3 packets each).
# host1's Hostmesh agent runs at the paper's 10 probes/s an RNIC.  Then the R-Pingmesh analyzer
# on synthetic records (build/bench/rpa_bench), beside Hostmesh's (az_bench).
# Prints "bench <name> <value> <unit>" lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=build/rocelab
RPM_S=${RPM_S:-30}
if [ "$(id -u)" -ne 0 ]; then echo "bench: run as root" >&2; exit 2; fi
if "$RL" lab status -j >/dev/null 2>&1; then echo "bench: a lab is up; take it down first" >&2; exit 3; fi
inv=$(mktemp --suffix=.yaml)
out=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	"$RL" lab down -q >/dev/null 2>&1 || true
	rm -rf "$inv" "$out"
}
trap cleanup EXIT

build/bench/rpa_bench
build/bench/az_bench

"$RL" inventory gen --hosts 16 --rnics 8 --spines 2 --name bench-rpm >"$inv"
"$RL" lab up -q -i "$inv"
for h in $(seq 2 16); do
	ip netns exec rl-host$h "$RL" agent rpingmesh -i "$inv" --host host$h --out /dev/null \
		--tor-mesh-rate 0.01 --inter-tor-rate 0.01 2>"$out/rpm-host$h.log" &
	pids+=($!)
done
sleep 1
ip netns exec rl-host1 "$RL" agent rpingmesh -i "$inv" --host host1 --out "$out/rpm.rec" \
	2>"$out/rpm-host1.log" &
RP=$!
pids+=($RP)
ip netns exec rl-host1 "$RL" agent hostmesh -i "$inv" --host host1 --out /dev/null \
	2>"$out/hm-host1.log" &
HM=$!
pids+=($HM)
sleep 3 # past start-up (inventory, sockets, the first traces)
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
t0=$(date +%s.%N); r0=$(ticks $RP); h0=$(ticks $HM)
echo "bench: measuring host1's R-Pingmesh and Hostmesh agents for $RPM_S s (RPM_S=...)" >&2
sleep "$RPM_S"
t1=$(date +%s.%N); r1=$(ticks $RP); h1=$(ticks $HM)
rhwm=$(awk '/VmHWM/ {print $2}' "/proc/$RP/status")
hhwm=$(awk '/VmHWM/ {print $2}' "/proc/$HM/status")
kill -TERM "$RP" "$HM"
wait "$RP" "$HM" || true
secs=$(echo "$t1 - $t0" | bc -l)
probes=$(grep -o '[0-9]* probes' "$out/rpm-host1.log" | tail -1 | cut -d' ' -f1)
acks=$(grep -o '[0-9]* ACKs sent' "$out/rpm-host1.log" | tail -1 | cut -d' ' -f1)
run_s=$((RPM_S + 3))
# Per RNIC: its probes out, their two ACKs in, and the ACKs it sends for the others' probes.
pps=$(echo "$probes / $run_s / 8" | bc -l)
wire=$(echo "($probes * 3 + $acks) / $run_s / 8" | bc -l)
printf 'bench rpm_agent_cpu_8rnic %.3f %%\n' "$(echo "($r1 - $r0) / $hz / $secs * 100" | bc -l)"
printf 'bench hostmesh_agent_cpu_8rnic_beside_rpm %.3f %%\n' "$(echo "($h1 - $h0) / $hz / $secs * 100" | bc -l)"
printf 'bench rpm_agent_peak_rss_8rnic %.1f MB\n' "$(echo "$rhwm / 1024" | bc -l)"
printf 'bench hostmesh_agent_peak_rss_8rnic_beside_rpm %.1f MB\n' "$(echo "$hhwm / 1024" | bc -l)"
printf 'bench rpm_agent_probes_per_rnic %.1f probes/s\n' "$pps"
printf 'bench rpm_agent_wire_packets_per_rnic %.1f packets/s\n' "$wire"
# A probe or ACK is 104 bytes on the wire (Ethernet, IPv4, UDP, BTH, DETH, 48-byte payload, ICRC).
printf 'bench rpm_agent_wire_bits_per_rnic %.0f bit/s\n' "$(echo "$wire * 104 * 8" | bc -l)"
echo "bench: host1's R-Pingmesh agent: $(tail -1 "$out/rpm-host1.log" | sed 's/^rocelab: //')" >&2
echo "bench: the paper's Hostmesh agent used 0.8% CPU and 7.7 MB; on the virtual lab the fabric's forwarding is charged to the sender's CPU (hostmesh_bench.sh measures that share)" >&2
