package render

import (
	"fmt"
	"strings"

	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
)

// readFile reads a file of the source, refusing one larger than
// Limits.MaxFileBytes before reading it.
func (s *site) readFile(name string) ([]byte, error) {
	return limits.ReadFile(s.src, name, s.opts.Limits.MaxFileBytes)
}

// countOutput adds a file of n bytes to the build's output, failing when
// the output grows past Limits.MaxOutputBytes, or past more files than the
// source's, its pages' and the few of the build could make (each redirect
// of the configuration writes files of its own).
func (s *site) countOutput(name string, n int64) error {
	l := s.opts.Limits
	if l.MaxFiles > 0 && l.MaxPages > 0 {
		if max := l.MaxFiles + 3*l.MaxPages + 64; s.written >= max {
			var source string
			if s.cfg != nil {
				source = s.cfg.Source
			}
			return limits.Errorf(limits.MaxFiles, source, fmt.Sprint(l.MaxFiles),
				"the site would have more than %d files (its files, and up to three for each page or redirect)", max)
		}
	}
	s.outBytes += n
	if limits.Over(s.outBytes, s.opts.Limits.MaxOutputBytes) {
		return limits.Errorf(limits.MaxOutputSize, "", limits.FormatSize(s.opts.Limits.MaxOutputBytes),
			"the site's output grew past %s while writing %s", limits.FormatSize(s.opts.Limits.MaxOutputBytes), name)
	}
	return nil
}

// checkSource applies the limits on the files of the source as a whole,
// once they are listed.
func (s *site) checkSource(size int64) error {
	l := s.opts.Limits
	if limits.Over(len(s.fileList), l.MaxFiles) {
		return limits.Errorf(limits.MaxFiles, "", fmt.Sprint(l.MaxFiles), "the docs folder has more than %d files", l.MaxFiles)
	}
	if limits.Over(size, l.MaxSourceBytes) {
		return limits.Errorf(limits.MaxSourceSize, "", limits.FormatSize(l.MaxSourceBytes), "the docs folder's files add up to more than %s", limits.FormatSize(l.MaxSourceBytes))
	}
	return nil
}

// checkPages applies Limits.MaxPages to the navigation, read from source.
func (s *site) checkPages(source string, n int) error {
	if max := s.opts.Limits.MaxPages; limits.Over(n, max) {
		return limits.Errorf(limits.MaxPages, source, fmt.Sprint(max), "the navigation has %d pages", n)
	}
	return nil
}

// reserved reports whether f is in the folder of the build's own files,
// _lectern/, in any case (a file system that ignores case would put it
// there).
func reserved(f string) bool {
	return len(f) >= len(features.ScriptDir) && strings.EqualFold(f[:len(features.ScriptDir)], features.ScriptDir)
}
