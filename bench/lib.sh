# shellcheck shell=bash
# Functions shared by the benchmark scripts (bench/*.sh), which source this
# file (it is not run on its own). measure and deploy keep their files in
# $work, the calling script's temporary folder.

# measure CMD...: runs CMD under /usr/bin/time -v; sets WALL (s, to the
# millisecond) and RSS (MB). ($work is the caller's; WALL and RSS are for it.)
# shellcheck disable=SC2034,SC2154
measure() {
	local t0 t1
	t0=$(date +%s%N)
	if ! /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/cmd.log" 2>&1; then
		cat "$work/cmd.log" >&2
		echo "failed: $*" >&2
		exit 1
	fi
	t1=$(date +%s%N)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	RSS=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time.txt")
}
# median N...: the middle value (the lower of the two middle ones for an
# even count); minof, maxof: the smallest and largest.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
minof() { printf '%s\n' "$@" | sort -g | head -1; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "inf" }'; }
# ratio A B [DECIMALS]: A / B to DECIMALS (1) places, or "-" when B is 0.
ratio() { awk -v a="$1" -v b="$2" -v f="%.${3:-1}f" 'BEGIN { if (b > 0) printf f, a / b; else print "-" }'; }

# waitup URL [CURL-OPTION...]: waits up to 20 s for URL to answer 2xx.
waitup() {
	local url=$1
	shift
	for _ in $(seq 400); do curl -sf "$@" -o /dev/null "$url" && return; sleep 0.05; done
	echo "$url does not answer" >&2
	exit 1
}

# wrk_load WRK-ARGUMENT...: runs wrk --latency with 64 connections and 2
# threads for DUR (the caller's) and the arguments given (URL, -H, -s);
# sets RPS and P99 (ms). Answers other than 2xx or 3xx stop the script.
wrk_load() {
	local out
	out=$(wrk -t2 -c64 -d"$DUR" --latency "$@")
	if echo "$out" | grep -q 'Non-2xx'; then
		echo "non-2xx answers from wrk $*:" >&2; echo "$out" >&2; exit 1
	fi
	if echo "$out" | grep -q 'Socket errors'; then
		echo "(wrk $*: $(echo "$out" | grep 'Socket errors' | sed 's/^ *//'))" >&2
	fi
	RPS=$(echo "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}')
	# wrk prints latencies as 812.00us, 8.30ms, 1.02s or 1.10m.
	P99=$(echo "$out" | awk '$1 == "99%" {
		v = $2; f = 1
		if (v ~ /us$/) { f = 0.001; sub(/us$/, "", v) } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /m$/) { f = 60000; sub(/m$/, "", v) } else { f = 1000; sub(/s$/, "", v) }
		printf "%.2f", v * f }')
}
# wrk_run URL [HEADER...]: wrk_load on URL with these request headers.
wrk_run() {
	local url=$1 h=()
	shift
	for x in "$@"; do h+=(-H "$x"); done
	wrk_load "${h[@]}" "$url"
}

# pct P N...: the Pth percentile of the values (nearest rank).
pct() { printf '%s\n' "${@:2}" | sort -g | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100); if (i < NR * p / 100) i++; if (i < 1) i = 1; print v[i] }'; }

# vm_mb PID FIELD: a memory figure of a process from /proc/PID/status
# (VmRSS: resident now; VmHWM: the most resident so far), in MB.
vm_mb() { awk -v f="$2:" '$1 == f { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
# rchar PID: the bytes the process has read through system calls so far
# (files and sockets alike), from /proc/PID/io.
rchar() { awk '$1 == "rchar:" { print $2 }' "/proc/$1/io"; }

# deploy API KEY PROJECT...: triggers an update of each project through
# the API of lectern serve at API (with the admin key KEY), and waits
# until every one is live; sets DEPLOY_S (seconds, from the first trigger
# to the last live). An update that fails stops the script, printing its
# status. Uses one curl for all the requests of a round, so that
# thousands of projects take no more processes than one.
# shellcheck disable=SC2154
deploy() {
	local api=$1 key=$2 t0 t1 ids=() left line
	shift 2
	t0=$(date +%s%N)
	{
		printf 'header = "Authorization: Bearer %s"\nrequest = "POST"\n' "$key"
		printf 'url = "'"$api"'/v1/project/update/%s"\n' "$@"
	} >"$work/deploy.cfg"
	mapfile -t ids < <(curl -s -K "$work/deploy.cfg" | jq -r '.statusId // "-"')
	if [ "${#ids[@]}" -ne $# ] || printf '%s\n' "${ids[@]}" | grep -qx -- -; then
		echo "deploy: $# updates asked, $(printf '%s\n' "${ids[@]}" | grep -cvx -- -) queued" >&2; exit 1
	fi
	while [ "${#ids[@]}" -gt 0 ]; do
		{
			printf 'header = "Authorization: Bearer %s"\n' "$key"
			printf 'url = "'"$api"'/v1/project/update-status/%s"\n' "${ids[@]}"
		} >"$work/deploy.cfg"
		left=()
		while read -r line; do
			case "${line#* }" in
			success) ;;
			queued | in_progress) left+=("${line%% *}") ;;
			*)
				echo "deploy: update ${line%% *} ended ${line#* }:" >&2
				curl -s -H "Authorization: Bearer $key" "$api/v1/project/update-status/${line%% *}" | jq . >&2
				exit 1
				;;
			esac
		done < <(curl -s -K "$work/deploy.cfg" | jq -r '"\(.statusId) \(.status)"')
		ids=("${left[@]}")
		[ "${#ids[@]}" -eq 0 ] || sleep 0.5
	done
	t1=$(date +%s%N)
	DEPLOY_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
}
