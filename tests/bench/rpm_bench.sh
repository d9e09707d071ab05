#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the R-Pingmesh agent beside the Hostmesh agent on an 8-RNIC host of a generated
# 16 x 8 lab, measured over RPM_S seconds (default 20) at R-Pingmesh's rates and again at
# Hostmesh's (10 probes/s an RNIC): CPU % of one core (and its user share), peak RSS, and per
# RNIC the probes, wire packets and bits a second; and each agent's wake-ups a second with the
# floor they put under its CPU here (a process woken at the same times: build/bench/wake_replay)
# and its CPU above that floor.  host1's R-Pingmesh agent probes at its
# defaults (ToR-mesh 10/s and inter-ToR 1/s a target, every RNIC of the other ToRs: 15 + 112
# targets an RNIC); the other hosts' agents answer it and probe at 0.01/s a target (a 2-core
# machine cannot forward every host's probes: 128 RNICs at 262 probes/s, 3 packets each).
# host1's Hostmesh agent runs at the paper's 10 probes/s an RNIC.  Then the R-Pingmesh analyzer
# on synthetic records (build/bench/rpa_bench), beside Hostmesh's (az_bench).
# Prints "bench <name> <value> <unit>" lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=build/rocelab
RPM_S=${RPM_S:-20}
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
# The other hosts' agents (the responders) off CPU 0 too, when there is another: their answers,
# and the fabric's forwarding of them, are not host1's work (see below).
others=
[ "$(nproc)" -lt 2 ] || others="taskset -c 1-$(($(nproc) - 1))"
for h in $(seq 2 16); do
	ip netns exec rl-host$h $others "$RL" agent rpingmesh -i "$inv" --host host$h --out /dev/null \
		--tor-mesh-rate 0.01 --inter-tor-rate 0.01 2>"$out/rpm-host$h.log" &
	pids+=($!)
done
# On the virtual lab a packet's whole trip through the fabric (veths, the switches' forwarding,
# the peer's receive) runs in softirq on the CPU that sent it, and is charged to the sender: on a
# real host the RNIC and the switches do that work.  So host1's agents run on CPU 0 and RPS hands
# what they send to the other CPUs at the rail switches' ports toward host1 (swp1 of each rail):
# the agents' CPU is their own work (hostmesh_bench.sh measures the share the other way, from a
# profile).  With one CPU there is nowhere to hand it: the figure then includes the fabric.
ncpu=$(nproc)
if [ "$ncpu" -ge 2 ]; then
	mask=$(printf '%x' $(((1 << ncpu) - 2)))
	for r in $(seq 1 8); do
		ip netns exec rl-rail$r sh -c "echo $mask > /sys/class/net/swp1/queues/rx-0/rps_cpus"
	done
	pin="taskset -c 0"
	echo "bench: host1's agents on CPU 0; the fabric's forwarding of their packets on CPUs 1-$((ncpu - 1)) (RPS mask $mask at rail1-8:swp1)" >&2
else
	pin=
	echo "bench: one CPU: the agents' figures include the fabric's forwarding" >&2
fi
sleep 1
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
uticks() { awk '{print $14}' "/proc/$1/stat"; }

# The CPU time the scheduler has counted for a process, in ns.
exec_ns() { awk '{print $1}' "/proc/$1/schedstat"; }
# floor_figures WHO NAME EXEC0 EXEC1 SECONDS FLOOR_FILE: WHO's CPU (schedstat), its wake-ups a
# second, the floor (a process woken at the same times, its CPU over the same span) and the CPU
# above it.
floor_figures() {
	local who=$1 name=$2 x0=$3 x1=$4 secs=$5 wakes span fns cpu floor
	read -r wakes span fns <"$6" || { echo "bench: no wake-up floor for $who (see $6)" >&2; return 0; }
	cpu=$(echo "($x1 - $x0) / 10000000 / $secs" | bc -l)
	floor=$(echo "$fns / 10000000 / $span" | bc -l)
	printf 'bench %s_cpu_sched_8rnic%s %.3f %%\n' "$who" "$name" "$cpu"
	printf 'bench %s_wakeups_8rnic%s %.1f wakeups/s\n' "$who" "$name" "$(echo "$wakes / $span" | bc -l)"
	printf 'bench %s_wake_floor_8rnic%s %.3f %%\n' "$who" "$name" "$floor"
	printf 'bench %s_cpu_above_wake_floor_8rnic%s %.3f %%\n' "$who" "$name" "$(echo "$cpu - $floor" | bc -l)"
	echo "bench: $who$name: $(echo "$fns / $wakes / 1000" | bc -l | cut -d. -f1) us of CPU a wake-up for a process that does nothing else here" >&2
}

