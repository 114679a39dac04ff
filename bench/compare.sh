#!/usr/bin/env bash
# Render comparison: full builds and one-page rebuilds of the synthetic
# corpus of bench/render.sh (bench/gencorpus) with `lectern build` of two
# git revisions of this repository, in the same run and taking turns, so
# that a change can show that it is not slower beyond the machine's noise.
#
#   bench/compare.sh BASE [HEAD]
#   bench/compare.sh main                          # main against the working tree
#   bench/compare.sh HEAD~1 HEAD                   # the last commit against the one before
#   SIZES="1000" ROUNDS=9 bench/compare.sh main    # 1,000 pages only, 9 rounds
#   bench/compare.sh HEAD HEAD                     # the noise: one revision against itself
#
# BASE and HEAD are git revisions (whatever `git rev-parse` takes). Without
# HEAD, head is the working tree as it is, uncommitted changes included;
# pass HEAD for the last commit alone. A revision's files are taken with
# git archive into a temporary folder, removed at exit, and its lectern is
# built as `make build` builds it (static, stripped); both must have
# `lectern build --cache-dir`. bench/gencorpus is built from the working
# tree and writes one corpus per size (SIZES, default "1000 10000").
#
# Per size, ROUNDS (5) rounds each run a full build with base's binary,
# then one with head's, each into a new output and cache folder of its own
# (the two never share one); then, REBUILDS (3) times, the text of another
# page is changed and base's binary rebuilds (--cache-dir), then head's.
# The turns spread the machine's noise over both. Prints a table per size:
# for base and head, the median and minimum wall time of the full build,
# pages/s at the median and the peak RSS over the rounds (/usr/bin/time
# -v), the median wall time of the ROUNDS x REBUILDS rebuilds and their
# peak RSS; then head/base of each but pages/s (1.00x: the same; above 1:
# slower or larger). Wall times are taken as bench/render.sh takes them.
# Each round's figures go to stderr as they come; a revision against
# itself shows how far apart medians fall on this machine with no change.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: bench/compare.sh BASE [HEAD]   (bench/compare.sh --help for more)" >&2; }
case ${1:-} in
-h | --help)
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
	exit 0
	;;
