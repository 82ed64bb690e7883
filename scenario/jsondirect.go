package scenario

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// decodeJSONDirect decodes a scenario written in JSON straight from its
// bytes into f, without the node tree: a large file then costs about its
// own size in memory, not thirty times that, and loads several times
// faster. It takes what such files hold and gives up (false) at anything
// else: a syntax error, an unknown or repeated field, a value of another
// type than its field's, a field worth a warning. The caller then decodes
// the file through the node tree from a fresh start, which accepts the
// same files with the same values and names every problem with its line
// and path; TestJSONDirectAgrees and FuzzJSONDirect hold the two to that.
func decodeJSONDirect(data []byte, f *file) bool {
	s := &jsonDirect{data: data, line: 1, d: &decoder{}, interned: map[string]string{}}
	if !s.value(reflect.ValueOf(f).Elem()) {
		return false
	}
	s.space()
	return s.pos == len(s.data)
}

// jsonDirect reads one JSON document at pos, counting lines for the Line
// fields, which say where an object starts as the node tree does.
type jsonDirect struct {
	data []byte
	pos  int
	line int
	d    *decoder // for its cache of struct fields
	// depth is the number of objects open around pos; skipping is the
	// nesting of the value being skipped.
	depth, skipping int
	// interned shares the strings of label and resource maps: a million
	// pods name a few dozen keys and values.
	interned map[string]string
	// maps shares equal label and resource maps (by their sorted pairs):
	// the pods of a deployment carry one map, not one each. Maps in a
	// scenario are read-only.
	maps   map[string]map[string]string
	mapKey []byte
	pairs  [][2]string // a map's pairs while it is read
}

// internLimit bounds the shared strings: past it, map strings are new
// strings, as unique names would be anyway.
const internLimit = 1 << 16

// maxSkipDepth bounds the nesting of a skipped value, which is read by
// recursion: deeper, the decoder gives up.
const maxSkipDepth = 1000

var mapStringStringType = reflect.TypeFor[map[string]string]()

func (s *jsonDirect) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		s.pos++
	}
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

// value decodes the next value into v as decoder.value would.
func (s *jsonDirect) value(v reflect.Value) bool {
	c := s.peek()
	switch v.Type() {
	case yamlNodeType:
		return false // only behind a pointer in the file's types
	case skippedType:
		return s.skip()
	case unmodelledType:
		empty, ok := s.skipEmpty()
		return ok && empty // a warning: the node tree words it
	}
	if c == 'n' {
		return s.literal("null") // absent: the zero value
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type().Elem() == yamlNodeType {
			return s.node(v)
		}
		elem := reflect.New(v.Type().Elem())
		if !s.value(elem.Elem()) {
			return false
		}
		v.Set(elem)
		return true
	case reflect.Struct:
		return s.object(v)
	case reflect.Slice:
		return s.array(v)
	case reflect.Map:
		if v.Type() == mapStringStringType {
			return s.stringMap(v)
		}
		return false
	case reflect.String:
		str, ok := s.scalarText(false)
		if ok {
			v.SetString(str)
		}
		return ok
	case reflect.Bool:
		switch {
		case s.literal("true"):
			v.SetBool(true)
		case s.literal("false"):
			v.SetBool(false)
		default:
			return false
		}
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		num, ok := s.number()
		if !ok {
			return false
		}
		i, err := strconv.ParseInt(string(num), 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetInt(i)
		return true
	case reflect.Float32, reflect.Float64:
		num, ok := s.number()
		if !ok {
			return false
		}
		x, err := strconv.ParseFloat(string(num), v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetFloat(x)
		return true
	}
	return false
}

// object decodes a JSON object into a struct.
func (s *jsonDirect) object(v reflect.Value) bool {
	if s.peek() != '{' {
		return false
	}
	si := s.d.structInfo(v.Type())
	if si.line != nil {
		v.FieldByIndex(si.line).SetInt(int64(s.line))
	}
	s.pos++
	s.depth++
	defer func() { s.depth-- }()
	var seenBuf [24]string
	seen := seenBuf[:0]
	for first := true; ; first = false {
		if s.peek() == '}' {
			s.pos++
			return true
		}
		if !first {
			if s.peek() != ',' {
				return false
			}
			s.pos++
		}
		key, ok := s.rawString()
		if !ok {
			return false
		}
		if s.peek() != ':' {
			return false
		}
		s.pos++
		idx, known := si.fields[string(key)]
		if !known {
			if si.open && s.skip() {
				continue
			}
			return false
		}
		for _, k := range seen {
			if k == string(key) {
				return false
			}
		}
		seen = append(seen, string(key))
		if !s.value(v.FieldByIndex(idx)) {
			return false
		}
	}
}

// array decodes a JSON array into a slice; an empty array is an empty,
// not a nil, slice, as the node tree makes it.
func (s *jsonDirect) array(v reflect.Value) bool {
	if s.peek() != '[' {
		return false
	}
	size := 0
	if s.depth == 1 {
		// the file's lists hold up to millions of large elements: counted
		// first, they are made once instead of grown by copies
		size = s.countElements()
	}
	s.pos++
	out := reflect.MakeSlice(v.Type(), 0, size)
	zero := reflect.Zero(v.Type().Elem())
	for first := true; ; first = false {
		if s.peek() == ']' {
			s.pos++
			v.Set(out)
			return true
		}
		if !first {
			if s.peek() != ',' {
				return false
			}
			s.pos++
		}
		out = reflect.Append(out, zero)
		if !s.value(out.Index(out.Len() - 1)) {
			return false
		}
	}
}

// countElements returns how many elements the array at pos holds, reading
// bytes only: nesting, strings and commas, nothing checked. It is a
// capacity, never more than the bytes left; the array's decoding checks
// the syntax.
func (s *jsonDirect) countElements() int {
	data := s.data
	depth, commas, empty := 0, 0, true
	for i := s.pos; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			empty = false
		case '[', '{':
			if depth++; depth > 1 {
				empty = false
			}
		case ']', '}':
			if depth--; depth == 0 {
				if empty {
					return 0
				}
				return commas + 1
			}
		case ',':
			if depth == 1 {
				commas++
			}
		case ' ', '\t', '\n', '\r':
		default:
			empty = false
		}
	}
	return 0
}

