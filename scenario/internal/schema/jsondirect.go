package schema

import (
	"encoding/binary"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// DecodeJSONDirect decodes a scenario written in JSON straight from its
// bytes into v (a pointer to a File), without the node tree: a large file
// then costs about its own size in memory, not thirty times that, and
// loads several times faster. It takes what such files hold and gives up
// (false) at anything else: a syntax error, an unknown or repeated field,
// a value of another type than its field's, a field worth a warning. The
// caller then decodes the file through the node tree from a fresh start,
// which accepts the same files with the same values and names every
// problem with its line and path; TestJSONDirectAgrees and FuzzJSONDirect
// hold the two to that.
func DecodeJSONDirect(data []byte, v any) bool {
	s := &jsonDirect{data: data, line: 1, d: &Decoder{}, interned: map[string]string{}}
	if !s.value(reflect.ValueOf(v).Elem()) {
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
	d    *Decoder // for its cache of struct fields
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

// value decodes the next value into v as Decoder.value would.
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
