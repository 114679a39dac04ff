// Command bare is the baseline of bench/api.sh: a plain net/http handler
// that answers every request with a fixed export-job JSON body, so the
// API's figures can be compared with the cost of HTTP alone.
package main

import (
	"flag"
	"log"
	"net/http"
)

const body = `{"jobId":"exp_01m7zqvtrtkghxgvnk36jarhp6","domain":"docs.acme.test","status":"completed","progress":100,"pageCount":17,"createdAt":"2026-11-21T19:03:24.698914Z","updatedAt":"2026-11-21T19:03:24.721893Z","completedAt":"2026-11-21T19:03:24.721893Z","error":null}` + "\n"

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	flag.Parse()
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	})))
}