// stringMap decodes an object of scalars into a map[string]string. The
// pairs are read into a scratch list first, so that a map equal to one
// decoded before is shared without making a new one to throw away (a
// million pods with a few distinct request maps make a few maps).
func (s *jsonDirect) stringMap(v reflect.Value) bool {
	if s.peek() != '{' {
		return false
	}
	s.pos++
	pairs := s.pairs[:0]
	defer func() { s.pairs = pairs[:0] }()
	for first := true; ; first = false {
		if s.peek() == '}' {
			s.pos++
			m, ok := s.shared(pairs)
			if !ok {
				return false // a key twice
			}
			v.Set(reflect.ValueOf(m))
			return true
		}
		if !first {
			if s.peek() != ',' {
				return false
			}
			s.pos++
		}
		if s.peek() != '"' {
			return false
		}
		key, ok := s.scalarText(true)
		if !ok || s.peek() != ':' {
			return false
		}
		s.pos++
		var val string
		if s.peek() == 'n' {
			if !s.literal("null") {
				return false
			}
		} else if val, ok = s.scalarText(true); !ok {
			return false
		}
		pairs = append(pairs, [2]string{key, val})
	}
}

// shared returns the map of pairs: one equal to a map decoded before, or a
// new one; false when a key comes twice.
func (s *jsonDirect) shared(pairs [][2]string) (map[string]string, bool) {
	if len(pairs) == 0 {
		return map[string]string{}, true
	}
	slices.SortStableFunc(pairs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	b := s.mapKey[:0]
	for i, kv := range pairs {
		if i > 0 && pairs[i-1][0] == kv[0] {
			return nil, false
		}
		// lengths first: the key is unambiguous without quoting
		b = binary.AppendUvarint(b, uint64(len(kv[0])))
		b = append(b, kv[0]...)
		b = binary.AppendUvarint(b, uint64(len(kv[1])))
		b = append(b, kv[1]...)
	}
	s.mapKey = b
	if old, ok := s.maps[string(b)]; ok {
		return old, true
	}
	m := make(map[string]string, len(pairs))
	for _, kv := range pairs {
		m[kv[0]] = kv[1]
	}
	if s.maps == nil || len(s.maps) >= internLimit {
		s.maps = map[string]map[string]string{}
	}
	s.maps[string(b)] = m
	return m, true
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
	doc, err := parseJSON(s.data[start:s.pos])
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
