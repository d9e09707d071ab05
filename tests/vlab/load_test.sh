# SPDX-License-Identifier: MIT
# A run's load where the scenario puts it: an incast across a port goes by that port only.
SC="$ROOT/tests/vlab/scenarios/incast-across.yaml"

"$RL" lab up -q >/dev/null 2>&1 || fail "lab up"
defer "$RL" lab down -q

# Packets a spine sent out of a port: its veth's tx counter in the spine's namespace.
txp() { ip netns exec "rl-$1" ip -j -s link show dev "$2" | jq '.[0].stats64.tx.packets'; }

section "an incast across a port: every sender on source ports traced across it"
check "run --dry-run says where the incast goes" sh -c '"$0" run --dry-run "$1" | grep -q "load incast to host1:rnic1 at 40 Mbit/s, priority 3, from host2:rnic2, host3:rnic3, host4:rnic4, each on source ports traced across spine2:swp1"' "$RL" "$SC"
s1=$(txp spine1 swp1) s2=$(txp spine2 swp1)
"$RL" run -o "$T/ia" --seed 7 "$SC" >"$T/ia.out" 2>&1
rc=$?
s1=$(($(txp spine1 swp1) - s1)) s2=$(($(txp spine2 swp1) - s2))
[ $rc = 0 ] && ok "run: exit 0" || fail "run: exit $rc" "$(tail -3 "$T/ia.out" | tr '\n' ' ')"
for i in 2 3 4; do
	check "host$i:rnic$i placed across spine2:swp1 (source ports from its trace, kept)" sh -c \
		'grep -Eq "incast-across: incast host$1:rnic$1 -> host1:rnic1 across spine2:swp1: [1-8] source port\(s\) from 49[0-9]{3}" "$0/ia.out" && test -s "$0/ia/incast-across/load-paths-$(($1 - 1)).log"' "$T" "$i"
done
sent=$(sed -n 's/^load: 3 flows, [0-9]* pps each: \([0-9]*\) datagrams sent$/\1/p' "$T/ia/incast-across/load.log")
[ "${sent:-0}" -ge 5000 ] && [ "$s2" -ge "$sent" ] && [ "$s1" -lt $((sent / 5)) ] &&
	ok "the incast's $sent datagrams left by spine2:swp1 ($s2 packets out of it); spine1:swp1 sent $s1" ||
	fail "where the incast went: $sent sent, spine2:swp1 $s2 packets out, spine1:swp1 $s1" "$(cat "$T/ia/incast-across/load.log")"

section "'load send' pinned: ports read back, bad ones refused"
expect_exit 2 "a pinned port 0 is refused" "$RL" load send -i "$ROOT/lab-inventory/vlab-rail.yaml" --host host2 --flows rnic2:198.18.0.2:0 --for 10ms
cp "$T/check.out" "$T/ls.out"
check "... saying what a flow is" grep -q "is not RNIC:ADDRESS\[:PORT+PORT...\] with an RNIC of host2 and at most 8 source ports" "$T/ls.out"
expect_exit 2 "nine pinned ports are refused" "$RL" load send -i "$ROOT/lab-inventory/vlab-rail.yaml" --host host2 --flows rnic2:198.18.0.2:1+2+3+4+5+6+7+8+9 --for 10ms
