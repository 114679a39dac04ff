#!/usr/bin/env bash
# Render benchmark: full build and one-page rebuild of a synthetic corpus
# (bench/gencorpus: ~800-word pages with headings, code, tables, links and
# components) with Lectern, and, when Hugo is installed, a build of the
# same Markdown with a minimal Hugo layout (section sidebar + content) in
# the same run. Two layouts of the corpus (LAYOUTS, default both):
# "tabs", groups of 50 pages in tabs of 250 (docs.json), and "folders",
# folders of 500 pages in one section without docs.json (the navigation
# is the folder tree; its sidebar is split, Hugo's lists the folder).
#
#   bench/render.sh                                  # 1,000 and 10,000 pages, both layouts
#   SIZES="1000" LAYOUTS="folders" bench/render.sh   # 1,000 only, folders only
#
# Prints, per layout and size: wall time, pages/s and peak RSS
# (/usr/bin/time -v) of the full build, the output's size in KB per page
# (all its files; the total in MB on standard error), Hugo's figures and
# the ratio to Hugo's pages/s, and the rebuild after one page changed
# (with --cache-dir): the median wall time of REBUILDS (3) rebuilds, each
# after changing the text of another page, their largest peak RSS, and the
# ratio of the full build's time to it; and the rebuild after a page is
# added to a folder (folders) or to a group of docs.json (tabs): "added".
# Wall times are
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
if "$work/lectern" build --help 2>&1 | grep -- '--cache-dir' >/dev/null; then
	BUILD=("$work/lectern" build)
	how="lectern build"
else
	go build -o "$work/renderdriver" ./bench/renderdriver
	BUILD=("$work/renderdriver")
	how="bench/renderdriver (render.Build)"
fi

