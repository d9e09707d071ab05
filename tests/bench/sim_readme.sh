#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The paper's figures table in transport/README.md, between its "figures:begin" and
# "figures:end" marks, is generated from the simulator (sim_bench.sh, then sim_table.sh):
#   tests/bench/sim_readme.sh --write    regenerate it in place (make figures-table)
#   tests/bench/sim_readme.sh --check    exit 1 when it is not what the simulator gives now
#                                        (make check: the table is data, never typed by hand)
set -euo pipefail
cd "$(dirname "$0")/../.."
README=transport/README.md
[ $# -eq 1 ] && { [ "$1" = --write ] || [ "$1" = --check ]; } || { echo "usage: $0 --write|--check" >&2; exit 2; }
grep -q '^<!-- figures:begin' "$README" && grep -q '^<!-- figures:end' "$README" ||
	{ echo "sim_readme: $README has no figures:begin/figures:end marks" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tests/bench/sim_bench.sh >"$tmp/bench"
tests/bench/sim_table.sh "$tmp/bench" >"$tmp/table"
awk -v table="$tmp/table" '
	/^<!-- figures:begin/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
	/^<!-- figures:end/ { skip = 0 }
	!skip' "$README" >"$tmp/readme"
if [ "$1" = --write ]; then
	cat "$tmp/readme" >"$README"
	echo "sim_readme: $README's figures table written ($(wc -l <"$tmp/table") lines)"
elif ! diff -u "$README" "$tmp/readme" >"$tmp/diff"; then
	head -40 "$tmp/diff" >&2
	echo "sim_readme: $README's figures table is not what the simulator gives now: run 'make figures-table' and review the diff" >&2
	exit 1
else
	echo "sim_readme: $README's figures table is what the simulator gives ($(grep -c '^| [a-z]' "$tmp/table") metrics, 6 variants)"
fi
