# SPDX-License-Identifier: MIT
# Foundation tests: bad inventories change nothing; the built-in lab routes, balances, serves SSH, and leaves nothing behind.
INV="$ROOT/lab-inventory/vlab-rail.yaml"

section "bad inventories are refused before anything is created"
for f in "$ROOT"/tests/harness/lib/inventory/bad-*.yaml; do
	want=$(head -1 "$f" | sed 's/^# expect: //')
	"$RL" lab up -q -i "$f" >$T/out 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -qF "$f:$want" $T/out && [ -z "$(leftovers)" ]; then
		ok "lab up -i $(basename "$f"): exit 2 at ${want%%: *}, nothing created"
	else
		fail "lab up -i $(basename "$f")" "exit $rc: $(head -2 $T/out | tr '\n' ' ') left: $(leftovers | tr '\n' ' ')"
	fi
done
expect_exit 2 "lab up -i missing file: exit 2" "$RL" lab up -i /nonexistent.yaml
expect_exit 2 "unknown option: exit 2" "$RL" lab up --frobnicate
expect_exit 2 "unknown command: exit 2" "$RL" lab sideways
expect_exit 2 "a misspelt command: exit 2" "$RL" injet --target rail1:swp1
cp "$T/check.out" "$T/injet.out"
check "... suggesting the nearest one (issue 58)" grep -qx "rocelab: unknown command 'injet': did you mean 'inject'? (see --help)" "$T/injet.out"
expect_exit 2 "run --fan-out 0: refused (1 to 256)" "$RL" run --fan-out 0 "$ROOT/scenarios/nightly/no-fault.yaml"
cp "$T/check.out" "$T/fanout.out"
check "... saying what to give" grep -q "run: --fan-out '0': give 1 to 256" "$T/fanout.out"
expect_exit 2 "qualify --fan-out 257: refused, nothing run" "$RL" qualify --rules /nonexistent --fan-out 257
cp "$T/check.out" "$T/qfanout.out"
check "... saying what to give" grep -q "qualify: --fan-out '257': give 1 to 256" "$T/qfanout.out"
expect_exit 2 "inject -i missing file: exit 2" "$RL" inject link-flap --target rail1:swp1 -i /nonexistent.yaml
expect_exit 2 "inject -i a bad inventory: exit 2" "$RL" inject link-flap --target rail1:swp1 -i "$ROOT/tests/harness/lib/inventory/bad-duplicate-host.yaml"
check "nothing was created by refused commands" test -z "$(leftovers)"
# A file's bytes quoted in an error are shown, not obeyed by the terminal (issue 56).
sed 's/name: "host 1;rm"/name: "host1\\e]0;pwned\\a"/' "$ROOT/tests/harness/lib/inventory/bad-bad-name.yaml" >"$T/esc.yaml"
"$RL" inventory check "$T/esc.yaml" >"$T/esc.out" 2>&1
check "an escape sequence in an inventory's name is printed as \\x1b, not sent to the terminal" \
	sh -c 'grep -q "host1\\\\x1b\]0;pwned\\\\x07" "$0" && ! grep -q "$(printf "\033")" "$0"' "$T/esc.out"
# Issue 58: --virtual of a standing lab is one line that says where and what to do, not ~80.
expect_exit 2 "inventory check --virtual of a lab of kind ssh: exit 2" \
	"$RL" inventory check --virtual "$ROOT/lab-inventory/example-lab.yaml"
cp "$T/check.out" "$T/virt.out"
check "... in one line, at its 'kind: ssh', saying to leave out --virtual" \
	sh -c '[ "$(wc -l <"$0")" -eq 1 ] && grep -q "example-lab.yaml:33:7: lab example-lab is of kind ssh, .*; check it without --virtual$" "$0"' "$T/virt.out"
