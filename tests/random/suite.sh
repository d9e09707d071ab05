#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The randomized Hostmesh suite: on each lab shape, 'rocelab inventory gen' writes the inventory,
# 'rocelab scenario gen' draws the scenarios from the seed, 'rocelab run' runs and grades them.
# Then one table: detection rate, top-1, class accuracy, precision, false positives per hour of
# fault-free time, per shape and in all.
#
# usage: tests/random/suite.sh -o OUT [--seed N] [--faults N] [--fault-free N] SHAPE...
#   SHAPE: 'inventory gen' options as key=value,..., e.g. hosts=2,rnics=4,spines=2,pods=2, or
#          'random': drawn from shape k's seed (rails 2-8, spines 1-8, pods 1-3, hosts a ToR
#          2-16; at most 32 RNICs, what this 2-core machine runs the agents of)
#   --seed N        default: the date (YYYYMMDD), printed; shape k draws with seed N+k-1
#   --faults N      fault scenarios per shape (default 20); --fault-free N: per shape (default 4)
#   --fault-free-phase DURATION: a fault-free scenario's fault phase (default 30s)
#   --min-detection, --min-top1, --min-precision X: exit 1 below them (in all);
#   --max-fp-per-hour X: exit 1 above it; --strict: exit 1 when any scenario fails.
#   Exit 2: bad usage or a run that could not be made.
set -uo pipefail
cd "$(dirname "$0")/../.."
RL=${RL:-build/rocelab}
out="" seed=$(date +%Y%m%d) faults=20 free=4 free_phase=30s shapes=()
min_det="" min_top1="" min_prec="" max_fp="" strict=0
usage() { sed -n '8,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
# draw_shape SEED: a lab shape drawn from SEED (issue 64: unseen topologies, not only targets).
draw_shape() {
	local rails spines pods hosts
	RANDOM=$1
	rails=$((2 + RANDOM % 7)) spines=$((1 + RANDOM % 8)) pods=$((1 + RANDOM % 3))
	while [ $((2 * rails * pods)) -gt 32 ]; do pods=$((pods - 1)); done
	hosts=$((2 + RANDOM % 15))
	while [ $((hosts * rails * pods)) -gt 32 ]; do hosts=$((hosts - 1)); done
	echo "hosts=$hosts,rnics=$rails,spines=$spines,pods=$pods"
}
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--faults) faults=$2; shift 2 ;;
	--fault-free) free=$2; shift 2 ;;
	--fault-free-phase) free_phase=$2; shift 2 ;;
	--min-detection) min_det=$2; shift 2 ;;
	--min-top1) min_top1=$2; shift 2 ;;
	--min-precision) min_prec=$2; shift 2 ;;
	--max-fp-per-hour) max_fp=$2; shift 2 ;;
	--strict) strict=1; shift ;;
	-h | --help) usage ;;
	-*) echo "suite: unknown option '$1'" >&2; usage ;;
	*) shapes+=("$1"); shift ;;
	esac
