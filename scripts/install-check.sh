#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# 'make install' into DESTDIR=$1 (emptied first) and check what it installed: the binary runs,
# every data file is there, the man page renders without warnings and covers every command,
# bash completion completes each command, and every command, option and fault kind --help
# names is in the man page, completion and docs/.
set -uo pipefail
D=${1:?usage: install-check.sh DESTDIR}
P=/usr/local
rm -rf "$D"
make --no-print-directory -s install DESTDIR="$D" PREFIX="$P" >/dev/null || { echo "install-check: make install failed"; exit 1; }
bad=0
no() { echo "install-check: $*"; bad=$((bad + 1)); }
B="$D$P/bin/rocelab"
R=$(pwd) # the source tree (its docs are not installed)
S="$D$P/share"
"$B" --version | grep -Eq '^rocelab [0-9]' || no "rocelab --version prints no version"
# The agents alone, beside rocelab (which runs them as rocelab-agent), linking no SSH, crypto,
# SQLite, netlink (but what libibverbs brings) or BPF library.
A="$D$P/bin/rocelab-agent"
[ "$("$A" --version)" = "rocelab-agent $("$B" --version | awk '{print $2}')" ] ||
	no "rocelab-agent --version does not print rocelab's version"
libs=$(readelf -d "$A" | grep -Eo 'lib(ssh|crypto|sqlite3|nl-[a-z-]*3|bpf|jansson)[.]so' | tr '\n' ' ')
[ -z "$libs" ] || no "rocelab-agent links $libs"
# (read whole, then searched: grep -q stops reading at its match, and under pipefail the
# agent's SIGPIPE on its next write of help failed this check once)
help=$("$A" hostmesh --help)
grep -q -- '--interval' <<<"$help" || no "rocelab-agent hostmesh --help prints no options"
for f in rocelab/lab-inventory/vlab-rail.yaml rocelab/scenarios/nightly/no-fault.yaml \
	rocelab/scenarios/qualification/rnic-flap.yaml rocelab/scenarios/qualification/rules/vlab.yaml \
	rocelab/results.schema.json rocelab/grafana/rocelab-dashboard.json man/man1/rocelab.1 \
	bash-completion/completions/rocelab; do
	[ -f "$S/$f" ] && [ ! -L "$S/$f" ] || no "$S/$f is not installed as a file"
done
[ "$(find "$S/rocelab/scenarios" -name '*.yaml' | wc -l)" -eq "$(find scenarios -name '*.yaml' | wc -l)" ] ||
	no "not every scenario was installed"
# The man page: no groff warnings, and a section for every command 'rocelab help' lists.
w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$S/man/man1/rocelab.1" 2>&1 >/dev/null)
[ -z "$w" ] || no "the man page has warnings: $w"
cmds=$("$B" help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}')
[ -n "$cmds" ] || no "rocelab help lists no commands"
for c in $cmds; do
	grep -Eq "^\.SS \"?$c( |\"|,|$)" "$S/man/man1/rocelab.1" || no "the man page has no section for '$c'"
	grep -qE -- "rocelab $c\b|\`$c\`" "$R"/docs/*.md "$R"/README.md || no "no page of docs/ names the command '$c'"
	got=$(bash -c 'rocelab() { "$0" "$@"; }; . "$1"; COMP_WORDS=(rocelab "${2:0:4}"); COMP_CWORD=1; _rocelab; printf "%s\n" "${COMPREPLY[@]}"' \
		"$B" "$S/bash-completion/completions/rocelab" "$c")
	grep -qx "$c" <<<"$got" || no "bash completion does not complete '${c:0:4}' to '$c'"
	# every option the command prints with --help: in the man page, and completed after '--'
	opts=$("$B" "$c" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u || true)
	got=$(bash -c 'rocelab() { "$0" "$@"; }; . "$1"; COMP_WORDS=(rocelab "$2" --); COMP_CWORD=2; _rocelab; printf "%s\n" "${COMPREPLY[@]}"' \
		"$B" "$S/bash-completion/completions/rocelab" "$c")
	for o in $opts; do
		grep -qF -- "${o//-/\\-}" "$S/man/man1/rocelab.1" || no "the man page does not name $c's option $o"
		grep -qx -- "$o" <<<"$got" || no "bash completion does not complete $c's option $o"
		# and the reference pages say what it does (docs/, README.md: the source tree's)
		grep -qF -- "$o" "$R"/docs/*.md "$R"/README.md || no "no page of docs/ names $c's option $o"
		n_opts=$((${n_opts:-0} + 1))
	done
done
# Every fault kind 'inject --help' lists (from injectors/kinds/kinds.def): completed after
# 'inject', in the man page, and a row of docs/faults.md's table.
got=$(bash -c 'rocelab() { "$0" "$@"; }; . "$1"; COMP_WORDS=(rocelab inject ""); COMP_CWORD=2; _rocelab; printf "%s\n" "${COMPREPLY[@]}"' "$B" "$S/bash-completion/completions/rocelab")
kinds=$("$B" inject --help | awk '/^kinds and their options:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[ "$(wc -w <<<"$kinds")" -ge 12 ] || no "inject --help lists $(wc -w <<<"$kinds") fault kinds"
for k in $kinds; do
	grep -qx -- "$k" <<<"$got" || no "bash completion does not complete the fault kind $k"
	after=$(bash -c 'rocelab() { "$0" "$@"; }; . "$1"; COMP_WORDS=(rocelab inject "$2" ""); COMP_CWORD=3; _rocelab; printf "%s\n" "${COMPREPLY[@]}"' "$B" "$S/bash-completion/completions/rocelab" "$k")
	grep -qx -- --target <<<"$after" || no "bash completion offers no --target after 'inject $k'"
	grep -qF -- "${k//-/\\-}" "$S/man/man1/rocelab.1" || no "the man page does not name the fault kind $k"
	grep -q "^| $k |" "$R/docs/faults.md" || no "docs/faults.md has no row for the fault kind $k"
done
# The pytest plugin: found by pytest through its entry point, with no -p.
py=$(/usr/bin/python3 -c 'import sys; print("lib/python%d.%d/dist-packages" % sys.version_info[:2])')
[ -f "$D$P/$py/pytest_rocelab.py" ] || no "the pytest plugin is not installed in $D$P/$py"
pyhelp=$(PYTHONPATH="$D$P/$py" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -p no:cacheprovider --help 2>&1)
grep -q -- '--rocelab-inventory' <<<"$pyhelp" || no "pytest does not load the installed plugin by its entry point"
if [ $bad -eq 0 ]; then
	echo "install-check: $B and rocelab-agent run; data, man page ($(wc -w <<<"$cmds") commands, ${n_opts:-0} options, $(wc -w <<<"$kinds") fault kinds), completion and docs/ agree under $D$P"
fi
rm -rf "$D"
exit $((bad > 0))