# Issue 58: a containerlab topology as an inventory; -o never overwrites, a bad file writes nothing.
CL="$ROOT/tests/harness/lib/clab"
check "inventory import containerlab: a whole topology, an inventory that checks" \
	sh -c '"$0" inventory import containerlab "$1/rail.clab.yml" -o "$2" && "$0" inventory check "$2" | grep -q "ok: lab clab-rail, 2 hosts, 4 RNICs, 3 switches, 6 links"' "$RL" "$CL" "$T/clab.yaml"
expect_exit 2 "... -o onto a file that is there: refused" "$RL" inventory import containerlab "$CL/rail.clab.yml" -o "$T/clab.yaml"
expect_exit 1 "... a rough topology: written, its problems reported (exit 1)" "$RL" inventory import containerlab "$CL/rough.clab.yml" -o "$T/rough.yaml"
cp "$T/check.out" "$T/rough.out"
check "... each as TOPO:LINE:COL, and counted" sh -c 'grep -q "rough.clab.yml:7:5: node leaf2: kind .nokia_srlinux. is not one rocelab drives" "$0" && grep -q "8 thing(s) to add or fix (above) in $1" "$0"' "$T/rough.out" "$T/rough.yaml"
expect_exit 2 "... an inventory given as a topology: refused, nothing written" "$RL" inventory import containerlab "$ROOT/lab-inventory/vlab-rail.yaml" -o "$T/none.yaml"
check "... no file left" test ! -e "$T/none.yaml"

section "the agents' binary maps only what an agent uses (issue 59: RSS)"
check "rocelab-agent needs libc, libyaml and zlib: no libibverbs (loaded for verbs only), no libm" \
	sh -c 'test "$(readelf -d "$0" | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1/p" | sort | tr "\n" " ")" = "libc.so.6 libyaml-0.so.2 libz.so.1 "' "$ROOT/build/rocelab-agent"
check "rocelab does not link libibverbs either" sh -c '! readelf -d "$0" | grep -q libibverbs' "$RL"

section "every command answers --help and --version"
check "rocelab --version" sh -c '"$0" --version | grep -qE "^rocelab [0-9]+\.[0-9]+"' "$RL"
for c in "lab up" "lab down" "lab status" "lab ssh" "lab trust" "inventory check" "inventory gen" "inventory import" export inject revert faults "load" trace observe run "agent hostmesh" "agent rpingmesh" "controller pinglist" analyze "analyze --monitor rpingmesh"; do
	expect_exit 0 "rocelab $c --help" "$RL" $c --help
done
check "analyze --help says it has other monitors than its default (issue 58)" \
	sh -c '"$0" analyze --help | head -1 | grep -q "^rocelab analyze --monitor NAME: NAME is one of hostmesh, rpingmesh (default hostmesh)"' "$RL"
# Issue 64: what each monitor can localize, before anything runs, on every shipped inventory.
for f in "$ROOT"/lab-inventory/*.yaml; do
	check "observe ${f##*/}: both monitors' coverage as JSON" \
		sh -c '"$0" observe -i "$1" -j | jq -se "map(.monitor) == [\"hostmesh\",\"rpingmesh\"] and all(.[]; .rnics.total > 0)" >/dev/null' "$RL" "$f"
done
check "observe: the built-in lab, every link and switch alone for both monitors" \
	sh -c '"$0" observe -j | jq -se "all(.[]; .fabric_links.alone == 16 and .rnics.alone == 16 and .switches.alone == 8 and (.classes | length) == 0)" >/dev/null' "$RL"
"$RL" inventory gen --hosts 12 --rnics 2 --spines 2 --name thin >"$T/thin.yaml"
"$RL" observe -i "$T/thin.yaml" >"$T/thin.obs"
check "observe a thin lab (2 rails, 2 spines): a spine and its two rail links are one class" \
	grep -q "^    {rail1:swp13--spine1:swp1, rail2:swp13--spine1:swp2, spine1}$" "$T/thin.obs"
check "... and Hostmesh cannot tell a host's two RNICs apart" \
	sh -c 'sed -n "/^hostmesh/,/^rpingmesh/p" "$0" | grep -q "^  RNICs (with their links): 0 of 24" && grep -q "^    {host1:rnic1--rail1:swp1, host1:rnic2--rail2:swp1}$" "$0"' "$T/thin.obs"
