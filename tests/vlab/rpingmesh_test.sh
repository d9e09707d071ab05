# SPDX-License-Identifier: MIT
# R-Pingmesh end to end on the virtual lab: an agent on every host (probes across hosts, ACKs,
# traces), hostile input, and the analyzer's verdicts on faults injected while they run.
RPM_OUT=$(mktemp -d "$T"/rpingmesh.XXXXXX)

# rpm_run NAME SECONDS AT 'FAULT' 'CLEAR': every host's agent for SECONDS, FAULT run AT seconds in
# (in the background: it holds its fault for as long as it says), CLEAR after the agents; then
# the analyzer, 2-s windows, into $RPM_OUT/NAME.jsonl.
rpm_run() {
	local name=$1 secs=$2 at=$3 fault=$4 clear=$5 h pids=() rc=0 az= ctl= to pl=()
	if [ -n "${RPM_CTL:-}" ]; then # pinglists from a controller: renewed each second
		"$RL" controller --listen 198.19.128.1 --refresh 1s --stale 4s --sports 6 \
			2>"$RPM_OUT/$name-ctl.log" &
		ctl=$!
		pl=(--controller 198.19.128.1)
	fi
	if [ -n "${RPM_LISTEN:-}" ]; then # records over TCP to a listening analyzer
		"$RL" analyze --monitor rpingmesh --listen 198.19.128.1 --window 2s \
			-o "$RPM_OUT/$name.jsonl" 2>"$RPM_OUT/$name-az.log" &
		az=$!
		sleep 0.3
	fi
	for h in host1 host2 host3 host4; do
		to=(--out "$RPM_OUT/$name-$h.rec")
		[ -n "$az" ] && to=(--analyzer 198.19.128.1)
		ip netns exec rl-$h "$RL" agent rpingmesh --host $h "${to[@]}" \
			--duration ${secs}s --inter-tor-rate 3 --sports 6 --trace-rate 100 \
			--seed $((RANDOM + 1)) "${pl[@]}" 2>"$RPM_OUT/$name-$h.log" &
		pids+=($!)
	done
	sleep "$at"
	eval "$fault"
	for h in "${pids[@]}"; do wait "$h" || rc=$?; done
	eval "$clear"
	if [ -n "$ctl" ]; then
		kill -TERM "$ctl"
		wait "$ctl" || rc=$?
	fi
	if [ -n "$az" ]; then
		sleep 2 # the last window's grace
		kill -TERM "$az"
		wait "$az" || rc=$?
	fi
	wait
	[ -n "$az" ] || "$RL" analyze --monitor rpingmesh --window 2s "$RPM_OUT/$name"-host*.rec \
		-o "$RPM_OUT/$name.jsonl" 2>"$RPM_OUT/$name-az.log" || rc=$?
	return $rc
}

# The verdicts of NAME: "class target" lines, sorted and counted.
verdicts() { jq -r 'select(.type=="verdict") | .class + " " + .target' "$RPM_OUT/$1.jsonl" | sort | uniq -c; }

section "rpingmesh: agents across hosts, the analyzer, faults"
"$RL" lab up -q
defer '"$RL" lab down -q'

# 1. An RNIC's port down for 4 s (its host-facing switch port follows), and junk at host1:rnic1.
rpm_run rnic 12 4.5 \
	'ip netns exec rl-host2 "$TOOLS/udpsend" 198.18.1.2 198.18.1.1 4791 40000 50 20 >/dev/null 2>&1;
	 "$RL" inject link-flap --target host1:rnic2 --for 4s >"$RPM_OUT/rnic-inject.log" 2>&1' true
rc=$?
[ $rc -eq 0 ] && ok "4 agents ran their --duration through 1000 junk datagrams and a fault, exit 0" ||
	fail "agents or analyzer exit $rc" "$(tail -2 "$RPM_OUT"/rnic-*.log | tr '\n' ' ')"
grep -q "reverted" "$RPM_OUT/rnic-inject.log" && ok "the link flap was applied and reverted" ||
	fail "inject" "$(tail -2 "$RPM_OUT/rnic-inject.log")"
v=$(verdicts rnic)
echo "$v" | grep -q "rnic host1:rnic2" && [ "$(echo "$v" | grep -vc "host1:rnic2")" -eq 0 ] &&
	ok "a dead RNIC: 'rnic host1:rnic2' and nothing else ($(echo $v))" || fail "dead RNIC verdicts" "$v"
