# SPDX-License-Identifier: MIT
# MP-RDMA on the virtual lab's real data path: four spines used, one for the single-path baseline,
# random loss from ipid-drop recovered with every payload intact, bad options refused, nothing left.
TR_OUT=$(mktemp -d "$T"/transport.XXXXXX)

# Packets the four uplinks of rail1 (swp5..8, to spine1..4) sent so far.
uplinks() {
	for p in swp5 swp6 swp7 swp8; do
		ip netns exec rl-rail1 cat /sys/class/net/$p/statistics/tx_packets
	done
}

# tr_run NAME ARGS...: 'rocelab transport run --json' into $TR_OUT/NAME.json, uplink deltas in UP[].
# The endpoints, tracers and runs this tier starts (not a 'transport sim' beside it).
TR_PROCS='rocelab transport (run|send|recv|paths)( |$)'
tr_run() {
	local name=$1; shift
	local before after i
	before=($(uplinks))
	"$RL" transport run --from host1:rnic1 --to host2:rnic2 --json -o "$TR_OUT/$name" "$@" \
		>"$TR_OUT/$name.json" 2>"$TR_OUT/$name.err"
	local rc=$?
	after=($(uplinks))
	UP=()
	for i in 0 1 2 3; do UP[$i]=$((after[i] - before[i])); done
	return $rc
}

section "transport: MP-RDMA between host1:rnic1 and host2:rnic2 across four spines"
"$RL" lab up -q
defer '"$RL" lab down -q'

if tr_run mp --duration 2s; then
	j=$TR_OUT/mp.json
	del=$(jq '.receiver.delivered' "$j"); secs=$(jq '.sender.seconds' "$j")
	mbit=$(jq -r '.receiver.delivered * 1024 * 8 / .sender.seconds / 1e6 | floor' "$j")
	[ "${mbit:-0}" -ge 20 ] && ok "MP-RDMA ran ${secs}s: $mbit Mbit/s of payload in order ($del packets)" ||
		fail "MP-RDMA goodput $mbit Mbit/s" "$(tail -3 "$TR_OUT/mp.err")"
	# Unshaped, no path is a bottleneck (the CPU is), so ACK clocking need not spread the
	# load; the initial window alone reaches every spine. Spreading under load is shown by
	# mprdma-no-fault below (more than three paths' worth).
	total=$((UP[0] + UP[1] + UP[2] + UP[3]))
	low=$(printf '%s\n' "${UP[@]}" | sort -n | head -1)
	[ "$total" -ge "$del" ] && [ "$low" -gt 0 ] &&
		ok "data crossed all four spines (rail1 uplinks: ${UP[*]})" ||
		fail "rail1 uplinks carried ${UP[*]} for $del packets (want some on each)"
	check "every payload arrived intact" test "$(jq '.receiver.pattern_bad' "$j")" -eq 0
	check "no receive overflow or full send queue (the rig kept up)" \
		test "$(jq '.sender.rx_overflow + .receiver.rx_overflow + .sender.tx_full + .receiver.tx_full' "$j")" -eq 0
	check "receive times are the kernel's" test "$(jq -r '.receiver.timestamps' "$j")" = kernel-software
	# the initial window goes out on 16 distinct VPs; ACK clocking and probing keep some of them
	nvp=$(jq '.sender.per_vp | length' "$j")
	check "the sender spread its packets over $nvp of 64 VPs (at least the initial window's 16)" test "$nvp" -ge 16
else
	fail "transport run exited $?" "$(tail -3 "$TR_OUT/mp.err")"
fi

if tr_run sp --duration 1s --single-path; then
	total=$((UP[0] + UP[1] + UP[2] + UP[3]))
	high=$(printf '%s\n' "${UP[@]}" | sort -n | tail -1)
	[ "$total" -gt 0 ] && [ $((high * 100)) -ge $((total * 99)) ] &&
		ok "single path: one spine carried it all (rail1 uplinks: ${UP[*]})" && SP_UP=("${UP[@]}") ||
		fail "single path spread over ${UP[*]}"
	check "single path: one VP" test "$(jq '.sender.per_vp | length' "$TR_OUT/sp.json")" -eq 1
else
	fail "single-path run exited $?" "$(tail -3 "$TR_OUT/sp.err")"
fi

