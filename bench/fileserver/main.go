// Command fileserver is the baseline of bench/selfhost.sh, bench/sites.sh
// and bench/sites-tls.sh: a bare http.FileServer over a folder, so that
// Lectern's serving figures can be compared with the standard library's
// static file serving. With -tls-cert and -tls-key it serves https, and so
// HTTP/2, which net/http negotiates by itself over TLS.
package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18192", "listen address")
	dir := flag.String("dir", ".", "folder to serve")
	cert := flag.String("tls-cert", "", "certificate file (PEM): serve https (HTTP/2 and HTTP/1.1) instead of plain http")
	key := flag.String("tls-key", "", "private key file of -tls-cert (PEM)")
	flag.Parse()
	h := http.FileServer(http.Dir(*dir))
	if *cert == "" && *key == "" {
		log.Fatal(http.ListenAndServe(*addr, h))
	}
	if *cert == "" || *key == "" {
		log.Fatal("-tls-cert and -tls-key go together")
	}
	log.Fatal(http.ListenAndServeTLS(*addr, *cert, *key, h))
}
