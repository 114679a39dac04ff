#!/usr/bin/env bash
# Render benchmark: full build and one-page rebuild of a synthetic corpus
# (bench/gencorpus: ~800-word pages with headings, code, tables, links and
# components; groups of 50 pages, tabs of 250) with Lectern, and, when
# Hugo is installed, a build of the same Markdown with a minimal Hugo
# layout (section sidebar + content) in the same run.
#
#   bench/render.sh                 # 1,000 and 10,000 pages
#   SIZES="1000" bench/render.sh    # 1,000 only
#
# Prints, per size: wall time, pages/s and peak RSS (/usr/bin/time -v) of
# the full build, the ratio to Hugo's pages/s, and the rebuild after one
# page changed (with --cache-dir): the median wall time of REBUILDS (3)
# rebuilds, each after changing the text of another page, their largest
# peak RSS, and the ratio of the full build's time to it. Wall times are
# taken to the millisecond (around /usr/bin/time, whose own start is
# counted). Then the same for lectern build --watch (bench/renderwatch):
# the time from writing a page to the watching process's "Rebuilt" line,
# which saves the process start-up (about 15 ms, most of it Go package
# initialisation) that every cold rebuild pays, and the ratio of the full
# build's time to it; its RSS is the watching process's peak, which
# includes its first, full build.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"1000 10000"}
REBUILDS=${REBUILDS:-3}
HUGO=${HUGO:-$(command -v hugo || true)}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/lib.sh
. bench/lib.sh

# Built as `make build` builds the released binary (static, stripped),
# whose start-up is part of every rebuild.
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/lectern" ./cmd/lectern
go build -o "$work/gencorpus" ./bench/gencorpus
go build -o "$work/renderwatch" ./bench/renderwatch
# `lectern build` when it takes --cache-dir, else the small driver around
# render.Build (same options).
if "$work/lectern" build --help 2>&1 | grep -q -- '--cache-dir'; then
	BUILD=("$work/lectern" build)
	how="lectern build"
else
	go build -o "$work/renderdriver" ./bench/renderdriver
	BUILD=("$work/renderdriver")
	how="bench/renderdriver (render.Build)"
fi

echo "render benchmark: $(nproc) CPUs, $(go version | awk '{print $3}'), builder: $how${HUGO:+, $("$HUGO" version | awk '{print $1, $2}')}"
rows=()
for n in $SIZES; do
	c="$work/c$n"
	"$work/gencorpus" -pages "$n" -out "$c" >/dev/null
	sync

	measure "${BUILD[@]}" --out "$work/site$n" --cache-dir "$work/cache$n" "$c/lectern"
	lw=$WALL lr=$RSS
	built=$(find "$work/site$n" -name '*.html' | wc -l)
	sync # the full build's writes, not flushed during the rebuilds

	# One page changed: its text (not only its time stamp); another page
	# for each rebuild.
	walls=() rsss=()
	for r in $(seq "$REBUILDS"); do
		i=$((n / 2 + (r - 1) * 7))
		page=$(printf 't%02d/p%05d.mdx' $((i / 250 + 1)) $((i + 1)))
		printf '\nOne more sentence, changed for rebuild %d.\n' "$r" >>"$c/lectern/$page"
		measure "${BUILD[@]}" --out "$work/site$n" --cache-dir "$work/cache$n" "$c/lectern"
		walls+=("$WALL") rsss+=("$RSS")
		grep -q "changed for rebuild $r" "$work/site$n/${page%.mdx}.html" || { echo "rebuild did not update $page" >&2; exit 1; }
	done
	rw=$(median "${walls[@]}") rr=$(maxof "${rsss[@]}")
	echo "  $n pages: rebuilds ${walls[*]} s" >&2

	# The same with lectern build --watch, into a new output folder.
	ww=- wr=-
	if [ "$how" = "lectern build" ]; then
		wpages=()
		for r in $(seq "$REBUILDS"); do
			i=$((n / 3 + (r - 1) * 7))
			wpages+=("$(printf 't%02d/p%05d.mdx' $((i / 250 + 1)) $((i + 1)))")
		done
		read -r -a wout < <("$work/renderwatch" -lectern "$work/lectern" -out "$work/watch$n" "$c/lectern" "${wpages[@]}")
		wr=${wout[-1]}
		unset 'wout[-1]'
		ww=$(median "${wout[@]}")
		echo "  $n pages: watched rebuilds ${wout[*]} s" >&2
		rm -rf "$work/watch$n"
	fi

	hw=- hr=- hrate=- hratio=-
	if [ -n "$HUGO" ]; then
		measure "$HUGO" --quiet -s "$c/hugo" -d "$work/hugo$n"
		hw=$WALL hr=$RSS
		hrate=$(rate "$n" "$hw")
		hratio=$(ratio "$(rate "$n" "$lw")" "$hrate")
	fi
	rows+=("$(printf '%6d %7s %8s %8s | %7s %8s %8s | %6sx | %7s %8s %6sx | %7s %8s %6sx' \
		"$n" "$lw" "$(rate "$n" "$lw")" "$lr" "$hw" "$hrate" "$hr" "$hratio" "$rw" "$rr" "$(ratio "$lw" "$rw")" \
		"$ww" "$wr" "$(ratio "$lw" "$ww")")")
	echo "  $n pages: $built html files" >&2
	rm -rf "$work/site$n" "$work/hugo$n" "$c"
done
echo
printf '%6s %7s %8s %8s | %7s %8s %8s | %7s | %7s %8s %7s | %7s %8s %7s\n' \
	pages "wall s" "pages/s" "RSS MB" "hugo s" "pages/s" "RSS MB" "vs hugo" "rebuild" "RSS MB" "full/re" "watched" "RSS MB" "full/wa"
for r in "${rows[@]}"; do echo "$r"; done