# The ground truth per VP: 'transport paths' traces each VP's 5-tuple from host1's namespace.
# The single-path baseline uses the first VP (49152), so its traced spine must be the one whose
# uplink carried the single-path run above.
spine_addr() { ip netns exec "rl-$1" ip -4 -j addr show dev swp1 | jq -r '.[0].addr_info[0].local'; }
paths=$TR_OUT/paths.jsonl
if ip netns exec rl-host1 "$RL" transport paths --from host1:rnic1 --to host2:rnic2 >"$paths" 2>"$TR_OUT/paths.err"; then
	# host2 rate-limits its port unreachables (a host's default), so a trace ends at rail2,
	# the switch cabled to host2: the third hop.
	n=$(jq -s '[.[] | select(.type == "trace" and .hops[2] != null)] | length' "$paths")
	check "paths: all 64 VPs traced as far as rail2, host2:rnic2's switch ($n)" test "$n" -eq 64
	spread=$(jq -rs '[.[] | select(.type == "trace") | .hops[1]] | group_by(.) | map(length) | join(" ")' "$paths")
	check "paths: the VPs hash onto all four spines ($spread VPs)" test "$(wc -w <<<"$spread")" -eq 4
	if [ -n "${SP_UP[*]:-}" ]; then
		for i in 0 1 2 3; do if [ "${SP_UP[$i]}" -eq "$(printf "%s\n" "${SP_UP[@]}" | sort -n | tail -1)" ]; then sp=$((i + 1)); fi; done
		got=$(jq -rs '.[] | select(.type == "trace" and .vp == 49152) | .hops[1]' "$paths")
		check "paths: VP 49152 traced through spine$sp, the spine the single-path run loaded ($got)" \
			test "$got" = "$(spine_addr spine$sp)"
	fi
else
	fail "transport paths exited $?" "$(tail -3 "$TR_OUT/paths.err")"
fi

# ipid-drop on spine1 (both directions): with a fresh random IP ID on every packet, mod 10 is a 10%
# random loss on a quarter of the paths, which MP-RDMA must recover without losing a byte.
# The fault holds 15 s and the run waits up to 30 s for it: on a busy machine the apply, or the
# endpoints' start, took long enough once that the whole 2 s run missed a 5 s fault (0 retx).
# A 2 s run can also send on VPs that all avoid spine1 (rail1's uplink to it carried nothing):
# no loss to see, so it runs again, up to three times.
# lossy_runs NAME WHAT ARGS...: under ipid-drop mod 10 on spine1 (both directions, 15 s), a 2 s
# run that must recover every byte (see above), up to three times when nothing crossed spine1.
lossy_runs() {
	local name=$1 what=$2 rc try retx mbit j=$TR_OUT/$1.json
	shift 2
	"$RL" inject ipid-drop --target spine1 --all-ports --mod 10 --for 15s >"$TR_OUT/ipid-$name.out" 2>&1 &
	local inj=$!
	for _ in $(seq 300); do grep -q 'applied' "$TR_OUT/ipid-$name.out" && break; sleep 0.1; done
	grep -q 'applied' "$TR_OUT/ipid-$name.out" || fail "ipid-drop on spine1 not applied within 30 s" "$(tail -2 "$TR_OUT/ipid-$name.out")"
	for try in 1 2 3; do
		tr_run "$name" --duration 2s "$@"
		rc=$?
		retx=$(jq '.sender.retx' "$j" 2>/dev/null)
		[ $rc -eq 0 ] && [ "${retx:-0}" -eq 0 ] && [ "${UP[0]:-0}" -eq 0 ] && [ $try -lt 3 ] || break
		echo "  ($name run $try: nothing crossed spine1 (rail1 uplinks: ${UP[*]}), again)"
	done
	if [ $rc -eq 0 ]; then
		mbit=$(jq -r '.receiver.delivered * 1024 * 8 / .sender.seconds / 1e6 | floor' "$j")
		[ "$retx" -gt 0 ] && [ "$(jq '.receiver.pattern_bad' "$j")" -eq 0 ] && [ "${mbit:-0}" -ge 10 ] &&
			ok "$what: 10% random loss on spine1: $retx retransmissions, $mbit Mbit/s, every payload intact" ||
			fail "$name run: retx $retx, $mbit Mbit/s, rail1 uplinks ${UP[*]}" "$(jq -c '.receiver' "$j")"
	else
		fail "$name run exited $rc" "$(tail -3 "$TR_OUT/$name.err")"
	fi
	# done with it: SIGINT reverts it now rather than at its --for (15 s, the bound for a slow
	# start), which saved the tier half a minute of waiting on a fault nobody used
	kill -INT $inj 2>/dev/null
	wait $inj
	check "ipid-drop reverted when the runs were done" test $? -eq 0
}
lossy_runs lossy "MP-RDMA"
# The paper's connection (mode paper: no scoreboard, every PSN from the hole resent, credit per
# reply, one NACK a hole) on the same loss: its recovery is coarser, but it must lose no byte
# either.  Every 4th message a SEND: the receiver completes each message, a CQE for those.
lossy_runs lossy-paper "the paper's sender" --mode paper --notify-every 4
check "the paper's sender said so: scoreboard off, credit paper, one NACK a hole" \
	jq -e '.sender.scoreboard == false and .sender.credit == "paper" and .sender.nack == "once"' "$TR_OUT/lossy-paper.json"
