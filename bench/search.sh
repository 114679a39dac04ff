#!/usr/bin/env bash
# Search benchmark: Lectern's search against Pagefind (pinned below,
# installed with npm into the temporary folder, never a dependency of the
# product; skipped with a message when npm cannot install it), on the
# synthetic corpus of bench/gencorpus and, for relevance, on the Pipecat
# docs corpus.
#
#   bench/search.sh                          # 1,000 and 10,000 pages, then relevance
#   SIZES="1000" bench/search.sh             # 1,000 only
#   SIZES="" bench/search.sh                 # relevance only
#   RELEVANCE=0 bench/search.sh              # no relevance check
#   KEY_DELAY=120ms bench/search.sh          # type Lectern's queries slower
#   LECTERN=/tmp/old/lectern bench/search.sh # measure another lectern binary
#
# Per size, the corpus gets two words its vocabulary lacks: "quokka" near
# the top of three pages and "zanzibar" at the very end of one (past the
# first 3,000 characters of its text). The site is built in the export
# form (lectern build --export; wall time and peak RSS by /usr/bin/time).
# Printed: the bytes of Lectern's search index (everything under
# _lectern/search/ and _lectern/search-index.*, whichever exist), the
# CPU time the build spends in search (a CPU profile of the same build by
# bench/renderdriver: samples in render/search, in the build's methods
# named *search* and in the searchStream that makes the index as the
# pages are written, page entries and tables of contents included), Pagefind's
# time, peak RSS and bytes (all of SITE/pagefind, its UI bundles
# included) on the same site, and their ratios. Then, in headless Chromium
# (bench/searchdriver, which serves the site on 127.0.0.1, text files
# gzip-compressed and nothing cached), per query: the ms from the last
# input in Lectern's search dialog to the first result (the query pasted,
# one input event; and again, Lectern only, typed a key every KEY_DELAY,
# 60ms: a fast typist's 200 words a minute), and from
# import() of pagefind.js to the first result's data for Pagefind, cold
# (a fresh page) and warm (the next query in the same page), with the KB
# loaded from opening search to the first result; REPEAT (3) runs each,
# the median printed; and the KB the next query loads, warm.
#
# Relevance: the Pipecat docs (PIPECAT, read in place) are built and the
# queries of bench/search-queries.txt (query, a tab, the page it should
# find) run through both searches; each query's rank of its page in the
# top 3 (or "miss") and the share of hits are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES-"1000 10000"}
REPEAT=${REPEAT:-3}
KEY_DELAY=${KEY_DELAY:-60ms}
RELEVANCE=${RELEVANCE:-1}
PIPECAT=${PIPECAT:-../shared/corpus/pipecat-docs}
QUERIES=${QUERIES:-bench/search-queries.txt}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
PAGEFIND_VERSION=1.6.0
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$CHROMIUM" ] || { echo "needs Chromium at $CHROMIUM (apt-get install -y chromium, or set CHROMIUM)" >&2; exit 1; }
export CHROMIUM
work=$(mktemp -d)
ns= # without_search's output folder, in memory when it can
trap 'rm -rf "$work" ${ns:+"$ns"}' EXIT
# shellcheck source=bench/lib.sh
. bench/lib.sh

# LECTERN: another lectern binary to measure (an older build, say); the
# CPU profile, of this tree's renderer, is then left out.
if [ -n "${LECTERN:-}" ]; then
	cp "$LECTERN" "$work/lectern"
else
	CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/lectern" ./cmd/lectern
fi
go build -o "$work/gencorpus" ./bench/gencorpus
go build -o "$work/renderdriver" ./bench/renderdriver
go build -o "$work/searchdriver" ./bench/searchdriver

pagefind=
if command -v npm >/dev/null &&
	npm install --prefix "$work/pf" --no-audit --no-fund --loglevel=error "pagefind@$PAGEFIND_VERSION" >"$work/npm.log" 2>&1 &&
	[ -x "$work/pf/node_modules/.bin/pagefind" ]; then
	pagefind="$work/pf/node_modules/.bin/pagefind"
else
	echo "Pagefind is not measured: npm could not install pagefind@$PAGEFIND_VERSION:" >&2
	tail -5 "$work/npm.log" >&2 2>/dev/null || echo "  (no npm)" >&2
fi

# The machine's load, before and after: the latencies are wall times.
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "search benchmark: $(nproc) CPUs (load average $(load)), $(go version | awk '{print $3}'), $("$CHROMIUM" --version 2>/dev/null | head -1)${pagefind:+, pagefind $("$pagefind" --version | awk '{print $2}') (node $(node --version))}"

