#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs inside the VM (tests/vm/run.sh), as root in the VM's initial namespace,
# with the repository read-only and build/vm writable.  The two-host lab
# vm-rail2: Soft-RoCE on each RNIC of host1, host2 (no RDMA device) in a
# namespace; the verbs unit and interop tests, the VM scenarios with Hostmesh
# and R-Pingmesh side by side (verbs on host1, udp on host2), and nothing left
# behind.
set -uo pipefail
out=build/vm
inv=lab-inventory/vm-rail2.yaml
SUITE=vm-check
. tests/lib.sh
. tests/vm/rxe-lab.sh
step() { section "$*"; }

step "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2/1024) " MiB" }' /proc/meminfo)"
step "lab up (vm-rail2): host1 in the VM's initial namespace (rxe works only there on 6.1), host2 and the fabric in namespaces"
t=$(date +%s.%N)
vm_lab_up || exit 3
defer build/rocelab lab down
rxe_add || exit 3
defer rxe_del
echo "lab and rxe up in $(echo "$(date +%s.%N) - $t" | bc) s"
rdma link show
ibv_devinfo -d rxe_rnic1 | sed -n '1,/phys_port_cnt/p'
ibv_devinfo -d rxe_rnic1 -v 2>&1 | grep -iE "completion_timestamp|hca_core_clock|GID\[" | head -6

step "verbs unit and interop tests (Criterion, ASan)"
# host1's rnic1 and rnic2 (the first two such lines; host2's follow)
addrs=$(awk '/netdev: rnic[12],/ { for (i = 1; i <= NF; i++) if ($i == "address:") { a = $(i+1); sub(/}$/, "", a); print a } }' $inv | head -2 | paste -sd,)
export ROCELAB_TEST_RNICS="rnic1=${addrs%%,*},rnic2=${addrs##*,}"
echo "ROCELAB_TEST_RNICS=$ROCELAB_TEST_RNICS"
if (cd tests && ROCELAB_PCAP_OUT="../$out/probe.pcap" ../build/tests/probe/verbs_test --jobs 1 --verbose 2>&1); then
	ok "verbs_test"
else
	fail "verbs_test"
fi
grep -q . "$out/probe.pcap" 2>/dev/null && echo "captured probe: $out/probe.pcap"

step "ecn-misconfig: the kernel's RED with ECN (sch_red is in this kernel) at spine2:swp1"
tcroot() { tc -n rl-spine2 qdisc show dev swp1 root; }
before=$(tcroot)
ecn="ecn-misconfig --target spine2:swp1 --kmin 20KB --kmax 60KB --pmax 80% --emu-rate 10mbit"
if build/rocelab inject -i $inv $ecn --for 1s -j >$out/ecn.json 2>$out/ecn.err &&
	jq -e '.outcome == "applied" and (.evidence | test("marked CE [1-9]"))' $out/ecn.json >/dev/null; then
	ok "ecn-misconfig: $(jq -r .evidence $out/ecn.json)"
else
	fail "ecn-misconfig: no CE marks counted" "$(tail -3 $out/ecn.err | tr '\n' ' ')"
fi
[ "$(tcroot)" = "$before" ] && ok "its revert left spine2:swp1's root qdisc as found ($before)" ||
	fail "spine2:swp1's root qdisc after the revert: $(tcroot)"
build/rocelab inject -i $inv $ecn --hold >$out/ecnhold.out 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q ': applied' $out/ecnhold.out && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
held=$(tc -n rl-spine2 qdisc show dev swp1 2>&1)
# (no /dev/fd here for <(...), and grep -q under pipefail would fail on tc's SIGPIPE)
case "$held" in
*"qdisc red 10:"*) ok "held, then killed with -9: its RED is still in place" ;;
*) fail "held ecn-misconfig was not in place when killed" "$(echo "$held" | tr '\n' ' ')" ;;
esac
if build/rocelab revert -i $inv >$out/ecnrevert.out 2>&1 && [ "$(tcroot)" = "$before" ]; then
	ok "rocelab revert after kill -9: spine2:swp1 as found"
else
	fail "rocelab revert after kill -9" "$(tail -2 $out/ecnrevert.out | tr '\n' ' ')"
fi

