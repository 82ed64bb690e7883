package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The direct JSON decoder's reading of the bytes: white space, literals,
// strings, numbers, and values read over or kept as a node tree.

func (s *jsonDirect) space() { s.pos, s.line = jsonSpace(s.data, s.pos, s.line) }

// jsonSpace reads over JSON's white space from pos, counting lines, and
// returns where it ends and its line.
func jsonSpace(data []byte, pos, line int) (int, int) {
	for pos < len(data) {
		switch data[pos] {
		case '\n':
			line++
		case ' ', '\t', '\r':
		default:
			return pos, line
		}
		pos++
	}
	return pos, line
}

// peek is the next byte after white space, 0 at the end.
func (s *jsonDirect) peek() byte {
	s.space()
	if s.pos == len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *jsonDirect) literal(word string) bool {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		return false
	}
	s.pos += len(word)
	return true
}

// scalarText is the text of a scalar as the node tree gives it to a
// string: a string's contents, a number or true/false as written. Keys of
// an object must be strings.
func (s *jsonDirect) scalarText(intern bool) (string, bool) {
	switch c := s.peek(); {
	case c == '"':
		raw, ok := s.rawString()
		if ok {
			return s.text(raw, intern), true
		}
		return s.escapedString()
	case c == 't' && s.literal("true"):
		return "true", true
	case c == 'f' && s.literal("false"):
		return "false", true
	}
	num, ok := s.number()
	if !ok {
		return "", false
	}
	return s.text(num, intern), true
}

func (s *jsonDirect) text(b []byte, intern bool) string {
	if !intern {
		return string(b)
	}
	if str, ok := s.interned[string(b)]; ok {
		return str
	}
	str := string(b)
	if len(s.interned) < internLimit {
		s.interned[str] = str
	}
	return str
}

// rawString reads a string without escapes and returns its bytes; at an
// escape it reads nothing and fails. Invalid UTF-8 and control characters
// fail too.
func (s *jsonDirect) rawString() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.pos + 1
	ascii := true
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			b := s.data[start:i]
			if !ascii && !utf8.Valid(b) {
				return nil, false
			}
			s.pos = i + 1
			return b, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// escapedString reads a string with escapes through encoding/json, which
// the node tree uses too.
func (s *jsonDirect) escapedString() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	end := s.pos + 1
	for ; end < len(s.data) && s.data[end] != '"'; end++ {
		if s.data[end] == '\\' {
			end++
		} else if s.data[end] < 0x20 || s.data[end] >= utf8.RuneSelf {
			return "", false
		}
	}
	if end >= len(s.data) {
		return "", false
	}
	var str string
	if json.Unmarshal(s.data[s.pos:end+1], &str) != nil {
		return "", false
	}
	s.pos = end + 1
	return str, true
}

// number reads a JSON number and returns its text.
func (s *jsonDirect) number() ([]byte, bool) {
	s.space()
	start, i := s.pos, s.pos
	digits := func() bool {
		j := i
		for i < len(s.data) && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s.data) && s.data[i] == '-' {
		i++
	}
	if i < len(s.data) && s.data[i] == '0' {
		i++
	} else if !digits() {
		return nil, false
	}
	if i < len(s.data) && s.data[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(s.data) && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if i < len(s.data) && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	s.pos = i
	return s.data[start:i], true
}

// skip reads over any value.
func (s *jsonDirect) skip() bool {
	_, ok := s.skipEmpty()
	return ok
}

// skipEmpty reads over a value and reports whether it says nothing, as
// isEmptyNode decides: null, "", false, 0, [] or {}.
func (s *jsonDirect) skipEmpty() (empty, ok bool) {
	switch c := s.peek(); c {
	case '{', '[':
		if s.skipping++; s.skipping > maxSkipDepth {
			return false, false // the node tree's reader says how deep is too deep
		}
		defer func() { s.skipping-- }()
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		s.pos++
		if s.peek() == closing {
			s.pos++
			return true, true
		}
		for n := 0; ; n++ {
			first := n == 0
			if s.peek() == closing {
				s.pos++
				return false, true
			}
			if !first {
				if s.peek() != ',' {
					return false, false
				}
				s.pos++
			}
			if c == '{' {
				if _, ok := s.scalarString(); !ok || s.peek() != ':' {
					return false, false
				}
				s.pos++
			}
			if !s.skip() {
				return false, false
			}
		}
	case '"':
		str, ok := s.scalarString()
		return str == "", ok
	case 'n':
		return true, s.literal("null")
	case 't':
		return false, s.literal("true")
	case 'f':
		return true, s.literal("false")
	}
	num, ok := s.number()
	return string(num) == "0", ok
}

// scalarString reads a string, escaped or not.
func (s *jsonDirect) scalarString() (string, bool) {
	if raw, ok := s.rawString(); ok {
		return string(raw), true
	}
	return s.escapedString()
}

// node keeps a value as a node tree, for a field decoded later into a
// type known then (a plugin's args, a selector); its lines are the file's.
func (s *jsonDirect) node(v reflect.Value) bool {
	s.space()
	start, line := s.pos, s.line
	if !s.skip() {
		return false
	}
	doc, err := ParseJSON(s.data[start:s.pos])
	if err != nil {
		return false
	}
	root := doc.Content[0]
	shiftLines(root, line-1)
	v.Set(reflect.ValueOf(root))
	return true
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}
