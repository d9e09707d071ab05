#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs inside the VM (tests/bench/verbs_bench.sh boots it): the Hostmesh agent
# on host1's four RNICs at the paper's rate (100 ms interval), over the udp
# transport and over the verbs transport (Soft-RoCE), alternating, ROUNDS
# times AGENT_S seconds each.  Prints "bench <name> <value> <unit>" lines.
# Under TCG every figure is inflated by emulation: compare the two transports
# with each other (same VM, same run), not with the paper or the host bench.
set -uo pipefail
out=build/vm
inv=lab-inventory/vm-rail.yaml
AGENT_S=${AGENT_S:-15}
ROUNDS=${ROUNDS:-3}
fail=0
. tests/vm/rxe-lab.sh
hz=$(getconf CLK_TCK)

# CPU ticks of process PID (user + system).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Busy CPU ticks of the whole VM (all kernel work: rxe, forwarding, softirq).
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# measure TRANSPORT ROUND: one agent run; appends "cpu busy rss net50 net99 proc50 probes timeouts" to $out/TRANSPORT.txt
measure() {
	local t=$1 r=$2 rec=$out/$1.$2.rec ag c0 c1 b0 b1 t0 t1 hwm
	build/rocelab agent hostmesh -i "$inv" --host host1 --transport "$t" --interval 100ms \
		--out "$rec" 2>"$out/$t.$r.log" &
	ag=$!
	sleep 2 # past start-up (devices, address handles, first traces)
	if ! kill -0 $ag 2>/dev/null; then
		echo "FAIL the $t agent exited at start: $(tail -2 "$out/$t.$r.log")"
		fail=$((fail + 1))
		return
	fi
	t0=$(date +%s.%N) c0=$(ticks $ag) b0=$(busy)
	sleep "$AGENT_S"
	t1=$(date +%s.%N) c1=$(ticks $ag) b1=$(busy)
	hwm=$(awk '/VmHWM/ { print $2 }' /proc/$ag/status)
	kill -TERM $ag
	wait $ag || { echo "FAIL the $t agent exited $?"; fail=$((fail + 1)); }
	build/rocelab analyze -i "$inv" --window 5s --slow 50ms -o "$out/$t.$r.jsonl" "$rec" 2>/dev/null
	jq -s --arg cpu "$(echo "($c1 - $c0) / $hz / ($t1 - $t0) * 100" | bc -l)" \
		--arg busy "$(echo "($b1 - $b0) / $hz / ($t1 - $t0) * 100" | bc -l)" --arg rss "$hwm" -r '
		[.[] | select(.type == "window" and .ok > 0)] as $w |
		def med(f): ($w | map(f) | sort) as $s | if ($s | length) == 0 then 0 else $s[($s | length) / 2 | floor] end;
		"\($cpu) \($busy) \($rss) \(med(.net_us.p50)) \(med(.net_us.p99)) \(med(.proc_us.p50)) \($w | map(.probes) | add // 0) \($w | map(.timeouts) | add // 0)"' \
		"$out/$t.$r.jsonl" >>"$out/$t.txt"
	tail -1 "$out/$t.txt" | awk -v t="$t" -v r="$r" '{ printf "  %s round %d: agent %.2f%%, VM busy %.2f%%, RSS %.1f MB, net p50 %d us p99 %d us, proc p50 %d us, %d probes, %d timeouts\n", t, r, $1, $2, $3 / 1024, $4, $5, $6, $7, $8 }'
}

echo "== verbs bench: $ROUNDS rounds x (udp, verbs) x $AGENT_S s, 4 RNICs at 10 probes/s each"
vm_lab_up || exit 3
for r in $(seq "$ROUNDS"); do
	# udp first, without rxe (rxe holds UDP 4791 in this namespace); then verbs on rxe.
	measure udp "$r"
	rxe_add || exit 3
	measure verbs "$r"
	rxe_del || exit 3
