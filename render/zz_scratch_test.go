package render

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	for _, name := range []string{"mintlify-starter", "pipecat-docs"} {
		dir := "/tmp/lcout/" + name
		os.RemoveAll(dir)
		start := time.Now()
		res, err := Build(context.Background(), os.DirFS("../../shared/corpus/"+name), DirOutput{Dir: dir}, Options{BasePath: "/docs"})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: pages=%d files=%d warnings=%d in %v", name, res.Pages, res.Files, len(res.Warnings), time.Since(start))
		for _, w := range res.Warnings {
			t.Log(w)
		}
	}
}