step "R-Pingmesh service tracing: a real RDMA connection (ibv_rc_pingpong on rxe) found by its packets"
# The GID index of an RNIC's RoCEv2 IPv4 GID (::ffff:ADDR).
gidx() { ibv_devinfo -d "rxe_$1" -v | sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:$2, RoCE v2.*/\1/p" | head -1; }
a1=${addrs%%,*} a1=${a1%/*} a2=${addrs##*,} a2=${a2%/*}
g1=$(gidx rnic1 "$a1") g2=$(gidx rnic2 "$a2")
build/rocelab agent rpingmesh -i $inv --host host1 --out $out/svc.rec --duration 12s 2>$out/svc-agent.log &
ag=$!
sleep 2
stdbuf -oL ibv_rc_pingpong -d rxe_rnic2 -g "$g2" -n 3000 -s 64 >$out/pp-server.log 2>&1 &
srv=$!
sleep 0.5
t0=$(date +%s.%N)
stdbuf -oL ibv_rc_pingpong -d rxe_rnic1 -g "$g1" -n 3000 -s 64 "$a2" >$out/pp-client.log 2>&1 &
cli=$!
took=
for _ in $(seq 100); do
	grep -q "host1:rnic1: service flow to host1:rnic2" $out/svc-agent.log && { took=$(echo "$(date +%s.%N) - $t0" | bc); break; }
	sleep 0.05
done
wait $cli $srv 2>/dev/null
kill $ag 2>/dev/null
wait $ag 2>/dev/null
line=$(grep -m1 "host1:rnic1: service flow to host1:rnic2" $out/svc-agent.log)
sp=$(echo "$line" | sed -n 's/.*from UDP port \([0-9]*\),.*/\1/p')
qp=$(echo "$line" | sed -n 's/.*QP 0x\([0-9a-f]*\):.*/\1/p')
rqp=$(sed -n 's/.*remote address:.*QPN 0x\([0-9a-f]*\),.*/\1/p' $out/pp-client.log | head -1)
[ -n "$took" ] && ok "the agent found the connection rnic1 -> rnic2 from UDP port $sp ($took s after the client started, its TCP exchange and QP setup included)" ||
	fail "the RDMA connection was not found within 5 s" "$(tail -3 $out/svc-agent.log | tr '\n' ' ') $(tail -2 $out/pp-client.log | tr '\n' ' ')"
[ -n "$qp" ] && [ $((16#${rqp:-0})) = $((16#$qp)) ] &&
	ok "the flow's destination QP is the server's QPN as ibv_rc_pingpong printed it (0x$qp)" ||
	fail "flow QP 0x$qp, ibv_rc_pingpong's remote QPN 0x$rqp"
n=$(grep -c "service flow to host1:rnic[12] .* probed on its 5-tuple" $out/svc-agent.log)
[ "$n" = 2 ] && ok "both directions of the connection found (rnic1 -> rnic2 and back), each probed on its 5-tuple" ||
	fail "service flows found: $n, want 2" "$(grep service $out/svc-agent.log | tr '\n' ' ')"

step "a load in RDMA terms: RC WRITEs over rdma-core (rocelab load rc), rnic2, rnic3, rnic4 -> rnic1"
# Issue 61: ib_write_bw's kind of load, on rxe: each sender's QP connected to one of the
# receiver's through the exchange at its address, WRITEs of 1000 bytes at 1000 a second a flow.
rcvd() { rdma statistic show link rxe_rnic1/1 | sed -n 's/.* rcvd_pkts \([0-9]*\) .*/\1/p'; }
p0=$(rcvd)
build/rocelab load rc -i $inv --host host1 --serve --rnic rnic1 --for 8s >$out/rc-serve.out 2>$out/rc-serve.log &
srv=$!
build/rocelab load rc -i $inv --host host1 --flows rnic2:$a1,rnic3:$a1,rnic4:$a1 --pps 1000 --for 2s --progress \
	>$out/rc-send.out 2>$out/rc-send.err
rc=$?
kill $srv 2>/dev/null
wait $srv
done=$(sed -n 's/.*: \([0-9]*\) WRITEs of 1000 bytes completed$/\1/p' $out/rc-send.out)
p1=$(rcvd)
[ $rc = 0 ] && [ "${done:-0}" -ge 5400 ] && [ $((p1 - p0)) -ge "$done" ] &&
	ok "3 RC flows, 2 s at 1000 WRITEs/s each: $done completed, rxe_rnic1 received $((p1 - p0)) packets" ||
	fail "RC load: exit $rc, ${done:-no} WRITEs completed (want 5400 of 6000), rxe_rnic1 received $((p1 - p0)) packets" "$(tail -2 $out/rc-send.err | tr '\n' ' ')"
n=$(grep -c "rc load: serving 198.18.[234].1 " $out/rc-serve.log)
[ "$n" = 3 ] && ok "the receiver served each sender on a QP of its own" ||
	fail "the receiver served $n senders, want 3" "$(tail -3 $out/rc-serve.log | tr '\n' ' ')"
build/rocelab load rc -i $inv --host host1 --flows rnic2:$a1 --for 1s >$out/rc-alone.out 2>&1
rc=$?
[ $rc = 3 ] && grep -q "is 'rocelab load rc --serve' running there" $out/rc-alone.out &&
	ok "with no receiver: exit 3, and what to start" ||
	fail "RC load with no receiver: exit $rc" "$(tail -2 $out/rc-alone.out | tr '\n' ' ')"

step "Hostmesh and R-Pingmesh side by side: verbs on host1's rxe RNICs, udp on host2"
res=$out/scenarios  # a run writes only into a new directory
# make check runs a scenario a fault kind; VM_SUITE=all (make nightly) adds the two that
# only stay silent: the fault-free run (every scenario's baseline and recovery check silence
# too) and ECN from 20KB, the control to ecn-misconfig's 240KB.  Under TCG a scenario
# takes 30 s and more of make check's 30 minutes.
vm_suite=(scenarios/vm/ipid-drop.yaml scenarios/vm/rail-uplink-flap.yaml scenarios/vm/ecn-misconfig.yaml
	scenarios/vm/rc-incast.yaml)
[ "${VM_SUITE:-}" = all ] && vm_suite=(scenarios/vm/no-fault.yaml "${vm_suite[@]:0:3}" scenarios/vm/ecn-20kb.yaml
	scenarios/vm/rc-incast.yaml)
# -v: the time of each step of a run (devices read, components started and stopped, post-flight, report) in the log
build/rocelab run -v -o $res "${vm_suite[@]}"
rc=$?
[ $rc = 0 ] && ok "scenarios (rocelab run exit 0)" || fail "scenarios (rocelab run exit $rc)"
if [ -f $res/results.json ]; then
	jq -r '.scenarios[] | .name as $n | .components | to_entries[] | "  \($n) \(.key): \(.value.verdict) (\(.value.reason)) transports=\(.value.transports | tostring) ttd=\(.value.time_to_detect_s // "-") rank=\(.value.rank // "-") probes=\(.value.probes) timeouts=\(.value.timeouts // "-")"' $res/results.json
	# 'auto': verbs where rxe is (host1), udp where no RDMA device is (host2); rxe has no
	# completion clock: software timestamps, and results must say so.
	bad=$(jq '[.scenarios[] | .components[] | select(.transports.host1 != "verbs" or .transports.host2 != "udp")] | length' $res/results.json)
	[ "$bad" = 0 ] && ok "every monitor of every scenario: host1 probed and answered over verbs, host2 over udp" ||
		fail "$bad monitor runs without verbs on host1 and udp on host2"
	bad=$(jq '[.scenarios[] | select(.components.hostmesh.timestamp_source != "software")] | length' $res/results.json)
	[ "$bad" = 0 ] && ok "Hostmesh's timestamps reported as software (rxe has no completion clock)" ||
		fail "$bad scenarios whose Hostmesh timestamps are not reported as software"
	both=$(jq '[.scenarios[] | select(.components.rpingmesh != null)] | length' $res/results.json)
	want=2 which="ipid-drop and the uplink flap"
	[ "${VM_SUITE:-}" = all ] && want=3 which="no fault, $which"
	[ "$both" = $want ] && ok "$which graded for both monitors in one run each" ||
		fail "$both scenarios graded R-Pingmesh, want $want"
	# ECN marking from 240KB lets the queue grow into a latency hotspot; from
	# 20KB, RED drops the probes (not ECN-capable) instead: loss, never latency.
	ncong() { jq --arg n "$1" '[.scenarios[] | select(.name == $n) | .verdicts[] | select(.class == "congestion")] | length' $res/results.json; }
	c240=$(ncong verbs-ecn-misconfig)
	if [ "${VM_SUITE:-}" = all ]; then
		c20=$(ncong verbs-ecn-20kb)
		[ "${c240:-0}" -gt 0 ] && [ "$c20" = 0 ] &&
			ok "ECN from 240KB: $c240 congestion verdicts; from 20KB: none" ||
			fail "congestion verdicts: ECN from 240KB $c240 (want some), from 20KB $c20 (want none)"
	else
		[ "${c240:-0}" -gt 0 ] && ok "ECN from 240KB: $c240 congestion verdicts (from 20KB, none: make nightly)" ||
			fail "congestion verdicts: ECN from 240KB $c240 (want some)"
	fi
	# The RC incast into rail1:swp1's emulated 10 Mbit/s: held back to the line through its
	# QPs' window (WRITEs due while the queue was full counted as refused), not by the rig.
	# Measured over its first 2.5 s, inside the fault for sure: its whole rate (results.json)
	# takes in the moment after the line was taken away and before the load stopped.
	read -r asked sent refused infault <<<"$(jq -r '.scenarios[] | select(.name == "verbs-rc-incast") | .loads[0] | "\(.asked_mbps) \(.sent_mbps) \(.refused) \(.sent_mbps_in_fault)"' $res/results.json)"
	read -r held held_refused <<<"$(awk -v span=2.5 '$1 == "sent" { f = $2; if (!(f in t0)) { t0[f] = $3; c0[f] = $4; r0[f] = $5 }
		if ($3 <= t0[f] + span) { t1[f] = $3; c1[f] = $4; r1[f] = $5 } }
		END { for (f in t0) if (t1[f] > t0[f]) { m += (c1[f] - c0[f]) * 1028 * 8 / (t1[f] - t0[f]) / 1e6; r += r1[f] - r0[f] }
			printf "%.2f %d\n", m, r }' $res/verbs-rc-incast/load.log.host1 2>/dev/null)"
	awk -v h="${held:-0}" -v f="${infault:-0}" 'BEGIN { exit !(h >= 1 && h <= 10.5 && f >= 1 && f <= 10.5) }' &&
		[ "${held_refused:-0}" -gt 0 ] && [ "$refused" = true ] &&
		ok "the RC incast, asked $asked Mbit/s: $held Mbit/s completed while held to the 10 Mbit/s line, $held_refused WRITEs due with their queues full (results.json: $(printf %.1f "$infault") while the fault was in effect, $(printf %.1f "$sent") over the whole load)" ||
		fail "the RC incast: asked ${asked:-?} Mbit/s, ${held:-?} completed in its first 2.5 s and ${infault:-?} while the fault was in effect (want 1 to 10.5: it ran, and no faster than the line), ${held_refused:-?} refused meanwhile (want some)" \
			"$(jq -c '.scenarios[] | select(.name == "verbs-rc-incast") | .counters[] | {span_s, port: .deltas["rail1:swp1"].qdisc, rnic: .deltas["host1:rnic1"].rdma}' $res/results.json)"
	# A lost probe or ACK votes for the elements of both its paths. host1's traces, over verbs
	# on rxe, went out on its QPs' ports and were once named by them, not by the probes' ports:
	# every vote then knew one direction only (the flap ranked host2:rnic2's link first, once).
	f=$res/verbs-rail-uplink-flap/rpingmesh-analyzer.jsonl
	# (a here-string, not < <(...): the VM's /dev has no fd links)
	read -r vw ow <<<"$(jq -rs '[.[] | select(.type == "window")] | "\(map(.voted) | add // 0) \(map(.voted_one_way) | add // 0)"' $f 2>/dev/null)"
	[ "${vw:-0}" -gt 0 ] && [ $((10 * ${ow:-0})) -le "$vw" ] &&
		ok "R-Pingmesh's lost probes in the flap voted with both directions' paths known (one way only: $ow of $vw)" ||
		fail "R-Pingmesh's votes in the flap: ${ow:-0} of ${vw:-0} with one direction's path unknown (want at most a tenth)"
else
	fail "no $res/results.json"
fi

step "teardown"
check "rdma link delete" rxe_del
check "lab down" build/rocelab lab down
vm_links_gone; left=$(vm_leftovers)
[ -z "$left" ] && ok "nothing left (namespaces, processes, rules, links, rxe devices)" || fail "left behind: $left"
summary
