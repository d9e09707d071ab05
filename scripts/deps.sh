#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install every Debian package rocelab needs (idempotent: apt-get runs only when something is missing).
set -euo pipefail

PKGS=(
	build-essential pkg-config
	libyaml-dev libnl-3-dev libnl-route-3-dev libssh-dev libjansson-dev zlib1g-dev libssl-dev
	nftables libibverbs-dev rdma-core ibverbs-utils ibverbs-providers ethtool
	qemu-system-x86 linux-image-amd64 busybox-static tshark
	libcriterion-dev gnuplot-nox clang-format clang libclang-rt-dev llvm
	openssh-server openssh-client iproute2 procps iputils-ping jq bc libxml2-utils
	libsqlite3-dev sqlite3 python3-jsonschema man-db groff-base libbpf-dev
	valgrind strace linux-perf stress-ng
	prometheus # for promtool: 'rocelab export' is checked with 'promtool check metrics'
	python3-pytest # the pytest plugin's own tests (harness/pytest)
	sudo           # a lab host whose login is not root: rocelab runs there under 'sudo -n' (its test)
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run 'make deps' as root" >&2
	exit 2
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Only its promtool is wanted: a Prometheus server the install started (under systemd) is
# stopped and not enabled, so that nothing listens on :9090 because of rocelab.
if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
	systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