check "run --dry-run on it: the truth is graded against its class" \
	sh -c '"$0" run -n --seed 7 -i "$1" "$2" | grep -Eq "the truth spine[12]:swp[12]: graded against its class of 3"' "$RL" "$T/thin.yaml" "$ROOT/scenarios/ci/ipid-drop.yaml"
expect_exit 2 "observe --monitor of a component that is no monitor: refused" "$RL" observe --monitor mprdma
# One list of kinds (injectors/kinds/kinds.c): 'inject --help' from it, and the reference's fault
# table (docs/faults.md) and the shell's completion ('inject --help' again) must name each.
kinds=$("$RL" inject --help | awk '/^  [a-z]+-[a-z-]+ +--target/ {print $1}')
missing=$(for k in $kinds; do grep -q "^| $k |" "$ROOT/docs/faults.md" || printf '%s ' "$k"; done)
check "every fault kind ($(echo $kinds | wc -w)) has its row in the fault table of docs/faults.md${missing:+: missing $missing}" \
	test -z "$missing" -a -n "$kinds"
check "observe --set profile=NOPE: refused naming the profiles there are" \
	sh -c '"$0" observe --monitor rpingmesh --set profile=nope >/dev/null 2>&1; [ $? -eq 2 ] && "$0" observe --monitor rpingmesh --set profile=nope 2>&1 | grep -q "rpingmesh has no profile .nope. (it has: paper, ci, vm)"' "$RL"
check "observe --set profile=ci --set inter-tor=1: a profile, then a parameter over it" \
	sh -c '"$0" observe --monitor rpingmesh --set profile=ci --set inter-tor=1 | grep -q "^rpingmesh on vlab-rail: "' "$RL"
# EOS port names carry '/': a valid fault target, planned without touching anything.
"$RL" inject link-flap --target spine1:Ethernet1/1 -i "$ROOT/lab-inventory/example-lab.yaml" --dry-run >$T/out 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^interface Ethernet1/1$" $T/out; then ok "inject --dry-run on EOS spine1:Ethernet1/1 plans 'interface Ethernet1/1'"; else fail "EOS port target" "exit $rc: $(head -3 $T/out | tr '\n' ' ')"; fi
# A bad scenario first, then a good one: refused with the error, and nothing started (it crashed).
expect_exit 2 "run -n: a bad scenario before a good one is refused" "$RL" run -n \
	"$ROOT/tests/harness/run/scenario/bad-duration.yaml" "$ROOT/scenarios/nightly/no-fault.yaml"
expect_exit 2 "a target with a shell metacharacter is refused" "$RL" inject link-flap --target 'spine1:Ethernet1/1;reboot' -i "$ROOT/lab-inventory/example-lab.yaml" --dry-run
# R-Pingmesh's pinglists, offline: the brief's F.2 counts on the built-in lab, touching nothing.
"$RL" controller pinglist --host host3 -i "$ROOT/lab-inventory/vlab-rail.yaml" -j >$T/pl.json 2>$T/pl.err
check "controller pinglist: host3's RNICs 3 ToR-mesh and 9 inter-ToR targets each, 13 ports across the spines" \
	jq -e '([.targets[] | select(.list == "tor-mesh")] | length == 12) and ([.targets[] | select(.list == "inter-tor" and (.sports | length) == 13)] | length == 36)' $T/pl.json
expect_exit 2 "controller pinglist: an unknown host is refused" "$RL" controller pinglist --host host9 -i "$ROOT/lab-inventory/vlab-rail.yaml"
expect_exit 2 "controller pinglist: --sports past 64 is refused" "$RL" controller pinglist --host host1 --sports 65 -i "$ROOT/lab-inventory/vlab-rail.yaml"

