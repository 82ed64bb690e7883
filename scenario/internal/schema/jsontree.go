package schema

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// jsonTree builds the node tree of a JSON document that json.Valid has
// accepted, straight from its bytes: the tree the token reader
// (jsonParser) makes of it, node for node, line for line, several times
// faster (encoding/json's token API allocates for every token and builds
// an error value at the end of every value). Being given valid JSON, it
// never fails half way through a List's items: the items it hands over
// are those the token reader would hand over. Its one error is the one
// the token reader gives too: nesting beyond maxJSONDepth.
// TestJSONTreeAgrees and FuzzJSONTree hold the two to the same trees.
type jsonTree struct {
	data  []byte
	pos   int
	line  int
	depth int
	each  func(int, *yaml.Node) bool
	// keys shares the text of object keys: a dump repeats a few hundred
	keys map[string]string
}

// parseValidJSON is parseJSON for text json.Valid accepts.
func parseValidJSON(data []byte, each func(int, *yaml.Node) bool) (*yaml.Node, error) {
	t := &jsonTree{data: data, line: 1, each: each, keys: map[string]string{}}
	t.space()
	root, err := t.value()
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}, nil
}

func (t *jsonTree) space() {
	for t.pos < len(t.data) {
		switch t.data[t.pos] {
		case '\n':
			t.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		t.pos++
	}
}

// value reads the value at pos (white space read over before it) and
// the white space after it.
func (t *jsonTree) value() (*yaml.Node, error) {
	n := &yaml.Node{Line: t.line, Column: 1}
	switch c := t.data[t.pos]; c {
	case '{', '[':
		if t.depth++; t.depth > maxJSONDepth {
			return nil, &JSONSyntaxError{Line: t.line, Err: errTooDeep}
		}
		t.pos++
		t.space()
		var err error
		if c == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
			err = t.object(n)
		} else {
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			err = t.elements(func(_ int, item *yaml.Node) error {
				n.Content = append(n.Content, item)
				return nil
			})
		}
		t.depth--
		if err != nil {
			return nil, err
		}
	case '"':
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", t.str(false), yaml.DoubleQuotedStyle
	case 't':
		t.pos += len("true")
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", "true"
	case 'f':
		t.pos += len("false")
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", "false"
	case 'n':
		t.pos += len("null")
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	default:
		start := t.pos
		for t.pos < len(t.data) && isNumberByte(t.data[t.pos]) {
			t.pos++
		}
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!float", string(t.data[start:t.pos])
		if _, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			n.Tag = "!!int"
		}
	}
	t.space()
	return n, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// object reads an object's members after its "{", and its "}".
func (t *jsonTree) object(n *yaml.Node) error {
	for t.data[t.pos] != '}' {
		if t.data[t.pos] == ',' {
			t.pos++
			t.space()
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Line: t.line, Column: 1, Style: yaml.DoubleQuotedStyle, Value: t.str(true)}
		t.space()
		t.pos++ // the colon
		t.space()
		if t.each != nil && t.depth == 1 && key.Value == "items" && t.data[t.pos] == '[' {
			val := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: t.line, Column: 1}
			t.depth++
			t.pos++
			t.space()
			err := t.elements(func(i int, item *yaml.Node) error {
				if !t.each(i, item) {
					return ErrItemRefused
				}
				return nil
			})
			t.depth--
			if err != nil {
				return err
			}
			t.space()
			n.Content = append(n.Content, key, val)
			continue
		}
		val, err := t.value()
		if err != nil {
			return err
		}
		n.Content = append(n.Content, key, val)
	}
	t.pos++
	return nil
}

// elements reads a list's elements after its "[", and its "]", handing
// each to take.
func (t *jsonTree) elements(take func(int, *yaml.Node) error) error {
	for i := 0; t.data[t.pos] != ']'; i++ {
		if t.data[t.pos] == ',' {
			t.pos++
			t.space()
		}
		item, err := t.value()
		if err != nil {
			return err
		}
		if err := take(i, item); err != nil {
			return err
		}
	}
	t.pos++
	return nil
}

// str reads a string: its bytes when it has no escape and is valid
// UTF-8, else as encoding/json decodes it (escapes, and invalid UTF-8
// replaced by U+FFFD). Keys are shared.
func (t *jsonTree) str(key bool) string {
	start := t.pos + 1
	plain := true
	i := start
	for ; t.data[i] != '"'; i++ {
		switch c := t.data[i]; {
		case c == '\\':
			plain = false
			i++
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	t.pos = i + 1
	raw := t.data[start:i]
	if plain || utf8.Valid(raw) && bytes.IndexByte(raw, '\\') < 0 {
		if key {
			if s, ok := t.keys[string(raw)]; ok {
				return s
			}
			s := string(raw)
			if len(t.keys) < internLimit {
				t.keys[s] = s
			}
			return s
		}
		return string(raw)
	}
	var s string
	_ = json.Unmarshal(t.data[start-1:t.pos], &s) // valid: json.Valid said so
	return s
}
