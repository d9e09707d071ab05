# SPDX-License-Identifier: MIT
# Sourced by the agent benches: user-space instructions per probe, repeatable where times are
# not.  callgrind counts host1's agent (rocelab-agent itself: 'rocelab agent' execs it, and
# callgrind would follow only rocelab) over runs of 8 and 28 s; the difference over the
# difference in probes leaves start-up and exit out.  Uses $out; $pin (may be empty) pins it.

# agent_cg_run SECONDS AGENT-ARGS...: prints "instructions probes"
agent_cg_run() {
	local s=$1 v
	shift
	ip netns exec rl-host1 ${pin:-} valgrind --tool=callgrind --callgrind-out-file="$out/cg.$s" \
		build/rocelab-agent "$@" 2>"$out/cg.$s.log" &
	v=$!
	sleep "$s"
	kill -TERM "$v"
	wait "$v" || true
	printf '%s %s\n' "$(awk '/^summary:/ {print $2}' "$out/cg.$s")" \
		"$(grep -o '[0-9]* probes' "$out/cg.$s.log" | tail -1 | cut -d' ' -f1)"
}

# agent_instructions FIGURE AGENT-ARGS...: the bench line FIGURE, instructions a probe
agent_instructions() {
	local figure=$1 i_short p_short i_long p_long
	shift
	read -r i_short p_short < <(agent_cg_run 8 "$@")
	read -r i_long p_long < <(agent_cg_run 28 "$@")
	if [ -n "$i_short" ] && [ -n "$p_long" ] && [ "$p_long" -gt "${p_short:-0}" ]; then
		printf 'bench %s %.0f instr\n' "$figure" \
			"$(echo "($i_long - $i_short) / ($p_long - $p_short)" | bc -l)"
		echo "bench: callgrind: $i_short instructions for $p_short probes (8 s), $i_long for $p_long (28 s)" >&2
	else
		echo "bench: callgrind gave no count (see $out/cg.*.log)" >&2
	fi
}