check "the paper's receiver: $(jq '.receiver.messages' "$TR_OUT/lossy-paper.json") messages in order, a CQE for every 4th ($(jq '.receiver.completions' "$TR_OUT/lossy-paper.json"))" \
	jq -e '.receiver.messages > 0 and .receiver.completions == (.receiver.messages / 4 | floor)' "$TR_OUT/lossy-paper.json"
# IRN's selective repeat (issue 57's baseline; --single-path --recovery irn) on the same loss,
# pinned to a VP traced through spine1: its receiver keeps what comes after a hole, never more
# than its BDP (the bitmap, 64) since no more is in flight, so it drops nothing, and the sender
# resends what is missing (go-back-N on that VP resent 66% of its sends on 2026-12-01, IRN 16%).
irn_vp=$(jq -r --arg s "$(spine_addr spine1)" 'select(.type == "trace" and .hops[1] == $s) | .vp' "$paths" 2>/dev/null | head -1)
if [ -n "$irn_vp" ]; then
	lossy_runs lossy-irn "IRN's selective repeat on VP $irn_vp" --single-path --sport "$irn_vp" --recovery irn
	j=$TR_OUT/lossy-irn.json
	check "IRN: nothing dropped past the receiver's BDP; $(jq .sender.retx "$j") of $(jq .sender.sent "$j") sends were resends, $(jq .sender.rtos "$j") timeouts" \
		jq -e '.sender.recovery == "irn" and .receiver.overflow_drops == 0 and .sender.retx * 2 < .sender.sent' "$j"
else
	fail "IRN: no VP traced through spine1" "$(head -c 300 "$paths")"
fi
check "rocelab's receiver answers every drop (the sender says so), a CQE for every message" \
	jq -e '.sender.nack == "every" and .receiver.completions == .receiver.messages' "$TR_OUT/lossy.json"

# The emulated switch ECN marker: host2:rnic2's link at 20 Mbit/s, its switch end (rail2) marking
# CE past 6 KB queued; the receiver on --ecn wire counts only CE bits that arrive.
"$RL" inject link-degrade --target host2:rnic2 --rate 20mbit --ecn-mark 6KB --for 9s >"$TR_OUT/mark.out" 2>&1 &
INJ=$!
for _ in $(seq 100); do grep -q 'applied' "$TR_OUT/mark.out" && break; sleep 0.1; done
if tr_run marked --duration 2s --ecn wire; then
	j=$TR_OUT/marked.json
	ce=$(jq '.receiver.ce_wire' "$j"); del=$(jq '.receiver.delivered' "$j")
	mbit=$(jq -r '.receiver.delivered * 1024 * 8 / .sender.seconds / 1e6 | floor' "$j")
	[ "${ce:-0}" -gt 0 ] && [ "$ce" -lt "$del" ] && [ "$(jq '.receiver.pattern_bad' "$j")" -eq 0 ] &&
		ok "the marker set CE on $ce of $del packets through the 20 Mbit/s port ($mbit Mbit/s of payload)" ||
		fail "marked run: ce_wire ${ce:-?} of ${del:-?} packets, $mbit Mbit/s" "$(jq -c '.receiver' "$j")"
	check "the window held near the port's rate: 12-20 Mbit/s of payload ($mbit)" test "${mbit:-0}" -ge 12 -a "${mbit:-0}" -le 20
else
	fail "marked run exited $?" "$(tail -3 "$TR_OUT/marked.err")"
fi
# DCQCN on the single path (issue 57's rate-based baseline): a NIC of 200 Mbit/s through the same
# marked 20 Mbit/s port; the CE bits come back as CNPs and cut its rate to the port's (on
# 2026-12-01: 1420-1457 CNPs in 2 s, the rate at 12-28 Mbit/s, 16.5 Mbit/s of payload).
if tr_run dcqcn --duration 2s --ecn wire --single-path --cc dcqcn --line 200; then
	j=$TR_OUT/dcqcn.json
	mbit=$(jq -r '.receiver.delivered * 1024 * 8 / .sender.seconds / 1e6 | floor' "$j")
	check "DCQCN: $(jq .sender.cnps "$j") CNPs took the rate from 200 to $(jq '.sender.rate_mbit | floor' "$j") Mbit/s, $mbit Mbit/s of payload, every payload intact" \
		jq -e '.sender.cc == "dcqcn" and .sender.cnps > 0 and .sender.rate_mbit < 100 and .receiver.pattern_bad == 0 and (.receiver.delivered * 1024 * 8 / .sender.seconds / 1e6) >= 10' "$j"
else
	fail "DCQCN run exited $?" "$(tail -3 "$TR_OUT/dcqcn.err")"