section "lab up / status"
check "lab up (built-in vlab-rail)" "$RL" lab up -q
defer '"$RL" lab down -q'
expect_exit 3 "a second lab up is refused with exit 3" "$RL" lab up -q
"$RL" lab status -j >$T/status.json
check "status: 4 hosts" test "$(jq '.hosts|length' $T/status.json)" = 4
check "status: 16 RNICs with name, netdev, address" test "$(jq '[.hosts[].rnics[]|select(.name and .netdev and .address)]|length' $T/status.json)" = 16
check "status: 8 switches (4 rail, 4 spine)" test "$(jq -c '[.switches[].role]|group_by(.)|map(length)' $T/status.json)" = "[4,4]"
check "status: 32 links, all up" test "$(jq '[.links[]|select(.state=="up")]|length' $T/status.json)" = 32
check "status: every sshd running" test "$(jq '[.switches[]|select(.sshd=="running")]|length' $T/status.json)" = 8
check "status: says who brought the lab up (this test's session)" \
	test "$(jq .brought_up_by.session $T/status.json)" = "$(ps -o sid= $$ | tr -d ' ')"
# What a killed test run left, the next run takes down (run.sh); never a lab another session
# brought up, nor one whose run still lives.
mark_test() { (RUN_MARK=$T/run.mark && echo "$1 $2" >"$RUN_MARK" && touch -d '-1 min' "$RUN_MARK" && interrupted_run); }
not() { ! "$@"; }
dead=$(sh -c 'echo $$'); mine=$(ps -o sid= $$ | tr -d ' ')
sleep 60 & live=$!
check "a lab brought up in a dead test run's session is that run's leftover" mark_test "$dead" "$mine"
check "... not while the run lives" not mark_test "$live" "$mine"
check "... nor a lab another session brought up" not mark_test "$dead" $((mine + 1))
kill $live 2>/dev/null; wait $live 2>/dev/null

section "(a) every RNIC of a host reaches every other RNIC of that host"
pairs=0
bad=""
for h in 1 2 3 4; do
	for a in 1 2 3 4; do
		for b in 1 2 3 4; do
			[ $a = $b ] && continue
			pairs=$((pairs + 1))
			ip netns exec rl-host$h ping -q -c1 -W2 -I 198.18.$a.$h 198.18.$b.$h >/dev/null 2>&1 ||
				bad="$bad host$h:rnic$a->rnic$b"
		done
	done
done
if [ -z "$bad" ]; then ok "$pairs same-host RNIC pairs reachable"; else fail "same-host reachability" "$bad"; fi

section "(b) a UDP flow host1:rnic1 -> host1:rnic2 crosses rail1, a spine, rail2"
"$RL" trace host1:rnic1 host1:rnic2 --sport 49200 -j >$T/trace.json
check "trace reached host1:rnic2" test "$(jq .reached $T/trace.json)" = true
check "hop 1 is rail1 (in on host1:rnic1 -- rail1:swp1)" test "$(jq -r '.hops[0].device + " " + .hops[0].link' $T/trace.json)" = "rail1 host1:rnic1 -- rail1:swp1"
check "hop 2 is a spine" grep -q '^spine[1-4]$' <(jq -r '.hops[1].device' $T/trace.json)
check "hop 3 is rail2, in from that spine" grep -qE '^rail2 rail2:swp[5-8] -- spine[1-4]:swp2$' <(jq -r '.hops[2].device + " " + .hops[2].link' $T/trace.json)
check "hop 4 is the destination host1:rnic2" test "$(jq -r '.hops[3].port' $T/trace.json)" = "host1:rnic2"
check "the spine of hop 2 is the one hop 3 came from" test "$(jq -r '.hops[1].device' $T/trace.json)" = "$(jq -r '.hops[2].link|split(" -- ")[1]|split(":")[0]' $T/trace.json)"

