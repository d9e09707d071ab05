# SPDX-License-Identifier: MIT
# Pre-flight and post-flight: a lab not as its inventory says stops the run (invalid, exit 3), and --recover reverts the journal and checks again.
NF="$ROOT/scenarios/nightly/no-fault.yaml"
# The runs the lab is broken under: 7 s of phases.
NS="$ROOT/tests/vlab/scenarios/no-fault-short.yaml"

# Until the run logging to $1 has begun its first scenario's baseline (up to 60 s), then 1 s
# more: what follows breaks the lab mid-scenario however long pre-flight took.
mid_scenario() {
	for _ in $(seq 600); do grep -q "no-fault-short: baseline " "$1" 2>/dev/null && break; sleep 0.1; done
	sleep 1
}

# A fault whose injector died (kill -9): in the lab and in the journal, reverted by nobody.
orphan_fault() {
	"$RL" inject rnic-route-missing --target host2:rnic3 --hold >/dev/null 2>&1 &
	local p=$!
	sleep 3
	kill -9 $p 2>/dev/null
	wait $p 2>/dev/null
}

"$RL" lab up -q >/dev/null 2>&1 || fail "lab up"
defer "$RL" lab down -q

section "pre-flight: a fault left behind stops the run before anything starts"
orphan_fault
check "the orphaned fault is outstanding in the journal" sh -c '"$0" faults | grep -q "rnic-route-missing  host2:rnic3"' "$RL"
expect_exit 3 "run on a lab with a leftover fault: exit 3" "$RL" run -o "$T/pf1" --seed 7 "$NF"
cp "$T/check.out" "$T/pf1.out"
check "it names the RNIC and what is wrong" grep -q "pre-flight: host2:rnic3: traffic from 198.18.3.2 to .* leaves host2 by rnic[124], not rnic3" "$T/pf1.out"
check "nothing ran: no scenario folder" test ! -e "$T/pf1/no-fault"
check "nothing was changed: the fault is still outstanding" sh -c '"$0" faults | grep -q "rnic-route-missing  host2:rnic3"' "$RL"
mkdir -p "$T/def"
expect_exit 3 "without -o, the same run, from another directory: exit 3" sh -c 'cd "$1" && "$0" run --seed 7 "$2"' "$RL" "$T/def" "$NF"
check "without -o it wrote into rocelab-results/RUN_ID, and latest points there" sh -c 'test -d "$0"/rocelab-results/latest/ && basename "$(readlink "$0"/rocelab-results/latest)" | grep -Eq "^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{4}$"' "$T/def"

section "pre-flight with --recover: the journal is reverted, the lab checked again, the run goes on"
"$RL" run -o "$T/pf2" --seed 7 --recover "$NS" >"$T/pf2.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run --recover: exit 0" || fail "run --recover: exit $rc" "$(grep -m3 'flight' "$T/pf2.out" | tr '\n' ' ')"
check "it says it reverted and that the lab is right again" grep -q "pre-flight: the lab is as its inventory says again" "$T/pf2.out"
check "the journal has nothing outstanding" sh -c '"$0" faults | grep -q "no outstanding faults"' "$RL"
check "the post-flight check passed" grep -q "post-flight: 16 RNIC(s) up" "$T/pf2.out"

section "one run a lab: a second run and another's revert are refused, naming the holder"
# Issue 56: two runs interleaved and one's --recover reverted the other's faults.
"$RL" run -o "$T/lk1" --seed 7 "$NS" >"$T/lk1.out" 2>&1 &
first=$!
mid_scenario "$T/lk1.out"
expect_exit 3 "a second run on the same lab while the first runs: exit 3" "$RL" run -o "$T/lk2" --seed 7 "$NS"
cp "$T/check.out" "$T/lk2.out"
check "... naming the run that holds the lab (pid, user, since)" grep -Eq "run: lab vlab-rail is in use by run $first of root since 20[0-9-]+T[0-9:]+Z: wait for it to end" "$T/lk2.out"
check "... and nothing of it started" test ! -e "$T/lk2/results.json"
expect_exit 3 "revert of that lab meanwhile: exit 3, its faults left to the run" "$RL" revert
cp "$T/check.out" "$T/lk-revert.out"
check "... saying so" grep -q "revert: lab vlab-rail is in use by run $first of root" "$T/lk-revert.out"
wait $first
rc=$?
[ $rc -eq 0 ] && ok "the first run went on and passed" || fail "the first run: exit $rc" "$(tail -3 "$T/lk1.out" | tr '\n' ' ')"
check "once it ended, the lab is free again" "$RL" revert

