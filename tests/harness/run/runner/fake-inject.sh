#!/bin/sh
# SPDX-License-Identifier: MIT
# Stands in for 'rocelab inject KIND --target T --hold ... -j' in the runner's
# unit test: says "applied" on one JSON line, holds until SIGTERM, exits 0
# (reverted).  What it was asked is in its evidence.
trap 'echo "fake-inject: reverted" >&2; exit 0' TERM INT
echo "{\"outcome\":\"applied\",\"applied_at\":$(date +%s.%N),\"evidence\":\"fake injector: $*\"}"
while :; do sleep 0.05; done
