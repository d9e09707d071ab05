# SPDX-License-Identifier: MIT
# Fault injector tests: each kind applies, shows its effect under real traffic, reverts to an identical lab.
STATE="${ROCELAB_STATE_DIR:-/run/rocelab}"
journal_lines() { [ -f "$STATE/journal.jsonl" ] && wc -l <"$STATE/journal.jsonl" || echo 0; }
nft_packets() { # total nft counter packets in namespace $1
	ip netns exec "$1" nft list ruleset | grep -o 'counter packets [0-9]*' | awk '{s+=$3} END {print s+0}'
}
corrupt_counts() { # "SEEN DROPPED": packet-corruption's two counters in namespace $1, summed
	ip netns exec "$1" nft list ruleset | grep 'rocelab packet-corruption' |
		awk '{n = 0; for (i = 1; i < NF; i++) if ($i == "packets") { n++; if (n == 1) s += $(i+1); else d += $(i+1) } }
		     END {print s+0, d+0}'
}

# start_hold NAME ARGS...: run 'rocelab inject ARGS --hold' in the background until it reports applied.
start_hold() {
	local name=$1; shift
	"$RL" inject "$@" --hold >$T/hold.out 2>$T/hold.err &
	HOLD=$!
	for _ in $(seq 150); do
		grep -q ': applied' $T/hold.out 2>/dev/null && { ok "$name: applied and verified ($(sed 's/.*applied (//; s/)$//' $T/hold.out | head -1))"; return 0; }
		kill -0 $HOLD 2>/dev/null || break
		sleep 0.1
	done
	fail "$name: not applied" "$(cat $T/hold.err | tail -2 | tr '\n' ' ')"
	return 1
}
# stop_hold NAME: SIGTERM the holder; it must revert and exit 0, leaving the snapshot as before.
stop_hold() {
	kill -TERM $HOLD
	wait $HOLD
	local rc=$?
	snapshot >$T/snap.after
	if [ $rc -eq 0 ] && diff -q $T/snap.before $T/snap.after >/dev/null; then
		ok "$1: SIGTERM reverted it; lab identical to the snapshot"
	else
		fail "$1: revert" "exit $rc; $(diff $T/snap.before $T/snap.after | head -4 | tr '\n' ' ')"
	fi
}

section "faults on the virtual lab: apply, effect under traffic, revert to the snapshot"
"$RL" lab up -q
defer '"$RL" lab down -q'; defer '"$RL" revert'
snapshot >$T/snap.before

# 1. link flap of a rail uplink and of a host port (switch side, over ssh)
expect_exit 0 "link-flap rail1:swp1 (host port) --count 1" "$RL" inject link-flap --target rail1:swp1 --period 600ms --down 200ms
snapshot >$T/snap.after
check "rail1:swp1 flap restored its host route" diff -q $T/snap.before $T/snap.after
expect_exit 0 "link-flap spine3:swp2 --count 1" "$RL" inject link-flap --target spine3:swp2 --period 600ms --down 200ms
snapshot >$T/snap.after
check "spine3:swp2 flap restored its routes" diff -q $T/snap.before $T/snap.after
# Issue 63: a Linux switch's flap restores the routes it read before, nothing else: one of its own
# (ip route add: proto boot) comes back as it was, a routing daemon's (bgp) is left to its daemon.
ip -n rl-rail1 route add 198.18.200.0/24 dev swp1 && ip -n rl-rail1 route add 198.18.201.0/24 dev swp1 proto bgp
expect_exit 0 "link-flap rail1:swp1 beside a route of its own and a routing daemon's" "$RL" inject link-flap --target rail1:swp1 --period 600ms --down 200ms
cp $T/check.out $T/ownroutes.out
check "... it says what it restores and what it leaves" grep -q "2 static route(s) through swp1 as found on rail1, restored after link-up; 1 left to the kernel or a routing daemon" $T/ownroutes.out
check "... its own restored as read, the daemon's not put back by rocelab" sh -c 'test "$(ip -n rl-rail1 route show 198.18.200.0/24)" = "198.18.200.0/24 dev swp1 scope link " && test -z "$(ip -n rl-rail1 route show 198.18.201.0/24)"'
ip -n rl-rail1 route del 198.18.200.0/24 dev swp1
snapshot >$T/snap.after
check "... and nothing else changed" diff -q $T/snap.before $T/snap.after
if start_hold "link-flap rail1:swp5" link-flap --target rail1:swp5 --period 10s --down 8s; then
	check "rail1:swp5 and spine1:swp1 are down" test "$(ip netns exec rl-rail1 cat /sys/class/net/swp5/operstate) $(ip netns exec rl-spine1 cat /sys/class/net/swp1/operstate)" = "down down"
	check "its evidence is each end's state as its device read it" grep -q "applied ('ip -j link show dev swp5' on rail1: admin down; link down: rail1:swp5 DOWN (ip -j link show on rail1), spine1:swp1 [A-Z]* (ip -j link show on spine1))" $T/hold.out
	n=$(journal_lines)
	expect_exit 3 "a flap of the same link from its other end, down already: exit 3" \
		"$RL" inject link-flap --target spine1:swp1 --period 600ms --down 200ms
	cp $T/check.out $T/downflap.out
	check "it says each end's state, read before anything changed" \
		grep -q "the link is not up before the flap: spine1:swp1 [A-Z]* (ip -j link show on spine1), rail1:swp5 DOWN (ip -j link show on rail1); bring it up first" $T/downflap.out
	check "nothing was journaled" test "$(journal_lines)" -eq "$n"
	stop_hold "link-flap rail1:swp5"
fi
# link flap of an RNIC (host side, over netlink), counted cycles
expect_exit 0 "link-flap host2:rnic1 --count 2 (netlink) runs and ends" "$RL" inject link-flap --target host2:rnic1 --period 600ms --down 200ms --count 2
cp $T/check.out $T/hostflap.out
check "its evidence reads the RNIC's admin state in the host's namespace" \
	grep -q "applied ('ip -j link show dev rnic1' on host2: admin down; link down: host2:rnic1 DOWN" $T/hostflap.out
