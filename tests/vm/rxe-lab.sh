# SPDX-License-Identifier: MIT
# Sourced inside the VM (tests/vm/inside.sh, tests/bench/verbs_bench_inside.sh):
# a VM lab (vm-rail, vm-rail2) with host1 in the VM's initial namespace, and one
# Soft-RoCE device per RNIC netdev there.  Needs $inv; defines $rnics (host2's
# RNICs have the same netdev names, in its namespace: one rxe each for host1's).
rnics=$(awk '/netdev:/ { for (i = 1; i <= NF; i++) if ($i == "netdev:") { n = $(i+1); sub(/,$/, "", n); print n } }' "$inv" | sort -u)

# lab up with host1 here (rxe works only in the initial namespace on 6.1).
vm_lab_up() {
	modprobe rdma_rxe || { echo "FAIL no rdma_rxe module"; return 3; }
	mkdir -p /run/sshd
	ROCELAB_HOST_IN_ROOT_NS=host1 build/rocelab lab up -i "$inv" || { echo "FAIL lab up"; return 3; }
}

# One rxe_<netdev> per RNIC; waits until the last RNIC's RoCEv2 GID is in its table
# (the table fills asynchronously after the device appears).
rxe_add() {
	local n last=
	for n in $rnics; do
		rdma link add "rxe_$n" type rxe netdev "$n" || { echo "FAIL rdma link add rxe_$n"; return 3; }
		last=$n
	done
	local addr
	addr=$(ip -4 -o addr show dev "$last" | awk '{ sub(/\/.*/, "", $4); print $4 }')
	for _ in $(seq 50); do
		ibv_devinfo -d "rxe_$last" -v 2>/dev/null | grep -q "::ffff:$addr" && return 0
		sleep 0.1
	done
	echo "FAIL rxe_$last has no RoCEv2 GID for $addr after 5 s"
	return 3
}

rxe_del() {
	local n rc=0
	for n in $rnics; do rdma link delete "rxe_$n" || { echo "FAIL rdma link delete rxe_$n"; rc=1; }; done
	return $rc
}

# Nothing of ours left: namespaces, processes, policy rules, links, rxe devices.  Prints what is.
# (A namespace's links go with it a moment after it is deleted: vm_links_gone waits for that.)
vm_leftovers() {
	local left procs rules links rxe
	left=$(ls /run/netns 2>/dev/null | grep -c '^rl-')
	procs=$(pgrep -f 'rocelab (agent|analyze|inject|load)|sshd -f /run/rocelab' | wc -l)
	# ours gone, and the local table's rule back at pref 0 (a lab down once lost it)
	rules=$(ip rule show | grep -vcE '^(0|32766|32767):')
	ip rule show | grep -qE '^0:[[:space:]]+from all lookup local' || rules=$((rules + 1))
	links=$(ip -o link show | grep -vc ' lo:')
	rxe=$(rdma link show | grep -c .)
	[ "$left$procs$rules$links$rxe" = 00000 ] ||
		echo "$left namespaces, $procs processes, $rules rules, $links links, $rxe rxe devices"
}

# The links of a lab just taken down, gone (namespaces are freed after 'lab down' returns).
vm_links_gone() {
	for _ in $(seq 50); do
		[ "$(ip -o link show | grep -vc ' lo:')" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
