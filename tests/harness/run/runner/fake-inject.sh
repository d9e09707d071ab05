#!/bin/sh
# SPDX-License-Identifier: MIT
# Stands in for 'rocelab inject --handoff - --hold -j' in the runner's unit
# test: reads the fault handed over on standard input, says "applied" on one
# JSON line, holds until SIGTERM, exits 0 (reverted).  What it was asked (its
# arguments and the handoff line, quotes escaped) is in its evidence.
trap 'echo "fake-inject: reverted" >&2; exit 0' TERM INT
IFS= read -r handoff
handoff=$(printf '%s' "$handoff" | sed 's/\\/\\\\/g; s/"/\\"/g')
echo "{\"outcome\":\"applied\",\"applied_at\":$(date +%s.%N),\"evidence\":\"fake injector: $* $handoff\"}"
while :; do sleep 0.05; done
