package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
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
	// spans, when not nil, are where the items of the top-level "items"
	// list start, which is read over instead (ParseJSONListItems);
	// spanned says it was
	spans   []itemSpan
	spanned bool
	// stack holds the children of the lists and objects being read, so
	// that each gets its Content in one slice of its size; nodes and
	// contents are slabs those come from: a dump's tree is millions of
	// small values, allocated a few hundred at a time. A reader of a
	// List's items on its own goroutine (reuse) takes them again for
	// each item, once the item is decoded (reset): the tree of a dump is
	// then never more than one item's per goroutine.
	stack    []*yaml.Node
	nodes    []yaml.Node
	contents []*yaml.Node
	reuse    bool
	// nodesUsed and contentsUsed are how much of nodes and contents the
	// tree being read holds
	nodesUsed, contentsUsed int
}

// slab is how many nodes, or content entries, are allocated at once.
const slab = 256

// node is a new zero node.
func (t *jsonTree) node() *yaml.Node {
	if t.nodesUsed == len(t.nodes) {
		t.nodes, t.nodesUsed = make([]yaml.Node, t.grown(len(t.nodes), 1)), 0
	}
	n := &t.nodes[t.nodesUsed]
	t.nodesUsed++
	*n = yaml.Node{} // a node reused from the last item
	return n
}

// grown is the size of a new slab of nodes or contents, at least need:
// a reader that reuses them grows them to an item's size.
func (t *jsonTree) grown(had, need int) int {
	if t.reuse {
		return max(2*had, need, slab)
	}
	return max(need, slab)
}

// reset takes the nodes and contents back for the next item: nothing of
// the last item's tree may be held any more (a decoder keeps a node it
// stores by a deep copy, schema.DecodeKept; an object keeps its head so).
func (t *jsonTree) reset() { t.nodesUsed, t.contentsUsed = 0, 0 }

// pop takes the children stacked since base as a Content slice of their
// number (nil for none, as append leaves it).
func (t *jsonTree) pop(base int) []*yaml.Node {
	kids := t.stack[base:]
	t.stack = t.stack[:base]
	if len(kids) == 0 {
		return nil
	}
	if len(kids) > slab/4 && !t.reuse {
		return append([]*yaml.Node(nil), kids...)
	}
	if len(t.contents)-t.contentsUsed < len(kids) {
		t.contents, t.contentsUsed = make([]*yaml.Node, t.grown(len(t.contents), len(kids))), 0
	}
	c := t.contents[t.contentsUsed : t.contentsUsed+len(kids) : t.contentsUsed+len(kids)]
	t.contentsUsed += len(kids)
	copy(c, kids)
	return c
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

func (t *jsonTree) space() { t.pos, t.line = jsonSpace(t.data, t.pos, t.line) }

// errNotJSON is what the tree reader finds in text that is not JSON:
// ParseJSONListItems, which reads without json.Valid's pass, then reads
// it with the token reader, which says what is wrong and where.
var errNotJSON = errors.New("not JSON")

// at reports whether the byte at pos is c.
func (t *jsonTree) at(c byte) bool { return t.pos < len(t.data) && t.data[t.pos] == c }

// value reads the value at pos (white space read over before it) and
// the white space after it. Text that is not JSON is errNotJSON (or the
// too-deep error, when nesting comes first), never a panic.
func (t *jsonTree) value() (*yaml.Node, error) {
	if t.pos >= len(t.data) {
		return nil, errNotJSON
	}
	n := t.node()
	n.Line, n.Column = t.line, 1
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
			base := len(t.stack)
			err = t.object(n)
			n.Content = t.pop(base)
		} else {
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			base := len(t.stack)
			err = t.elements(func(_ int, item *yaml.Node) error {
				t.stack = append(t.stack, item)
				return nil
			})
			n.Content = t.pop(base)
		}
		t.depth--
		if err != nil {
			return nil, err
		}
	case '"':
		v, ok := t.str(false)
		if !ok {
			return nil, errNotJSON
		}
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", v, yaml.DoubleQuotedStyle
	case 't', 'f', 'n':
		word := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
		if !bytes.HasPrefix(t.data[t.pos:], []byte(word)) {
			return nil, errNotJSON
		}
		t.pos += len(word)
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", word
		if c == 'n' {
			n.Tag = "!!null"
		}
	default:
		num, ok := t.number()
		if !ok {
			return nil, errNotJSON
		}
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!float", string(num)
		if _, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			n.Tag = "!!int"
		}
	}
	t.space()
	return n, nil
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (t *jsonTree) number() ([]byte, bool) {
	start, d := t.pos, t.data
	digits := func() bool {
		from := t.pos
		for t.pos < len(d) && d[t.pos] >= '0' && d[t.pos] <= '9' {
			t.pos++
		}
		return t.pos > from
	}
	if t.at('-') {
		t.pos++
	}
	switch {
	case t.at('0'):
		t.pos++
	case !digits():
		return nil, false
	}
	if t.at('.') {
		t.pos++
		if !digits() {
			return nil, false
		}
	}
	if t.at('e') || t.at('E') {
		t.pos++
		if t.at('+') || t.at('-') {
			t.pos++
		}
		if !digits() {
			return nil, false
		}
	}
	return d[start:t.pos], true
}

