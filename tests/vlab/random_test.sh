# SPDX-License-Identifier: MIT
# The randomized Hostmesh suite's fixed-seed slice (tests/random/suite.sh): a generated lab of
# two pods sharing two spines, two drawn faults (a switch's and a host's) and a fault-free run,
# each graded; the nightly sweep (make nightly, scenarios/nightly/random/sweep) runs the same
# on this shape and four more, 21 faults and 4 fault-free runs each, seeded by the date.
# The fault-free run's fault phase is 10 s here (30 s in the sweep): the CI suite's no-fault
# and every scenario's baseline and recovery check silence too, and make check has 30 minutes
# (the slice drew four faults until 2026-12-01; the CI suite runs their kinds on the rail lab).

section "randomized suite: seed 40 on a generated lab of 2 pods x 2 hosts x 3 RNICs, 2 spines"
RS="$T/random"
tests/random/suite.sh -o "$RS" --seed 40 --faults 2 --fault-free 1 --fault-free-phase 10s --strict \
	--min-detection 1 --min-top1 1 --min-precision 0.9 --max-fp-per-hour 0 \
	hosts=2,rnics=3,spines=2,pods=2 >"$T/random.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "every drawn scenario passed; detection, top-1, precision and silence on target" ||
	fail "the slice: exit $rc" "$(grep -E 'suite: |FAIL|fail' "$T/random.log" | head -4 | tr '\n' ' ')"
sed -n '/^row/,/^all/p' "$T/random.log" | sed 's/^/       /'
check "the table has a row per shape and one for all" sh -c 'grep -q "^shape 1 " "$0" && grep -q "^all " "$0"' "$RS/table.txt"
check "the same seed drew the same scenarios: the three the slice was chosen for" \
	sh -c 'ls "$0" | tr "\n" " " | grep -qx "r40-001-acl-error.yaml r40-002-rnic-route-missing.yaml r40-003-no-fault.yaml "' "$RS/shape1/scenarios"
check "its results are valid against the schema" results_valid "$RS"
# The lost route (issue 16's second weakness): the host has no other route for the RNIC's
# address, so each probe it sends fails in it while those sent to it arrive over healthy spines.
W="$RS/shape1/run/r40-002-rnic-route-missing/analyzer.jsonl"
se=$(jq -s '[.[] | select(.type=="window") | .send_errors] | add' "$W")
rd=$(jq -s '[.[] | select(.type=="window") | .rnic_drops] | add' "$W")
[ "${se:-0}" -ge 100 ] && [ "${rd:-0}" -ge "$se" ] && ok "a lost route: the analyzer got $se failed sends as records, all in the RNIC drops ($rd)" || fail "send errors $se, rnic drops $rd"
check "... and the RNIC's verdict counts its send failures" jq -se '[.[] | select(.type=="verdict" and .class=="rnic") | .send_errors] | min > 0' "$W"
