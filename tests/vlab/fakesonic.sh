#!/bin/sh
# SPDX-License-Identifier: MIT
# A SONiC switch's sonic-db-cli, as far as a PFC storm toward it reads (issue 61): a switch of
# the SSH lab stands in for a SONiC one, linked as 'sonic-db-cli' first in its PATH.  The port's
# PFC receive counter rises 1,000 a second.  The storm's queue has a PFC watchdog, "stormed"
# from a read that finds a 'rocelab load pfc' running on this machine until $FAKESONIC_DIR/restore
# ms after the first read that finds it gone (its restoration time that too), or for good when
# $FAKESONIC_DIR/stuck is there (with $FAKESONIC_DIR/hostile, its state is hostile text instead).
# Anything else prints nothing, as sonic-db-cli does for a
# field that is not there.
# Linked as 'show' too: 'show version' as SONiC prints it (sonic-utilities show/main.py version()),
# and DEVICE_METADATA's buffer_model is $FAKESONIC_DIR/buffer_model (none: unset).
# Linked as 'pfcwd' (sonic-utilities pfcwd/main.py's start and stop, writing PFC_WD|PORT, here
# $FAKESONIC_DIR/cfg "DETECT RESTORE ACTION"; stopped: $FAKESONIC_DIR/off) and as 'sudo', which
# runs its command.
# CONFIG_DB's tables, where $FAKESONIC_DIR/config_db.json holds them ({"TABLE": {"KEY": {FIELD:
# VALUE}}}): 'sonic-db-cli CONFIG_DB HSET|HDEL|DEL' change it as Redis would (a hash left empty
# is gone), and, linked as 'sonic-cfggen', '-d --var-json TABLE' prints one table (nothing for
# none), as sonic-buildimage's sonic-cfggen does.
d=$FAKESONIC_DIR
cdb=$d/config_db.json
case "${0##*/}" in
sudo) exec "$@" ;;
sonic-cfggen)
	[ "$1 $2" = "-d --var-json" ] && [ $# -eq 3 ] || exit 2
	[ -e "$cdb" ] && jq --arg t "$3" '.[$t] // empty' "$cdb"
	exit 0
	;;
pfcwd)
	if [ "$1" = stop ]; then
		rm -f "$d/cfg"
		touch "$d/off"
		exit 0
	fi
	[ "$1" = start ] || exit 2
	shift
	act=- rt=
	while [ $# -gt 2 ]; do
		case "$1" in
		--action) act=$2; shift 2 ;;
		--restoration-time) rt=$2; shift 2 ;;
		*) exit 2 ;;
		esac
	done
	[ -n "$rt" ] || rt=$(($2 * 2))
	echo "$2 $rt $act" >"$d/cfg"
	echo "$rt" >"$d/restore"
	rm -f "$d/off"
	exit 0
	;;
esac
# a field of PFC_WD|PORT: 1 detection, 2 restoration, 3 action
cfg() {
	[ -e "$d/cfg" ] || { echo; return; }
	i=$1
	set -- $(cat "$d/cfg")
	eval "v=\${$i}"
	[ "$v" = - ] && v=
	echo "$v"
}
if [ "${0##*/}" = show ]; then
	[ "$*" = version ] || exit 2
	printf '\nSONiC Software Version: SONiC.202305.1\nDistribution: Debian 11.7\nHwSKU: Mellanox-SN2700-D48C8\nASIC: mellanox\n'
	exit 0
fi
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# the watchdog's state in $d/wd: "" (operational), "storming", or "ended MS"
watch() {
	s=$(cat "$d/wd" 2>/dev/null)
	if pgrep -f "rocelab load [p]fc" >/dev/null; then
		echo storming >"$d/wd"
	elif [ "$s" = storming ]; then
		echo "ended $(now_ms)" >"$d/wd"
	fi
}
case "$*" in
"CONFIG_DB HSET "* | "CONFIG_DB HDEL "* | "CONFIG_DB DEL "*)
	[ -e "$cdb" ] || exit 0
	op=$2 t=${3%%|*} k=${3#*|}
	shift 3
	case $op in
	HSET) f='reduce range(0; $ARGS.positional | length; 2) as $i
		(.; .[$t][$k][$ARGS.positional[$i]] = $ARGS.positional[$i + 1])' ;;
	HDEL) f='reduce $ARGS.positional[] as $f (.; del(.[$t][$k][$f]))
		| if .[$t][$k] == {} then del(.[$t][$k]) else . end' ;;
	DEL) f='del(.[$t][$k])' ;;
	esac
	jq --arg t "$t" --arg k "$k" "$f | if .[\$t] == {} then del(.[\$t]) else . end" \
		--args "$@" <"$cdb" >"$cdb.new" && mv "$cdb.new" "$cdb"
	;;
"COUNTERS_DB HGET COUNTERS_PORT_NAME_MAP "*) echo "oid:0x1000000000001" ;;
"COUNTERS_DB HGET COUNTERS_QUEUE_NAME_MAP "*) echo "oid:0x15000000000003" ;;
"COUNTERS_DB HGET COUNTERS:oid:0x1000000000001 SAI_PORT_STAT_PFC_"*"_RX_PKTS")
	watch
	echo $(($(date +%s) * 1000 % 1000000000))
	;;
"COUNTERS_DB HGET COUNTERS:oid:0x15000000000003 PFC_WD_STATUS")
	watch
	# a hostile device: its state is not one word
	[ -e "$d/hostile" ] && { printf '%s\n' 'stormed $(touch /tmp/rocelab-pwned) <b>'; exit 0; }
	# a watchdog stopped watches no queue: no status
	[ -e "$d/off" ] && { echo; exit 0; }
	set -- $(cat "$d/wd" 2>/dev/null)
	if [ -z "${1:-}" ]; then
		echo operational
	elif [ "$1" = storming ] || [ -e "$d/stuck" ] || [ $(($(now_ms) - $2)) -lt "$(cat "$d/restore")" ]; then
		echo stormed
	else
		echo operational
	fi
	;;
"CONFIG_DB HGET PFC_WD|"*" restoration_time")
	if [ -e "$d/off" ]; then echo; elif [ -e "$d/cfg" ]; then cfg 2; else cat "$d/restore"; fi
	;;
"CONFIG_DB HGET PFC_WD|"*" detection_time") cfg 1 ;;
"CONFIG_DB HGET PFC_WD|"*" action") cfg 3 ;;
"CONFIG_DB HGET DEVICE_METADATA|localhost buffer_model") cat "$d/buffer_model" 2>/dev/null || echo ;;
*) echo ;;
esac