# measure NAME [R-Pingmesh agent options]: host1's R-Pingmesh agent with those options beside
# its Hostmesh agent at the paper's 10 probes/s an RNIC, RPM_S seconds past start-up.
measure() {
	local name=$1 rp hm t0 t1 r0 r1 u0 u1 h0 h1 rhwm hhwm secs probes acks run_s pps wire born
	shift
	ip netns exec rl-host1 $pin "${AGENT:-$RL}" agent rpingmesh -i "$inv" --host host1 --out "$out/rpm.rec" \
		"$@" 2>"$out/rpm-host1.log" &
	rp=$!
	ip netns exec rl-host1 $pin "$RL" agent hostmesh -i "$inv" --host host1 --out /dev/null \
		2>"$out/hm-host1.log" &
	hm=$!
	born=$(date +%s.%N)
	pids+=($rp $hm)
	sleep 3 # past start-up (inventory, sockets, the first traces)
	# When the scheduler switched each agent in (its wake-ups), for the floor below.
	perf record -q -e sched:sched_switch --filter "next_pid == $rp || next_pid == $hm" -a \
		-o "$out/switch.data" -- sleep "$RPM_S" >/dev/null 2>&1 &
	sw=$!
	t0=$(date +%s.%N); r0=$(ticks $rp); u0=$(uticks $rp); h0=$(ticks $hm)
	rx0=$(exec_ns $rp); hx0=$(exec_ns $hm)
	echo "bench: measuring host1's R-Pingmesh and Hostmesh agents for $RPM_S s (RPM_S=...): $name" >&2
	sleep "$RPM_S"
	t1=$(date +%s.%N); r1=$(ticks $rp); u1=$(uticks $rp); h1=$(ticks $hm)
	rx1=$(exec_ns $rp); hx1=$(exec_ns $hm)
	wait "$sw" || true
	# The wake-ups' floor: a process that only wakes at each agent's switch-in times, replayed
	# on the agents' CPU while they run on (build/bench/wake_replay; see there).
	perf script -i "$out/switch.data" -F time,trace 2>/dev/null | awk -v rp="$rp" -v hm="$hm" -v o="$out" '
		{ t = $1; sub(/:$/, "", t); if (match($0, /next_pid=[0-9]+/)) {
			p = substr($0, RSTART + 9, RLENGTH - 9)
			if (p == rp) print t > (o "/wakes.rpm"); else if (p == hm) print t > (o "/wakes.hm") } }'
	$pin build/bench/wake_replay <"$out/wakes.rpm" >"$out/floor.rpm" &
	local fr=$!
	$pin build/bench/wake_replay <"$out/wakes.hm" >"$out/floor.hm" || true
	wait "$fr" || true
	rhwm=$(awk '/VmHWM/ {print $2}' "/proc/$rp/status")
	hhwm=$(awk '/VmHWM/ {print $2}' "/proc/$hm/status")
	kill -TERM "$rp" "$hm"
	run_s=$(echo "$(date +%s.%N) - $born" | bc -l) # the agents' whole run: their counts are of it
	wait "$rp" "$hm" || true
	secs=$(echo "$t1 - $t0" | bc -l)
	probes=$(grep -o '[0-9]* probes' "$out/rpm-host1.log" | tail -1 | cut -d' ' -f1)
	acks=$(grep -o '[0-9]* ACKs sent' "$out/rpm-host1.log" | tail -1 | cut -d' ' -f1)
	# Per RNIC: its probes out, their two ACKs in, and the ACKs it sends for the others' probes.
	pps=$(echo "$probes / $run_s / 8" | bc -l)
	wire=$(echo "($probes * 3 + $acks) / $run_s / 8" | bc -l)
	printf 'bench rpm_agent_cpu_8rnic%s %.3f %%\n' "$name" "$(echo "($r1 - $r0) / $hz / $secs * 100" | bc -l)"
	printf 'bench rpm_agent_cpu_user_8rnic%s %.3f %%\n' "$name" "$(echo "($u1 - $u0) / $hz / $secs * 100" | bc -l)"
	printf 'bench hostmesh_agent_cpu_8rnic_beside_rpm%s %.3f %%\n' "$name" "$(echo "($h1 - $h0) / $hz / $secs * 100" | bc -l)"
	# The agents' CPU as the scheduler counts it (schedstat, in ns), beside the clock-tick
	# figures above, and what is left of it above the wake-ups' floor.
	floor_figures rpm_agent "$name" "$rx0" "$rx1" "$secs" "$out/floor.rpm"
	floor_figures hostmesh_agent_beside_rpm "$name" "$hx0" "$hx1" "$secs" "$out/floor.hm"
	printf 'bench rpm_agent_peak_rss_8rnic%s %.1f MB\n' "$name" "$(echo "$rhwm / 1024" | bc -l)"
	printf 'bench hostmesh_agent_peak_rss_8rnic_beside_rpm%s %.1f MB\n' "$name" "$(echo "$hhwm / 1024" | bc -l)"
	printf 'bench rpm_agent_probes_per_rnic%s %.1f probes/s\n' "$name" "$pps"
	printf 'bench rpm_agent_wire_packets_per_rnic%s %.1f packets/s\n' "$name" "$wire"
	# A probe or ACK is 104 bytes on the wire (Ethernet, IPv4, UDP, BTH, DETH, 48-byte payload, ICRC).
	printf 'bench rpm_agent_wire_bits_per_rnic%s %.0f bit/s\n' "$name" "$(echo "$wire * 104 * 8" | bc -l)"
	echo "bench: host1's R-Pingmesh agent: $(tail -1 "$out/rpm-host1.log" | sed 's/^rocelab: //')" >&2
}