// object reads an object's members after its "{", and its "}".
func (t *jsonTree) object(n *yaml.Node) error {
	if t.at('}') {
		t.pos++
		return nil
	}
	for {
		if !t.at('"') {
			return errNotJSON
		}
		key := t.node()
		key.Kind, key.Tag, key.Line, key.Column, key.Style = yaml.ScalarNode, "!!str", t.line, 1, yaml.DoubleQuotedStyle
		var ok bool
		if key.Value, ok = t.str(true); !ok {
			return errNotJSON
		}
		t.space()
		if !t.at(':') {
			return errNotJSON
		}
		t.pos++
		t.space()
		switch {
		case t.spans != nil && t.depth == 1 && key.Value == "items" && t.at('['):
			val := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: t.line, Column: 1}
			if err := t.spanItems(); err != nil {
				return err
			}
			t.space()
			t.stack = append(t.stack, key, val)
		case t.each != nil && t.depth == 1 && key.Value == "items" && t.at('['):
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
			t.stack = append(t.stack, key, val)
		default:
			val, err := t.value()
			if err != nil {
				return err
			}
			t.stack = append(t.stack, key, val)
		}
		if done, err := t.separator('}'); done || err != nil {
			return err
		}
	}
}

// separator reads what follows a member or an element: a comma and the
// white space after it, or the closing bracket (done); anything else is
// not JSON.
func (t *jsonTree) separator(closing byte) (done bool, err error) {
	switch {
	case t.at(','):
		t.pos++
		t.space()
		return false, nil
	case t.at(closing):
		t.pos++
		return true, nil
	}
	return false, errNotJSON
}

// elements reads a list's elements after its "[", and its "]", handing
// each to take.
func (t *jsonTree) elements(take func(int, *yaml.Node) error) error {
	if t.at(']') {
		t.pos++
		return nil
	}
	for i := 0; ; i++ {
		item, err := t.value()
		if err != nil {
			return err
		}
		if err := take(i, item); err != nil {
			return err
		}
		if done, err := t.separator(']'); done || err != nil {
			return err
		}
	}
}