fi
wait $INJ
check "link-degrade with its marker reverted after its --for" test $? -eq 0
check "no clsact qdisc left on rail2" test -z "$(tc -n rl-rail2 qdisc show | grep clsact)"

expect_exit 2 "transport: unknown RNIC" "$RL" transport run --from host9:rnic1 --to host2:rnic2
expect_exit 2 "transport: delta above the bitmap" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --delta 100 --bitmap 64
expect_exit 2 "transport: bad ECN mode" "$RL" transport recv --at host2:rnic2 --ecn red
expect_exit 2 "transport: bad credit rule" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --credit twice
expect_exit 2 "transport: bad NACK rule" "$RL" transport recv --at host2:rnic2 --nack sometimes
expect_exit 2 "transport: IRN without the single path" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --recovery irn
expect_exit 2 "transport: an unknown recovery" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --single-path --recovery sack
expect_exit 2 "transport: DCQCN without a line rate" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --single-path --cc dcqcn
expect_exit 2 "transport: DCQCN on MP-RDMA" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --cc dcqcn --line 100
expect_exit 2 "transport: an unknown congestion control" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --single-path --cc timely
expect_exit 2 "transport: bad sender mode" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --mode nsdi
expect_exit 2 "transport: a synchronise share above 1" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --sync 1.5
expect_exit 2 "transport: credit once a PSN without the scoreboard" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --scoreboard off
expect_exit 2 "transport: a source port for the single path, without it" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --sport 49153
expect_exit 2 "transport: the go-back-N receiver without the spraying workload" "$RL" transport recv --at host2:rnic2 --receiver gbn
expect_exit 2 "transport: spray over a static bitmap of neither 64 nor 256 bits" "$RL" transport recv --at host2:rnic2 --workload spray --bitmap 128
expect_exit 2 "transport: spray over a VP outside the VPs" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --workload spray --vps 16 --vp-set 49152,49170
expect_exit 2 "transport: spray with QP ranges that overlap" "$RL" transport send --from host1:rnic1 --to host2:rnic2 --workload spray --conns 20 --sender-qpn 0x300 --receiver-qpn 0x2f0

# The paper's figures on the path simulator (no lab needed): deterministic, over seeds, beside
# the paper's values; bad options refused.
"$RL" transport sim --figure fig14 --seeds 2 --json >"$TR_OUT/sim14.json" 2>"$TR_OUT/sim14.err"
check "transport sim: fig14 over 2 seeds as JSON, the paper's 0.325 beside the ablation's two values" \
	jq -e '.mode == "paper" and (.figures[0].metrics[] | select(.name == "fig14b_degraded_off") | .paper == 0.325 and (.values | length) == 2 and .ratio != null)' "$TR_OUT/sim14.json"
check "transport sim: the same seeds give the same figures" \
	cmp -s <("$RL" transport sim --figure fig11b --seeds 2 --bench) <("$RL" transport sim --figure fig11b --seeds 2 --bench)
check "transport sim --bench: 'bench NAME VALUE UNIT' lines with the paper's value and the ratio" \
	bash -c '"$1" transport sim --figure state --seeds 1 --bench | grep -qx "bench sim_state_extra_bytes_paper_vs_paper 1.030 x"' _ "$RL"
check "transport sim --list names every figure of the table" \
	test "$("$RL" transport sim --list | awk '{print $1}' | tr '\n' ' ')" = "nofault fig5 fig11a fig11a-lab fig11b fig14 fig12 fig15 fig16 fig18 eunomia eu_fail state "
expect_exit 2 "transport sim: bad mode" "$RL" transport sim --mode nsdi
expect_exit 2 "transport sim: no seeds" "$RL" transport sim --seeds 0
expect_exit 2 "transport sim: too many seeds" "$RL" transport sim --seeds 101
expect_exit 2 "transport sim: unknown figure" "$RL" transport sim --figure fig99
expect_exit 2 "transport sim: credit once without the scoreboard" "$RL" transport sim --credit once --scoreboard off
expect_exit 2 "transport sim: --json and --bench" "$RL" transport sim --json --bench
expect_exit 2 "transport sim: bad NACK rule" "$RL" transport sim --nack twice
# The baselines side by side on one fault, seed and timeline, one plot (issue 57).
mkdir -p "$TR_OUT/timeline"
if "$RL" transport sim --timeline blackhole -o "$TR_OUT/timeline" >"$TR_OUT/timeline.out" 2>&1; then
	check "transport sim --timeline: five transports' goodput every 20 ms on one plot ($(grep -c '' "$TR_OUT/timeline/timeline.dat") lines)" \
		bash -c 'test "$(head -c 4 "$1/timeline.png" | tail -c 3)" = PNG && test "$(grep -vc "^#" "$1/timeline.dat")" -eq 75 && test "$(awk "!/^#/ {print NF; exit}" "$1/timeline.dat")" -eq 6' _ "$TR_OUT/timeline"