check "the host flap reads no drift after its revert" sh -c "! grep -q 'drift:' $T/hostflap.out"
check "host2:rnic1 is up again" test "$(ip netns exec rl-host2 cat /sys/class/net/rnic1/operstate)" = up
# Issue 64: a flap runs on its schedule (cycle C down at the first down + (C-1) x period, up
# --down after), each time stamped when the ends read so, and says when it did not. On time is
# the flap's own promise: within half the shorter phase (here 0.1 s: link_flap.c live()), past
# which it says the step came late. A tighter bound here judged the machine's load, not the
# flap (an up stamped 0.259 s after its down, its read-back slowed by a build beside it).
check "the flap ran on its schedule: downs 0.6 s apart, each up 0.2 s after its down (+-0.1 s, its slack)" \
	awk '/flap [0-9]+: (down|up) at/ { split($0, a, " at "); t = a[2] + 0; if ($0 ~ /: down at/) d[++nd] = t; else u[++nu] = t }
	     END { if (nd != 2 || nu != 2) exit 1
		   if (d[2] - d[1] < 0.5 || d[2] - d[1] > 0.7) exit 1
		   for (i = 1; i <= 2; i++) if (u[i] - d[i] < 0.1 || u[i] - d[i] > 0.3) exit 1 }' $T/hostflap.out
check "and ran as written: no cycle late" sh -c "! grep -q 'did not run as written' $T/hostflap.out"
# stopped for a second during its first down: its up comes late, and it says so
"$RL" inject link-flap --target host2:rnic1 --period 2s --down 500ms --count 1 -j >$T/lateflap.json 2>$T/lateflap.err &
lp=$!
for _ in $(seq 50); do grep -q '"applied"' $T/lateflap.json 2>/dev/null && break; sleep 0.1; done
kill -STOP $lp; sleep 1.2; kill -CONT $lp
wait $lp
check "a flap held up past its schedule says it did not run as written (JSON short line)" \
	jq -se '[.[] | select(.short)] | length == 1 and (.[0].short | test("^link-flap host2:rnic1: cycle 1.s up came [0-9.]+ s after its time"))' $T/lateflap.json
check "... and warns it" grep -q "did not run as written: link-flap host2:rnic1: cycle 1's up came" $T/lateflap.err
check "host2:rnic1 is up after the late flap" test "$(ip netns exec rl-host2 cat /sys/class/net/rnic1/operstate)" = up
snapshot >$T/snap.after
check "host2:rnic1 flap restored its policy route" diff -q $T/snap.before $T/snap.after

# 2. IP-ID drops on one spine port
if start_hold "ipid-drop spine2:swp1 --mod 10" ipid-drop --target spine2:swp1 --mod 10; then
	p0=$(nft_packets rl-spine2)
	ip netns exec rl-host1 "$TOOLS/udpsend" 198.18.1.1 198.18.2.1 4791 42000 64 20
	ip netns exec rl-host2 "$TOOLS/udpsend" 198.18.2.2 198.18.1.2 4791 42000 64 20
	p1=$(nft_packets rl-spine2)
	check "ipid-drop: spine2 counters rose under test traffic ($p0 -> $p1)" test "$p1" -gt "$p0"
	stop_hold "ipid-drop spine2:swp1"
fi

# 2b. packet corruption (emulated: random loss) on the same port: the share measured apart from the
# injector's own check, by the rule's two counters under another sender's traffic
if start_hold "packet-corruption spine2:swp1 --rate 5%" packet-corruption --target spine2:swp1 --rate 5%; then
	check "output names the emulation" grep -q 'emulated corruption' $T/hold.out
	read -r s0 d0 < <(corrupt_counts rl-spine2)
	ip netns exec rl-host1 "$TOOLS/udpsend" 198.18.1.1 198.18.2.1 4791 44000 64 100
	ip netns exec rl-host2 "$TOOLS/udpsend" 198.18.2.2 198.18.1.2 4791 44000 64 100
	read -r s1 d1 < <(corrupt_counts rl-spine2)
	seen=$((s1 - s0)) lost=$((d1 - d0))
	# 5% of at least 1000: 2-8% is more than 4 standard deviations either way
	check "packet-corruption: $lost of $seen RoCE packets through spine2:swp1 dropped (2-8%)" \
		test "$seen" -ge 1000 -a $((lost * 100)) -ge $((seen * 2)) -a $((lost * 100)) -le $((seen * 8))
	stop_hold "packet-corruption spine2:swp1"
fi
# an RNIC's link, corrupted at its switch end (rail1:swp1 faces host1:rnic1)
expect_exit 0 "packet-corruption host1:rnic1 --rate 5% --for 1s" "$RL" inject packet-corruption --target host1:rnic1 --rate 5% --for 1s
cp $T/check.out $T/rnic-corrupt.out
check "it is applied at rail1:swp1 and measured there" grep -q "applied (nft counters on rail1: [0-9]* of [0-9]* RoCE packets through host1:rnic1 dropped" $T/rnic-corrupt.out
snapshot >$T/snap.after
check "host1:rnic1's link as before after --for" diff -q $T/snap.before $T/snap.after

# 3. ACL error between two RNICs on a rail switch
if start_hold "acl-error rail2 host1:rnic2->host3:rnic2" acl-error --target rail2 --all-ports --from host1:rnic2 --to host3:rnic2; then
	p0=$(nft_packets rl-rail2)
	ip netns exec rl-host1 "$TOOLS/udpsend" 198.18.2.1 198.18.2.3 4791 43000 4 10
	p1=$(nft_packets rl-rail2)
	check "acl-error: all 40 RoCE datagrams dropped on rail2 ($p0 -> $p1)" test $((p1 - p0)) -eq 40
	ip netns exec rl-host1 "$TOOLS/udpsend" 198.18.2.1 198.18.2.3 4792 43000 4 10
	check "acl-error: other UDP ports pass" test "$(nft_packets rl-rail2)" -eq "$p1"
	stop_hold "acl-error rail2"
fi

# 4. a missing RNIC route (netlink on the host)
if start_hold "rnic-route-missing host2:rnic3" rnic-route-missing --target host2:rnic3; then
	# Without its policy route, host2:rnic3's traffic leaves through the wrong rail.
	check "host2:rnic3 -> host1:rnic2 no longer leaves through rail3" test "$("$RL" trace host2:rnic3 host1:rnic2 -j | jq -r '.hops[0].device')" != rail3
	stop_hold "rnic-route-missing host2:rnic3"
	check "host2:rnic3 -> host1:rnic2 leaves through rail3 again" test "$("$RL" trace host2:rnic3 host1:rnic2 -j | jq -r '.hops[0].device')" = rail3
