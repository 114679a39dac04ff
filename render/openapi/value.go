package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode"

	"gopkg.in/yaml.v3"
)

// obj is a decoded JSON/YAML object that keeps its key order.
type obj struct {
	keys []string
	m    map[string]any
	// refLine is the line of the object's "$ref" key in its file (from 1),
	// or 0.
	refLine int
}

func (o *obj) get(k string) any {
	if o == nil {
		return nil
	}
	return o.m[k]
}

func (o *obj) obj(k string) *obj {
	x, _ := o.get(k).(*obj)
	return x
}

func (o *obj) str(k string) string {
	switch x := o.get(k).(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func (o *obj) list(k string) []any {
	l, _ := o.get(k).([]any)
	return l
}

func (o *obj) has(k string) bool {
	if o == nil {
		return false
	}
	_, ok := o.m[k]
	return ok
}

// decode reads data as JSON when it looks like JSON, else as YAML. Values
// are *obj, []any, string, json.Number, bool or nil.
// YAML counts its values against budget, which a document shares with the
// files of its $refs.
func decode(data []byte, budget *yamlReader) (any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	t := bytes.TrimSpace(data)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.UseNumber()
		// Lines of t's offsets, counted from the start of data.
		lead := bytes.Count(data[:len(data)-len(bytes.TrimLeftFunc(data, unicode.IsSpace))], []byte{'\n'})
		var newlines []int64
		for i, c := range t {
			if c == '\n' {
				newlines = append(newlines, int64(i))
			}
		}
		lineAt := func(off int64) int {
			return 1 + lead + sort.Search(len(newlines), func(i int) bool { return newlines[i] >= off })
		}
		v, err := decodeJSON(dec, 0, lineAt)
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("invalid JSON at line %d: %v", 1+bytes.Count(t[:min(int(se.Offset), len(t))], []byte{'\n'}), err)
			}
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, errors.New("invalid JSON: data after the top-level value")
		}
		return v, nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("invalid YAML: %v", err)
	}
	if len(n.Content) == 0 {
		return nil, errors.New("the document is empty")
	}
	return budget.value(n.Content[0], 0)
}

// DefaultMaxValues is the bound on the values a document expands to
// that Parse and ParseFiles apply.
const DefaultMaxValues = 2_000_000

// ValuesError says that a YAML document expands to more values than
// allowed: each use of an alias repeats the whole value it names, so a
// few lines of nested aliases ("billion laughs") stand for billions of
// values, which would exhaust memory.
type ValuesError struct {
	File string // the file named by a $ref; "" for the document itself
	Max  int
}

func (e *ValuesError) Error() string {
	return fmt.Sprintf("the YAML document expands to more than %d values (each use of an alias counts the whole value it repeats)", e.Max)
}

// yamlReader converts YAML nodes to values, counting them against a
// budget (left; none when max <= 0): one for a document and the files of
// its $refs together.
type yamlReader struct{ left, max int }

const maxDepth = 512

// decodeJSON reads a value; lineAt gives the line of an input offset.
func decodeJSON(dec *json.Decoder, depth int, lineAt func(int64) int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := &obj{m: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				if k == "$ref" {
					o.refLine = lineAt(dec.InputOffset())
				}
				v, err := decodeJSON(dec, depth+1, lineAt)
				if err != nil {
					return nil, err
				}
				if _, dup := o.m[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.m[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := decodeJSON(dec, depth+1, lineAt)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	}
	return tok, nil
}

func (y *yamlReader) value(n *yaml.Node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	if y.max > 0 {
		if y.left--; y.left < 0 {
			return nil, &ValuesError{Max: y.max}
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		return y.value(n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return y.value(n.Content[0], depth+1)
	case yaml.MappingNode:
		o := &obj{m: map[string]any{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if n.Content[i].Tag == "!!merge" {
				continue
			}
			if k == "$ref" {
				o.refLine = n.Content[i].Line
			}
			v, err := y.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			if _, dup := o.m[k]; !dup {
				o.keys = append(o.keys, k)
			}
			o.m[k] = v
		}
		return o, nil
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			v, err := y.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			_ = n.Decode(&b)
			return b, nil
		case "!!int", "!!float":
			return json.Number(n.Value), nil
		}
		return n.Value, nil
	}
	return nil, nil
}

// toJSON writes v as indented JSON in key order.
func toJSON(v any) string {
	var b bytes.Buffer
	writeJSON(&b, v, "", 0)
	return b.String()
}

func writeJSON(b *bytes.Buffer, v any, indent string, depth int) {
	if depth > 64 {
		b.WriteString("null")
		return
	}
	switch x := v.(type) {
	case *obj:
		if x == nil || len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(indent + "  ")
			b.Write(marshal(k))
			b.WriteString(": ")
			writeJSON(b, x.m[k], indent+"  ", depth+1)
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(indent + "  ")
			writeJSON(b, e, indent+"  ", depth+1)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case json.Number:
		b.WriteString(x.String())
	default:
		b.Write(marshal(x))
	}
}

// marshal encodes a scalar as JSON without escaping <, > and &.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