# R-Pingmesh's own rates (ToR-mesh 10/s, inter-ToR 1/s a target: 255 probes/s an RNIC) ...
measure ""
# ... and Hostmesh's probe rate, 10 probes/s an RNIC, R-Pingmesh's lists and 10:1 ratio kept
# (0.38/s to each of 15 ToR-mesh targets, 0.038/s to each of 112 inter-ToR ones): the rate the
# paper's 0.8% CPU and 7.7 MB were measured at.
measure _10pps --tor-mesh-rate 0.38 --inter-tor-rate 0.038
echo "bench: the paper's Hostmesh agent used 0.8% CPU and 7.7 MB an 8-RNIC host at 10 probes/s an RNIC" >&2
# User-space instructions per probe at 10 probes/s an RNIC (tests/bench/agent_cg.sh).
. tests/bench/agent_cg.sh
agent_instructions rpm_agent_instructions_per_probe_10pps \
	rpingmesh -i "$inv" --host host1 --out /dev/null --tor-mesh-rate 0.38 --inter-tor-rate 0.038
# RPM_VS=BIN: another rocelab (an older build) beside this one at 10 probes/s an RNIC, alternated
# RPM_ROUNDS times (default 2) on this lab: this machine's figures move from day to day, a ratio
# measured side by side does not.
if [ -n "${RPM_VS:-}" ]; then
	for r in $(seq "${RPM_ROUNDS:-2}"); do
		AGENT=$RPM_VS measure "_10pps_vs_$r" --tor-mesh-rate 0.38 --inter-tor-rate 0.038
		measure "_10pps_this_$r" --tor-mesh-rate 0.38 --inter-tor-rate 0.038
	done
fi