fi
# A closed terminal (SIGHUP) reverts a held fault as SIGTERM does, not kills it mid-fault.
if start_hold "rnic-route-missing host2:rnic3 (SIGHUP)" rnic-route-missing --target host2:rnic3; then
	kill -HUP $HOLD
	wait $HOLD
	rc=$?
	snapshot >$T/snap.after
	[ $rc -eq 0 ] && diff -q $T/snap.before $T/snap.after >/dev/null && ok "SIGHUP reverted it; lab identical to the snapshot" ||
		fail "SIGHUP of a held fault" "exit $rc; $(diff $T/snap.before $T/snap.after | head -4 | tr '\n' ' ')"
fi
# revert signals the process that holds a fault only by its pid and start time, never by name
# (issue 56: an unrelated 'less rocelab-run.log' was killed): a journal record names this one's pid.
bash -c 'exec -a "less rocelab-run.log" sleep 60' &
bystander=$!
printf '{"id":901,"event":"planned","kind":"link-flap","target":"host1:rnic1","pid":%d,"pid_start":1,"actions":[]}\n{"id":901,"event":"applied"}\n' "$bystander" >>"${ROCELAB_STATE_DIR:-/run/rocelab}/journal.jsonl"
"$RL" revert >$T/bystander.out 2>&1
check "revert leaves a process that took a journaled holder's pid alone" kill -0 $bystander
kill $bystander 2>/dev/null; wait $bystander 2>/dev/null

# 4b. a whole host down (emulated): its agents frozen, every RNIC link down; all back after
ip netns exec rl-host2 "$RL" agent hostmesh --host host2 --interval 20ms --trace-rate 0 \
	--out "$T/hd-agent.rec" --duration 30s 2>"$T/hd-agent.log" &
HD_AG=$!
ip netns exec rl-host3 "$RL" agent hostmesh --host host3 --interval 20ms --trace-rate 0 \
	--out "$T/hd-other.rec" --duration 30s 2>"$T/hd-other.log" &
HD_OTHER=$!
sleep 1
if start_hold "host-down host2" host-down --target host2; then
	check "host-down: host2's agent stopped (T), host3's not" test "$(ps -o stat= -p $HD_AG | cut -c1)" = T -a "$(ps -o stat= -p $HD_OTHER | cut -c1)" != T
	check "host-down: every RNIC link of host2 down" test "$(for r in 1 2 3 4; do ip netns exec rl-host2 cat /sys/class/net/rnic$r/operstate; done | sort -u)" = down
	check "host-down: its evidence names the links and the agent" grep -q "host2: its 4 RNIC netdev(s) down, 1 monitor agent(s) stopped" $T/hold.out
	stop_hold "host-down host2"
	check "host-down: host2's agent runs again" test "$(ps -o stat= -p $HD_AG | cut -c1)" != T
fi
# 4c. a host's CPU overloaded (emulated): busy threads beside its agents in one CPU cgroup
cg_of() { grep -E '^[0-9]+:cpu(,cpuacct)?:' /proc/$1/cgroup | cut -d: -f3; }
hog_left() { ls -d /sys/fs/cgroup/cpu/rocelab-cpu-hog-* /sys/fs/cgroup/cpuset/rocelab-cpu-hog-* \
	/sys/fs/cgroup/rocelab-cpu-hog-* /run/rocelab-cpu-hog-* 2>/dev/null; pgrep -f "rocelab-cpu-ho[g]"; }
HD_CG=$(cg_of $HD_AG)
if start_hold "cpu-hog host2" cpu-hog --target host2; then
	check "cpu-hog: host2's agent in its cgroup, host3's not" test "$(cg_of $HD_AG)" = /rocelab-cpu-hog-host2 -a "$(cg_of $HD_OTHER)" = "$HD_CG"
	check "cpu-hog: 2 busy threads, pinned to the last CPU" test "$(pgrep -fc 'rocelab-cpu-hog-host[2]$')" = 2 -a "$(cat /sys/fs/cgroup/cpuset/rocelab-cpu-hog-host2/cpuset.cpus)" = $(($(nproc) - 1))
	check "cpu-hog: its evidence is the agent's measured run-queue delay" grep -Eq "host2: 2 busy thread\(s\) beside 1 monitor agent\(s\) in a CPU cgroup of 10% of one CPU; the agents' run-queue delay [0-9]+ ms a second" $T/hold.out
	stop_hold "cpu-hog host2"
	check "cpu-hog: host2's agent back in its cgroup ($HD_CG), no cgroup, thread or state file left" test "$(cg_of $HD_AG)" = "$HD_CG" -a -z "$(hog_left)"
fi
expect_exit 3 "cpu-hog on CPU 4095: exit 3, the host has no such CPU" "$RL" inject cpu-hog --target host2 --cpu 4095 --for 1s
cp $T/check.out $T/hog-cpu.out
check "it said so" grep -q 'host2 has [0-9]* CPU(s): cpu 4095 is not one of them' $T/hog-cpu.out
check "and left nothing" test -z "$(hog_left)"
kill $HD_AG $HD_OTHER 2>/dev/null
wait $HD_AG $HD_OTHER 2>/dev/null
expect_exit 2 "host-down of an RNIC: exit 2, a whole host is its target" "$RL" inject host-down --target host2:rnic1 --for 1s

# 5. link degradation (TBF both ends)
if start_hold "link-degrade rail3:swp6 10mbit" link-degrade --target rail3:swp6 --rate 10mbit; then
	check "TBF 10Mbit on rail3:swp6" grep -q 'tbf.*rate 10Mbit' <(tc -n rl-rail3 qdisc show dev swp6)
	check "TBF 10Mbit on its peer spine2:swp3" grep -q 'tbf.*rate 10Mbit' <(tc -n rl-spine2 qdisc show dev swp3)
	stop_hold "link-degrade rail3:swp6"
