#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs inside the VM (tests/vm/run.sh), as root in the VM's initial namespace,
# with the repository read-only and build/vm writable.  Soft-RoCE on each RNIC
# of host1, the verbs unit and interop tests, the VM scenarios over the verbs
# transport, and nothing left behind.
set -uo pipefail
out=build/vm
inv=lab-inventory/vm-rail.yaml
pass=0 fail=0
step() { echo "== $*"; }
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }
rnics=$(awk '/netdev:/ { for (i = 1; i <= NF; i++) if ($i == "netdev:") { n = $(i+1); sub(/,$/, "", n); print n } }' $inv)

step "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2/1024) " MiB" }' /proc/meminfo)"
modprobe rdma_rxe || { echo "FAIL no rdma_rxe module"; exit 3; }
mkdir -p /run/sshd

step "lab up: host1 in the VM's initial namespace (rxe works only there on 6.1), fabric in namespaces"
t=$(date +%s.%N)
ROCELAB_HOST_IN_ROOT_NS=host1 build/rocelab lab up -i $inv || { echo "FAIL lab up"; exit 3; }
for n in $rnics; do
	rdma link add "rxe_$n" type rxe netdev "$n" || { echo "FAIL rdma link add rxe_$n"; exit 3; }
done
echo "lab and rxe up in $(echo "$(date +%s.%N) - $t" | bc) s"
rdma link show
ibv_devinfo -d rxe_rnic1 | sed -n '1,/phys_port_cnt/p'
ibv_devinfo -d rxe_rnic1 -v 2>&1 | grep -iE "completion_timestamp|hca_core_clock|GID\[" | head -6
# The GID table fills asynchronously after the address is there.
for i in $(seq 50); do
	ibv_devinfo -d rxe_rnic4 -v 2>/dev/null | grep -q "::ffff:198.18.4.1" && break
	sleep 0.1
done

step "verbs unit and interop tests (Criterion, ASan)"
addrs=$(awk '/netdev: rnic[12],/ { for (i = 1; i <= NF; i++) if ($i == "address:") { a = $(i+1); sub(/}$/, "", a); print a } }' $inv | paste -sd,)
export ROCELAB_TEST_RNICS="rnic1=${addrs%%,*},rnic2=${addrs##*,}"
echo "ROCELAB_TEST_RNICS=$ROCELAB_TEST_RNICS"
if (cd tests && ROCELAB_PCAP_OUT="../$out/probe.pcap" ../build/tests/probe/verbs_test --jobs 1 --verbose 2>&1); then
	ok "verbs_test"
else
	ko "verbs_test"
fi
grep -q . "$out/probe.pcap" 2>/dev/null && echo "captured probe: $out/probe.pcap"

step "Hostmesh scenarios over the verbs transport"
build/rocelab run -o $out scenarios/vm/no-fault.yaml scenarios/vm/ipid-drop.yaml scenarios/vm/rail-uplink-flap.yaml
rc=$?
[ $rc = 0 ] && ok "scenarios (rocelab run exit 0)" || ko "scenarios (rocelab run exit $rc)"
if [ -f $out/results.json ]; then
	jq -r '.scenarios[] | "  \(.name): \(.verdict) (\(.reason)) transport=\(.transport) timestamps=\(.timestamp_source)/\(.timestamps) ttd=\(.time_to_detect_s // "-") rank=\(.rank // "-") probes=\(.probes)"' $out/results.json
	# rxe has no completion clock: software timestamps, and results must say so.
	bad=$(jq '[.scenarios[] | select(.transport != "verbs" or .timestamp_source != "software")] | length' $out/results.json)
	[ "$bad" = 0 ] && ok "every scenario ran over verbs, with software timestamps reported as such" ||
		ko "$bad scenarios not over verbs or without software timestamps"
else
	ko "no $out/results.json"
fi

step "teardown"
for n in $rnics; do rdma link delete "rxe_$n" || ko "rdma link delete rxe_$n"; done
build/rocelab lab down || ko "lab down"
left=$(ls /run/netns 2>/dev/null | grep -c '^rl-')
procs=$(pgrep -f 'rocelab (agent|analyze|inject)|sshd -f /run/rocelab' | wc -l)
rules=$(ip rule show | grep -vcE '^(0|32766|32767):')
links=$(ip -o link show | grep -vc ' lo:')
[ "$left$procs$rules$links" = 0000 ] && ok "nothing left (namespaces, processes, rules, links)" ||
	ko "left behind: $left namespaces, $procs processes, $rules rules, $links links"
rdma link show | grep -q . && ko "rxe devices left" || true
echo "$pass passed, $fail failed"
[ $fail = 0 ]
