# SPDX-License-Identifier: MIT
# A lab that is not the virtual one (the virtual lab's switches under another lab name, reached
# over SSH only): keys trusted with 'lab trust', faults journaled in persistent state, and
# 'revert' without -i finding them after a crash.
section "a lab reached over SSH: lab trust, a persistent journal, revert without -i after kill -9"
STATE="${ROCELAB_STATE_DIR:-/run/rocelab}"
export ROCELAB_LIB_DIR="$T/lib"
defer 'unset ROCELAB_LIB_DIR'
"$RL" lab up -q
defer '"$RL" lab down -q'
defer 'ROCELAB_LIB_DIR="$T/lib" "$RL" revert'
RINV="$T/remote.yaml"
# Its hosts have no sshd yet: without a management address they are not SSH devices.
sed -e 's/^lab: vlab-rail$/lab: vlab-remote/' -e '/^    mgmt: 198\.19\.129\./d' \
	-e "s|credential: lab-key|credential: \"key:$STATE/ssh/lab_ed25519\"|" \
	"$ROOT/lab-inventory/vlab-rail.yaml" >"$RINV"
snapshot >"$T/snap.before"
expect_exit 3 "inject before the switches' keys are trusted: exit 3" \
	"$RL" inject ipid-drop --target spine2:swp1 --mod 10 --for 1s -i "$RINV"
cp "$T/check.out" "$T/untrusted.out"
check "it says the host key is unknown" grep -q "is not in $T/lib/known_hosts" "$T/untrusted.out"
check "lab trust --yes records the 8 switch keys under ROCELAB_LIB_DIR" \
	sh -c '"$0" lab trust -i "$1" --yes | grep -q "^8 new key(s) written"' "$RL" "$RINV"
"$RL" inject ipid-drop --target spine2:swp1 --mod 10 --hold -j -i "$RINV" >"$T/remote.out" 2>"$T/remote.err" &
pid=$!
for _ in $(seq 100); do grep -q '"outcome"' "$T/remote.out" 2>/dev/null && break; sleep 0.1; done
check "applied over SSH, the table read back (no counters read: its hosts are not reached over SSH)" \
	jq -e '.outcome == "applied" and (.evidence | test("no counters read: host[0-9] is not reached over SSH \\(no mgmt address\\)"))' "$T/remote.out"
check "the rule is on spine2" sh -c "ip netns exec rl-spine2 nft list tables | grep -q rocelab_f"
check "the journal is under ROCELAB_LIB_DIR, naming the inventory and its SHA-256" \
	jq -se --arg inv "$RINV" --arg sha "$(sha256sum "$RINV" | cut -d' ' -f1)" \
	'.[0].inventory == $inv and .[0].inventory_sha256 == $sha' "$T/lib/journal.jsonl"
check "the virtual lab's own journal has no record of it" \
	test ! -s "$STATE/journal.jsonl"
kill -9 $pid
wait $pid 2>/dev/null
check "faults lists it after kill -9" sh -c '"$0" faults | grep -q "ipid-drop.*spine2:swp1"' "$RL"
check "revert without -i reverts it on the recorded inventory" sh -c '"$0" revert | grep -q "^1 fault(s) reverted"' "$RL"
snapshot >"$T/snap.after"
check "the lab is as it was" diff -q "$T/snap.before" "$T/snap.after"
# A journal whose inventory changed since is not reverted blindly.
"$RL" inject ipid-drop --target spine2:swp1 --mod 10 --hold -j -i "$RINV" >"$T/remote.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '"outcome"' "$T/remote.out" 2>/dev/null && break; sleep 0.1; done
kill -9 $pid
wait $pid 2>/dev/null
echo "# edited" >>"$RINV"
expect_exit 3 "an inventory edited since the fault: revert refuses (exit 3)" "$RL" revert
cp "$T/check.out" "$T/changed.out"
check "it says what to do" grep -q "has changed since fault [0-9]* was applied: check it, then give -i" "$T/changed.out"
check "revert -i with the edited inventory reverts it" sh -c '"$0" revert -i "$1" | grep -q "^1 fault(s) reverted"' "$RL" "$RINV"
snapshot >"$T/snap.after"
check "the lab is as it was again" diff -q "$T/snap.before" "$T/snap.after"
"$RL" lab down -q
