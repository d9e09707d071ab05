# SPDX-License-Identifier: MIT
# The pytest plugin (harness/pytest/pytest_rocelab.py) with Debian's python3-pytest on the
# virtual lab: a fault applied, verified and reverted around a block, also when the test fails
# inside it, when pytest gets SIGINT or SIGTERM, and when it is killed -9.
export PYTHONPATH="$ROOT/harness/pytest" PYTHONDONTWRITEBYTECODE=1
PY=(/usr/bin/python3 -m pytest -p pytest_rocelab -p no:cacheprovider --rocelab "$RL" -q)
# Debian's python3 (its python3-pytest). Python leaves SIGINT ignored when it starts with it ignored (a background job of this
# script): restored, as at a terminal.
PY_INT=(/usr/bin/python3 -c 'import signal, sys, pytest; signal.signal(signal.SIGINT, signal.default_int_handler); sys.exit(pytest.main(sys.argv[1:]))'
	-p pytest_rocelab -p no:cacheprovider --rocelab "$RL" -q)
nofaults() { "$RL" faults -j | jq -e 'length == 0' >/dev/null; }

"$RL" lab up -q >/dev/null 2>&1 || fail "lab up"
defer "$RL" lab down -q

section "pytest: faults applied, verified and reverted around a block"
"${PY[@]}" --junitxml "$T/py.xml" "$ROOT/tests/pytest/test_plugin.py" >"$T/py.out" 2>&1
rc=$?
[ $rc = 0 ] && ok "the plugin's tests pass ($(grep -Eo '[0-9]+ passed' "$T/py.out"))" ||
	fail "pytest tests/pytest/test_plugin.py: exit $rc" "$(tail -25 "$T/py.out")"
check "pytest's JUnit XML carries each fault's evidence as a property" \
	grep -Eq '<property name="rocelab_fault" value="rnic-route-missing host2:rnic3: applied: .+"' "$T/py.xml"
check "nothing outstanding, the lab left up" sh -c '"$0" faults -j | jq -e "length == 0" && "$0" lab status >/dev/null' "$RL"

section "pytest: reverted when the test fails inside the fault"
expect_exit 1 "a test failing inside the fault: pytest exit 1" "${PY[@]}" -rA "$ROOT/tests/pytest/failing"
cp "$T/check.out" "$T/fail.out"
check "its report names the failure and the fault's evidence, reverted" sh -c 'grep -q "failed on purpose inside the fault" "$0" && grep -Eq "fault [0-9]+ rnic-route-missing host2:rnic3: applied \(.+\); reverted" "$0"' "$T/fail.out"
check "nothing outstanding" nofaults

section "pytest interrupted while the fault is held: SIGINT, SIGTERM, kill -9"
for sig in INT TERM KILL; do
	rm -f "$T/held"
	HELD_MARK="$T/held" "${PY_INT[@]}" "$ROOT/tests/pytest/held" >"$T/held-$sig.out" 2>&1 &
	pid=$!
	for _ in $(seq 300); do [ -s "$T/held" ] && break; sleep 0.1; done
	check "the fault is live and held (SIG$sig next)" sh -c '"$0" faults -j | jq -e "length == 1 and .[0].held"' "$RL"
	kill -$sig $pid
	wait $pid 2>/dev/null
	for _ in $(seq 150); do nofaults && break; sleep 0.1; done
	check "pytest $([ $sig = KILL ] && echo "killed -9" || echo "sent SIG$sig"): the fault reverted, nothing outstanding" nofaults
done
check "no injector left running" sh -c '! pgrep -f "[r]ocelab inject rnic-route-missing"'