done
[ -n "$out" ] && [ ${#shapes[@]} -gt 0 ] || usage
case "$seed" in '' | *[!0-9]*) echo "suite: --seed '$seed' is not a number" >&2; exit 2 ;; esac
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	echo "suite: $out is not empty; give a new or empty folder" >&2
	exit 2
fi
mkdir -p "$out"
echo "suite: seed $seed, ${#shapes[@]} shape(s), $faults fault and $free fault-free scenario(s) each; in $out" >&2
k=0
for shape in "${shapes[@]}"; do
	k=$((k + 1))
	d="$out/shape$k"
	mkdir -p "$d"
	[ "$shape" = random ] && shape=$(draw_shape $((seed + k - 1)))
	case "$shape" in *[!a-z0-9=,]*) echo "suite: shape '$shape' is not key=value,..." >&2; exit 2 ;; esac
	# shellcheck disable=SC2046 # hosts=2,rnics=4 -> --hosts 2 --rnics 4, split on purpose
	if ! "$RL" inventory gen $(echo "$shape" | sed 's/\([a-z]*\)=/--\1 /g; s/,/ /g') \
		--name "random$k" >"$d/inventory.yaml"; then
		echo "suite: shape $k ('$shape') is not a lab 'inventory gen' can write" >&2
		exit 2
	fi
	echo "$shape" >"$d/shape"
	"$RL" scenario gen -q --seed $((seed + k - 1)) -i "$d/inventory.yaml" -o "$d/scenarios" \
		--faults "$faults" --fault-free "$free" --fault-free-phase "$free_phase" || exit 2
	echo "suite: shape $k ($shape), seed $((seed + k - 1)): running $((faults + free)) scenario(s)" >&2
	"$RL" run --no-history -i "$d/inventory.yaml" -o "$d/run" --seed $((seed + k - 1)) \
		"$d"/scenarios/*.yaml >"$d/run.log" 2>&1
	rc=$?
	if [ $rc -gt 1 ] || [ ! -s "$d/run/results.json" ]; then
		echo "suite: 'rocelab run' on shape $k exited $rc without results; its log:" >&2
		tail -20 "$d/run.log" >&2
		exit 2
	fi
	grep -E ': (fail|invalid)' "$d/run.log" | sed "s/^/suite: shape $k: /" >&2
done

# One line per shape and one for all: the figures the issue asks for, from each run's results.json.
jq -rs --arg seed "$seed" '
  def pct(x): if x == null then "-" else ((x * 1000 | round) / 10 | tostring) + "%" end;
  def num(x): if x == null then "-" else ((x * 100 | round) / 100 | tostring) end;
  def figures($row; $shp; sc):
    [sc[] | select(.expected.silent | not) | select(.verdict != "invalid")
          | select(.observability.observable != false)] as $f
    | [sc[] | select(.expected.silent)] as $z
    | [$f[] | select(.detected)] as $d
    | (([$z[] | .duration_s] | add // 0) / 3600) as $hours
    | ([$z[] | (.verdicts // []) | length] | add // 0) as $fp
    | {row: $row, shape: $shp, faults: ($f | length), fault_free: ($z | length),
       invalid: ([sc[] | select(.verdict == "invalid")] | length),
       unobservable: ([sc[] | select(.expected.silent | not) | select(.observability.observable == false)] | length),
       passed: ([sc[] | select(.verdict == "pass")] | length),
       detection: (if ($f | length) > 0 then ($d | length) / ($f | length) else null end),
       top1: (if ($f | length) > 0 then ([$f[] | select(.rank == 1)] | length) / ($f | length) else null end),
       top1_class: (if ($f | length) > 0 then ([$f[] | select((.observability.rank_class // .rank) == 1)] | length) / ($f | length) else null end),
       class: (if ($d | length) > 0 then ([$d[] | select(.class_ok)] | length) / ($d | length) else null end),
       precision: (if ($d | length) > 0 then ([$d[] | .precision // 0] | add) / ($d | length) else null end),
       fp_verdicts: $fp, fault_free_h: $hours,
       fp_per_hour: (if $hours > 0 then $fp / $hours else null end)};
  [to_entries[] | figures("shape \(.key + 1)"; .value.shape; .value.scenarios)] as $rows
  | ($rows + [figures("all"; "seed \($seed)"; [.[].scenarios[]])])[]
  | "\(.row)\t\(.shape)\t\(.faults)\t\(.fault_free)\t\(.passed)\t\(.invalid)\t\(.unobservable)\t\(pct(.detection))\t\(pct(.top1))\t\(pct(.top1_class))\t\(pct(.class))\t\(num(.precision))\t\(.fp_verdicts)\t\((.fault_free_h * 3600 | round))s\t\(num(.fp_per_hour))"
' $(for i in $(seq 1 $k); do
	jq --arg s "$(cat "$out/shape$i/shape")" '. + {shape: $s}' "$out/shape$i/run/results.json" >"$out/shape$i/results+shape.json"
	echo "$out/shape$i/results+shape.json"
done) >"$out/table.tsv" 2>"$out/jq.err" || { cat "$out/jq.err" >&2; exit 2; }
{
	printf 'row\tshape\tfault runs\tfault-free runs\tpassed\tinvalid\tunobservable\tdetected\ttop-1\ttop-1 (its class)\tclass right\tprecision\tfault-free verdicts\tfault-free time\tFP/hour\n'
	cat "$out/table.tsv"
} | column -t -s $'\t' | tee "$out/table.txt"

# The targets, checked on the last row (all shapes). Top-1 against the truth's class: what the
# monitor could tell apart on that shape (the exact top-1 is in the table beside it).
IFS=$'\t' read -r _ _ _ _ _ _ _ det _ top1 _ prec _ _ fph < <(tail -1 "$out/table.tsv")
fail=0
failed=$(cat "$out"/shape*/run.log | grep -cE '^run: \[[0-9]+/[0-9]+\] [^:]*: (fail|invalid)')
if [ "$strict" = 1 ] && [ "$failed" -gt 0 ]; then
	echo "suite: $failed scenario(s) failed or were invalid (--strict)" >&2
	fail=1
fi
below() { # below NAME VALUE MIN: VALUE as "97.5%" or "0.93"
	local v=${2%\%}
	[ "$v" = "-" ] && return 0
	[ "${2: -1}" = "%" ] && v=$(echo "$v / 100" | bc -l)
	if [ "$(echo "$v < $3" | bc -l)" = 1 ]; then
		echo "suite: $1 $2 is below $3" >&2
		fail=1
	fi
}
[ -z "$min_det" ] || below detection "$det" "$min_det"
[ -z "$min_top1" ] || below top-1 "$top1" "$min_top1"
[ -z "$min_prec" ] || below precision "$prec" "$min_prec"
if [ -n "$max_fp" ] && [ "$fph" != "-" ] && [ "$(echo "$fph > $max_fp" | bc -l)" = 1 ]; then
	echo "suite: $fph false-positive verdicts per fault-free hour, above $max_fp" >&2
	fail=1
fi
echo "suite: seed $seed; table in $out/table.txt" >&2
exit $fail