section "post-flight: a lab broken during a scenario makes it invalid and stops the run"
(mid_scenario "$T/pf3.out"; ip -n rl-host3 addr del 198.18.2.3/24 dev rnic2) &
"$RL" run -o "$T/pf3" --seed 7 "$NS" "$NS" >"$T/pf3.out" 2>&1
rc=$?
wait
[ $rc -eq 3 ] && ok "run with the lab broken mid-scenario: exit 3" || fail "post-flight: exit $rc, want 3" "$(tail -3 "$T/pf3.out" | tr '\n' ' ')"
check "the scenario is invalid with the post-flight reason" \
	jq -e '.scenarios[0].verdict == "invalid" and (.scenarios[0].reason | test("post-flight: host3:rnic2: rnic2 does not have 198.18.2.3/24"))' "$T/pf3/results.json"
check "the next scenario did not run" jq -e '.scenarios[1].verdict == "invalid" and (.scenarios[1].reason | startswith("not run: post-flight"))' "$T/pf3/results.json"
"$RL" lab down -q
"$RL" lab up -q >/dev/null 2>&1 || fail "lab up again"

section "post-flight: a switch link left down (read in the switch's dialect) stops the run"
(mid_scenario "$T/pf5.out"; ip -n rl-spine2 link set swp3 down) &
"$RL" run -o "$T/pf5" --seed 7 "$NS" "$NS" >"$T/pf5.out" 2>&1
rc=$?
wait
[ $rc -eq 3 ] && ok "run with a spine port downed mid-scenario: exit 3" || fail "link post-flight: exit $rc, want 3" "$(tail -3 "$T/pf5.out" | tr '\n' ' ')"
check "the scenario is invalid, naming the link and what the switch says" \
	jq -e '.scenarios[0].verdict == "invalid" and (.scenarios[0].reason | test("post-flight: link rail3:swp6--spine2:swp3 is down at (rail3:swp6|spine2:swp3) \\((rail3|spine2) says [A-Z]+\\)"))' "$T/pf5/results.json"
check "the pre-flight had read every link up" grep -q "^pre-flight: 32 link(s) up at their switch ports" "$T/pf5.out"
ip -n rl-spine2 link set swp3 up
"$RL" lab down -q
"$RL" lab up -q >/dev/null 2>&1 || fail "lab up again"

section "post-flight with --recover: a fault left behind mid-run is reverted and the run goes on"
(mid_scenario "$T/pf4.out"; orphan_fault) &
"$RL" run -o "$T/pf4" --seed 7 --recover "$NS" "$NS" >"$T/pf4.out" 2>&1
rc=$?
wait
[ $rc -eq 3 ] && ok "run --recover with a fault left mid-scenario: exit 3 (one invalid)" || fail "post-flight --recover: exit $rc, want 3" "$(tail -3 "$T/pf4.out" | tr '\n' ' ')"
check "the first scenario is invalid: the lab was not right after it" \
	jq -e '.scenarios[0].verdict == "invalid" and (.scenarios[0].reason | test("post-flight: host2:rnic3"))' "$T/pf4/results.json"
check "the journal was reverted and the lab checked again" grep -q "post-flight: the lab is as its inventory says again" "$T/pf4.out"
check "the second scenario ran and passed" jq -e '.scenarios[1].verdict == "pass"' "$T/pf4/results.json"
check "the journal has nothing outstanding" sh -c '"$0" faults | grep -q "no outstanding faults"' "$RL"
check "every results.json of these runs is valid against reports/results.schema.json" results_valid "$T"/pf[2345]