else
	fail "transport sim --timeline exited $?" "$(tail -3 "$TR_OUT/timeline.out")"
fi
expect_exit 2 "transport sim: an unknown timeline fault" "$RL" transport sim --timeline flood
expect_exit 2 "transport sim: -o without --timeline" "$RL" transport sim -o "$TR_OUT"
expect_exit 2 "transport sim: --timeline into no directory" "$RL" transport sim --timeline lossy -o "$TR_OUT/none/such"
check "transport sim: --nack every is the paper's sender with rocelab's receiver" \
	bash -c '"$1" transport sim --figure state --seeds 1 --nack every | grep -q "^mode paper.nack-every: .*NACK every"' _ "$RL"

# Eunomia's spraying workload, unshaped: finite connections completing, each byte checked.
if tr_run spray --duration 1s --workload spray --receiver eunomia --bitmap 256 --vps 16; then
	j=$TR_OUT/spray.json
	check "spray: $(jq '.sender.completed' "$j") connections completed, 0 misordered or duplicated, every byte intact" \
		jq -e '.sender.completed > 20 and .receiver.completions >= .sender.completed and .receiver.misordered == 0 and .receiver.duplicated == 0 and .receiver.pattern_bad == 0' "$j"
	# A stale reply answers a copy of a connection that already completed: the cumulative ACK
	# of one reply can finish a connection while replies sprayed over slower VPs are still on
	# their way, so stale replies are counted, not refused (one CI run in four had some).
	check "spray: each connection on its own QP pair, no foreign reply ($(jq '.sender.stale' "$j") stale)" \
		jq -e '.sender.foreign == 0 and .receiver.foreign == 0 and .sender.stale >= 0' "$j"
	check "spray: 16 VPs carried it" test "$(jq '.sender.per_vp | length' "$j")" -eq 16
else
	fail "spray run exited $?" "$(tail -3 "$TR_OUT/spray.err")"
fi
# ECMP, the Eunomia paper's baseline: each connection on one VP, so it arrives in order and a
# receiver without ordering support (go-back-N) takes it whole (the FCT against spraying is the
# simulator's: rocelab transport sim --figure eunomia).
if tr_run spray-ecmp --duration 1s --workload spray --receiver gbn --spray ecmp --vps 16; then
	j=$TR_OUT/spray-ecmp.json
	check "spray ecmp: $(jq '.sender.completed' "$j") connections completed in order over go-back-N, $(jq '.sender.retx' "$j") of $(jq '.sender.sent' "$j") packets resent" \
		jq -e '.sender.completed > 5 and .receiver.misordered == 0 and .receiver.pattern_bad == 0 and .sender.retx * 100 < .sender.sent' "$j"
else
	fail "spray ecmp run exited $?" "$(tail -3 "$TR_OUT/spray-ecmp.err")"
fi
check "no transport endpoint left running" test -z "$(pgrep -f "$TR_PROCS" || true)"

