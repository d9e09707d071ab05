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
	return 0
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
