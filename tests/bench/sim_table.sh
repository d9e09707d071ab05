#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The paper's figures as a markdown table, from tests/bench/sim_bench.sh's "bench sim_*" lines:
#   tests/bench/sim_table.sh BENCH_OUTPUT        the table on stdout
# One row a metric, in the order the bench printed them: the paper's value, the paper's sender
# (mean ± the 95% interval's half-width over the seeds) and its ratio to the paper, rocelab's and
# its ratio, and the paper's sender with each of rocelab's departures alone (the scoreboard with
# the NACK for every drop that feeds its dropped bits).
set -euo pipefail
[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: $0 BENCH_OUTPUT" >&2; exit 2; }
awk '
function num(x) { return x == "" ? "" : (x + 0 >= 100 || x + 0 <= -100 ? sprintf("%.0f", x) : sprintf("%.3g", x)) }
function cell(m, v) {
	if (!((m, v) in val)) return "-"
	return num(val[m, v]) (ci[m, v] + 0 > 0 ? " ± " num(ci[m, v]) : "")
}
function ratio(m, v) { return (m, v) in vs ? sprintf("%.2f", vs[m, v]) : "-" }
$1 == "bench" && $2 ~ /^sim_/ {
	name = substr($2, 5)
	kind = "value"
	if (name ~ /_paper_value$/) { sub(/_paper_value$/, "", name); paper[name] = $3; next }
	if (name ~ /_ci95$/) { sub(/_ci95$/, "", name); kind = "ci" }
	else if (name ~ /_vs_paper$/) { sub(/_vs_paper$/, "", name); kind = "vs" }
	v = ""
	n = split("paper.nack-every paper.probe-per-packet paper.credit-per-reply paper.scoreboard.nack-every rocelab paper", vars, " ")
	for (i = 1; i <= n; i++) {
		suf = "_" vars[i]
		if (substr(name, length(name) - length(suf) + 1) == suf) {
			v = vars[i]
			name = substr(name, 1, length(name) - length(suf))
			break
		}
	}
	if (v == "") next
	if (!(name in seen)) { seen[name] = 1; order[++rows] = name; unit[name] = $4 }
	if (kind == "value") val[name, v] = $3
	else if (kind == "ci") ci[name, v] = $3
	else vs[name, v] = $3
}
END {
	print "| metric | unit | paper | paper'"'"'s sender | ratio | rocelab | ratio | paper + scoreboard (a NACK every drop) | paper + credit cleared | paper + per-packet probing | paper + a NACK every drop |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (r = 1; r <= rows; r++) {
		m = order[r]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, unit[m],
			(m in paper) ? num(paper[m]) : "-", cell(m, "paper"), ratio(m, "paper"),
			cell(m, "rocelab"), ratio(m, "rocelab"), cell(m, "paper.scoreboard.nack-every"),
			cell(m, "paper.credit-per-reply"), cell(m, "paper.probe-per-packet"),
			cell(m, "paper.nack-every")
	}
}' "$1"
