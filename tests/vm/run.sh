#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Soft-RoCE VM tier (make vm-check): boot Debian's kernel under
# qemu -accel tcg with this machine's root read-only over 9p and build/vm
# writable, run tests/vm/inside.sh there (rxe RNICs, verbs tests, interop,
# the VM scenarios), then check what it wrote.  Prints its wall time.
# usage: tests/vm/run.sh [INSIDE-SCRIPT]
#   VM_TIMEOUT=seconds (default 1500); VM_ENV="NAME=VALUE ..." for the script;
#   VM_LABEL names the run in messages (default vm-check).
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
inside=${1:-$repo/tests/vm/inside.sh}
out=$repo/build/vm
t0=$(date +%s.%N)

label=${VM_LABEL:-vm-check}
die() { echo "$label: $*" >&2; exit 2; }
case "$repo" in *[[:space:]]*) die "the repository path '$repo' has a space: the kernel command line cannot carry it" ;; esac
kver=
for k in $(ls -v /boot/vmlinuz-*-amd64 2>/dev/null); do
	v=${k#/boot/vmlinuz-}
	[ -e "/lib/modules/$v/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko" ] && kver=$v
done
[ -n "$kver" ] || die "no Debian kernel with rdma_rxe.ko in /boot (make deps installs linux-image-amd64)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (make deps installs qemu-system-x86)"
[ -r "/boot/vmlinuz-$kver" ] || die "/boot/vmlinuz-$kver is not readable"
envargs=
for e in ${VM_ENV:-}; do
	[[ "$e" =~ ^[A-Z_][A-Z0-9_]*=[A-Za-z0-9._/-]*$ ]] ||
		die "VM_ENV: '$e' is not NAME=VALUE (NAME in A-Z0-9_, VALUE in A-Za-z0-9._/-)"
	envargs="$envargs rocelab.env=$e"
done

rm -rf "$out" && mkdir -p "$out"
tests/vm/initramfs.sh "$kver" "$repo/build/vm-initramfs.cpio.gz" || die "initramfs build failed"
echo "$label: booting $kver under qemu (tcg), running $inside" >&2
timeout --foreground -k 10 "${VM_TIMEOUT:-1500}" qemu-system-x86_64 \
	-accel tcg -cpu max -m 3072 -smp 2 -no-reboot -nic none \
	-display none -monitor none -serial stdio \
	-kernel "/boot/vmlinuz-$kver" -initrd "$repo/build/vm-initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 quiet loglevel=3 rocelab.run=$inside rocelab.out=$out rocelab.dir=$repo$envargs" \
	-fsdev local,id=root,path=/,readonly=on,multidevs=remap,security_model=none \
	-device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
	-fsdev local,id=repo,path="$repo",readonly=on,multidevs=remap,security_model=none \
	-device virtio-9p-pci,fsdev=repo,mount_tag=repo \
	-fsdev local,id=res,path="$out",security_model=none \
	-device virtio-9p-pci,fsdev=res,mount_tag=results \
	</dev/null 2>&1 | tee "$repo/build/vm-console.log" | sed -u 's/^/vm| /'
qrc=${PIPESTATUS[0]}
rc=$(sed -n 's/.*ROCELAB-VM-EXIT \([0-9]*\).*/\1/p' "$repo/build/vm-console.log" | tail -1)
# The inside script's summary: "[SUITE: ]N passed, N failed[, N skipped]" (tests/lib.sh).
counts=$(sed -En 's/^([a-z-]+: )?([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\2 \3 \5/p' \
	"$repo/build/vm-console.log" | tail -1)
read -r npass nfail nskip <<<"${counts:-0 0 0}"
npass=${npass:-0} nfail=${nfail:-0} nskip=${nskip:-0}
wall=$(echo "$(date +%s.%N) - $t0" | bc)
if [ -z "$rc" ]; then
	echo "$label: the VM did not finish (qemu exit $qrc); console in build/vm-console.log" >&2
	rc=3
fi
# Outside the VM: tshark dissects the probe the VM captured, if tshark is here.
if [ "$rc" = 0 ] && [ -f "$out/probe.pcap" ] && command -v tshark >/dev/null; then
	if tshark -r "$out/probe.pcap" -V 2>/dev/null > "$out/probe.txt" &&
	   grep -q "InfiniBand" "$out/probe.txt" && grep -q "Base Transport Header" "$out/probe.txt" &&
	   grep -q "Datagram Extended Transport Header" "$out/probe.txt"; then
		echo "tshark: PASS udp-transport probe dissected as InfiniBand (BTH + DETH) over UDP 4791" >&2
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
		echo "tshark: FAIL the captured probe was not dissected as InfiniBand (see build/vm/probe.txt)" >&2
		rc=1
	fi
elif [ "$rc" = 0 ] && [ -f "$out/probe.pcap" ]; then
	echo "tshark: SKIP not installed, the captured probe is not dissected" >&2
	nskip=$((nskip + 1))
fi
# Outside the VM too: the VM scenarios' results.json against the schema that ships.
if [ "$rc" = 0 ] && [ -f "$out/scenarios/results.json" ]; then
	if "$repo/tests/reports/results-schema.py" "$repo/reports/results.schema.json" "$out/scenarios/results.json" >&2; then
		echo "schema: PASS build/vm/scenarios/results.json is valid against reports/results.schema.json" >&2
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
		echo "schema: FAIL build/vm/scenarios/results.json is not valid against reports/results.schema.json" >&2
		rc=1
	fi
fi
[ "$rc" = 0 ] || [ "$nfail" -gt 0 ] || nfail=1
printf '%s: %s in %.1f s wall (kernel %s)\n' "$label" "$([ "$rc" = 0 ] && echo passed || echo "FAILED ($rc)")" "$wall" "$kver" >&2
echo "$label: $npass passed, $nfail failed, $nskip skipped"
exit "$rc"