# bytes DIR|FILE...: the total size of the files (of those that exist)
# and their count.
bytes() { find "$@" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1; n++ } END { printf "%d %d\n", s, n }'; }
# lectern_index SITE: bytes and files of Lectern's search index.
lectern_index() {
	local s=$1 parts=()
	[ -d "$s/_lectern/search" ] && parts+=("$s/_lectern/search")
	for f in "$s"/_lectern/search-index.*; do [ -f "$f" ] && parts+=("$f"); done
	if [ ${#parts[@]} -eq 0 ]; then echo "0 0"; else bytes "${parts[@]}"; fi
}
# secs 1.2s|790ms|0: pprof's durations in seconds.
secs() { awk -v v="$1" 'BEGIN { if (v ~ /ms$/) printf "%.2f", v / 1000; else if (v ~ /us$|µs$/) printf "%.2f", v / 1e6; else printf "%.2f", v + 0 }'; }
# search_cpu CORPUS: "search total" CPU seconds of a profiled build.
search_cpu() {
	"$work/renderdriver" -export -cpuprofile "$work/cpu.prof" -out "$work/prof" "$1" >/dev/null
	local line
	line=$(go tool pprof -top -nodecount=1000000 -nodefraction=0 \
		-focus='lectern/render/search\.|lectern/render\.\(\*site\)\.[A-Za-z]*[Ss]earch|lectern/render\.\(\*searchStream\)' "$work/cpu.prof" 2>/dev/null |
		grep 'Showing nodes accounting for' || true)
	rm -rf "$work/prof" "$work/cpu.prof"
	[ -n "$line" ] || { echo "- -"; return; }
	# "Showing nodes accounting for 100ms, 12.66% of 790ms total"
	local a b
	a=$(sed -E 's/.*accounting for ([^,]+),.*/\1/' <<<"$line")
	b=$(sed -E 's/.* of ([^ ]+) total.*/\1/' <<<"$line")
	echo "$(secs "$a") $(secs "$b")"
}
# without_search CORPUS: the wall seconds of bench/renderdriver's build of
# CORPUS with search and without (-no-search), GOGC=200 as lectern build:
# what the index adds to a build. The median of REPEAT builds of each,
# taken in turns, each into a new folder after the last one's writes are
# flushed (sync), so that one build's writeback does not slow the next;
# in memory (/dev/shm, or OUT_TMP) when it can: on this kind of machine a
# build into the disk's folder takes 4 to 10 s by the disk's mood.
without_search() {
	local with=() without=() secs
	ns=$(mktemp -d "${OUT_TMP:-/dev/shm}/lectern-bench.XXXXXX" 2>/dev/null || mktemp -d "$work/ns.XXXXXX")
	rmdir "$ns"
	wall() { sed -E 's/.*wall=([0-9.]+)(m?s).*/\1 \2/' | awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }'; }
	for _ in $(seq "$REPEAT"); do
		sync
		secs=$(GOGC=200 "$work/renderdriver" -export -out "$ns" "$1" | wall)
		with+=("$secs")
		rm -rf "$ns"
		sync
		secs=$(GOGC=200 "$work/renderdriver" -export -no-search -out "$ns" "$1" | wall)
		without+=("$secs")
		rm -rf "$ns"
	done
	echo "$(median "${with[@]}") $(median "${without[@]}")"
}
# page N I: the source file of page I (from 0) of an N-page corpus.
page() { printf 't%02d/p%05d.mdx' $(($2 / 250 + 1)) $(($2 + 1)); }

rows=()
for n in $SIZES; do
	c="$work/c$n" site="$work/site$n"
	"$work/gencorpus" -pages "$n" -out "$c" >/dev/null
	rm -rf "$c/hugo"
	for i in $((n / 4)) $((n / 2 + 1)) $((3 * n / 4)); do
		f="$c/lectern/$(page "$n" "$i")"
		awk '{ print } /^---$/ && ++d == 2 { print ""; print "The quokka setting is rarely changed." }' "$f" >"$f.tmp"
		mv "$f.tmp" "$f"
	done
	endpage=$(page "$n" $((n / 2)))
	printf '\nA closing remark names the zanzibar option.\n' >>"$c/lectern/$endpage"
	echo "  $n pages: \"quokka\" near the top of $(page "$n" $((n / 4))) and two more, \"zanzibar\" at the end of $endpage" >&2
	sync

	measure "$work/lectern" build --export --out "$site" "$c/lectern"
	bw=$WALL br=$RSS
	read -r lb lf < <(lectern_index "$site")
	scpu=- tcpu=-
	[ -n "${LECTERN:-}" ] || read -r scpu tcpu < <(search_cpu "$c/lectern")
	read -r wsec nsec < <(without_search "$c/lectern")
	added=$(awk -v a="$wsec" -v b="$nsec" 'BEGIN { printf "%+.0f%%", (a / b - 1) * 100 }')
	echo "  $n pages: built in $bw s, search index $lb bytes in $lf files; profiled build: $scpu s of $tcpu s CPU in search;" \
		"renderdriver: $wsec s with search, $nsec s without ($added)" >&2

	pw=- pr=- pb=0 pfiles=0
	if [ -n "$pagefind" ]; then
		measure "$pagefind" --site "$site" --output-subdir pagefind
		pw=$WALL pr=$RSS
		read -r pb pfiles < <(bytes "$site/pagefind")
		echo "  $n pages: pagefind in $pw s, $pb bytes in $pfiles files ($(grep -E 'Indexed [0-9]+ (pages|words)' "$work/cmd.log" | tr -s ' ' | tr '\n' ' '))" >&2
	fi
	rows+=("$(printf '%6d | %7s %6s %11s %6s | %9s %5s | %7s %6s %9s %5s | %7s %7s' \
		"$n" "$bw" "$br" "$scpu/$tcpu" "$added" "$(ratio "$lb" 1024 0)" "$lf" "$pw" "$pr" "$(ratio "$pb" 1024 0)" "$pfiles" \
		"$(ratio "$lb" "$pb" 2)" "$( [ "$pw" = - ] && echo - || ratio "$pw" "$bw" 2)")")

	queries=(-query common=deploy -query rare=quokka -query "two-word=retry timeout" -query prefix=throug -query end=zanzibar)
	"$work/searchdriver" -mode speed -page "$(page "$n" 0 | sed 's/\.mdx$/.html/')" -repeat "$REPEAT" \
		-key-delay 0 "${queries[@]}" "$site" >"$work/speed$n.txt"
	"$work/searchdriver" -mode speed -engines lectern -page "$(page "$n" 0 | sed 's/\.mdx$/.html/')" -repeat "$REPEAT" \
		-key-delay "$KEY_DELAY" "${queries[@]}" "$site" >"$work/typed$n.txt"
	rm -rf "$site" "$c"
done

if [ "$RELEVANCE" = 1 ]; then
	if [ -f "$PIPECAT/docs.json" ]; then
		measure "$work/lectern" build --export --out "$work/pipecat" "$PIPECAT"
		echo "  pipecat-docs: built in $WALL s" >&2
		[ -z "$pagefind" ] || measure "$pagefind" --site "$work/pipecat" --output-subdir pagefind
		"$work/searchdriver" -mode relevance -queries "$QUERIES" "$work/pipecat" >"$work/relevance.txt"
	else
		echo "relevance skipped: no $PIPECAT/docs.json (set PIPECAT)" >&2
		RELEVANCE=0
	fi
fi

echo
if [ ${#rows[@]} -gt 0 ]; then
	echo "Build and index: Lectern's whole build (export form; index included), the CPU seconds of a profiled build spent in"
	echo "search out of all; added: what search adds to the build's wall time (bench/renderdriver with and without it, median of REPEAT each);"
	echo "Lectern's index KB and files on disk (search-index.js and its .json copy, or _lectern/search/);"
	echo "Pagefind run on the built site (all of pagefind/, UI bundles included); index x = Lectern KB / Pagefind KB,"
	echo "time x = Pagefind s / Lectern's whole build s (what Pagefind adds to a build)"
	printf '%6s | %7s %6s %11s %6s | %9s %5s | %7s %6s %9s %5s | %7s %7s\n' \
		pages "build s" "RSS MB" "search CPU" added "index KB" files "pf s" "RSS MB" "pf KB" files "index x" "time x"
	for r in "${rows[@]}"; do echo "$r"; done
	for n in $SIZES; do
		echo
		echo "Queries, $n pages, pasted (Lectern's query set in the box at once; the ratios are of this run):"
		cat "$work/speed$n.txt"
		echo
		echo "Queries, $n pages, Lectern only, typed a key every $KEY_DELAY (the files a word needs load while it is typed):"
		grep '|' "$work/typed$n.txt" | cut -d'|' -f1-2
	done
fi
if [ "$RELEVANCE" = 1 ]; then
	echo
	echo "Relevance, pipecat-docs ($(grep -cv '^#\|^$' "$QUERIES") queries of $QUERIES), the expected page's rank in the top 3:"
	cat "$work/relevance.txt"
fi
echo
echo "load average at the end: $(load)"