fi
# ... with the emulated switch ECN marker: BPF on each switch end's clsact egress, gone after
if start_hold "link-degrade rail3:swp6 10mbit, ECN marked past 6KB" link-degrade --target rail3:swp6 --rate 10mbit --ecn-mark 6KB; then
	check "output names the marker as emulated" grep -q 'ECN marker (emulated' $T/hold.out
	check "the marker on rail3:swp6's egress, direct-action" grep -q 'ecn_mark.*direct-action' <(tc -n rl-rail3 filter show dev swp6 egress)
	check "the marker on its peer spine2:swp3's egress" grep -q 'ecn_mark' <(tc -n rl-spine2 filter show dev swp3 egress)
	stop_hold "link-degrade rail3:swp6 with --ecn-mark"
	check "no clsact qdisc left on either end" test -z "$(tc -n rl-rail3 qdisc show dev swp6 clsact; tc -n rl-spine2 qdisc show dev swp3 clsact)"
fi

# 6. PFC misconfiguration (emulated), revealed by incast
if start_hold "pfc-misconfig rail1:swp1 priority 3" pfc-misconfig --target rail1:swp1 --priority 3; then
	check "output names the emulation" grep -q 'emulated PFC' $T/hold.out
	d0=$(tc -s -n rl-rail1 qdisc show dev swp1 parent 1:10 | grep -o 'dropped [0-9]*' | awk '{print $2}')
	"$RL" load incast --to host1:rnic1 --from host2:rnic1,host3:rnic1,host4:rnic1 --for 1s >/dev/null 2>&1
	d1=$(tc -s -n rl-rail1 qdisc show dev swp1 parent 1:10 | grep -o 'dropped [0-9]*' | awk '{print $2}')
	check "incast drops in priority 3 on rail1:swp1 ($d0 -> $d1)" test "$d1" -gt "$d0"
	check "the root qdisc of rail1:swp1 was read before and journaled as found" \
		sh -c 'grep "pfc-misconfig" "$1" | tail -1 | jq -e "[.actions[] | select(.read_as)][0] as \$a | .actions[0].backend == \"shell\" and \$a.read_as == \"tc-root swp1\" and (\$a.found | fromjson | .[0].kind == \"noqueue\")"' sh "$STATE/journal.jsonl"
	stop_hold "pfc-misconfig rail1:swp1"
	check "its revert read rail1:swp1 back as found: no drift" sh -c '! grep -q "drift" "$1"' sh $T/hold.err
	# Issue 61: counters as evidence, read before the first action and before the undo.
	check "what its ends counted is said after the revert: the emulated class's drops first" \
		grep -Eq "fault [0-9]+: counted in [0-9.]+ s: rail1:swp1: qdisc 10: bfifo drops \+[1-9]" $T/hold.err
	check "... and the RNIC at the other end of the link received the incast" \
		grep -Eq "fault [0-9]+: counted in [0-9.]+ s: host1:rnic1: .*link rx_packets \+[1-9]" $T/hold.err
fi
"$RL" inject pfc-misconfig --target rail1:swp1 --priority 3 --for 1s -j --counters >$T/ctr.json 2>$T/ctr.err
check "inject -j --counters: a counters line after the verdict, both ends of rail1:swp1 read, none unread" \
	jq -se '.[0].outcome == "applied" and (.[0].id as $i | .[-1] | .id == $i and .counters.span_s >= 1 and .counters.unread == [] and (.counters.deltas | has("rail1:swp1") and has("host1:rnic1")))' $T/ctr.json
check "... the verification's incast tail-dropped in the class the fault added (counted from 0)" \
	jq -se '.[-1].counters.deltas["rail1:swp1"].qdisc["10: bfifo drops"] > 0' $T/ctr.json

# 6b. a DSCP to priority mismatch (emulated): RoCE's DSCP 26 lands in a lossy queue, revealed by
# incast in that DSCP; priority 3's other DSCPs stay where they were
if start_hold "dscp-mismatch rail1:swp1 DSCP 26" dscp-mismatch --target rail1:swp1; then
	check "output names the emulation" grep -q 'emulated classification: DSCP 26 on swp1 lands in priority 0' $T/hold.out
	check "its evidence: incast in DSCP 26 tail-dropped in the lossy queue" \
		grep -Eq 'DSCP 26 of rail1:swp1 tail-dropped [1-9][0-9]* \(emulated\)' $T/hold.out
	check "the class takes DSCP 26 alone (TOS 0x68 of mask 0xfc)" grep -q 'match 00680000/00fc0000' <(tc -n rl-rail1 filter show dev swp1)
	p0=$(tc -s -n rl-rail1 qdisc show dev swp1 parent 1:10 | grep -o 'Sent [0-9]* bytes [0-9]* pkt' | awk '{print $4}')
	"$RL" load incast --to host1:rnic1 --from host2:rnic1,host3:rnic1 --priority 3 --for 500ms >/dev/null 2>&1
	p1=$(tc -s -n rl-rail1 qdisc show dev swp1 parent 1:10 | grep -o 'Sent [0-9]* bytes [0-9]* pkt' | awk '{print $4}')
	check "incast in priority 3's class selector (DSCP 24) does not enter it ($p0 -> $p1 packets)" test "$p1" -eq "$p0"
	stop_hold "dscp-mismatch rail1:swp1"
	check "its revert read rail1:swp1 back as found: no drift" sh -c '! grep -q "drift" "$1"' sh $T/hold.err
fi
"$RL" inject dscp-mismatch --target rail1:Ethernet0 --dry-run -i "$ROOT/lab-inventory/example-lab.yaml" >$T/dscp-sonic.out 2>&1
check "on SONiC the plan reads PORT_QOS_MAP and DSCP_TO_TC_MAP whole, and binds a copy to the port alone" \
	sh -c 'grep -q "read: sonic-cfggen -d --var-json PORT_QOS_MAP && echo .# CONFIG_DB DSCP_TO_TC_MAP. && sonic-cfggen -d --var-json DSCP_TO_TC_MAP" "$1" && grep -q "HSET .PORT_QOS_MAP|Ethernet0. dscp_to_tc_map ROCELAB_F" "$1"' sh $T/dscp-sonic.out
expect_exit 3 "dscp-mismatch on one EOS port: exit 3, EOS maps DSCP for the whole switch" "$RL" inject dscp-mismatch --target spine1:Ethernet1/1 -i "$ROOT/lab-inventory/example-lab.yaml"
cp $T/check.out $T/dscp-eos.out
check "it says so, and what to target" grep -q "EOS maps DSCP to a traffic class for the whole switch.*--target spine1 --all-ports" $T/dscp-eos.out
expect_exit 3 "dscp-mismatch on a veth RNIC: exit 3, no DCB APP table" "$RL" inject dscp-mismatch --target host2:rnic3
cp $T/check.out $T/dscp-veth.out
check "it says the RNIC has no DCB, and what to target" grep -q "host2:rnic3 has no DCB support.*target the switch port instead" $T/dscp-veth.out

