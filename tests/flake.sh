#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make flake [N=10] [LOAD=1] [SUITE="scenarios/ci/*.yaml ..."]: run the CI suites N times,
# without retries, on the built-in lab, and print each scenario's pass rate and every run
# its verdict changed in (issue 62: a verdict that comes and goes is a bug to find, never a
# bound to loosen).  LOAD=1 runs them beside 'stress-ng --cpu 1' (Debian's stress-ng), a
# standard background load.  Results in build/flake/RUN; exit 1 when a verdict changed.
set -uo pipefail
cd "$(dirname "$0")/.."
RL=build/rocelab
n=${N:-10}
out=${FLAKE_OUT:-build/flake}
read -r -a suite <<<"${SUITE:-$(echo scenarios/ci/*.yaml scenarios/ci/transport/*.yaml)}"
rm -rf "$out" && mkdir -p "$out"
if [ "${LOAD:-0}" = 1 ]; then
	command -v stress-ng >/dev/null || { echo "flake: LOAD=1 needs stress-ng (apt-get install stress-ng)" >&2; exit 2; }
	stress-ng --cpu 1 --timeout 0 --quiet &
	stress=$!
	trap 'kill $stress 2>/dev/null; wait $stress 2>/dev/null' EXIT
	echo "flake: beside stress-ng --cpu 1 (pid $stress)" >&2
fi
for i in $(seq "$n"); do
	start=$SECONDS
	"$RL" run -o "$out/$i" --seed 7 --no-history "${suite[@]}" >"$out/$i.log" 2>&1
	echo "flake: run $i of $n: exit $? in $((SECONDS - start)) s ($(jq -r '[.scenarios[] | select(.verdict == "pass")] | length' "$out/$i/results.json" 2>/dev/null || echo '?') of ${#suite[@]} passed)" >&2
done
# Per scenario: its verdicts in run order.
changed=0
for name in $(jq -r '.scenarios[].name' "$out"/1/results.json 2>/dev/null); do
	v=$(for i in $(seq "$n"); do jq -r --arg s "$name" '.scenarios[] | select(.name == $s) | .verdict' "$out/$i/results.json" 2>/dev/null || echo none; done | tr '\n' ' ')
	pass=$(tr ' ' '\n' <<<"$v" | grep -cx pass)
	distinct=$(tr ' ' '\n' <<<"$v" | grep -v '^$' | sort -u | wc -l)
	[ "$distinct" -gt 1 ] && changed=$((changed + 1))
	printf 'flake %-34s pass %2d/%d  %s\n' "$name" "$pass" "$n" "$([ "$distinct" -gt 1 ] && echo "CHANGED: $v" || echo "held: ${v%% *}")"
done
echo "flake: $changed scenario(s) changed their verdict in $n runs"
[ "$changed" -eq 0 ]