echo "render benchmark: $(nproc) CPUs, $(go version | awk '{print $3}'), builder: $how${HUGO:+, $("$HUGO" version | awk '{print $1, $2}')}"
# pagefile LAYOUT N I: the source of page I (from 0) of the corpus of N
# pages, as bench/gencorpus names it.
pagefile() {
	if [ "$1" = folders ]; then
		printf 'g%02d/p%05d.mdx' $(($3 / 500 + 1)) $(($3 + 1))
	else
		printf 't%02d/p%05d.mdx' $(($3 / 250 + 1)) $(($3 + 1))
	fi
}
# kb BYTES N: BYTES per page in KB, to one place.
kb() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.1f", b / n / 1024 }'; }
rows=()
for layout in ${LAYOUTS:-tabs folders}; do
for n in $SIZES; do
	c="$work/c$n"
	"$work/gencorpus" -pages "$n" -layout "$layout" -out "$c" >/dev/null
	sync

	measure "${BUILD[@]}" --out "$work/site$n" --cache-dir "$work/cache$n" "$c/lectern"
	lw=$WALL lr=$RSS
	built=$(find "$work/site$n" -name '*.html' | wc -l)
	lbytes=$(du -sb --apparent-size "$work/site$n" | awk '{print $1}')
	sync # the full build's writes, not flushed during the rebuilds

	# One page changed: its text (not only its time stamp); another page
	# for each rebuild.
	walls=() rsss=()
	for r in $(seq "$REBUILDS"); do
		page=$(pagefile "$layout" "$n" $((n / 2 + (r - 1) * 7)))
		printf '\nOne more sentence, changed for rebuild %d.\n' "$r" >>"$c/lectern/$page"
		measure "${BUILD[@]}" --out "$work/site$n" --cache-dir "$work/cache$n" "$c/lectern"
		walls+=("$WALL") rsss+=("$RSS")
		grep -q "changed for rebuild $r" "$work/site$n/${page%.mdx}.html" || { echo "rebuild did not update $page" >&2; exit 1; }
	done
	rw=$(median "${walls[@]}") rr=$(maxof "${rsss[@]}")
	echo "  $layout $n pages: rebuilds ${walls[*]} s" >&2

	# A page added to a folder (folders layout) or to a group of
	# docs.json (tabs layout, the page listed after its neighbour): its
	# group's pages and the navigation file are written again.
	aw=-
	if [ "$how" = "lectern build" ]; then
		page=$(pagefile "$layout" "$n" $((n / 2)))
		added="${page%.mdx}a.mdx"
		printf -- '---\ntitle: "Added page"\n---\n\nA page added for the benchmark.\n' >"$c/lectern/$added"
		if [ "$layout" = tabs ]; then
			sed -i "s|\"${page%.mdx}\"|\"${page%.mdx}\", \"${added%.mdx}\"|" "$c/lectern/docs.json"
			grep -q "\"${added%.mdx}\"" "$c/lectern/docs.json" || { echo "could not list $added in docs.json" >&2; exit 1; }
		fi
		touch "$work/mark"
		measure "${BUILD[@]}" --out "$work/site$n" --cache-dir "$work/cache$n" "$c/lectern"
		aw=$WALL
		[ -f "$work/site$n/${added%.mdx}.html" ] || { echo "rebuild did not add $added" >&2; exit 1; }
		echo "  $layout $n pages: added a page in $aw s, $(find "$work/site$n" -type f -newer "$work/mark" | wc -l) files written" >&2
	fi

	# The same with lectern build --watch, into a new output folder.
	ww=- wr=-
	if [ "$how" = "lectern build" ]; then
		wpages=()
		for r in $(seq "$REBUILDS"); do
			wpages+=("$(pagefile "$layout" "$n" $((n / 3 + (r - 1) * 7)))")
		done
		read -r -a wout < <("$work/renderwatch" -lectern "$work/lectern" -out "$work/watch$n" "$c/lectern" "${wpages[@]}")
		wr=${wout[-1]}
		unset 'wout[-1]'
		ww=$(median "${wout[@]}")
		echo "  $layout $n pages: watched rebuilds ${wout[*]} s" >&2
		rm -rf "$work/watch$n"
	fi

	hw=- hr=- hrate=- hratio=- hkb=-
	if [ -n "$HUGO" ]; then
		measure "$HUGO" --quiet -s "$c/hugo" -d "$work/hugo$n"
		hw=$WALL hr=$RSS
		hrate=$(rate "$n" "$hw")
		hratio=$(ratio "$(rate "$n" "$lw")" "$hrate")
		hbytes=$(du -sb --apparent-size "$work/hugo$n" | awk '{print $1}')
		hkb=$(kb "$hbytes" "$n")
		echo "  $layout $n pages: output $((lbytes / 1048576)) MB, Hugo's $((hbytes / 1048576)) MB" >&2
	else
		echo "  $layout $n pages: output $((lbytes / 1048576)) MB" >&2
	fi
	rows+=("$(printf '%-7s %6d %7s %8s %8s %7s | %7s %8s %8s %7s | %6sx | %7s %8s %6sx %7s | %7s %8s %6sx' \
		"$layout" "$n" "$lw" "$(rate "$n" "$lw")" "$lr" "$(kb "$lbytes" "$n")" "$hw" "$hrate" "$hr" "$hkb" "$hratio" \
		"$rw" "$rr" "$(ratio "$lw" "$rw")" "$aw" "$ww" "$wr" "$(ratio "$lw" "$ww")")")
	echo "  $layout $n pages: $built html files" >&2
	rm -rf "$work/site$n" "$work/hugo$n" "$work/cache$n" "$c"
done
done
echo
printf '%-7s %6s %7s %8s %8s %7s | %7s %8s %8s %7s | %7s | %7s %8s %7s %7s | %7s %8s %7s\n' \
	layout pages "wall s" "pages/s" "RSS MB" "KB/page" "hugo s" "pages/s" "RSS MB" "KB/page" "vs hugo" "rebuild" "RSS MB" "full/re" "added" "watched" "RSS MB" "full/wa"
for r in "${rows[@]}"; do echo "$r"; done
