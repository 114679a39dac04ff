#!/usr/bin/env bash
# Live-site serving over TLS with HTTP/2 (issue 21, item 6): the figures of
# bench/sites.sh, over https. `lectern serve --tls-cert --tls-key` hosts a
# PAGES-page deployment (default 50, bench/gencorpus) on the embedded
# default (SQLite and the blob folder) by host name, against
# bench/fileserver -tls-cert -tls-key (net/http's http.FileServer, HTTP/2
# over TLS) over the same files (as lectern serves them), side by side in
# one run, on loopback, with a self-signed certificate (openssl) for the
# site's domain and 127.0.0.1.
#
# It prints, with h2load (CONNS connections, default 64, of STREAMS
# concurrent streams each, default 1, 2 threads, DUR each, default 10s, after
# a second of warm-up): requests/s and p99 of one page (/t01/p00001) and one
# asset (the stylesheet) from lectern serve (:authority: the project's
# domain) and from the FileServer, measured one after the other, and
# lectern's ratios to the FileServer (req/s: higher is better; p99: lower is
# better); then lectern again with Accept-Encoding: br, gzip (a browser's
# request), for information. h2load itself prints no percentiles (only
# min, max, mean and sd): p99 is computed from its per-request log
# (--log-file), which holds the measured requests, not the warm-up's.
#
# Nothing here asserts a time: the script prints figures. A request that
# does not answer 200 stops it.
#
# Needs h2load (apt-get install nghttp2-client; without it the script says
# so and stops), openssl, curl, jq and git.
set -euo pipefail
cd "$(dirname "$0")/.."
for c in curl jq git openssl; do
	command -v $c >/dev/null || { echo "$c is not installed" >&2; exit 1; }
done
if ! command -v h2load >/dev/null; then
	echo "HTTP/2 over TLS: skipped: h2load is not installed (apt-get install nghttp2-client)"
	exit 0