done
# What an RC load can send here (issue 61, 'transport: rc'): host1's rnic2-4 writing into its
# rnic1 as fast as their QPs' windows let them, 1000-byte RDMA WRITEs over rxe; the ceiling of
# a scenario's RC load in this VM (under TCG: rxe's and the emulation's, not a line's).
RC_S=${RC_S:-5}
rxe_add || exit 3
a1=$(awk '/netdev: rnic1,/ { for (i = 1; i <= NF; i++) if ($i == "address:") { a = $(i+1); sub(/\/.*/, "", a); print a } }' "$inv" | head -1)
build/rocelab load rc -i "$inv" --host host1 --serve --rnic rnic1 --for $((RC_S + 10))s >"$out/rcb-serve.out" 2>&1 &
srv=$!
t0=$(date +%s.%N) c0=$(busy)
build/rocelab load rc -i "$inv" --host host1 --flows "rnic2:$a1,rnic3:$a1,rnic4:$a1" --pps 0 --for "${RC_S}s" >"$out/rcb.out" 2>&1
rc=$?
t1=$(date +%s.%N) c1=$(busy)
kill $srv 2>/dev/null
wait $srv
done_w=$(sed -n 's/.*: \([0-9]*\) WRITEs of 1000 bytes completed$/\1/p' "$out/rcb.out")
if [ $rc = 0 ] && [ -n "$done_w" ]; then
	echo "  rc load: $done_w WRITEs in ${RC_S} s, VM busy $(echo "($c1 - $c0) / $hz / ($t1 - $t0) * 100" | bc -l | cut -c1-5)%"
	printf 'bench vm_rc_write_3to1 %.1f Mbit/s\n' "$(echo "$done_w * 1000 * 8 / $RC_S / 1000000" | bc -l)"
	printf 'bench vm_rc_write_busy_cpu_per_mbit %.3f %%\n' "$(echo "($c1 - $c0) / $hz / ($t1 - $t0) * 100 / ($done_w * 1000 * 8 / $RC_S / 1000000)" | bc -l)"
else
	echo "FAIL the RC load: exit $rc, $(tail -2 "$out/rcb.out" | tr '\n' ' ')"
	fail=$((fail + 1))
fi
rxe_del || exit 3
build/rocelab lab down -q || fail=$((fail + 1))

col() { awk -v c="$2" '{ print $c }' "$out/$1.txt" | median; }
for t in udp verbs; do
	[ -s "$out/$t.txt" ] || { echo "FAIL no $t measurement"; fail=$((fail + 1)); continue; }
	printf 'bench vm_agent_cpu_%s_4rnic_10pps %.3f %%\n' "$t" "$(col $t 1)"
	printf 'bench vm_busy_cpu_%s_4rnic_10pps %.3f %%\n' "$t" "$(col $t 2)"
	printf 'bench vm_agent_peak_rss_%s %.1f MB\n' "$t" "$(echo "$(col $t 3) / 1024" | bc -l)"
	printf 'bench vm_net_p50_%s %.0f us\n' "$t" "$(col $t 4)"
	printf 'bench vm_net_p99_%s %.0f us\n' "$t" "$(col $t 5)"
	printf 'bench vm_proc_p50_%s %.0f us\n' "$t" "$(col $t 6)"
	tmo=$(awk '{ s += $8 } END { print s + 0 }' "$out/$t.txt")
	[ "$tmo" = 0 ] || echo "bench: $t had $tmo timeouts in a healthy lab" >&2
done
if [ -s "$out/udp.txt" ] && [ -s "$out/verbs.txt" ]; then
	printf 'bench vm_agent_cpu_ratio_verbs_over_udp %.2f x\n' "$(echo "$(col verbs 1) / $(col udp 1)" | bc -l)"
	printf 'bench vm_busy_cpu_ratio_verbs_over_udp %.2f x\n' "$(echo "$(col verbs 2) / $(col udp 2)" | bc -l)"
fi
left=$(vm_leftovers)
[ -z "$left" ] || { echo "FAIL left behind: $left"; fail=$((fail + 1)); }
echo "$((fail == 0)) passed, $fail failed"
[ $fail = 0 ]
