#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make demo`: bring up the built-in virtual lab, show it, trace and SSH through it, take it down.
set -euo pipefail
cd "$(dirname "$0")/.."
RL=build/rocelab
if [ "$(id -u)" -ne 0 ]; then echo "demo: run as root (it builds network namespaces)" >&2; exit 2; fi
if "$RL" lab status -j >/dev/null 2>&1; then
	echo "demo: a lab is already up; take it down first with '$RL lab down'" >&2
	exit 3
fi
trap '"$RL" lab down' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
step "rocelab lab up   (lab-inventory/vlab-rail.yaml: 4 hosts x 4 RNICs, 4 rails, 4 spines)"
"$RL" lab up
step "rocelab lab status"
"$RL" lab status
step "same-host RNIC traffic leaves through the fabric: one 5-tuple, hop by hop"
"$RL" trace host1:rnic1 host1:rnic2 --sport 49152
step "ECMP: the spine each source port hashes to (host1:rnic1 -> host1:rnic2)"
for sport in 49152 49153 49154 49155 49156 49157 49158 49159; do
	printf 'sport %s -> %s\n' "$sport" "$("$RL" trace host1:rnic1 host1:rnic2 --sport $sport -j | jq -r '.hops[1].device')"
done
step "rocelab lab ssh rail1 ip route   (libssh, strict host-key checking)"
"$RL" lab ssh rail1 ip route
step "fault: IP-ID drops (ID mod 10 == 0) on spine2:swp1, verified by real counters, reverted after 2 s"
"$RL" inject ipid-drop --target spine2:swp1 --mod 10 --for 2s
step "fault: emulated PFC misconfiguration on rail1:swp1, revealed by incast, reverted after 1 s"
"$RL" inject pfc-misconfig --target rail1:swp1 --priority 3 --for 1s
step "fault: flap of rail1's uplink to spine1 (one 1 s cycle), routes restored"
"$RL" inject link-flap --target rail1:swp5 --period 1s --down 500ms
step "rocelab run: Hostmesh finds and localizes a rail-uplink flap, graded against the injection"
rm -rf build/demo-results # this script's own; a run writes only into a new directory
"$RL" run -o build/demo-results scenarios/ci/rail-uplink-flap.yaml || true
jq -r '.scenarios[] | "\(.name): \(.verdict)  detected=\(.detected) after \(.time_to_detect_s) s, \(.got.class) \(.got.target) rank \(.rank), false positives \(.false_positives)"' build/demo-results/results.json
echo "incident report: build/demo-results/rail-uplink-flap/report.html (self-contained; report.png beside it)"
echo "the suite's page: build/demo-results/index.html"
step "rocelab history rail-uplink-flap   (every run is recorded: rocelab compare finds regressions)"
"$RL" history rail-uplink-flap -n 5 || true
step "rocelab faults   (the journal: nothing outstanding)"
"$RL" faults -a
step "rocelab lab down"
