package selfhost

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/editdist"
)

// assistantKeyEnv holds the key of the assistant's model (assistant.llmUrl).
const assistantKeyEnv = "LECTERN_ASSISTANT_LLM_KEY"

// maxConfigSize bounds the configuration file.
const maxConfigSize = 1 << 20

// LoadConfig reads the YAML configuration file (none if file is "") and
// the LECTERN_* environment variables through getenv, which win over the
// file, and returns the validated configuration.
//
// Reading is strict: an unknown key, a key given twice, a value of the
// wrong type, a missing required key, an impossible combination (a feature
// the deployment type does not offer, an endpoint for a feature that is
// off, staticExport.enabled false) are all EINVALID errors that name the
// key (and the file line or environment variable) with the reason; every
// problem of the configuration is listed at once. A file that cannot be
// read, or is not YAML, is an EINVALID error too. No message repeats the
// bundle link's query string.
func LoadConfig(file string, getenv func(string) string) (*Config, error) {
	vals := map[string]value{}
	var p problems
	if file != "" {
		data, err := readConfigFile(file)
		if err != nil {
			return nil, err
		}
		if err := parseYAML(file, data, vals, &p); err != nil {
			return nil, err
		}
	}
	for _, k := range configKeys() {
		name := EnvName(k.name)
		s := getenv(name)
		if s == "" {
			continue
		}
		v := value{str: s, source: "env " + name}
		switch k.kind {
		case kindBool:
			b, ok := parseBool(s)
			if !ok {
				p = append(p, fmt.Sprintf("%s (environment variable %s): %q is not a boolean: use true or false", k.name, name, s))
				continue
			}
			v.boolv = b
		case kindList:
			for _, item := range strings.Split(s, ",") {
				if item = strings.TrimSpace(item); item != "" {
					v.list = append(v.list, item)
				}
			}
		}
		vals[k.name] = v
	}
	if k := getenv(assistantKeyEnv); k != "" {
		vals[keyLLMKeyEnv] = value{str: k, source: "env " + assistantKeyEnv}
	}
	if k := getenv(analyticsKeyEnv); k != "" {
		vals[keyAnalyticsKeyEnv] = value{str: k, source: "env " + analyticsKeyEnv}
	}
	return build(file, vals, p)
}

func readConfigFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &lectern.Error{Code: lectern.EINVALID, Message: "configuration file: " + err.Error(), Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, &lectern.Error{Code: lectern.EINVALID, Message: "configuration file: " + err.Error(), Err: err}
	}
	if len(data) > maxConfigSize {
		return nil, lectern.Errorf(lectern.EINVALID, "configuration %s is larger than %d bytes", file, maxConfigSize)
	}
	return data, nil
}

// parseYAML walks the YAML document in data and records the value of every
// key in vals; problems with keys go to p. It returns an error only when
// data is not YAML at all.
func parseYAML(file string, data []byte, vals map[string]value, p *problems) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file sets nothing
		}
		return lectern.Errorf(lectern.EINVALID, "configuration %s is not valid YAML: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return lectern.Errorf(lectern.EINVALID, "configuration %s must hold one YAML document, not several", file)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return lectern.Errorf(lectern.EINVALID, "configuration %s must be a YAML mapping with the keys deployment, staticExport and features", file)
	}
	kinds := map[string]keyKind{}
	sections := map[string]bool{}
	for _, k := range configKeys() {
		kinds[k.name] = k.kind
		sections[k.name[:strings.LastIndexByte(k.name, '.')]] = true
	}
	walkMapping(file, root, "", kinds, sections, vals, p)
	return nil
}

// walkMapping records the keys of mapping node n, whose own key is prefix
// ("" for the root).
func walkMapping(file string, n *yaml.Node, prefix string, kinds map[string]keyKind, sections map[string]bool, vals map[string]value, p *problems) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], deref(n.Content[i+1])
		name := kn.Value
		if prefix != "" {
			name = prefix + "." + kn.Value
		}
		loc := fmt.Sprintf("%s:%d", file, kn.Line)
		if kn.Kind != yaml.ScalarNode {
			p.addf(fmt.Sprintf("key at line %d", kn.Line), "keys must be plain names")
			continue
		}
		if line, dup := seen[kn.Value]; dup {
			p.addf(name, "given twice (lines %d and %d)", line, kn.Line)
			continue
		}
		seen[kn.Value] = kn.Line
		isNull := vn.Kind == yaml.ScalarNode && vn.Tag == "!!null"
		if sections[name] {
			switch {
			case isNull:
			case vn.Kind != yaml.MappingNode:
				p.addf(name, "must be a mapping of keys (line %d)", kn.Line)
			default:
				walkMapping(file, vn, name, kinds, sections, vals, p)
			}
			continue
		}
		kind, ok := kinds[name]
		if !ok {
			p.addf(name, "unknown key (line %d)%s", kn.Line, suggest(name, prefix, kinds, sections))
			continue
		}
		if isNull {
			continue // "version:" with nothing after it is not set
		}
		v := value{str: vn.Value, source: loc}
		if kind == kindList {
			if vn.Kind != yaml.SequenceNode {
				p.addf(name, "must be a list (line %d)", kn.Line)
				continue
			}
			for _, item := range vn.Content {
				if item = deref(item); item.Kind != yaml.ScalarNode {
					p.addf(name, "must be a list of strings (line %d)", item.Line)
					break
				}
				v.list = append(v.list, item.Value)
			}
			vals[name] = v
			continue
		}
		if vn.Kind != yaml.ScalarNode {
			p.addf(name, "must be a single value, not a list or mapping (line %d)", kn.Line)
			continue
		}
		if kind == kindBool {
			if err := vn.Decode(&v.boolv); err != nil {
				p.addf(name, "%q is not a boolean: use true or false (line %d)", vn.Value, kn.Line)
				continue
			}
		}
		vals[name] = v
	}
}

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// suggest returns a hint for the unknown key name: the key it most likely
// means (same letters, other case or separators), or the keys allowed
// beside it.
func suggest(name, prefix string, kinds map[string]keyKind, sections map[string]bool) string {
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	all := slices.Collect(maps.Keys(kinds))
	for s := range sections {
		all = append(all, s)
	}
	var siblings []string
	for _, k := range all {
		parent, leaf := "", k
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			parent, leaf = k[:i], k[i+1:]
		}
		if norm(k) == norm(name) || parent == prefix && editdist.Levenshtein(norm(k), norm(name)) <= 2 {
			return fmt.Sprintf(": did you mean %q?", k)
		}
		if parent == prefix {
			siblings = append(siblings, leaf)
		}
	}
	slices.Sort(siblings)
	at := "at the top level"
	if prefix != "" {
		at = "under " + prefix
	}
	return fmt.Sprintf(": the keys %s are %s", at, strings.Join(slices.Compact(siblings), ", "))
}

// parseBool reads a boolean from an environment variable: true, false,
// and the YAML 1.1 spellings yes/no and on/off, in any case.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}