# CI runs one scenario per fault kind and component, without retries (issue 62: a verdict that
# needs a second try is a bug to find); TRANSPORT_SUITE=all (make nightly) adds the paper's
# side-by-side figures in scenarios/nightly/transport and checks them below.
suite=(scenarios/ci/transport/*.yaml)
[ "${TRANSPORT_SUITE:-}" = all ] && suite+=(scenarios/nightly/transport/*.yaml)
section "transport: ${#suite[@]} MP-RDMA scenarios (rocelab run scenarios/ci/transport/*.yaml${TRANSPORT_SUITE:+ scenarios/nightly/transport/*.yaml})"
snapshot >"$TR_OUT/snap.before"
start=$(date +%s)
"$RL" run -o "$TR_OUT/ci" --seed 7 "${suite[@]}" 2>"$TR_OUT/ci.log"
rc=$?
echo "  ($(($(date +%s) - start)) s)"
[ $rc -eq 0 ] && ok "run exits 0: every transport scenario passed" || fail "run exit $rc" "$(grep -E 'fail|invalid' "$TR_OUT/ci.log" | head -4 | tr '\n' ' ')"
R="$TR_OUT/ci/results.json"
for s in $(jq -r '.scenarios[].name' "$R" 2>/dev/null); do
	line=$(jq -r --arg s "$s" '.scenarios[] | select(.name==$s) | "\(.verdict): " + ([.components | to_entries[0].value.metrics | to_entries[] | select(.key | test("goodput|payload|vps|-ms|rank|fault-vs|compete-share|misordered|memory-vs|bitmap-vs|completions|stalled|sync-")) | "\(.key) \(.value.value * 1000 | round / 1000)"] | join(", "))' "$R")
	[[ "$line" == pass* ]] && ok "$s: $line" || fail "$s: $line" "$(jq -r --arg s "$s" '.scenarios[] | select(.name==$s) | .reason' "$R")"
done
# One path carries at most 50 Mbit/s x 1024/1098 = 46.6: more than three paths' worth needs all four.
check "no fault: more than three paths' worth (140 Mbit/s), so every spine carried its share" \
	jq -e '.scenarios[] | select(.name == "mprdma-no-fault") | .components["mp-rdma"].metrics["goodput-mbit"].value > 140' "$R"
check "results.json is valid against reports/results.schema.json" results_valid "$TR_OUT/ci"
check "results.json records the fabric: four rail1 uplinks at 50 Mbit/s" \
	jq -e '[.scenarios[] | select(.name == "mprdma-no-fault") | .fabric[] | select(.kind == "link-degrade" and .rate_kbit == 50000)] | length == 4' "$R"
check "each scenario drew its incident report" test "$(ls "$TR_OUT"/ci/*/report.png | wc -l)" -eq "$(jq '.scenarios | length' "$R")"
snapshot >"$TR_OUT/snap.after"
check "the fabric's shaping came off: the lab is as before the run" diff -q "$TR_OUT/snap.before" "$TR_OUT/snap.after"
check "no endpoint or path tracer left running after the scenarios" test -z "$(pgrep -f "$TR_PROCS" || true)"
check "blackhole: the traced routes put every VP through one of the four spines" \
	jq -e '.scenarios[] | select(.name == "mprdma-blackhole") | .components["mp-rdma"].paths | .traced_data == 64 and .traced_ack == 64 and .data_routes == 4' "$R"
# Fig. 14: while one path runs at 1/40, the optimal is what is left: 3 x 50 + 1.25 Mbit/s.
check "degraded: the optimal during the fault is 151.25 Mbit/s x 1024/1098 (141.05)" \
	jq -e '.scenarios[] | select(.name == "mprdma-degraded") | .components["mp-rdma"].optimal_fault_mbit | . > 141.0 and . < 141.1' "$R"
# Fig. 15: a stream pinned by tracing, its link the ground truth, its run the fault phase.
check "competing: the stream was pinned to a source port traced across rail1's uplink to spine2" \
	grep -Eq "mprdma-competing: stream host3:rnic1 -> host4:rnic2 pinned across rail1:swp6: source port 49[0-9]{3}" "$TR_OUT/ci.log"
check "competing: the stream's link is the component's ground truth" \
	jq -e '.scenarios[] | select(.name == "mprdma-competing") | .components["mp-rdma"].paths.fault_links == ["rail1:swp6--spine2:swp1"]' "$R"
check "competing: without a fault, the stream's run is the fault phase (5 s)" \
	jq -e '.scenarios[] | select(.name == "mprdma-competing") | .fault_window | .[1] - .[0] | . > 4.5 and . < 6' "$R"
check "pfc-incast: goodput in the fault counts from the injector's verification (its quarter second of paced incast)" \
	jq -e '.scenarios[] | select(.name == "mprdma-pfc-incast") | (.components["mp-rdma"].phases.fault.from - .fault_window[0]) > 0.25' "$R"
check "pfc-incast: the verification was paced, and enough: tail drops without the full-speed second" \
	grep -Eq "mprdma-pfc-incast: pfc-misconfig spine2:swp2 applied: incast of [0-9]+ datagrams from [0-9]+ RNICs, paced: priority 3 of spine2:swp2 tail-dropped [1-9]" "$TR_OUT/ci.log"
check "degraded, ECN marked: the marker set CE on the fast paths (the receiver's ce_wire)" \
	sh -c 'grep -h "\"type\":\"rcv-end\"" "$1"/mprdma-degraded-marked/mp-rdma-recv.log | jq -e ".ce_wire > 0"' sh "$TR_OUT/ci"
# Issue 15: the spraying workload, one spine's link to rail 2 at 1/10, over each receiver kind.
eu() { jq -r --arg s "$1" --arg m "$2" '.scenarios[] | select(.name == $s) | .components.eunomia.metrics[$m].value // 0' "$R" 2>/dev/null; }
bm_eu=$(eu eunomia-degraded bitmap-memory-fault); bm_st=$(eu eunomia-degraded static-bitmap-memory-fault)
check "spray, degraded: Eunomia's bitmaps below the static ones' ($bm_eu vs $bm_st B, 1 ms samples)" \
	awk -v a="$bm_eu" -v b="$bm_st" 'BEGIN { exit !(b > 0 && a < b) }'
