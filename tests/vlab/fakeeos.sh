#!/bin/sh
# SPDX-License-Identifier: MIT
# An Arista EOS CLI's answers to what rocelab asks before a fault, for the SSH lab's test: a
# switch of the virtual lab stands in for an EOS one (issue 61).  Linked as 'show' and as
# 'json' (the '| json' of 'show version | json' is a pipe in a shell); the model in the file
# $FAKEEOS_MODEL.  Anything else is refused as EOS refuses it.
case "$(basename "$0")" in
json) exec cat ;;
esac
case "$*" in
version) printf '{"modelName": "%s", "version": "4.30.1F"}\n' "$(cat "$FAKEEOS_MODEL")" ;;
"running-config interfaces "*) printf 'interface %s\n   mtu 9214\n' "$3" ;;
running-config) printf 'hostname stand-in\n' ;;
*)
	echo "% Invalid input (a stand-in for EOS: show $*)" >&2
	exit 1
	;;
esac