section "(c) 64 source ports spread over all 4 spines (ECMP, L4 hash)"
spine_rx() { # total rx packets on the rail1-facing port (swp1) of spine $1
	ip netns exec rl-spine$1 cat /sys/class/net/swp1/statistics/rx_packets
}
declare -A before
for s in 1 2 3 4; do before[$s]=$(spine_rx $s); done
check "64 ports x 20 datagrams sent host1:rnic1 -> host1:rnic2" ip netns exec rl-host1 "$TOOLS/udpsend" 198.18.1.1 198.18.2.1 4791 40000 64 20
spread=""
all=1
for s in 1 2 3 4; do
	d=$(( $(spine_rx $s) - ${before[$s]} ))
	spread="$spread spine$s:+$d"
	[ $d -ge 20 ] || all=0
done
if [ $all = 1 ]; then ok "every spine carried traffic ($spread )"; else fail "ECMP spread" "$spread"; fi

section "(d) libssh logs into every switch; a changed host key is refused"
for sw in rail1 rail2 rail3 rail4 spine1 spine2 spine3 spine4; do
	out=$("$RL" lab ssh $sw ip -br link show swp1 2>&1)
	if [ $? -eq 0 ] && [[ "$out" == swp1* ]]; then ok "ssh $sw: ran 'ip link' in the switch namespace"; else fail "ssh $sw" "$out"; fi
done
expect_exit 7 "remote exit status is passed through" "$RL" lab ssh spine1 exit 7
# Re-key rail2's sshd as a reinstalled switch would; its known_hosts entry no longer matches.
kd="${ROCELAB_STATE_DIR:-/run/rocelab}/ssh/rail2"
rm -f "$kd/ssh_host_ed25519_key" "$kd/ssh_host_ed25519_key.pub"
ssh-keygen -q -t ed25519 -N '' -C rekeyed -f "$kd/ssh_host_ed25519_key" </dev/null >/dev/null
kill -HUP "$(cat "$kd/sshd.pid.rocelab")"
sleep 0.5
"$RL" lab ssh rail2 true >$T/out 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q "does not match" $T/out; then ok "changed host key of rail2 refused (exit 3)"; else fail "changed host key" "exit $rc: $(cat $T/out)"; fi
check "other switches still accepted" "$RL" lab ssh rail3 true
check "lab ssh -i names the inventory" "$RL" lab ssh -i "$INV" rail3 true
expect_exit 2 "lab ssh -i a missing inventory: exit 2" "$RL" lab ssh -i /nonexistent.yaml rail3 true

section "lab trust: host keys shown, recorded only with --yes, a changed key refused"
"$RL" lab trust -j >"$T/trust.json" 2>"$T/trust.err"
rc=$?
[ $rc -eq 3 ] && [ "$(jq -c '[.devices[] | select(.state != "known") | .device + " " + .state]' "$T/trust.json")" = '["rail2 CHANGED"]' ] &&
	ok "the lab's own known_hosts: 7 keys known, re-keyed rail2 CHANGED, exit 3" ||
	fail "lab trust: exit $rc" "$(jq -c '[.devices[] | .device + " " + .state]' "$T/trust.json")"
want=$(ssh-keygen -lf "${ROCELAB_STATE_DIR:-/run/rocelab}/ssh/rail1/ssh_host_ed25519_key.pub" | awk '{print $2}')
check "rail1's fingerprint is what ssh-keygen -l says of its key ($want)" \
	test "$(jq -r '.devices[] | select(.device == "rail1") | .fingerprint' "$T/trust.json")" = "$want"
KH="$T/kh/known_hosts"
"$RL" lab trust --known-hosts "$KH" >"$T/trust.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' new$' "$T/trust.out")" = 8 ] && [ ! -e "$KH" ] &&
	ok "an empty known_hosts: 8 new keys shown, nothing written without --yes" || fail "lab trust without --yes: exit $rc" "$(tail -2 "$T/trust.out")"
"$RL" lab trust --known-hosts "$KH" --yes >"$T/trust.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$KH")" = 8 ] && grep -q '^8 new key(s) written' "$T/trust.out" &&
	ok "--yes writes the 8 keys" || fail "lab trust --yes: exit $rc" "$(tail -2 "$T/trust.out")"
