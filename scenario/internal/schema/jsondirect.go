package schema

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"runtime"
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
	halves := halvesFrom
	if runtime.GOMAXPROCS(0) < 2 {
		halves = 0
	}
	ok, _ := decodeJSONDirect(data, v, halves)
	return ok
}

// halvesFrom is the length from which a list of the file (its nodes, its
// pods) is decoded in two halves at once, on two processors: a million
// pods take 1.0 s to decode, their build 3 s after it.
const halvesFrom = 4096

// decodeJSONDirect is DecodeJSONDirect decoding the file's lists of at
// least halves elements in two halves at once (0: none); it also returns
// how many lists were.
func decodeJSONDirect(data []byte, v any, halves int) (bool, int) {
	s := &jsonDirect{data: data, line: 1, d: &Decoder{}, interned: map[string]string{}, halvesFrom: halves}
	if !s.value(reflect.ValueOf(v).Elem()) {
		return false, s.halved
	}
	s.space()
	return s.pos == len(s.data), s.halved
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
	// spelled finds a map read before by the bytes that spelled it (on
	// one line), read only once they decoded whole
	spelled map[string]map[string]string
	pairs   [][2]string // a map's pairs while it is read
	// halvesFrom is the length from which a list of the file is decoded
	// in two halves at once (0: never)
	halvesFrom int
	halved     int // the lists decoded in halves
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
		if s.halvesFrom > 0 && size >= max(2, s.halvesFrom) && s.arrayInHalves(v, size) {
			return true
		}
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

// arrayInHalves decodes the array at pos, of size elements by
// countElements, into the slice v as array does, its second half in a
// second goroutine, from the byte where that half starts, at the same
// time as the first. Each element is decoded from its own bytes alone (the
// halves share no strings or maps, which are read-only and equal by
// value), and the line the second half starts on is the lines before it:
// JSON's line breaks are all white space outside strings, and the direct
// decoder refuses a string holding one. It reports false, with pos where
// it was, when the halves do not meet exactly where the first ends (the
// array is then decoded in one pass, which finds the fault if any).
func (s *jsonDirect) arrayInHalves(v reflect.Value, size int) bool {
	start, startLine, half := s.pos, s.line, size/2
	split := s.elementStart(half)
	if split < 0 {
		return false
	}
	splitLine := startLine + bytes.Count(s.data[start:split], []byte{'\n'})
	out := reflect.MakeSlice(v.Type(), size, size)
	second := &jsonDirect{data: s.data, pos: split, line: splitLine, d: &Decoder{}, interned: map[string]string{}, depth: s.depth}
	secondOK := make(chan bool, 1)
	go func() { secondOK <- second.elements(out, half) }()
	s.pos++
	ok := true
	for i := range half {
		if i > 0 {
			if s.peek() != ',' {
				ok = false
				break
			}
			s.pos++
		}
		if !s.value(out.Index(i)) {
			ok = false
			break
		}
	}
	if ok {
		ok = s.peek() == ',' && s.pos+1 <= split
		if ok {
			s.pos++
			s.space()
			ok = s.pos == split && s.line == splitLine
		}
	}
	if !<-secondOK || !ok {
		s.pos, s.line = start, startLine
		return false
	}
	s.pos, s.line = second.pos, second.line
	s.halved++
	v.Set(out)
	return true
}

// elementStart returns where the k-th element (from 0) of the array at
// pos starts, past white space, or -1 when the array holds fewer: it
// reads bytes only, as countElements does.
func (s *jsonDirect) elementStart(k int) int {
	data := s.data
	depth, commas := 0, 0
	for i := s.pos; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return -1
			}
		case ',':
			if depth == 1 {
				if commas++; commas == k {
					pos, _ := jsonSpace(data, i+1, 0)
					return pos
				}
			}
		}
	}
	return -1
}

// elements decodes the elements of an array from pos, the first of them
// into out's element from and the rest after it, to the array's end; false
// when they are more than out holds or any is not decoded.
func (s *jsonDirect) elements(out reflect.Value, from int) bool {
	for i := from; ; i++ {
		if i >= out.Len() || !s.value(out.Index(i)) {
			return false
		}
		switch s.peek() {
		case ']':
			s.pos++
			return i == out.Len()-1
		case ',':
			s.pos++
		default:
			return false
		}
	}
}

// stringEnd returns the index of the quote closing the string whose
// opening quote is at i (len(data) when none does), escapes read over.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data) && data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	return i
}

// flatObjectEnd returns the end of the object at i (just past its '}')
// when it holds no object, array or line break, reading bytes only; -1
// otherwise. Nothing is checked: a map found by these bytes was decoded
// from the same bytes before.
func flatObjectEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
		case '}':
			return i + 1
		case '{', '[', '\n':
			return -1
		}
	}
	return -1
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
			i = stringEnd(data, i)
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
	// a map spelled byte for byte as one read before is that map, found
	// by its bytes without reading its pairs again: the pods of a
	// template repeat their requests and labels
	start, end := s.pos, flatObjectEnd(s.data, s.pos)
	if end > 0 {
		if m, ok := s.spelled[string(s.data[start:end])]; ok {
			v.Set(reflect.ValueOf(m))
			s.pos = end
			return true
		}
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
			if end == s.pos {
				if s.spelled == nil || len(s.spelled) >= internLimit {
					s.spelled = map[string]map[string]string{}
				}
				s.spelled[string(s.data[start:end])] = m
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