mal=$(grep -o '[0-9]* malformed' "$RPM_OUT/rnic-host1.log" | cut -d' ' -f1)
[ "${mal:-0}" -ge 900 ] && ok "host1's agent counted $mal junk datagrams as malformed, none as probes" ||
	fail "malformed ${mal:-?} of 1000 junk datagrams" "$(tail -1 "$RPM_OUT/rnic-host1.log")"
# Before the fault (window 1 ends 4 s in at the latest): every probe answered, the ToR-mesh (one switch each way) faster than inter-ToR
# (three), and every traced path complete.
first=$(jq -s '[.[] | select(.type=="window")][1]' "$RPM_OUT/rnic.jsonl")
tm=$(echo "$first" | jq '.tor_mesh.rtt_us.p50')
it=$(echo "$first" | jq '.inter_tor.rtt_us.p50')
lost=$(echo "$first" | jq '.tor_mesh.timeouts + .tor_mesh.ack2_lost + .inter_tor.timeouts + .inter_tor.ack2_lost')
n=$(echo "$first" | jq '.tor_mesh.ok + .inter_tor.ok')
[ "$lost" = 0 ] && [ "${n:-0}" -ge 800 ] && ok "a healthy window: $n probes answered, none lost" ||
	fail "healthy window: $n answered, $lost lost" "$first"
awk -v a="$tm" -v b="$it" 'BEGIN { exit !(a > 0 && b > a) }' &&
	ok "RTT p50: ToR-mesh $tm us < inter-ToR $it us (one switch each way against three)" ||
	fail "RTT p50 ToR-mesh $tm, inter-ToR $it"
tr=$(grep -o '([0-9]* complete)' "$RPM_OUT/rnic-host3.log" | tr -dc 0-9)
all=$(grep -o '[0-9]* traces' "$RPM_OUT/rnic-host3.log" | cut -d' ' -f1)
[ "${tr:-0}" -ge 200 ] && ok "host3 traced $all 5-tuples of its probes and ACKs, $tr complete" ||
	fail "traces on host3: $all, complete ${tr:-0}" "$(tail -1 "$RPM_OUT/rnic-host3.log")"

# 2. A host down: its RNICs' ports down and its agent stopped, not four RNIC problems.  The
# records go to the analyzer over TCP this time, and the pinglists come from the controller,
# which drops the frozen host after 4 s unseen and takes it back when it registers again.  (A
# rail uplink down, and the other faults, are the CI scenarios', graded beside Hostmesh.)
RPM_CTL=1 RPM_LISTEN=1 rpm_run host 12 2 \
	'pkill -STOP -f "agent rpingmesh --host host3 "
	 for r in 1 2 3 4; do "$RL" inject link-flap --target host3:rnic$r --for 5s >/dev/null 2>&1 & done
	 sleep 6; pkill -CONT -f "agent rpingmesh --host host3 "' true
rc=$?
n=$(grep -c "R-Pingmesh agent host[1-4] .* connected" "$RPM_OUT/host-az.log")
[ $rc -eq 0 ] && [ "$n" -eq 4 ] && ok "the analyzer took 4 agents' records over TCP (--listen), exit 0" ||
	fail "analyzer over TCP: exit $rc, $n agents" "$(tail -2 "$RPM_OUT/host-az.log" | tr '\n' ' ')"
v=$(verdicts host)
echo "$v" | grep -q "host-down host3" && [ "$(echo "$v" | grep -vc "host-down host3")" -eq 0 ] &&
	ok "a host down: 'host-down host3' and nothing else ($(echo $v))" || fail "host-down verdicts" "$v"
c="$RPM_OUT/host-ctl.log"
[ "$(grep -c 'host[1-4] registered (epoch' "$c")" -eq 4 ] &&
	grep -q "host3 unseen for [4-9].* dropped from every pinglist (3 hosts" "$c" &&
	grep -q "host3 registered again after it was dropped" "$c" &&
	ok "the controller: 4 hosts registered, host3 dropped when unseen for 4 s, then back" ||
	fail "controller registry" "$(grep -v 'generation' "$c" | tail -8 | tr '\n' ' ')"
