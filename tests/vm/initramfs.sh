#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the VM tier's initramfs: busybox-static, the virtio/9p modules of the
# Debian kernel KVER (and their dependencies, in load order), tests/vm/init.
# usage: tests/vm/initramfs.sh KVER OUT.cpio.gz
set -euo pipefail
kver=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -d "/lib/modules/$kver" ] || { echo "initramfs: no modules for kernel $kver (make deps installs linux-image-amd64)" >&2; exit 2; }
bb=/bin/busybox
if ! [ -x $bb ] || ldd $bb >/dev/null 2>&1; then
	echo "initramfs: $bb is missing or not static (make deps installs busybox-static)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,proc,sys,dev,root,tmp,lib/modules}
cp $bb "$tmp/bin/busybox"
cp "$here/init" "$tmp/init"
: > "$tmp/modules.order"
for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	cp "$ko" "$tmp/lib/modules/"
	basename "$ko" >> "$tmp/modules.order"
done
[ -s "$tmp/modules.order" ] || { echo "initramfs: no virtio/9p modules found for $kver" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
(cd "$tmp" && find . | $bb cpio -o -H newc 2>/dev/null | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
