// Command fileserver is the baseline of bench/selfhost.sh: a bare
// http.FileServer over a folder, so that the self-hosted runtime's serving
// figures can be compared with the standard library's static file serving.
package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18192", "listen address")
	dir := flag.String("dir", ".", "folder to serve")
	flag.Parse()
	log.Fatal(http.ListenAndServe(*addr, http.FileServer(http.Dir(*dir))))
}