# 7. a PFC storm from an RNIC: real 802.1Qbb frames, the pause emulated at its rail port
if start_hold "pfc-storm host2:rnic1 4000/s" pfc-storm --target host2:rnic1 --rate 4000/s; then
	check "output names the emulation" grep -q 'emulated pause (veth ignores PFC): rail1:swp2' $T/hold.out
	# The rate is the injector's to judge (its verify holds it to the rate set, within its
	# tolerance); this checks what it says, not this machine's speed again.
	check "its evidence is the frames counted on rail1:swp2 at the rate set" \
		grep -Eq "rail1:swp2 received [1-9][0-9]* PFC frames in [0-9.]+ s \([0-9]+/s; 4000/s set\), each pausing priority 3 for 65535 quanta" $T/hold.out
	# A count of frames, not a window of time: 400 of them, each dissected (issue 62: 2,999 in a
	# 1 s window failed a busy machine's run).
	ip netns exec rl-rail1 timeout 20 tshark -i swp2 -c 400 -a duration:15 -f "ether proto 0x8808" -T fields \
		-e eth.dst -e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 -e _ws.expert >$T/pfc.tsv 2>/dev/null
	n=$(wc -l <$T/pfc.tsv)
	check "tshark dissects each frame as PFC (CBFC): 01:80:c2:00:00:01, opcode 0x0101, C3, 65535 quanta, no expert note ($n of 400 frames)" \
		sh -c 'test "$1" -eq 400 && ! grep -qv "^01:80:c2:00:00:01	0x0101	0x0008	65535	$" "$2"' sh "$n" $T/pfc.tsv
	check "priority 3 toward host2:rnic1 is held in its own class" grep -q 'class htb 1:10 .*rate 8Kbit' <(tc -n rl-rail1 class show dev swp2)
	ip netns exec rl-host1 "$TOOLS/udpsend" 198.18.1.1 198.18.1.2 4791 43000 4 10 0x68
	check "RoCE datagrams of priority 3 toward it queue there" sh -c 'tc -s -n rl-rail1 qdisc show dev swp2 parent 1:10 | grep -Eq "backlog [0-9]+b [1-9]"'
	stop_hold "pfc-storm host2:rnic1"
	check "its sender ended with it" sh -c '! pgrep -f "rocelab load [p]fc" >/dev/null'
	check "it said how many frames it sent" grep -Eq "pfc-storm [0-9]+: [0-9]+ PFC frames sent from host2:rnic1" $T/hold.err
fi
# Issue 63: a storm's sender ends by itself -- at a frame cap, at a deadline, and when its
# controller's heartbeat (the marker's mtime) stops -- whatever becomes of its injector.
expect_exit 3 "pfc-storm neither --for nor --hold: refused (a storm lives only with its injector)" \
	"$RL" inject pfc-storm --target host2:rnic1
cp $T/check.out $T/stormfor.out
check "... it says what to give" grep -q "give --for DURATION, or --hold and end it with SIGINT or SIGTERM" $T/stormfor.out
check "load pfc --frames 50: stops at its cap" sh -c 'ip netns exec rl-host2 "$0" load pfc --dev rnic1 --pps 1000 --frames 50 --for 10s 2>&1 | tee "$1" | grep -q "^pfc: 50 frames sent" && grep -q "its cap of 50 frames reached" "$1"' "$RL" $T/cap.out
check "load pfc --for 300ms: stops at its deadline" sh -c 'ip netns exec rl-host2 "$0" load pfc --dev rnic1 --pps 1000 --for 300ms 2>&1 | grep -q "its deadline (300 ms) reached"' "$RL"
touch -d '-1 min' $T/storm.marker
check "load pfc --while M --orphan-after 1s, M not touched: stops, saying its controller is silent" sh -c 'timeout 5 ip netns exec rl-host2 "$0" load pfc --dev rnic1 --pps 100 --while "$1" --orphan-after 1s 2>&1 | grep -q "no heartbeat from its controller for 1000 ms"' "$RL" $T/storm.marker

# 8. buffer alpha 1/64 on a whole switch (emulated), revealed by incast
if start_hold "buffer-alpha spine2 1/64" buffer-alpha --target spine2 --alpha 1/64; then
	check "output names the emulation and the depth alpha leaves" grep -q 'emulated buffer: alpha 1/64 leaves priority 3 a 6049-byte tail-drop queue' $T/hold.out
	check "its evidence is the incast tail-dropped at spine2's first port" \
		grep -Eq "priority 3 of spine2:swp1 tail-dropped [1-9][0-9]* \(emulated\)" $T/hold.out
	for p in swp1 swp2 swp3 swp4; do
		check "spine2:$p's priority 3 is a 6049-byte queue" grep -q 'bfifo 10: .*limit 6049b' <(tc -n rl-spine2 qdisc show dev $p)
	done
	stop_hold "buffer-alpha spine2"
	check "its revert read every port back as found: no drift" sh -c '! grep -q "drift" "$1"' sh $T/hold.err
	snapshot >$T/snap.after
	check "lab identical after buffer-alpha" diff -q $T/snap.before $T/snap.after
fi
expect_exit 0 "buffer-alpha 1/16 --for 1s: a deeper queue, still tail-dropping under incast" "$RL" inject buffer-alpha --target spine1 --alpha 1/16 --for 1s
cp $T/check.out $T/alpha16.out
check "alpha 1/16 leaves 23130 bytes" grep -q 'alpha 1/16 leaves priority 3 a 23130-byte' $T/alpha16.out

# 9. ECN misconfiguration: the kernel's RED with ECN at a spine port, where the kernel has it
j0=$(journal_lines)
if unshare -n tc qdisc add dev lo root red limit 100000 min 10000 max 30000 avpkt 1000 burst 17 probability 0.1 bandwidth 100mbit ecn 2>/dev/null; then
	expect_exit 0 "ecn-misconfig spine2:swp1 --for 1s: ECN-capable incast marked CE by RED" "$RL" inject ecn-misconfig --target spine2:swp1 --for 1s
	cp $T/check.out $T/ecn.out
	check "its evidence is the CE marks RED counted" grep -Eq "priority 3 of spine2:swp1 marked CE [1-9][0-9]* \(real RED marking, emulated line rate\)" $T/ecn.out
	snapshot >$T/snap.after
	check "lab identical after ecn-misconfig" diff -q $T/snap.before $T/snap.after