check "spray, lossy: recovered through NACKs or timeouts ($(eu eunomia-lossy nacks) NACKs, $(eu eunomia-lossy rtos) timeouts)" \
	awk -v a="$(eu eunomia-lossy nacks)" -v b="$(eu eunomia-lossy rtos)" 'BEGIN { exit !(a + b > 0) }'
check "spray: the report shows ordering memory and reorder distance beside goodput" \
	grep -q "ordering memory at the receiver NIC" "$TR_OUT/ci/eunomia-degraded/report.gp"
# Issue 56: 'rocelab report' writes the scripts again from their descriptions, never runs the ones
# it finds: the transports' come out as the run wrote them (their parameters: who, versus, optimal).
for s in eunomia-degraded mprdma-competing mprdma-degraded; do cp "$TR_OUT/ci/$s/report.gp" "$T/tr-$s.gp"; done
check "rocelab report of the transport suite: every scenario's plot redrawn" \
	sh -c '"$0" report "$1" 2>&1 | grep -q ": $2 scenario report(s) redrawn"' "$RL" "$TR_OUT/ci" "$(jq '.scenarios | length' "$R")"
check "... MP-RDMA's and Eunomia's scripts written again from their descriptions, byte for byte" \
	sh -c 'for s in eunomia-degraded mprdma-competing mprdma-degraded; do cmp "$0/tr-$s.gp" "$1/$s/report.gp" || exit 1; done' "$T" "$TR_OUT/ci"
