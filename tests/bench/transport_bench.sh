#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the rig's own ceiling for MP-RDMA on the virtual lab.  One unshaped path for
# TRANSPORT_S seconds (default 1; the single-path sender on one VP), then MP-RDMA over the four
# spines, side by side in one run; machine CPU (all cores, /proc/stat) per data packet with its ACK
# (sender, receiver and the kernel's forwarding over three hops each way); and the endpoints' own
# instructions per data packet (build/bench/wire_bench under callgrind: the payload's pattern, the
# RoCEv2 headers and ICRC, both ends; repeatable where the CPU figures are not).
# Prints "bench <name> <value> <unit>" lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=build/rocelab
S=${TRANSPORT_S:-1}
if [ "$(id -u)" -ne 0 ]; then echo "bench: run as root" >&2; exit 2; fi
if "$RL" lab status -j >/dev/null 2>&1; then echo "bench: a lab is up; take it down first" >&2; exit 3; fi
out=$(mktemp -d)
cleanup() {
	"$RL" lab down -q >/dev/null 2>&1 || true
	rm -rf "$out"
}
trap cleanup EXIT
"$RL" lab up -q

busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
hz=$(getconf CLK_TCK)

# run NAME ARGS...: one transport run; prints "pps mbit cpu_us_per_packet".
run() {
	local name=$1; shift
	local b0 b1
	b0=$(busy)
	"$RL" transport run --from host1:rnic1 --to host2:rnic2 --duration "${S}s" --json "$@" \
		>"$out/$name.json" 2>"$out/$name.err"
	b1=$(busy)
	jq -r --argjson cpu "$(echo "($b1 - $b0) / $hz" | bc -l)" \
		'[.receiver.delivered / .sender.seconds,
		  .receiver.delivered * 1024 * 8 / .sender.seconds / 1e6,
		  $cpu * 1e6 / .sender.sent] | @tsv' "$out/$name.json"
}

# wire_instr N: callgrind's instruction count for N packets through build/bench/wire_bench
wire_instr() {
	valgrind --tool=callgrind --callgrind-out-file="$out/wire.$1" build/bench/wire_bench "$1" \
		>/dev/null 2>"$out/wire.$1.log" && awk '/^summary:/ {print $2}' "$out/wire.$1"
}
# the difference over 2000 more packets leaves start-up and exit out
w1=$(wire_instr 2000) w2=$(wire_instr 4000)
printf 'bench transport_wire_instr_per_packet %.0f instr\n' "$(echo "($w2 - $w1) / 2000" | bc -l)"

read -r pps mbit cpu < <(run one --single-path)
printf 'bench transport_max_pps %.0f packets/s\n' "$pps"
printf 'bench transport_max_goodput_1path %.1f Mbit/s\n' "$mbit"
printf 'bench transport_cpu_per_packet %.1f us\n' "$cpu"
read -r pps4 mbit4 cpu4 < <(run four)
printf 'bench transport_mprdma_goodput_4paths %.1f Mbit/s\n' "$mbit4"
printf 'bench transport_mprdma_cpu_per_packet %.1f us\n' "$cpu4"
printf 'bench transport_mprdma_vs_rig_ceiling %.3f ratio\n' "$(echo "$mbit4 / $mbit" | bc -l)"
echo "bench: unshaped veth, so both are the rig's ceiling (CPU), not a fabric's: the scenarios" \
	"shape paths well below it ($(printf %.0f "$pps4") packets/s on four paths)" >&2