// str reads a string: its bytes when it has no escape and is valid
// UTF-8, else as encoding/json decodes it (escapes, and invalid UTF-8
// replaced by U+FFFD). Keys are shared. False for a string JSON refuses:
// a control character, an escape it does not know, no closing quote.
func (t *jsonTree) str(key bool) (string, bool) {
	start := t.pos + 1
	plain := true
	i := start
	for ; ; i++ {
		if i >= len(t.data) {
			return "", false
		}
		c := t.data[i]
		if c == '"' {
			break
		}
		switch {
		case c < 0x20:
			return "", false
		case c == '\\':
			plain = false
			if i+1 >= len(t.data) {
				return "", false
			}
			switch t.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(t.data) || !isHex4(t.data[i+2:i+6]) {
					return "", false
				}
				i += 5
			default:
				return "", false
			}
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	t.pos = i + 1
	raw := t.data[start:i]
	if plain || utf8.Valid(raw) && bytes.IndexByte(raw, '\\') < 0 {
		if key {
			if s, ok := t.keys[string(raw)]; ok {
				return s, true
			}
			s := string(raw)
			if len(t.keys) < internLimit {
				t.keys[s] = s
			}
			return s, true
		}
		return string(raw), true
	}
	var s string
	if json.Unmarshal(t.data[start-1:t.pos], &s) != nil {
		return "", false
	}
	return s, true
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// ParseJSONListItems is ParseJSONItems with the items of a List read on
// up to workers goroutines: each goroutine gets its own function from
// worker, which may be called with any item (its index and tree) but
// never at once with another of that goroutine; the results come back in
// item order. An item's tree is the function's only while it runs: its
// nodes are taken again for the next item, so a result must hold none of
// them (a copy, CloneTree, is its own). The top-level object's tree is
// returned without its items. A refusal (false) ends in ErrItemRefused;
// the first problem, in item order, is the error. The text is checked as
// it is read, on every goroutine, item by item (not by json.Valid first,
// a whole pass of its own): text that is not valid JSON, and a List whose
// top-level object holds "items" twice, are read again by the token
// reader, item after item on one goroutine, whose error says what is
// wrong and where; the functions may then have been given trees of the
// text that is not JSON, whose results are dropped.
func ParseJSONListItems[T any](data []byte, workers int, worker func() func(int, *yaml.Node) (T, bool)) (*yaml.Node, []T, error) {
	sequential := func() (*yaml.Node, []T, error) {
		each := worker()
		var out []T
		root, err := parseJSONTokens(data, func(i int, n *yaml.Node) bool {
			v, ok := each(i, n)
			out = append(out, v)
			return ok
		})
		return root, out, err
	}
	t := &jsonTree{data: data, line: 1, keys: map[string]string{}, spans: []itemSpan{}}
	t.space()
	root, err := t.value()
	if err != nil || t.pos != len(data) {
		return sequential() // not JSON, two lists of items, too deep (the token reader says where first)
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}
	out := make([]T, len(t.spans))
	errs := make([]error, len(t.spans))
	const chunk = 32
	var next atomic.Int64
	var fault atomic.Bool
	var wg sync.WaitGroup
	for range max(1, min(workers, (len(t.spans)+chunk-1)/chunk)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			each := worker()
			item := &jsonTree{data: data, keys: map[string]string{}, reuse: true}
			faulted := !catchingFaults(func() { // data may be a mapped file's, cut short (ErrFileChanged)
				for {
					from := int(next.Add(chunk)) - chunk
					if from >= len(t.spans) {
						return
					}
					for i := from; i < min(from+chunk, len(t.spans)); i++ {
						sp := t.spans[i]
						item.pos, item.line, item.depth = sp.pos, sp.line, 2 // in the top-level object, in its items
						n, err := item.value()
						if err == nil && item.pos != sp.next {
							err = errNotJSON // not the value spanItems read over
						}
						if err != nil {
							errs[i] = err
							item.reset()
							continue
						}
						var ok bool
						if out[i], ok = each(i, n); !ok {
							errs[i] = ErrItemRefused
						}
						item.reset()
					}
				}
			})
			if faulted {
				fault.Store(true)
			}
		}()
	}
	wg.Wait()
	if fault.Load() {
		return nil, nil, ErrFileChanged
	}
	if slices.ContainsFunc(errs, func(err error) bool { return err == errNotJSON }) {
		return sequential()
	}
	for _, err := range errs {
		if err != nil {
			return nil, nil, err // the text is JSON: the first item at fault, as the token reader meets it
		}
	}
	return doc, out, nil
}

// itemSpan is where an item of a List starts, its line, and where the
// next separator is (after the item and its white space).
type itemSpan struct{ pos, line, next int }

// errTwoItemLists stops ParseJSONListItems' first reading of a List with
// two "items" lists, which the token reader reads instead.
var errTwoItemLists = errors.New("two lists of items")

// spanItems notes where each item of the "items" list at pos starts,
// reading over them (the token reader hands over the items of each
// "items" list; ParseJSONListItems reads only one). It checks the list's
// separators; each item is checked as it is read.
func (t *jsonTree) spanItems() error {
	if len(t.spans) > 0 || t.spanned {
		return errTwoItemLists
	}
	t.spanned = true
	t.pos++ // [
	t.space()
	if t.at(']') {
		t.pos++
		return nil
	}
	for {
		start, line := t.pos, t.line
		if !t.skipValue() {
			return errNotJSON
		}
		t.space()
		t.spans = append(t.spans, itemSpan{start, line, t.pos})
		if done, err := t.separator(']'); done || err != nil {
			return err
		}
	}
}

// skipValue reads over the value at pos, counting its lines, by its
// brackets and quotes alone; false where it cannot (the text ends, or
// holds no value there).
func (t *jsonTree) skipValue() bool {
	if t.pos >= len(t.data) {
		return false
	}
	switch t.data[t.pos] {
	case '"':
		return t.skipString()
	case '{', '[':
	default:
		from := t.pos
		for t.pos < len(t.data) && isScalarByte(t.data[t.pos]) {
			t.pos++
		}
		return t.pos > from
	}
	depth := 0
	data, pos := t.data, t.pos
	for {
		for pos < len(data) && !skipStops[data[pos]] { // most of the text: names, numbers, indentation
			pos++
		}
		if pos >= len(data) {
			t.pos = pos
			return false
		}
		switch data[pos] {
		case '"':
			t.pos = pos
			if !t.skipString() {
				return false
			}
			pos = t.pos
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				t.pos = pos + 1
				return true
			}
		case '\n':
			t.line++
		}
		pos++
	}
}

// skipStops are the bytes skipValue stops at: quotes, brackets and line
// ends.
var skipStops = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true, '\n': true}

// isScalarByte is a byte of a number, true, false or null.
func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c >= 'a' && c <= 'z' || c == 'E'
}

// skipString reads over the string at pos; false when it has no end.
func (t *jsonTree) skipString() bool {
	data, i := t.data, t.pos+1
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			t.pos = i + 1
			return true
		case c == '\\':
			i += 2 // an escape and the byte it escapes
		default:
			i++
		}
	}
	return false
}
