# shellcheck shell=bash
# Functions shared by bench/render.sh and bench/compare.sh, which source
# this file (it is not run on its own). measure keeps its files in $work,
# the calling script's temporary folder.

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
