// Command renderdriver runs render.Build on a folder, for bench/render.sh:
//
//	renderdriver [-export] [-base-path P] [-cache-dir DIR] -out DIR SOURCE
//
// It prints one line: pages, files, warnings and the build's wall time.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"time"

	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
)

func main() {
	out := flag.String("out", "site", "output folder")
	base := flag.String("base-path", "", "base path")
	export := flag.Bool("export", false, "export form")
	cache := flag.String("cache-dir", "", "cache folder for incremental rebuilds")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the build to this file")
	noSearch := flag.Bool("no-search", false, "build without search (and its index), to measure what the index costs")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if flag.NArg() != 1 {
		log.Fatal("usage: renderdriver [flags] SOURCE")
	}
	root, err := os.OpenRoot(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	defer root.Close()
	start := time.Now()
	opts := render.Options{BasePath: *base, Export: *export}
	if *noSearch {
		f := features.Default()
		f.Search = false
		opts.Features = &f
	}
	setCacheDir(&opts, *cache)
	res, err := render.Build(context.Background(), root.FS(), output.Dir{Dir: *out}, opts)
	if err != nil {
		log.Print(err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	fmt.Printf("pages=%d files=%d warnings=%d wall=%s\n", res.Pages, res.Files, len(res.Warnings), time.Since(start).Round(time.Millisecond))
}
