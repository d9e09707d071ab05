# SPDX-License-Identifier: MIT
# Shared helpers of the virtual-lab integration tests: checks, counters, teardown.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RL="$ROOT/build/rocelab"
TOOLS="$ROOT/build/tools"
PASSED=0
FAILED=0
FAILS=()

ok() { PASSED=$((PASSED + 1)); printf '  ok   %s\n' "$1"; }
fail() { FAILED=$((FAILED + 1)); FAILS+=("$1"); printf '  FAIL %s\n' "$1"; [ -n "${2:-}" ] && printf '       %s\n' "$2"; return 0; }
# check "name" cmd...: passes when cmd exits 0
check() { local n=$1; shift; if "$@" >$T/check.out 2>&1; then ok "$n"; else fail "$n" "$(tail -3 $T/check.out | tr '\n' ' ')"; fi; }
# expect_exit CODE "name" cmd...
expect_exit() {
	local want=$1 n=$2; shift 2
	"$@" >$T/check.out 2>&1; local got=$?
	if [ "$got" -eq "$want" ]; then ok "$n"; else fail "$n" "exit $got, want $want: $(tail -2 $T/check.out | tr '\n' ' ')"; fi
}
section() { printf '%s\n' "== $1"; }

# Everything of ours that could be left behind, one item per line.
leftovers() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep '^rl-' | sed 's/^/netns /'
	ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(rlm|rl-mgmt)' | sed 's/^/link /'
	pgrep -f "sshd -D -e -f ${ROCELAB_STATE_DIR:-/run/rocelab}/" | sed 's/^/process /'
	pgrep -f "rocelab (agent|analyze|inject) " | sed 's/^/process /'
	[ -e "${ROCELAB_STATE_DIR:-/run/rocelab}" ] && echo "state ${ROCELAB_STATE_DIR:-/run/rocelab}"
	return 0
}

summary() {
	echo
	if [ "$FAILED" -gt 0 ]; then printf 'failed: %s\n' "${FAILS[@]}"; fi
	echo "integration: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "integration tests build network namespaces: run them as root" >&2
		exit 2
	fi
}

# Everything a fault may change, in every namespace of the lab, in a stable text form.
snapshot() {
	local ns
	for ns in $(ip netns list | awk '{print $1}' | grep '^rl-' | sort); do
		echo "### $ns"
		ip -n "$ns" -o link show | sed -E 's/^[0-9]+: //; s/ qlen [0-9]+//' | sort
		ip -n "$ns" -o addr show | awk '{$1=""; print}' | sort
		ip -n "$ns" rule show
		ip -n "$ns" route show table all | grep -v '^local\|^broadcast' | sort
		ip netns exec "$ns" nft list ruleset
		tc -n "$ns" qdisc show | sort
		tc -n "$ns" filter show 2>/dev/null | sort
	done
}
