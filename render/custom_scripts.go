package render

import (
	"sort"
	"strings"

	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
)

// Custom scripts.
//
// Mintlify loads every .js file of a docs repository on every page. Lectern
// does so only when a project asks for it (Options.CustomScripts, off by
// default): the build then copies each .js file of the source (outside
// node_modules/) to _lectern/custom/<path> and every page loads the copies
// (the first maxEveryPageFiles), in the order of their paths, after the
// theme's own scripts. The repository's .js files at their own paths are
// served as text/plain (ServeHeaders) either way, so a site runs no
// JavaScript of the repository unless the project enabled it.

// customScriptFiles returns the source's .js files that pages load, sorted
// ("" when Options.CustomScripts is off).
func (s *site) customScriptFiles() []string {
	if !s.opts.CustomScripts {
		return nil
	}
	return s.everyPageFiles(".js", "scripts")
}

// maxEveryPageFiles bounds the repository's scripts, and its stylesheets,
// that every page loads: each is an element of every page and a request
// of every reader.
const maxEveryPageFiles = 100

// everyPageFiles returns the source's files whose name ends in ext (".js",
// ".css", in any case) that every page loads, sorted by path: those
// outside node_modules/ and the build's own folder, the first
// maxEveryPageFiles of them, with a warning when there are more.
func (s *site) everyPageFiles(ext, what string) []string {
	var out []string
	for f := range s.files {
		if strings.HasSuffix(strings.ToLower(f), ext) && !reserved(f) &&
			!strings.HasPrefix(f, "node_modules/") && !strings.Contains(f, "/node_modules/") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	if len(out) > maxEveryPageFiles {
		s.w.Add(out[maxEveryPageFiles], 0, "the repository has %d %s files; pages load the first %d by path only, not this one and the %d after it: merge %s into fewer files",
			len(out), ext, maxEveryPageFiles, len(out)-maxEveryPageFiles-1, what)
		out = out[:maxEveryPageFiles]
	}
	return out
}

// writeCustomScripts writes the copies of the custom scripts.
func (s *site) writeCustomScripts() error {
	for _, f := range s.customJS {
		data, err := s.readFile(f)
		if err != nil {
			return limits.ReadError(f, err)
		}
		if err := s.write(features.CustomScriptDir+f, data); err != nil {
			return err
		}
	}
	return nil
}