if [ "${TRANSPORT_SUITE:-}" = all ]; then
	# Fig. 11(a): the single path placed on each spine in turn under mprdma-lossy's faults. The
	# paper's MP-RDMA carried 2-4x their mean (measured here 2.26-2.72x, rxe's 67 ms timer).
	ratio=$(jq -r '[.scenarios[] | select(.name | startswith("mprdma-lossy")) | {(.name): .components["mp-rdma"].metrics["goodput-fault-mbit"].value}] | add | .["mprdma-lossy"] / ((.["mprdma-lossy-single-spine1"] + .["mprdma-lossy-single-spine2"] + .["mprdma-lossy-single-spine3"] + .["mprdma-lossy-single-spine4"]) / 4)' "$R" 2>/dev/null)
	check "lossy: MP-RDMA carries at least 2x the single path's placement mean at 10% loss (${ratio:-?}x)" \
		awk -v r="${ratio:-0}" 'BEGIN { exit !(r >= 2.0) }'
	check "lossy: each placement's single path left rail 1 through its spine (traced source port)" \
		jq -e '[.scenarios[] | select(.name | startswith("mprdma-lossy-single-spine")) | .components["mp-rdma"] | .across != null and .sport >= 49152] | length == 4 and all' "$R"
	# Fig. 14(b): the same 1/40 path, the fabric marking ECN; the control keeps most of the optimal
	# left, and without it the slow path's packets hold the bitmap (the paper: 0.96 against 0.325).
	on_off=$(jq -r '[.scenarios[] | select(.name | startswith("mprdma-degraded-marked")) | {(.name): .components["mp-rdma"].metrics["fault-vs-optimal"].value}] | add | "\(.["mprdma-degraded-marked"] * 1000 | round / 1000) \(.["mprdma-degraded-marked-ooo-off"] * 1000 | round / 1000)"' "$R" 2>/dev/null)
	check "degraded, ECN marked: out-of-order control on keeps 1.5x what it keeps off (${on_off/ / vs })" \
		awk -v a="${on_off% *}" -v b="${on_off#* }" 'BEGIN { exit !(a + 0 > 0 && b + 0 > 0 && a >= 1.5 * b) }'
	# Fig. 14(a): a bitmap of 1024 holds the reordering; with the control the slow path's packets
	# are pruned and the 99.9th percentile of the out-of-order degree stays near Δ (the paper: ~50x).
	ood=$(jq -r '[.scenarios[] | select(.name | startswith("mprdma-degraded-marked-ood")) | {(.name): .components["mp-rdma"].metrics["ood-p999-fault"].value}] | add | "\(.["mprdma-degraded-marked-ood"]) \(.["mprdma-degraded-marked-ood-ooo-off"])"' "$R" 2>/dev/null)
	check "degraded, L = 1024: the OOD's p99.9 in the fault is 10x lower with the control (${ood/ / vs })" \
		awk -v a="${ood% *}" -v b="${ood#* }" 'BEGIN { exit !(a + 0 > 0 && b + 0 > 0 && 10 * a <= b) }'
	# Beside a static 256-bit bitmap on the same fabric at the same moments: the odd QPs answered by
	# it, the even ones by Eunomia, each pair drawing the same connection sizes. Six seeds' pairs
	# came out 0.91-1.08 (two runs apart they differed by up to 12%, and in this fault even a
	# 64-bit bitmap keeps 0.94: the slow path, not the reach, sets goodput), so a run asks 0.85.
	g_vs=$(eu eunomia-degraded-versus goodput-vs-versus)
	check "spray, degraded: Eunomia's goodput beside the static 256-bit bitmap's, paired QPs ($(eu eunomia-degraded-versus half-goodput-fault-mbit) vs $(eu eunomia-degraded-versus versus-goodput-fault-mbit) Mbit/s, $g_vs)" \
		awk -v r="$g_vs" 'BEGIN { exit !(r >= 0.85) }'
	check "spray, degraded: the static 256-bit half held 41 B a QP ($(eu eunomia-degraded-versus versus-memory-fault) B for 10), Eunomia's its own" \
		awk -v a="$(eu eunomia-degraded-versus versus-memory-fault)" 'BEGIN { exit !(a == 410) }'
	# An offered load (Poisson arrivals, 20 Mbit/s): most QPs idle at their 4-byte DBA, all of
	# Eunomia's memory below 41 B a QP (the backlogged runs above keep every QP reordering: 1.9x).
	check "spray, an offered load: all of Eunomia's ordering memory below the static bitmaps' ($(eu eunomia-degraded-load ordering-memory-fault) vs $(eu eunomia-degraded-load static-memory-fault) B in the fault)" \
		awk -v a="$(eu eunomia-degraded-load ordering-memory-fault)" -v b="$(eu eunomia-degraded-load static-memory-fault)" 'BEGIN { exit !(b == 820 && a > 80 && a < b) }'
	r_eu=$(eu eunomia-degraded retransmissions); r_gbn=$(eu eunomia-degraded-gbn retransmissions)
	check "spray, degraded: go-back-N resends 3x what Eunomia does (Fig. 1(c): $r_gbn vs $r_eu)" \
		awk -v a="$r_gbn" -v b="$r_eu" 'BEGIN { exit !(b > 0 && a >= 3 * b) }'
	# Issue 15: without the control, Eunomia's receiver (reach 256) in place of the 64-slot bitmap.
	eu_bm=$(jq -r '[.scenarios[] | select(.name | startswith("mprdma-degraded-marked-ooo-off")) | {(.name): .components["mp-rdma"].metrics | [.["fault-vs-optimal"].value, .["ordering-memory-high"].value]}] | add | "\(.["mprdma-degraded-marked-ooo-off-eunomia"][0] * 1000 | round / 1000) \(.["mprdma-degraded-marked-ooo-off"][0] * 1000 | round / 1000) \(.["mprdma-degraded-marked-ooo-off-eunomia"][1]) \(.["mprdma-degraded-marked-ooo-off"][1])"' "$R" 2>/dev/null)
	read -r eu_g bm_g eu_mem bm_mem <<<"${eu_bm:-0 0 0 0}"
	# Side by side, as the issue asks: over Eunomia 0.34-0.51 of the optimal, over the 64-slot
	# bitmap 0.31-0.38, either ahead in a run (five runs); both are reported, neither is asked more.
	check "degraded, control off: goodput over Eunomia and over the 64-slot bitmap, side by side ($eu_g vs $bm_g of optimal)" \
		awk -v a="$eu_g" -v b="$bm_g" 'BEGIN { exit !(a + 0 > 0 && b + 0 > 0) }'
	check "degraded, control off: ordering memory 17 B for the 64-slot bitmap, Eunomia's up to its 84 B cap ($bm_mem, $eu_mem)" \
		awk -v a="$eu_mem" -v b="$bm_mem" 'BEGIN { exit !(b == 17 && a > 17 && a <= 84) }'
fi

section "transport: a run the rig's CPU limits is invalid (rig-limited), never a pass or a fail"
# No fabric profile: nothing shapes the paths and the endpoints run flat out (the brief's D.6).
"$RL" run -o "$TR_OUT/cpu" tests/vlab/scenarios/mprdma-cpu-bound.yaml 2>"$TR_OUT/cpu.log"
R="$TR_OUT/cpu/results.json"
check "unshaped: the scenario is invalid, its reason the endpoint's CPU ($(jq -r '.scenarios[0].reason' "$R" 2>/dev/null | cut -c1-120))" \
	jq -e '.scenarios[0] | .verdict == "invalid" and (.reason | test("rig-limited.*CPU"))' "$R"
# Which end saturates first depends on the machine: a CI run had the receiver at 96%, the sender below 90%.
check "unshaped: results.json records each endpoint's CPU per phase, one end busy 90% or more" \
	jq -e '.scenarios[0].components["mp-rdma"].cpu | (.sender.baseline.busy >= 0.9 or .receiver.baseline.busy >= 0.9) and .sender.baseline.cpu > 0 and .receiver.baseline.cpu > 0' "$R"
check "no endpoint left running after the CPU-bound run" test -z "$(pgrep -f "$TR_PROCS" || true)"
