# SPDX-License-Identifier: MIT
# The shell test library of the integration tiers (tests/vlab on this machine, tests/vm inside
# the VM): checks that count, SKIP for what this machine lacks, cleanups that run when each
# test file ends (or at exit), and one summary line "SUITE: N passed, N failed, N skipped".
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RL="$ROOT/build/rocelab"
TOOLS="$ROOT/build/tools"
SUITE=${SUITE:-integration}
PASSED=0
FAILED=0
SKIPPED=0
FAILS=()
DEFERRED=()
# Scratch files (check output too); made here unless the caller has one.
if [ -z "${T:-}" ]; then
	T=$(mktemp -d /tmp/rocelab-test.XXXXXX)
	OWN_T=1
fi
export T
# Runs record into a history of their own, not the machine's (STATE_LIB_DIR/history.sqlite).
export ROCELAB_DB="${ROCELAB_DB:-$T/history.sqlite}"

# TEST_TIMES=1: each result line starts with the seconds since the one before it (where time goes).
_took() {
	_took_s=
	[ -n "${TEST_TIMES:-}" ] || return 0
	local now=${EPOCHREALTIME/./} d
	d=$((now - ${_took_t:-$now}))
	_took_t=$now
	printf -v _took_s '%4d.%d ' $((d / 1000000)) $((d / 100000 % 10))
}
ok() { _took; PASSED=$((PASSED + 1)); printf '%s  ok   %s\n' "$_took_s" "$1"; }
fail() { _took; FAILED=$((FAILED + 1)); FAILS+=("$1"); printf '%s  FAIL %s\n' "$_took_s" "$1"; [ -n "${2:-}" ] && printf '       %s\n' "$2"; return 0; }
# skip "name" "why": not run here (a tool or device this machine lacks); counted, never a pass.
skip() { SKIPPED=$((SKIPPED + 1)); printf '  skip %s (%s)\n' "$1" "$2"; }
# check "name" cmd...: passes when cmd exits 0
check() { local n=$1; shift; if "$@" >"$T/check.out" 2>&1; then ok "$n"; else fail "$n" "$(tail -3 "$T/check.out" | tr '\n' ' ')"; fi; }
# expect_exit CODE "name" cmd...
expect_exit() {
	local want=$1 n=$2; shift 2
	"$@" >"$T/check.out" 2>&1; local got=$?
	if [ "$got" -eq "$want" ]; then ok "$n"; else fail "$n" "exit $got, want $want: $(tail -2 "$T/check.out" | tr '\n' ' ')"; fi
}
# section NAME: a heading, after how long the section before it took (where time goes).
section() {
	[ -z "${_sec_t0:-}" ] || printf '  (section: %d s)\n' $((SECONDS - _sec_t0))
	_sec_t0=$SECONDS
	printf '%s\n' "== $1"
}

# defer CMD...: run CMD (quietly) when the current test file ends, last registered first.
defer() { DEFERRED+=("$*"); }
run_deferred() {
	local i
	for ((i = ${#DEFERRED[@]} - 1; i >= 0; i--)); do
		eval "${DEFERRED[$i]}" >/dev/null 2>&1
	done
	DEFERRED=()
}

# run_tests DIR: each DIR/*_test.sh in this shell (ONLY=a substring of the file name picks some),
# its cleanups after it.
run_tests() {
	# Names of their own: the tests run in this function, and their variables are its.
	local _rt_file _rt_t0
	for _rt_file in "$1"/*_test.sh; do
		[ -n "${ONLY:-}" ] && [[ "${_rt_file##*/}" != *"$ONLY"* ]] && continue
		_rt_t0=$SECONDS
		# shellcheck disable=SC1090
		. "$_rt_file"
		run_deferred
		printf '%s: %d s\n' "${_rt_file##*/}" $((SECONDS - _rt_t0))
	done
}

summary() {
	echo
	if [ "$FAILED" -gt 0 ]; then printf 'failed: %s\n' "${FAILS[@]}"; fi
	echo "$SUITE: $PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
}

require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "integration tests build network namespaces: run them as root" >&2
		exit 2
	fi
}

# At exit: pending cleanups, then scratch files this library made.
trap 'run_deferred; [ -n "${OWN_T:-}" ] && rm -rf "$T"' EXIT

# results_valid DIR...: every results.json under the DIRs (at least one) is valid against
# the schema that ships, reports/results.schema.json (violations printed as FILE: PATH: WHAT).
results_valid() {
	local files
	mapfile -t files < <(find "$@" -name results.json 2>/dev/null | sort)
	[ ${#files[@]} -gt 0 ] || { echo "no results.json under $*"; return 1; }
	"$ROOT/tests/reports/results-schema.py" "$ROOT/reports/results.schema.json" "${files[@]}"
}
