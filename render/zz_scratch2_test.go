package render

import (
	"context"
	"os"
	"testing"
	"time"
)

type nullOut struct{}

func (nullOut) WriteFile(string, []byte) error { return nil }

func TestScratch2(t *testing.T) {
	start := time.Now()
	fsys := os.DirFS("../../shared/corpus/pipecat-docs")
	_, err := Build(context.Background(), fsys, nullOut{}, Options{BasePath: "/docs"})
	t.Log(time.Since(start), err)
	start = time.Now()
	_, err = Build(context.Background(), fsys, DirOutput{Dir: t.TempDir()}, Options{BasePath: "/docs"})
	t.Log(time.Since(start), err)
}
