#!/bin/sh
# SPDX-License-Identifier: MIT
# Stands in for 'rocelab inject --handoff - --cue -j' in the runner's unit
# test: reads the fault handed over on standard input, says "ready", waits
# for the line "go" (or exits, nothing applied, when standard input closes
# first), says "applied" on one JSON line, holds until SIGTERM, exits 0
# (reverted).  What it was asked (its arguments and the handoff line, quotes
# escaped) and when it got ready are in its evidence.
# FAKE_INJECT_SHORT, when set, is what it says after the revert did not run as written.
# FAKE_INJECT_COUNTERS, when set, is the counters line's "counters" it prints after the revert.
# FAKE_INJECT_APPLY_S, when set, is how long its apply takes (seconds), after the cue.
trap 'echo "fake-inject: reverted" >&2; [ -z "${FAKE_INJECT_SHORT:-}" ] || echo "{\"id\":1,\"short\":\"$FAKE_INJECT_SHORT\"}"; [ -z "${FAKE_INJECT_COUNTERS:-}" ] || echo "{\"id\":1,\"counters\":$FAKE_INJECT_COUNTERS}"; exit 0' TERM INT
IFS= read -r handoff
handoff=$(printf '%s' "$handoff" | sed 's/\\/\\\\/g; s/"/\\"/g')
echo ready
ready=$(date +%s.%N)
IFS= read -r cue || { echo "fake-inject: no cue" >&2; exit 3; }
[ "$cue" = go ] || { echo "fake-inject: cue '$cue'" >&2; exit 3; }
cued=$(date +%s.%N)
if [ -n "${FAKE_INJECT_APPLY_S:-}" ]; then # (a short evidence: three fit in the run's)
	sleep "$FAKE_INJECT_APPLY_S"
	echo "{\"outcome\":\"applied\",\"applied_at\":$(date +%s.%N),\"evidence\":\"cued at $cued\"}"
	while :; do sleep 0.05; done
fi
echo "{\"outcome\":\"applied\",\"applied_at\":$(date +%s.%N),\"evidence\":\"fake injector: $* $handoff ready at $ready cued at $cued\"}"
while :; do sleep 0.05; done
