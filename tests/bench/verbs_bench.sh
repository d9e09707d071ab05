#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the Hostmesh agent over the verbs transport (Soft-RoCE) beside the
# udp transport, in the VM tier (qemu TCG; see tests/bench/verbs_bench_inside.sh).
# Prints "bench <name> <value> <unit>" lines.  AGENT_S (seconds per run,
# default 15) and ROUNDS (default 3) go into the VM on the kernel command line.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" -ne 0 ]; then echo "bench: run as root" >&2; exit 2; fi
echo "bench: verbs vs udp agent in the VM (qemu TCG: compare the two, not absolute figures)" >&2
rc=0
VM_ENV="AGENT_S=${AGENT_S:-15} ROUNDS=${ROUNDS:-3}" VM_LABEL=vm-bench tests/vm/run.sh "$PWD/tests/bench/verbs_bench_inside.sh" >&2 || rc=$?
tr -d '\r' <build/vm-console.log | grep '^bench ' || true
exit $rc