# 16 targets a host (each of host1's 4 RNICs: 1 ToR-mesh and 3 inter-ToR on it).
grep targets "$RPM_OUT/host-host1.log" | grep -A1 "32 targets (32 kept, 0 new, 16 gone)" |
	grep -q "48 targets (32 kept, 16 new, 0 gone)" &&
	ok "host1's agent stopped probing host3's 4 RNICs while it was dropped, then took them back" ||
	fail "host1's pinglists" "$(grep targets "$RPM_OUT/host-host1.log" | tr '\n' ' ')"
expect_exit 2 "controller: --stale not past --refresh is refused" "$RL" controller --listen 198.19.128.1 --refresh 5s --stale 5s

# 3. Services: flows the agents find on their own RNICs (outgoing UDP 4791 not of a monitor)
# and probe on each flow's own 5-tuple.  A service host1:rnic1 -> host3:rnic2 that halves its
# rate on a healthy network is degraded, not network-related.  (A flow ends once idle for a
# second: the load stops a few seconds before the agents do.)
svc_lines() { jq -c --arg sp "$2" 'select(.type=="service" and .sport==($sp|tonumber))' "$RPM_OUT/$1.jsonl"; }
LS=(load send -i lab-inventory/vlab-rail.yaml --host host1 --sports 1 --size 1000)
RPM_LISTEN=1 rpm_run svc 15 2 \
	'(ip netns exec rl-host1 "$RL" "${LS[@]}" --flows rnic1:198.18.2.3 --sport 50123 --for 6s --pps 500 &&
	  ip netns exec rl-host1 "$RL" "${LS[@]}" --flows rnic1:198.18.2.3 --sport 50123 --for 5s --pps 200) >/dev/null 2>&1 &
	 sleep 3; ip netns exec rl-host1 timeout 12 tshark -i rnic1 -n -f "udp src port 50123" -a duration:3 \
		-Y "frame[47:2] == 00:02" -T fields -e frame.number >"$RPM_OUT/svc-tshark.txt" 2>"$RPM_OUT/svc-tshark.err"' true
grep -q "host1:rnic1: service flow to host3:rnic2 (198.18.2.3) from UDP port 50123, QP 0x[0-9a-f]*: probed on its 5-tuple" "$RPM_OUT/svc-host1.log" &&
	ok "host1's agent found the service flow host1:rnic1 -> host3:rnic2 from port 50123 on its RNIC" ||
	fail "service flow not found" "$(grep -i service "$RPM_OUT/svc-host1.log" | head -3 | tr '\n' ' ')"
n=$(wc -l <"$RPM_OUT/svc-tshark.txt")
[ "$n" -ge 10 ] && ok "tshark on host1:rnic1: $n probes to R-Pingmesh's QP on the service's own 5-tuple (UDP 50123 -> 4791)" ||
	fail "probes on the service's 5-tuple seen by tshark: $n" "$(tail -2 "$RPM_OUT/svc-tshark.err" | tr '\n' ' ')"
v=$(svc_lines svc 50123)
echo "$v" | jq -se 'map(select(.degraded and .network_related == false)) | length >= 1' >/dev/null &&
	echo "$v" | jq -se 'map(select(.network_related == true)) | length == 0' >/dev/null &&
	ok "the service halving its rate on a healthy network: degraded, not network-related ($(echo "$v" | jq -r '"\(.rate_mbps)/\(.best_mbps)"' | tr '\n' ' '))" ||
	fail "service on a healthy network" "$v"
# The same agents' services across a degraded link (network-related) and beside it (never
# impacted): the CI suite's svc-path-fault, graded by 'rocelab run' (hostmesh_test.sh).

# 4. Records that are not R-Pingmesh's are refused with a reason, and nothing is analyzed.
expect_exit 2 "analyze --monitor rpingmesh refuses a file of junk" "$RL" analyze --monitor rpingmesh "$RPM_OUT/rnic-az.log"
expect_exit 2 "analyze --monitor foo is refused" "$RL" analyze --monitor foo x
expect_exit 2 "agent rpingmesh: an unknown host is refused" "$RL" agent rpingmesh --host host9 --duration 1s
expect_exit 2 "agent rpingmesh: --sports 65 is refused" "$RL" agent rpingmesh --host host1 --sports 65
check "no agent is left running" sh -c '! pgrep -f "rocelab agent rpingmes[h]"'
