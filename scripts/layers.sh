#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks the tree's layering: each folder includes only from its own layer or below, no two headers
# include each other, and nothing outside the lab layer names a namespace or the virtual-lab builder.
set -u
cd "$(dirname "$0")/.."

# Layers, lowest first. A file's layer is that of the longest folder prefix it sits in.
LAYERS=(
	harness/lib      # ground floor: common, inventory, topology, netns, netlink, processes, ssh
	harness/lab      # the lab interface and its kinds, traffic
	harness/component # the component interface: component_ops, verdicts, metrics
	injectors/nos    # one room per switch NOS: its state read back in its own words
	injectors        # faults: typed specs, plans, the render vocabulary, journal, effects
	injectors/kinds  # one file per fault kind, and their table by name
	injectors/cmd    # the fault commands: inject, revert, faults, load
	probe            # probe transports, packets, tracer, path mapping
	probe/hostmesh   # the Hostmesh monitor
	probe/rpingmesh  # the R-Pingmesh monitor: probe protocol, pinglists
	probe/monitors   # the monitors by name: their agents and analyzers (monitors.def)
	transport/ordering # receiver ordering state machines (Eunomia): pure, no I/O
	transport/mprdma # MP-RDMA and single-path senders and receivers: pure, no I/O
	transport/sim    # the deterministic path simulator that drives them
	transport/dp     # datapaths on an RNIC (raw sockets), timer wheel, event loop
	transport        # MP-RDMA, Eunomia
	harness/run      # scenarios, runner, grader, component registry
	reports          # results.json, JUnit, incident reports
	harness/cli      # the rocelab command line
)

layer_of() {
	local f=$1 best=-1 bestlen=0 i
	for i in "${!LAYERS[@]}"; do
		local d=${LAYERS[$i]}
		if [[ "$f" == "$d/"* ]] && [ ${#d} -gt $bestlen ]; then
			best=$i
			bestlen=${#d}
		fi
	done
	echo $best
}

bad=0
files=$(git ls-files -co --exclude-standard -- 'harness/*.[ch]' 'injectors/*.[ch]' 'probe/*.[ch]' \
	'transport/*.[ch]' 'reports/*.[ch]')
for f in $files; do
	[ -f "$f" ] || continue
	lf=$(layer_of "$f")
	if [ "$lf" -lt 0 ]; then
		echo "layers: $f is in no layer (add its folder to scripts/layers.sh)"
		bad=$((bad + 1))
		continue
	fi
	while IFS=: read -r line inc; do
		[ -n "$inc" ] || continue
		if [ ! -f "$inc" ]; then
			echo "layers: $f:$line: include \"$inc\" is not a path from the top of the tree"
			bad=$((bad + 1))
			continue
		fi
		li=$(layer_of "$inc")
		if [ "$li" -gt "$lf" ]; then
			echo "layers: $f:$line: ${LAYERS[$lf]} includes \"$inc\" from ${LAYERS[$li]}, a layer above it"
			bad=$((bad + 1))
		fi
		if [[ "$f" == *.h && "$inc" == *.h ]] && grep -q "^#include \"$f\"" "$inc"; then
			echo "layers: $f and $inc include each other"
			bad=$((bad + 1))
		fi
	done < <(grep -n '^#include "' "$f" | sed -E 's/^([0-9]+):#include "([^"]*)".*/\1:\2/')
done

# Outside the lab layer (and the ground floor it stands on) nothing knows about namespaces or
# builds the virtual lab; the CLI's 'lab up/down/status' (lab_cmd.c) is the one front of the builder.
names=$(git grep -nE 'vlab_ns|netns_enter|nsctx_open|NETNS_PREFIX|"rl-|ip netns exec|vlab_(up|down|is_up)\(' \
	-- '*.c' '*.h' ':!harness/lab/' ':!harness/lib/' ':!tests/' | grep -v '^harness/cli/lab_cmd.c:.*vlab_\(up\|down\)(')
if [ -n "$names" ]; then
	echo "layers: namespaces or the virtual-lab builder named outside harness/lab:"
	echo "$names"
	bad=$((bad + 1))
fi

if [ $bad -gt 0 ]; then
	echo "layers: $bad problem(s)"
	exit 1
fi
echo "layers: $(echo "$files" | wc -w) files in ${#LAYERS[@]} layers, each including only from below"