check "then all 8 are known" test "$("$RL" lab trust --known-hosts "$KH" | grep -c ' known$')" = 8
# Written is what was shown (issue 56: a second connection's key was written, then compared).
check "the keys written are the keys shown, fingerprint for fingerprint" \
	sh -c 'test "$(grep -o "SHA256:[A-Za-z0-9+/]*" "$1" | sort)" = "$(ssh-keygen -lf "$0" | awk "{print \$2}" | sort)"' "$KH" "$T/trust.out"
k1=$(sed -n 1p "$KH" | awk '{print $3}')
k2=$(sed -n 2p "$KH" | awk '{print $3}')
awk -v a="$k1" -v b="$k2" 'NR == 1 { $3 = b } NR == 2 { $3 = a } { print }' "$KH" >"$KH.new" && mv "$KH.new" "$KH"
sum=$(md5sum <"$KH")
expect_exit 3 "two swapped keys: exit 3" "$RL" lab trust --known-hosts "$KH" --yes
check "both named CHANGED" test "$(grep -c ' CHANGED$' "$T/check.out")" = 2
check "known_hosts untouched" test "$sum" = "$(md5sum <"$KH")"

section "SIGTERM during lab up removes what was created"
check "lab down" "$RL" lab down -q
"$ROOT/build/rocelab" inventory gen --hosts 16 --rnics 8 --spines 8 --name big >$T/big.yaml
"$RL" lab up -q -i $T/big.yaml >$T/out 2>&1 &
upid=$!
sleep 0.15
kill -TERM $upid
wait $upid
rc=$?
if [ $rc -ne 0 ] && [ -z "$(leftovers)" ]; then
	ok "interrupted lab up (exit $rc) left nothing"
elif [ $rc -eq 0 ]; then
	ok "lab up finished before the signal (nothing to check)"
	"$RL" lab down -q
else
	fail "interrupted lab up" "exit $rc, left: $(leftovers | tr '\n' ' ')"
fi

section "(e) lab down leaves nothing behind"
"$RL" lab up -q >/dev/null 2>&1
check "lab down" "$RL" lab down -q
check "no namespace, link, sshd or state remains" test -z "$(leftovers)"
expect_exit 3 "status with no lab: exit 3" "$RL" lab status
check "lab down with no lab is harmless" "$RL" lab down -q

