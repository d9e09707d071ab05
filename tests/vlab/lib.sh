# SPDX-License-Identifier: MIT
# What the virtual-lab tests share beyond tests/lib.sh: what could be left behind, and the lab's state.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# Everything of ours that could be left behind, one item per line.
leftovers() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep '^rl-' | sed 's/^/netns /'
	ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(rlm|rl-mgmt)' | sed 's/^/link /'
	pgrep -f "sshd -D -e -f ${ROCELAB_STATE_DIR:-/run/rocelab}/" | sed 's/^/process /'
	pgrep -f "rocelab (agent|analyze|inject|load|transport) " | sed 's/^/process /'
	ls -d /tmp/rocelab-run.* /tmp/rocelab-transport.* 2>/dev/null | sed "s/^/run folder /"
	[ -e "${ROCELAB_STATE_DIR:-/run/rocelab}" ] && echo "state ${ROCELAB_STATE_DIR:-/run/rocelab}"
	ls /run/rocelab-deadman/* 2>/dev/null | sed 's/^/dead-man lease /'
	return 0
}

# A test run marks the machine as its own while it runs ("PID SESSION"). A run that is killed
# (SIGKILL, a CI timeout, the end of a session) cannot take its lab down; the next run can,
# and knows the lab for that run's: the mark's run is dead, the lab's state was written after
# the mark, and 'lab up' wrote the mark's session as the one that brought the lab up.
# A lab anyone else brought up is never touched.
RUN_MARK=/run/rocelab-tests.run
# Is the mark's run dead (and not this one)?
marked_run_dead() {
	local pid sid
	[ -r "$RUN_MARK" ] && read -r pid sid <"$RUN_MARK" || return 1
	[[ "$pid" =~ ^[0-9]+$ && "$sid" =~ ^[0-9]+$ ]] || return 1
	[ "$pid" != $$ ] && ! kill -0 "$pid" 2>/dev/null
}
interrupted_run() {
	local st=${ROCELAB_STATE_DIR:-/run/rocelab} pid sid up_sid
	marked_run_dead && [ -e "$st/inventory.yaml" ] || return 1
	read -r pid sid <"$RUN_MARK"
	[ "$st/inventory.yaml" -nt "$RUN_MARK" ] || return 1
	[ -e "$st/up" ] || return 0 # killed while the lab came up or went down
	up_sid=$(awk '$1 == "session" {print $2}' "$st/up")
	[ "$up_sid" = "$sid" ]
}
# The dead-man leases a dead marked run left: written after its mark, their timers gone
# (with its lab's namespaces, or killed with it).
interrupted_run_leases() {
	local f pid
	marked_run_dead || return 0
	for f in /run/rocelab-deadman/f*; do
		case $f in *.pid | *.new | '/run/rocelab-deadman/f*') continue ;; esac
		[ "$f" -nt "$RUN_MARK" ] || continue
		case $f in *.fired) [ -e "${f%.fired}" ] || echo "$f"; continue ;; esac # fired, never read
		pid=$(cat "$f.pid" 2>/dev/null)
		[[ "$pid" =~ ^[0-9]+$ ]] && grep -qsF "$f" "/proc/$pid/cmdline" && continue
		echo "$f"
	done
}

# The run folders whose run has ended (their owner file: "MACHINE PID START", the start
# time as /proc/PID/stat's 22nd field): what 'rocelab run' sweeps on a device's next run.
ended_run_folders() {
	local d mid pid start
	for d in /tmp/rocelab-run.*; do
		[ -f "$d/owner" ] && read -r mid pid start <"$d/owner" && [[ "$pid" =~ ^[0-9]+$ ]] || continue
		[ "$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | awk '{print $20}')" = "$start" ] || echo "$d"
	done
}

# Everything a fault may change, in every namespace of the lab, in a stable text form.
snapshot() {
	local ns
	# A process or two a command, not five: it ran about 40 times a make check, 1.6 s each.
	for ns in $(ip netns list | awk '{print $1}' | grep '^rl-' | sort); do
		echo "### $ns"
		printf 'link show\naddr show\nrule show\nroute show table all\n' |
			ip -n "$ns" -o -force -batch - |
			awk '!/^(local|broadcast) / { sub(/^[0-9]+: /, ""); sub(/ qlen [0-9]+/, ""); print }' | sort
		ip netns exec "$ns" nft list ruleset
		printf 'qdisc show\nfilter show\n' | tc -n "$ns" -force -batch - 2>/dev/null | sort
	done
}

# make check (BESIDE_TIERS): its CPU-bound tiers as the busy core the Hostmesh CI suite is
# graded beside (tests/beside.sh, started by hostmesh_test.sh).
BESIDE_OUT="$ROOT/${BUILD:-build}/beside"
BESIDE_PID=
start_beside() {
	rm -rf "$BESIDE_OUT"
	# A session of its own: the tiers, their tests and stress-ng end as one group.
	# Not a child of this shell (setsid -f): a test's bare 'wait' must not wait for it.
	BESIDE_OWNER=$$ setsid -f "$ROOT/tests/beside.sh" run "$BESIDE_OUT" $BESIDE_TIERS \
		>"$T/beside.log" 2>&1 </dev/null
	for _ in $(seq 100); do [ -s "$BESIDE_OUT/pgid" ] && break; sleep 0.1; done
	BESIDE_PID=$(cat "$BESIDE_OUT/pgid" 2>/dev/null)
}
# The suite has ended before the tiers: the rest of them on every CPU, no stress-ng beside.
free_beside() {
	local g all p
	[ -n "$BESIDE_PID" ] && [ ! -e "$BESIDE_OUT/done" ] || return 0
	g=$BESIDE_PID
	all=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
	touch "$BESIDE_OUT/free"
	pkill -g "$g" -x stress-ng
	for p in $(pgrep -g "$g"); do taskset -a -p -c "$all" "$p" >/dev/null 2>&1; done
}
end_beside() {
	[ -n "$BESIDE_PID" ] || return 0
	kill -- -"$BESIDE_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$BESIDE_PID" 2>/dev/null || break; sleep 0.1; done
	BESIDE_PID=
}
