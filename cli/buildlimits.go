package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"lectern.dev/lectern/buildproc"
	"lectern.dev/lectern/render/limits"
)

// buildLimitFlags are serve's limits on the renders of update and export
// jobs (docs/operations.md, "Build limits").
type buildLimitFlags struct {
	timeout   time.Duration
	memory    byteSizeFlag
	inProcess bool
	fileSize  byteSizeFlag
	srcSize   byteSizeFlag
	outSize   byteSizeFlag
	pageSize  byteSizeFlag
	files     int
	pages     int
	expand    int
	yaml      int
}

func (f *buildLimitFlags) register(fs *pflag.FlagSet) {
	d := limits.Default()
	f.memory = byteSizeFlag(buildproc.DefaultMemory)
	f.fileSize, f.srcSize = byteSizeFlag(d.MaxFileBytes), byteSizeFlag(d.MaxSourceBytes)
	f.outSize, f.pageSize = byteSizeFlag(d.MaxOutputBytes), byteSizeFlag(d.MaxPageBytes)
	fs.DurationVar(&f.timeout, "build-timeout", 15*time.Minute, "time limit of one render of an update or export")
	fs.Var(&f.memory, "build-memory", "memory limit of one render (each runs in a child process), e.g. 2GiB")
	fs.BoolVar(&f.inProcess, "build-in-process", false, "render in the server's own process, without the memory limit (single-tenant use and debugging)")
	fs.Var(&f.fileSize, "build-max-file-size", "largest file a repository's docs may hold")
	fs.Var(&f.srcSize, "build-max-source-size", "largest total size of a repository's docs folder")
	fs.Var(&f.outSize, "build-max-output-size", "largest total size of a rendered site")
	fs.Var(&f.pageSize, "build-max-page-size", "largest rendered page")
	fs.IntVar(&f.files, "build-max-files", d.MaxFiles, "most files in a repository's docs folder")
	fs.IntVar(&f.pages, "build-max-pages", d.MaxPages, "most pages in a site's navigation")
	fs.IntVar(&f.expand, "build-max-expansions", d.MaxExpansions, "most snippet and component uses rendered for one page, nested ones included")
	fs.IntVar(&f.yaml, "build-max-yaml-values", d.MaxYAMLValues, "most values an OpenAPI YAML document and the files of its $refs may expand to together, aliases included")
}

// limits returns the render's limits and the builder that supervises it.
func (f *buildLimitFlags) limits() (limits.Limits, buildproc.Builder, error) {
	for _, c := range []struct {
		name string
		v    int64
	}{{"build-memory", int64(f.memory)}, {"build-max-file-size", int64(f.fileSize)},
		{"build-max-source-size", int64(f.srcSize)}, {"build-max-output-size", int64(f.outSize)}, {"build-max-page-size", int64(f.pageSize)},
		{"build-max-files", int64(f.files)}, {"build-max-pages", int64(f.pages)}, {"build-max-expansions", int64(f.expand)},
		{"build-max-yaml-values", int64(f.yaml)}} {
		if c.v <= 0 {
			return limits.Limits{}, nil, fmt.Errorf("--%s must be positive", c.name)
		}
	}
	if f.timeout <= 0 {
		return limits.Limits{}, nil, fmt.Errorf("--build-timeout must be positive")
	}
	if f.memory < 64<<20 {
		return limits.Limits{}, nil, fmt.Errorf("--build-memory %s is too small for a render: give at least 64MiB", f.memory.String())
	}
	l := limits.Limits{MaxFileBytes: int64(f.fileSize), MaxSourceBytes: int64(f.srcSize), MaxFiles: f.files, MaxPages: f.pages,
		MaxOutputBytes: int64(f.outSize), MaxPageBytes: int(f.pageSize), MaxExpansions: f.expand, MaxYAMLValues: f.yaml}
	if f.inProcess {
		return l, buildproc.Local{Timeout: f.timeout}, nil
	}
	// On Linux, the running binary itself: a lectern upgraded on disk
	// under a running server does not change what its renders run.
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return l, nil, fmt.Errorf("find the lectern binary to run renders in (or use --build-in-process): %w", err)
		}
	}
	return l, &buildproc.Child{Exe: exe, Args: []string{"internal-build"}, Timeout: f.timeout, Memory: int64(f.memory)}, nil
}

// byteSizeFlag is a size flag written like 100MiB, 2GB or 1048576.
type byteSizeFlag int64

func (b *byteSizeFlag) String() string {
	return strings.ReplaceAll(limits.FormatSize(int64(*b)), " ", "")
}

func (b *byteSizeFlag) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil || n > 1<<62 {
		return fmt.Errorf("%q is not a size: write it like 512MiB or 2GiB", s)
	}
	*b = byteSizeFlag(n)
	return nil
}

func (b *byteSizeFlag) Type() string { return "size" }