else
	expect_exit 3 "ecn-misconfig on this kernel without sch_red: exit 3" "$RL" inject ecn-misconfig --target spine2:swp1 --for 1s
	cp $T/check.out $T/ecn.out
	check "it says the kernel has no RED and where to run it" grep -q "the kernel of spine2 has no RED qdisc (sch_red.*make vm-check" $T/ecn.out
	check "nothing journaled" test "$(journal_lines)" = "$j0"
	snapshot >$T/snap.after
	check "lab identical: nothing was touched" diff -q $T/snap.before $T/snap.after
fi
expect_exit 2 "ecn-misconfig --off with --kmin: exit 2, changing nothing" "$RL" inject ecn-misconfig --target spine2:swp1 --off --kmin 20KB
cp $T/check.out $T/ecn2.out
check "it says to give one or the other" grep -q "give --off or thresholds" $T/ecn2.out

section "read before the fault: a port whose root qdisc is not the kernel's own is refused"
tc -n rl-rail1 qdisc add dev swp2 root handle 7: htb
j0=$(journal_lines)
expect_exit 3 "pfc-misconfig on rail1:swp2 with an htb root qdisc of its own: exit 3" "$RL" inject pfc-misconfig --target rail1:swp2 --for 1s
cp $T/check.out $T/busy.out
check "it names what it read and what to do" grep -q "root qdisc htb 7:.*remove it or target another port" $T/busy.out
expect_exit 3 "link-degrade of that link: exit 3 too" "$RL" inject link-degrade --target rail1:swp2 --rate 10mbit --for 1s
check "nothing journaled" test "$(journal_lines)" = "$j0"
check "the htb qdisc is still there, untouched" grep -q "qdisc htb 7: root" <(tc -n rl-rail1 qdisc show dev swp2 root)
tc -n rl-rail1 qdisc del dev swp2 root

section "crash: kill -9 during --hold, then 'rocelab revert'"
for spec in "ipid-drop --target spine2:swp1 --mod 10" "packet-corruption --target spine2:swp1 --rate 1%" "rnic-route-missing --target host2:rnic3" "link-flap --target rail1:swp5 --period 10s --down 8s" "pfc-misconfig --target rail1:swp1" "link-degrade --target rail3:swp6 --rate 10mbit" "pfc-storm --target host2:rnic1" "buffer-alpha --target rail4" "cpu-hog --target host2"; do
	kind=${spec%% *}
	if start_hold "$kind (to be killed)" $spec; then
		kill -9 $HOLD
		wait $HOLD 2>/dev/null
		check "$kind: journal shows it outstanding after kill -9" grep -q "$kind" <("$RL" faults)
		check "$kind: rocelab revert" "$RL" revert
		snapshot >$T/snap.after
		check "$kind: lab identical to the snapshot" diff -q $T/snap.before $T/snap.after
		check "$kind: nothing of it still runs" sh -c '! pgrep -f "rocelab load [p]fc|rocelab-cpu-ho[g]" >/dev/null'
		[ "$kind" != cpu-hog ] || check "cpu-hog: no cgroup or state file left" test -z "$(hog_left)"
	fi
done
check "revert again is harmless (idempotent)" "$RL" revert
check "the killed storm's sender log went with its revert" sh -c '! ls /tmp/rocelab-pfc.*.log 2>/dev/null'

section "dead-man timers: kill -9 during --hold, nothing reverted, each device restores itself"
# Issue 63: every device a fault changes runs its undo by itself once its injector stops saying it
# lives (a 3 s lease here).  Nothing but the timers acts between the kill and the snapshot.
# make check: one kind for each way a device undoes (an nft rule, a host's rule, a switch's
# link, tc on both ends of a link, a host's process, a host's cgroup); INJECT_SUITE=all (make
# nightly) adds the kinds whose undo repeats one of those (nft, tc on one switch).
deadman=("ipid-drop --target spine2:swp1 --mod 10" "rnic-route-missing --target host2:rnic3"
	"link-flap --target rail1:swp5 --period 10s --down 8s" "link-degrade --target rail3:swp6 --rate 10mbit"
	"pfc-storm --target host2:rnic1" "cpu-hog --target host2")
[ "${INJECT_SUITE:-}" = all ] && deadman+=("packet-corruption --target spine2:swp1 --rate 1%"
	"pfc-misconfig --target rail1:swp1" "buffer-alpha --target rail4")