esac
[ $# -ge 1 ] && [ $# -le 2 ] || { usage; exit 2; }
SIZES=${SIZES:-"1000 10000"}
ROUNDS=${ROUNDS:-5}
REBUILDS=${REBUILDS:-3}
for v in $SIZES "$ROUNDS" "$REBUILDS"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "SIZES, ROUNDS and REBUILDS take whole numbers above 0, not '$v'" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
command -v go >/dev/null || { echo "needs go on PATH (https://go.dev/dl/)" >&2; exit 1; }

# commit REV: REV's full commit hash, or exit with a message.
commit() {
	git rev-parse --verify --quiet "$1^{commit}" || { echo "not a git revision here: $1" >&2; return 1; }
}
base_rev=$1
base_commit=$(commit "$base_rev") || exit 2
base_label="$base_rev ($(git rev-parse --short "$base_commit"))"
if [ $# -eq 2 ]; then
	head_rev=$2
	head_commit=$(commit "$head_rev") || exit 2
	head_label="$head_rev ($(git rev-parse --short "$head_commit"))"
else
	head_rev=
	head_label="working tree ($(git rev-parse --short HEAD)$([ -z "$(git status --porcelain)" ] || echo ", with uncommitted changes"))"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/lib.sh
. bench/lib.sh

# build SIDE LABEL [COMMIT]: builds the lectern of COMMIT's files (taken
# with git archive), or of the working tree, as `make build` does into
# $work/SIDE/lectern, and checks that its build takes --cache-dir.
build() {
	local side=$1 label=$2 dir=. help
	echo "building $side: $label" >&2
	mkdir -p "$work/$side"
	if [ $# -eq 3 ]; then
		dir="$work/$side/src"
		mkdir "$dir"
		git archive "$3" | tar -x -C "$dir"
	fi
	if ! (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/$side/lectern" ./cmd/lectern) >"$work/build.log" 2>&1; then
		cat "$work/build.log" >&2
		echo "$side, $label, does not build (go build ./cmd/lectern, above): fix it or compare another revision" >&2
		exit 1
	fi
	help=$("$work/$side/lectern" build --help 2>&1 || true)
	grep -q -- '--cache-dir' <<<"$help" || {
		echo "$side, $label: its lectern build has no --cache-dir, which the rebuilds need; compare a later revision" >&2
		exit 1
	}
}
build base "$base_label" "$base_commit"
if [ -n "$head_rev" ]; then
	build head "$head_label" "$head_commit"
else
	build head "$head_label"
fi
go build -o "$work/gencorpus" ./bench/gencorpus

echo "render comparison: $(nproc) CPUs, $(go version | awk '{print $3}'), lectern build; ROUNDS=$ROUNDS, REBUILDS=$REBUILDS per round"
echo "  base: $base_label"
echo "  head: $head_label"
# x A B: A / B as "1.02x".
x() {
	local r
	r=$(ratio "$1" "$2" 2)
	if [ "$r" = - ]; then echo -; else echo "${r}x"; fi
}
row() { printf '%-10s %8s %8s %8s %8s | %9s %8s\n' "$@"; }
for n in $SIZES; do
	c="$work/c$n"
	"$work/gencorpus" -pages "$n" -out "$c" >/dev/null
	sync
	declare -A full=() fullrss=() re=() rerss=()
	k=0
	for round in $(seq "$ROUNDS"); do
		rm -rf "$work"/{base,head}/{site,cache}
		sync
		declare -A rfull=() rre=()
		for s in base head; do
			measure "$work/$s/lectern" build --out "$work/$s/site" --cache-dir "$work/$s/cache" "$c/lectern"
			full[$s]+=" $WALL" fullrss[$s]+=" $RSS" rfull[$s]=$WALL
			sync # its writes, not flushed during the next build
		done
		if [ "$round" -eq 1 ]; then
			echo "  $n pages: base $(find "$work/base/site" -name '*.html' | wc -l) html files, head $(find "$work/head/site" -name '*.html' | wc -l)" >&2
		fi
		# One page changed: its text (not only its time stamp); another
		# page for each rebuild.
		for _ in $(seq "$REBUILDS"); do
			k=$((k + 1))
			i=$(((n / 2 + (k - 1) * 7) % n))
			page=$(printf 't%02d/p%05d.mdx' $((i / 250 + 1)) $((i + 1)))
			printf '\nOne more sentence, changed for rebuild %d.\n' "$k" >>"$c/lectern/$page"
			for s in base head; do
				measure "$work/$s/lectern" build --out "$work/$s/site" --cache-dir "$work/$s/cache" "$c/lectern"
				re[$s]+=" $WALL" rerss[$s]+=" $RSS" rre[$s]+=" $WALL"
				grep -qF "changed for rebuild $k." "$work/$s/site/${page%.mdx}.html" || { echo "$s: rebuild did not update $page" >&2; exit 1; }
			done
		done
		echo "  $n pages, round $round/$ROUNDS: full build base ${rfull[base]} head ${rfull[head]} s; rebuilds base${rre[base]} head${rre[head]} s" >&2
	done

	declare -A med=() mn=() rss=() remed=() remax=()
	for s in base head; do
		read -r -a a <<<"${full[$s]}"
		med[$s]=$(median "${a[@]}") mn[$s]=$(minof "${a[@]}")
		read -r -a a <<<"${fullrss[$s]}"
		rss[$s]=$(maxof "${a[@]}")
		read -r -a a <<<"${re[$s]}"
		remed[$s]=$(median "${a[@]}")
		read -r -a a <<<"${rerss[$s]}"
		remax[$s]=$(maxof "${a[@]}")
	done
	echo
	echo "$n pages: full build x $ROUNDS (median, min, pages/s at the median, peak RSS), one-page rebuild x $((ROUNDS * REBUILDS)) (median, peak RSS)"
	row "" "full s" "min s" "pages/s" "RSS MB" "rebuild s" "RSS MB"
	for s in base head; do
		row "$s" "${med[$s]}" "${mn[$s]}" "$(rate "$n" "${med[$s]}")" "${rss[$s]}" "${remed[$s]}" "${remax[$s]}"
	done
	row head/base "$(x "${med[head]}" "${med[base]}")" "$(x "${mn[head]}" "${mn[base]}")" - \
		"$(x "${rss[head]}" "${rss[base]}")" "$(x "${remed[head]}" "${remed[base]}")" "$(x "${remax[head]}" "${remax[base]}")"
	rm -rf "$c" "$work"/{base,head}/{site,cache}
done
