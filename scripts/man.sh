#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# man.sh ROCELAB PAGE: the man page PAGE (harness/cli/rocelab.1: what each command is for),
# followed by every command's and subcommand's usage exactly as ROCELAB prints it with --help,
# so that the installed page cannot drift from the program (make install, install-check.sh).
set -euo pipefail
rl=$1
page=$2
# troff-safe: backslashes and hyphens escaped, a leading '.' or "'" made text
esc() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
cat "$page"
cat <<'HDR'
.SH USAGE OF EACH COMMAND
What each command prints with
.BR \-\-help ,
generated from this build of rocelab when it was installed.
HDR
seen=""
show() {
	local help sum
	help=$("$rl" "$@" --help 2>&1) || true
	sum=$(cksum <<<"$help")
	case " $seen " in *" ${sum%% *} "*) return ;; esac
	seen="$seen ${sum%% *}"
	printf '.SS "%s"\n.nf\n' "$*"
	esc <<<"$help"
	printf '.fi\n'
}
cmds=$("$rl" help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}')
for c in $cmds; do
	[ "$c" = version ] && continue
	show "$c"
	help=$("$rl" "$c" --help 2>&1 || true)
	# subcommands: a dispatch table's "commands:" block, or the words of its usage lines
	subs=$(awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}' <<<"$help")
	subs="$subs $(grep -oE "^(usage: +| +)rocelab $c [a-z][a-z|]*( |$)" <<<"$help" | awk '{print $NF}' | tr '|' '\n' || true)"
	for s in $subs; do
		show "$c" "$s"
	done
done
