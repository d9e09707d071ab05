#!/bin/sh
# SPDX-License-Identifier: MIT
# An RNIC's ETS max rates as iproute2's dcb before 6.18 shows and sets them (its bytes/s handed
# to DCBNL as kbit/s, its JSON DCBNL's kbit/s as they are), for rnic1 alone, its state one line
# of 8 rates in kbit/s in $FAKEDCB_STATE: the SSH lab's test stands it in for a NIC with DCB
# (veth has none).  Every other dcb command goes to the real one.
st=$FAKEDCB_STATE
case "$*" in
"-V") echo "dcb utility, iproute2-6.1.0" ;;
"-j maxrate show dev rnic1")
	read -r a b c d e f g h <"$st"
	printf '{"tc_maxrate":[%s,%s,%s,%s,%s,%s,%s,%s]}\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h"
	;;
"maxrate set dev rnic1 tc-maxrate "*)
	all="$*"
	shift 5
	out=
	for m in "$@"; do
		v=${m#*:}
		case "$v" in *Bps) v=${v%Bps} ;; *) echo "fakedcb: not the old dcb's unit: $m" >&2; exit 1 ;; esac
		out="$out${out:+ }$v"
	done
	echo "$out" >"$st"
	echo "$all" >>"$st.log"
	;;
*) exec /usr/sbin/dcb "$@" ;;
esac