section "run --dry-run resolves and plans, touching nothing"
"$RL" run --dry-run --seed 7 -o "$T/dry" scenarios/ci/*.yaml >"$T/dry.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "dry run of every CI scenario: exit 0" || fail "dry run: exit $rc" "$(tail -2 "$T/dry.out" | tr '\n' ' ')"
check "a plan for every CI scenario" test "$(grep -c '^scenario ' "$T/dry.out")" = "$(ls scenarios/ci/*.yaml | wc -l)"
check "the ipid-drop plan shows its nft rule and its undo" grep -q 'ssh spine3 revert: nft delete table inet rocelab_f1' "$T/dry.out"
check "a host fault is planned as netlink ops" grep -q 'netlink host1 apply: rule-del 102' "$T/dry.out"
check "targets by role say what was asked and the seed" grep -q 'target { role: spine-port }, picked with seed 7' "$T/dry.out"
"$RL" run --dry-run --seed 7 scenarios/ci/*.yaml >"$T/dry2.out" 2>&1
check "the same seed picks the same targets" cmp -s "$T/dry.out" "$T/dry2.out"
# Issue 58: everything that will happen and be graded, and a closing summary.
check "each scenario names its seed, which 'run --seed' repeats" \
	test "$(grep -c "^  seed 7: its targets by role and the agents' source ports ('run --seed 7' picks the same)$" "$T/dry.out")" = "$(ls scenarios/ci/*.yaml | wc -l)"
check "services: their paths crossing or avoiding the fault, and what they expect" sh -c 'grep -Eq "^  service svc-a: host[0-9]:rnic[0-9] -> host[0-9]:rnic[0-9] at 4 Mbit/s, on a source port whose path crosses [a-z0-9]+:swp[0-9]+; expect: network-related$" "$0" && grep -Eq "^  service svc-b: .*, on a source port whose path avoids [a-z0-9]+:swp[0-9]+; expect: never impacted$" "$0"' "$T/dry.out"
check "each monitor's own expectation where several are graded (R-Pingmesh's silence)" sh -c 'grep -A16 "^scenario acl-error " "$0" | grep -q "^    expect: no verdict at all, at most 0 false positive(s)$" && grep -A16 "^scenario acl-error " "$0" | grep -Eq "^    expect: switch on spine[0-9] within 5500ms \(its parameters. design time\)"' "$T/dry.out"
check "the closing summary: faults planned, none refused, devices touched" \
	grep -Eq "^dry run: $(ls scenarios/ci/*.yaml | wc -l) scenario\(s\): [1-9][0-9]* fault\(s\) planned, 0 this lab cannot do, [0-9]+ emulated; devices touched: [a-z0-9 ]*spine[0-9]" "$T/dry.out"
# The CI suite is portable: the same files plan on the example real lab
# (SONiC and NVUE rails, an EOS and a Linux spine, hosts over SSH).
"$RL" run --dry-run --seed 7 -i "$ROOT/lab-inventory/example-lab.yaml" scenarios/ci/*.yaml >"$T/real.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "dry run of the CI suite on example-lab: exit 0" || fail "dry run on example-lab: exit $rc" "$(grep -m3 -i 'cannot\|error\|yaml:' "$T/real.out" | tr '\n' ' ')"
check "a plan for every CI scenario on example-lab" test "$(grep -c '^scenario ' "$T/real.out")" = "$(ls scenarios/ci/*.yaml | wc -l)"
check "SONiC commands" grep -q 'ssh rail[1-4] apply: sudo config interface shutdown Ethernet' "$T/real.out"
check "NVUE commands" grep -q 'ssh rail[5-8] apply: nv set interface swp' "$T/real.out"
check "EOS commands" grep -q 'ssh spine1 apply: configure' "$T/real.out"
check "host faults as commands over SSH" grep -q 'ssh gpu-node0[12] apply: ip rule del pref' "$T/real.out"
check "ipid-drop lands on the one spine that can match IP IDs" grep -q 'inject ipid-drop --target spine2:eth' "$T/real.out"
# Issue 63: every device a fault changes gets its own dead-man timer first: a process where the
# login is a shell, a configuration session's commit timer on EOS.
check "dead-man timers on SONiC and NVUE rails, the Linux spine and the hosts, each running its undo" \
	sh -c 'for d in "rail[1-4]" "rail[5-8]" spine2 "gpu-node0[12]"; do grep -Eq "^    shell $d dead-man: .*; if it passes, [a-z0-9-]+ runs: ." "$0" || exit 1; done' "$T/real.out"
check "... each before the first step on its device, the EOS spine's too" \
	awk '/^    # / || / (check|counter|counters): / { next } /^    (ssh|netlink|shell) / { d = $2; if (!(d in seen)) { seen[d] = 1; if ($3 != "dead-man:") bad = 1 } } /^  fault|^scenario/ { delete seen } END { exit bad }' "$T/real.out"
check "the EOS spine's: an empty configuration session committed with a commit timer, given again while the injector lives, confirmed after the revert" \
	sh -c 'grep -q "^    configure session rocelab-f[0-9]*-[A-Za-z0-9]* commit timer 00:01:00\$" "$0" && grep -Eq "^    ssh spine1 dead-man: its timer given again, 30 s, every 10 s while the injector lives: configure session rocelab-f[0-9]+-[A-Za-z0-9]+ commit timer 00:00:30; if it passes, EOS rolls back to its configuration as armed, undoing: configure; " "$0" && grep -Eq "^    ssh spine1 dead-man: confirmed after the revert, ending the timer: configure session rocelab-f[0-9]+-[A-Za-z0-9]+ commit\$" "$0" && ! grep -q "no dead-man timer on" "$0"' "$T/real.out"
check "no emulation on a real switch: what is emulated there is a host's own condition (cpu-hog, host-down)" \
	awk '/^    # [a-z-]+ [A-Za-z0-9_.:-]+$/ { k = $2; d = $3 } /^    # emulated:/ { n++; if ((k != "cpu-hog" && k != "host-down") || d !~ /^gpu-node/) bad = 1 } END { exit bad || n != 2 }' "$T/real.out"
check "NVUE rails are asked for pending changes first" grep -q "ssh rail[5-8] check: nv config diff -o commands: refused unless it lists no pending change" "$T/real.out"
check "packet-corruption lands on the one spine that can drop a random share" grep -q 'inject packet-corruption --target spine2:eth[0-9]* --rate 5%' "$T/real.out"
bad=0
for seed in 1 2 3 4 5 6 8 9; do
	"$RL" run --dry-run --seed $seed -i "$ROOT/lab-inventory/example-lab.yaml" scenarios/ci/*.yaml >/dev/null 2>"$T/real.err" || {
		bad=1
		fail "CI suite on example-lab, seed $seed" "$(head -2 "$T/real.err" | tr '\n' ' ')"
	}
done
[ $bad -eq 0 ] && ok "the CI suite plans on example-lab with 8 more seeds"
check "nothing was created (no lab, no state, no output folder)" sh -c "test -z \"\$1\" && ! test -e \"\$2\"" _ "$(leftovers)" "$T/dry"
cat >"$T/sonic.yaml" <<'EOF2'
name: sonic-faults
faults:
  - { kind: link-flap, target: "rail1:Ethernet0" }
  - { kind: packet-corruption, target: "rail1:Ethernet4", options: { rate: "1%" } }
expect: { class: switch-link }
EOF2
"$RL" run --dry-run -i "$ROOT/lab-inventory/example-lab.yaml" "$T/sonic.yaml" >"$T/dry.out" 2>&1
rc=$?
[ $rc -eq 3 ] && ok "dry run on a SONiC lab: a fault SONiC cannot do exits 3" || fail "dry run on SONiC: exit $rc, want 3"
check "it says why" grep -q 'cannot be planned: dialect sonic of switch rail1 cannot drop a random share' "$T/dry.out"
check "... and the summary counts it" grep -q "^dry run: 1 scenario(s): 1 fault(s) planned, 1 this lab cannot do, 0 emulated; devices touched: rail1$" "$T/dry.out"
check "the flap is planned in SONiC's own commands" grep -q 'sudo config interface shutdown Ethernet0' "$T/dry.out"

section "revert without -i: a stray namespace of ours does not keep real labs' faults from it"
# Issue 56: any rl- namespace made revert exit 3 "no lab is up" before it read real labs'
# journal. A fault of a real lab (no action: nothing to run; its lab at loopback addresses
# where nothing listens) must be reverted all the same, and the stray namespace named.
ip netns add rl-stray
defer 'ip netns del rl-stray'
mkdir -p "$T/rlib"
cp "$ROOT/tests/vlab/loop-lab.yaml" "$T/loop-lab.yaml"
printf '{"id":1,"event":"planned","kind":"link-flap","target":"host1:rnic1","pid":1,"pid_start":1,"inventory":"%s","inventory_sha256":"%s","actions":[]}\n{"id":1,"event":"applied"}\n' \
	"$T/loop-lab.yaml" "$(sha256sum <"$T/loop-lab.yaml" | cut -c1-64)" >"$T/rlib/journal.jsonl"
ROCELAB_LIB_DIR="$T/rlib" "$RL" revert >"$T/stray.out" 2>&1
rc=$?
[ $rc -eq 3 ] && ok "revert with a stray namespace: exit 3" || fail "revert with a stray namespace: exit $rc, want 3" "$(tail -2 "$T/stray.out" | tr '\n' ' ')"
check "... and the real lab's fault was reverted all the same" grep -q "^1 fault(s) reverted" "$T/stray.out"
ip netns del rl-stray