fi
PAGES=${PAGES:-50}
DUR=${DUR:-10s}
CONNS=${CONNS:-64}
STREAMS=${STREAMS:-1}
DOMAIN=bench.docs.test
PAGE=/t01/p00001
PORT=18520
API="https://127.0.0.1:$PORT"
FS="https://127.0.0.1:$((PORT + 1))"
work=$(mktemp -d)
cleanup() {
	kill $(jobs -p) 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=bench/lib.sh
. bench/lib.sh

go build -o "$work/lectern" ./cmd/lectern
go build -o "$work/gencorpus" ./bench/gencorpus
go build -o "$work/fileserver" ./bench/fileserver
L="$work/lectern"
D="$work/data"
LECTERN_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"
export LECTERN_SECRET_KEY

"$work/gencorpus" -pages "$PAGES" -out "$work/corpus" >/dev/null
repo="$work/corpus/lectern"
(cd "$repo" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj "/CN=$DOMAIN" -addext "subjectAltName=DNS:$DOMAIN,IP:127.0.0.1" \
	-keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
CA=(--cacert "$work/cert.pem")

# Deploy over plain http, and keep the page and the asset as lectern
# serves them, for the FileServer: the same bytes, or the comparison is
# not of the same files. Then serve the same data folder over https.
ORG=$("$L" admin --data-dir "$D" org create --name Bench --plan enterprise | tail -1)
PRJ=$("$L" admin --data-dir "$D" project create --org "$ORG" --name b --repo "$repo" --domain "$DOMAIN" | tail -1)
KEY=$("$L" admin --data-dir "$D" key create --org "$ORG" --name bench | tail -1)
"$L" serve --data-dir "$D" --addr "127.0.0.1:$PORT" --rate-limit 0 2>>"$work/serve.log" &
pid=$!
waitup "http://127.0.0.1:$PORT/healthz"
deploy "http://127.0.0.1:$PORT" "$KEY" "$PRJ"
site="$work/files"
curl -sf --create-dirs -H "Host: $DOMAIN" -o "$site$PAGE.html" "http://127.0.0.1:$PORT$PAGE"
ASSET=$(grep -o '/_lectern/style[^"]*\.css' "$site$PAGE.html" | head -1)
[ -n "$ASSET" ] || { echo "$PAGE links no stylesheet under /_lectern/" >&2; exit 1; }
curl -sf --create-dirs -H "Host: $DOMAIN" -o "$site$ASSET" "http://127.0.0.1:$PORT$ASSET"
kill "$pid"; wait "$pid" 2>/dev/null || true
"$L" serve --data-dir "$D" --addr "127.0.0.1:$PORT" --public-url "$API" --rate-limit 0 \
	--tls-cert "$work/cert.pem" --tls-key "$work/key.pem" 2>>"$work/serve.log" &
waitup "$API/healthz" "${CA[@]}"

"$work/fileserver" -addr "127.0.0.1:$((PORT + 1))" -dir "$site" -tls-cert "$work/cert.pem" -tls-key "$work/key.pem" 2>>"$work/fileserver.log" &
waitup "$FS$PAGE.html" "${CA[@]}"
# Both answer over HTTP/2, lectern with the same bytes over https.
for p in "$PAGE" "$ASSET"; do
	f="$site$p"; [ -f "$f" ] || f="$f.html"
	v=$(curl -sf "${CA[@]}" --resolve "$DOMAIN:$PORT:127.0.0.1" -o "$work/got" -w '%{http_version}' "https://$DOMAIN:$PORT$p") ||
		{ echo "lectern does not serve $p for $DOMAIN over https" >&2; tail -5 "$work/serve.log" >&2; exit 1; }
	[ "$v" = 2 ] || { echo "lectern answered $p over HTTP/$v, not HTTP/2" >&2; exit 1; }
	cmp -s "$work/got" "$f" || echo "(lectern's $p over https differs from the same over http)" >&2
	v=$(curl -sf "${CA[@]}" -o /dev/null -w '%{http_version}' "$FS${f#"$site"}")
	[ "$v" = 2 ] || { echo "the FileServer answered over HTTP/$v, not HTTP/2" >&2; exit 1; }
done

# h2 URL [HEADER...]: h2load on URL; sets RPS and P99 (ms). Answers other
# than 2xx or 3xx, and failed requests, stop the script.
h2() {
	local url=$1 out h=()
	shift
	for x in "$@"; do h+=(-H "$x"); done
	rm -f "$work/h2.log"
	out=$(h2load -t2 -c"$CONNS" -m"$STREAMS" --warm-up-time=1s -D"$DUR" --log-file="$work/h2.log" "${h[@]}" "$url")
	if ! echo "$out" | grep -q '^status codes: [0-9]* 2xx, [0-9]* 3xx, 0 4xx, 0 5xx' ||
		! echo "$out" | grep -q '^requests: .* 0 failed, 0 errored, 0 timeout'; then
		echo "failed requests or answers other than 2xx/3xx from h2load $url ($*):" >&2; echo "$out" >&2; exit 1
	fi
	echo "$out" | grep -q '^Application protocol: h2' || { echo "h2load did not speak HTTP/2 to $url:" >&2; echo "$out" >&2; exit 1; }
	RPS=$(echo "$out" | awk '/^finished in/ { printf "%.0f", $4 }')
	P99=$(sort -n -k3,3 "$work/h2.log" | awk '{ v[NR] = $3 } END { i = int(NR * 0.99); if (i < NR * 0.99) i++; printf "%.2f", v[i] / 1000 }')
}
row() { # server path bytes rps p99 [rps-ratio p99-ratio]
	printf '| %-40s | %-32s | %7s | %8s | %8s ms | %-11s | %-9s |\n' "$1" "$2" "$3" "$4" "$5" "${6:--}" "${7:--}"
}
x() { local r; r=$(ratio "$1" "$2" 2); [ "$r" = - ] && echo - || echo "${r}x"; }

echo "live-site serving over TLS, HTTP/2: $PAGES-page site, h2load $CONNS connections x $STREAMS streams x $DUR, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(go version | awk '{print $3}'), $(h2load --version | head -1)"
echo "(ratios are lectern serve / http.FileServer: req/s, higher is better; p99, lower is better)"
echo
row server path bytes req/s p99 "req/s vs FS" "p99 vs FS"
echo "|---|---|---|---|---|---|---|"
for p in "$PAGE" "$ASSET"; do
	fpath=$p
	[ -f "$site$p" ] || fpath=$p.html
	size=$(stat -c %s "$site$fpath")
	h2 "$FS$fpath"
	frps=$RPS fp99=$P99
	row "http.FileServer (bench/fileserver), h2" "$fpath" "$size" "$frps" "$fp99"
	h2 "$API$p" ":authority: $DOMAIN"
	row "lectern serve, h2, $DOMAIN" "$p" "$size" "$RPS" "$P99" "$(x "$RPS" "$frps")" "$(x "$P99" "$fp99")"
	zsize=$(curl -s "${CA[@]}" --resolve "$DOMAIN:$PORT:127.0.0.1" -H 'Accept-Encoding: br, gzip' "https://$DOMAIN:$PORT$p" | wc -c)
	h2 "$API$p" ":authority: $DOMAIN" "Accept-Encoding: br, gzip"
	row "  same, Accept-Encoding: br, gzip" "$p" "$zsize" "$RPS" "$P99"
done