for spec in "${deadman[@]}"; do
	kind=${spec%% *}
	if start_hold "$kind (--deadman 3s, to be killed)" $spec --deadman 3s; then
		kill -9 $HOLD
		wait $HOLD 2>/dev/null
		killed=$(date +%s.%N)
		# restored: the lab as in the snapshot, no timer still running, no CPU hog left
		same=no
		for _ in $(seq 40); do
			snapshot >$T/snap.after
			diff -q $T/snap.before $T/snap.after >/dev/null && ! pgrep -f "[r]ocelab-deadman" >/dev/null &&
				[ -z "$(hog_left)" ] && { same=yes; break; }
			sleep 0.25
		done
		took=$(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		[ $same = yes ] && ok "$kind: restored by its devices' own timers alone (their processes ended), $took s after kill -9" ||
			fail "$kind: not restored by the timers within 10 s" "$(diff $T/snap.before $T/snap.after | head -4 | tr '\n' ' ')"
		check "$kind: each timer that fired left a note of when" sh -c 'ls /run/rocelab-deadman/f*.fired >/dev/null'
		check "$kind: still outstanding in the journal; rocelab revert clears it and the notes" \
			sh -c '"$0" faults | grep -q "$1" && "$0" revert >/dev/null && ! ls -d /run/rocelab-deadman 2>/dev/null' "$RL" "$kind"
	fi
done
snapshot >$T/snap.after
check "lab identical to the snapshot after the timers and the reverts" diff -q $T/snap.before $T/snap.after
# A controller that lives but stalls (stopped for 6 s, a 3 s lease): its device reverts the fault;
# once it runs again it finds the timer fired, says so, ends the fault and exits 3.
if start_hold "rnic-route-missing (--deadman 3s, its injector to be stopped)" rnic-route-missing --target host2:rnic3 --deadman 3s; then
	kill -STOP $HOLD
	sleep 6
	snapshot >$T/snap.after
	check "stalled injector: host2 restored by its own timer meanwhile" diff -q $T/snap.before $T/snap.after
	kill -CONT $HOLD
	rc=0
	wait $HOLD || rc=$?
	check "once it runs again it ends the fault: exit 3" test $rc -eq 3
	check "... saying host2's timer fired and host2 reverted the fault itself" \
		grep -q "host2's dead-man timer fired at [0-9T:+-]* before the injector re-armed it: host2 reverted the fault itself" $T/hold.err
	check "... and nothing is outstanding, no timer's note left" \
		sh -c '"$0" faults | grep -q "no outstanding faults" && ! ls -d /run/rocelab-deadman 2>/dev/null' "$RL"
	check "... nor its process" test -z "$(pgrep -f '[r]ocelab-deadman')"
fi

section "drift: a state that does not come back as found is reported"
if start_hold "pfc-misconfig (to be killed; its journal then says another root qdisc was found)" pfc-misconfig --target rail1:swp1; then
	kill -9 $HOLD
	wait $HOLD 2>/dev/null
	# What was found is what the revert must give back: say it was fq_codel, and noqueue comes back.
	sed -i '/pfc-misconfig/s/\\"kind\\":\\"noqueue\\"/\\"kind\\":\\"fq_codel\\"/' "$STATE/journal.jsonl"
	"$RL" revert >$T/drift.out 2>&1
	check "revert reports the drift, naming the read and both states" grep -q "drift: rail1 (tc -j qdisc show dev swp1 root): 'root qdisc fq_codel 0:' before the fault, 'root qdisc noqueue 0:' after its revert" $T/drift.out
	snapshot >$T/snap.after
	check "lab identical to the snapshot (the drift was only in the journal)" diff -q $T/snap.before $T/snap.after
fi
check "no outstanding faults" grep -q 'no outstanding faults' <("$RL" faults)

section "--for ends by itself"
expect_exit 0 "ipid-drop --for 1s" "$RL" inject ipid-drop --target spine1 --all-ports --range 0-32767 --roce-only --for 1s
snapshot >$T/snap.after
check "lab identical after --for" diff -q $T/snap.before $T/snap.after

section "--cue: an injector gets ready first, and changes nothing before its cue"
expect_exit 2 "--cue without --handoff: exit 2" "$RL" inject link-flap --target rail1:swp5 --cue --for 1s
HO='{"schema":1,"kind":"link-flap","target":"rail1:swp5","hold":false,"for_ms":1000,"options":{}}'
j0=$(journal_lines)
expect_exit 3 "--handoff - --cue, standard input closed after the handoff: exit 3" \
	sh -c 'printf "%s\n" "$1" | "$0" inject --handoff - --cue -j' "$RL" "$HO"
cp $T/check.out $T/nocue.out
check "it said ready, then that no cue came and nothing was applied" \
	sh -c 'grep -qx ready "$1" && grep -q "no cue came (standard input closed): nothing was applied" "$1"' sh $T/nocue.out
check "nothing journaled before the cue" test "$(journal_lines)" = "$j0"
snapshot >$T/snap.after
check "lab identical: nothing applied without the cue" diff -q $T/snap.before $T/snap.after
# the cue a second later: the fault is applied after it, not before
expect_exit 0 "--handoff - --cue, 'go' a second later: applied and reverted after --for" \
	sh -c '(printf "%s\n" "$1"; sleep 1; date +%s.%N >"$2"; echo go) | "$0" inject --handoff - --cue -j' "$RL" "$HO" $T/cued.at
cp $T/check.out $T/cue.out
check "applied after the cue, not before it" \
	sh -c 'grep "^{.*\"outcome\"" "$1" | head -1 | jq -e --argjson at "$(cat "$2")" ".outcome == \"applied\" and .applied_at > \$at"' sh $T/cue.out $T/cued.at
snapshot >$T/snap.after
check "lab identical after the cued fault" diff -q $T/snap.before $T/snap.after

section "a fault that is not on the traffic's path is not effective"
expect_exit 3 "acl-error on rail1 for a rail2 flow: exit 3" "$RL" inject acl-error --target rail1 --all-ports --from host1:rnic2 --to host3:rnic2 --hold
cp $T/check.out $T/noteff.out
check "it said why" grep -q 'not effective' $T/noteff.out
snapshot >$T/snap.after
check "lab identical after a not-effective fault" diff -q $T/snap.before $T/snap.after

section "bad input changes nothing"
j0=$(journal_lines)
while IFS='|' read -r want desc args; do
	# shellcheck disable=SC2086
	expect_exit "$want" "$desc" "$RL" inject $args
done <<'BAD'
2|unknown kind|frobnicate --target rail1
2|unknown target device|link-flap --target rail9:swp1
2|unknown port|link-flap --target rail1:swp99
2|target with shell characters|link-flap --target rail1;id
2|negative duration|link-flap --target rail1:swp5 --period -1s
2|absurd duration|link-flap --target rail1:swp5 --for 400d
2|down longer than period|link-flap --target rail1:swp5 --period 1s --down 2s
2|zero rate|link-degrade --target rail3:swp6 --rate 0
2|absurd rate|link-degrade --target rail3:swp6 --rate 999tbit
2|rate above link speed|link-degrade --target rail3:swp6 --rate 200g
2|ECN threshold of 0 bytes|link-degrade --target rail3:swp6 --rate 10mbit --ecn-mark 0
2|ECN threshold as a rate|link-degrade --target rail3:swp6 --rate 10mbit --ecn-mark 10mbit
2|--rem not below --mod|ipid-drop --target spine2:swp1 --mod 10 --rem 10
2|acl without --to|acl-error --target rail2 --from host1:rnic2
2|acl from a switch port|acl-error --target rail2 --from rail1:swp1 --to host3:rnic2
2|route fault on a switch|rnic-route-missing --target rail1:swp1
2|ipid on a host|ipid-drop --target host1:rnic1 --mod 4
2|--for and --hold|ipid-drop --target spine2 --all-ports --mod 4 --for 1s --hold
2|acl on a whole switch, every port unsaid|acl-error --target rail2 --from host1:rnic2 --to host3:rnic2
2|ipid on a whole switch, every port unsaid|ipid-drop --target spine1 --mod 4
2|PFC off on a whole switch, every port unsaid|pfc-misconfig --target rail1
2|--all-ports with one port|ipid-drop --target spine1:swp1 --all-ports --mod 4
2|priority out of range|pfc-misconfig --target rail1:swp1 --priority 9
2|corruption without a rate|packet-corruption --target spine2:swp1
2|corruption rate above 100%|packet-corruption --target spine2:swp1 --rate 150%
2|corruption rate as a bit rate|packet-corruption --target spine2:swp1 --rate 10mbit
2|corruption of a whole switch|packet-corruption --target spine2 --rate 1%
2|corruption direction|packet-corruption --target spine2:swp1 --rate 1% --direction up
2|storm from a switch port|pfc-storm --target rail1:swp1
2|storm rate zero|pfc-storm --target host1:rnic1 --rate 0/s
2|storm rate as a bit rate|pfc-storm --target host1:rnic1 --rate 10mbit
2|storm quanta above 65535|pfc-storm --target host1:rnic1 --quanta 65536
2|storm priority out of range|pfc-storm --target host1:rnic1 --priority 8
2|alpha on a port|buffer-alpha --target spine1:swp1
2|alpha not a power of two|buffer-alpha --target spine1 --alpha 1/3
2|alpha profile with shell characters|buffer-alpha --target spine1 --profile a;id
3|DCB on a veth RNIC: unsupported|pfc-misconfig --target host1:rnic1
3|DCQCN on a veth RNIC: unsupported|dcqcn-off --target host1:rnic1
2|DCQCN on a switch port|dcqcn-off --target rail1:swp1
2|DCQCN point unknown|dcqcn-off --target host1:rnic1 --point cnp
2|DSCP out of range|dscp-mismatch --target rail1:swp1 --dscp 64
2|DSCP to a priority out of range|dscp-mismatch --target rail1:swp1 --to 8
2|DSCP map of a whole switch, every port unsaid|dscp-mismatch --target rail1
BAD
expect_exit 2 "a whole switch needs --all-ports" "$RL" inject acl-error --target rail2 --from host1:rnic2 --to host3:rnic2
cp $T/check.out $T/noall.out
check "it says what it binds and what to give" grep -q 'acl-error --target rail2 binds every cabled port of rail2 (.*): give one port (rail2:swp1), or add --all-ports' $T/noall.out
"$RL" inject acl-error --target rail2 --all-ports --from host1:rnic2 --to host3:rnic2 --dry-run >$T/allports.out 2>&1
check "the plan says what a whole switch binds" grep -q '^# binds every cabled port of rail2 (.*, --all-ports)' $T/allports.out
expect_exit 3 "sonic cannot match IP IDs: unsupported" "$RL" inject ipid-drop --target rail1 --all-ports --mod 10 -i "$ROOT/lab-inventory/example-lab.yaml"
expect_exit 3 "sonic cannot drop a random share: unsupported" "$RL" inject packet-corruption --target rail1:Ethernet0 --rate 1% -i "$ROOT/lab-inventory/example-lab.yaml"
cp $T/check.out $T/sonic-corrupt.out
check "it says what the dialect cannot do" grep -q "cannot drop a random share of a port's packets" $T/sonic-corrupt.out
expect_exit 3 "dcqcn-off on a veth RNIC, again" "$RL" inject dcqcn-off --target host2:rnic3 --point np
cp $T/check.out $T/dcqcn.out
check "it says the RNIC has no DCQCN switches, and where they are" grep -q "host2:rnic3 has no DCQCN switches (/sys/class/net/rnic3/ecn/roce_np, roce_rp" $T/dcqcn.out
expect_exit 2 "load pfc --while a marker that is not there" "$RL" load pfc --dev lo --while /nonexistent/marker
expect_exit 3 "eos cannot set alpha 16: unsupported" "$RL" inject buffer-alpha --target spine1 --alpha 16 -i "$ROOT/lab-inventory/example-lab.yaml"
# A real lab's Linux router (example-lab's spine2) takes no emulation: tc queues standing in for
# PFC would cap every queue of its ports.
expect_exit 3 "PFC emulated on a real Linux router: refused" "$RL" inject pfc-misconfig --target spine2:eth1 -i "$ROOT/lab-inventory/example-lab.yaml"
cp $T/check.out $T/realrouter.out
check "it says why, and how a stand-in switch is marked" grep -q "pfc-misconfig on spine2 (dialect linux) would be emulated: tc queues standing in for PFC.*'emulated: true'" $T/realrouter.out
expect_exit 3 "a buffer emulated on a real Linux router: refused" "$RL" inject buffer-alpha --target spine2 -i "$ROOT/lab-inventory/example-lab.yaml"
sed 's/^    dialect: linux$/    dialect: linux\n    emulated: true/' "$ROOT/lab-inventory/example-lab.yaml" >$T/standin-lab.yaml
expect_exit 0 "the same on a switch marked a stand-in: planned" "$RL" inject pfc-misconfig --target spine2:eth1 --dry-run -i $T/standin-lab.yaml
cp $T/check.out $T/standin.out
check "its plan says it is emulated" grep -q "emulated PFC" $T/standin.out
check "journal unchanged by bad input ($j0 lines)" test "$(journal_lines)" -eq "$j0"
snapshot >$T/snap.after
check "lab unchanged by bad input" diff -q $T/snap.before $T/snap.after
# A lab taken down under a held fault whose injector was killed: the timers go with the
# namespaces, and so do their leases (nothing left says a timer keeps a fault here).
if start_hold "ipid-drop (--deadman 60s, its injector killed, then lab down)" ipid-drop --target spine2:swp1 --mod 10 --deadman 60s; then
	kill -9 $HOLD
	wait $HOLD 2>/dev/null
	check "... its lease is there" sh -c 'ls /run/rocelab-deadman/f*-spine2-* >/dev/null'
	check "lab down: says it removed the lease of the timer that went" sh -c '"$0" lab down 2>&1 | grep -q "removed 1 dead-man lease(s) of timers that went with the lab"' "$RL"
	check "... no lease left" test ! -e /run/rocelab-deadman
	check "... nor its timer" test -z "$(pgrep -f '[r]ocelab-deadman')"
fi
"$RL" lab down -q
