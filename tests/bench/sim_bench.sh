#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the MP-RDMA paper's figures on the path simulator (rocelab transport sim), over
# SIM_SEEDS seeds (default 5), for the paper's sender, rocelab's, and the paper's with each of
# rocelab's departures alone (the scoreboard, with the NACK for every drop that marks its
# dropped bits; the per-reply credit cleared once nothing is held; per-packet probing; a NACK
# for every drop beyond the bitmap), so each departure's effect is a number.  Deterministic:
# the same figures on every machine.  Prints "bench sim_<metric>_<variant>[_ci95|_vs_paper]
# VALUE UNIT" lines and "bench sim_<metric>_paper_value" (the paper's); tests/bench/sim_table.sh
# makes them the table in transport/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
RL=${RL:-build/rocelab}
SEEDS=${SIM_SEEDS:-5}
variants=(
	"--mode paper"
	"--mode rocelab"
	"--mode paper --scoreboard on --nack every"
	"--mode paper --credit per-reply"
	"--mode paper --probe-mode per-packet"
	"--mode paper --nack every"
)
# The variants side by side on the machine's CPUs (each is deterministic and alone on its
# simulator), their lines in the variants' order.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=$(nproc 2>/dev/null || echo 1)
pids=()
for i in "${!variants[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	# shellcheck disable=SC2086 # each variant is its options, split
	"$RL" transport sim ${variants[$i]} --seeds "$SEEDS" --bench >"$tmp/$i" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for i in "${!variants[@]}"; do cat "$tmp/$i"; done | awk '!($2 ~ /_paper_value$/ && seen[$2]++)'
