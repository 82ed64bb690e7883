package schema

import (
	"bytes"
	"encoding/json"
	"errors"
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

// value reads the value at pos (white space read over before it) and
// the white space after it.
func (t *jsonTree) value() (*yaml.Node, error) {
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
		key := t.node()
		key.Kind, key.Tag, key.Line, key.Column, key.Style, key.Value = yaml.ScalarNode, "!!str", t.line, 1, yaml.DoubleQuotedStyle, t.str(true)
		t.space()
		t.pos++ // the colon
		t.space()
		if t.spans != nil && t.depth == 1 && key.Value == "items" && t.data[t.pos] == '[' {
			val := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: t.line, Column: 1}
			if err := t.spanItems(); err != nil {
				return err
			}
			t.space()
			t.stack = append(t.stack, key, val)
			continue
		}
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
			t.stack = append(t.stack, key, val)
			continue
		}
		val, err := t.value()
		if err != nil {
			return err
		}
		t.stack = append(t.stack, key, val)
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

// ParseJSONListItems is ParseJSONItems with the items of a List read on
// up to workers goroutines: each goroutine gets its own function from
// worker, which may be called with any item (its index and tree) but
// never at once with another of that goroutine; the results come back in
// item order. An item's tree is the function's only while it runs: its
// nodes are taken again for the next item, so a result must hold none of
// them (a copy, cloneTree, is its own). The top-level object's tree is returned without its items.
// A refusal (false) ends in ErrItemRefused; the first problem, in item
// order, is the error. Text that is not valid JSON is read by the token
// reader, item after item on one goroutine, and its error says where.
// A List whose top-level object holds "items" twice is read so as well.
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
	if !json.Valid(data) {
		return sequential()
	}
	t := &jsonTree{data: data, line: 1, keys: map[string]string{}, spans: []itemSpan{}}
	t.space()
	root, err := t.value()
	switch {
	case err == errTwoItemLists:
		return sequential()
	case err != nil:
		return nil, nil, err
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}
	out := make([]T, len(t.spans))
	errs := make([]error, len(t.spans))
	const chunk = 32
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, (len(t.spans)+chunk-1)/chunk)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			each := worker()
			item := &jsonTree{data: data, keys: map[string]string{}, reuse: true}
			for {
				from := int(next.Add(chunk)) - chunk
				if from >= len(t.spans) {
					return
				}
				for i := from; i < min(from+chunk, len(t.spans)); i++ {
					sp := t.spans[i]
					item.pos, item.line, item.depth = sp.pos, sp.line, 2 // in the top-level object, in its items
					n, err := item.value()
					if err != nil {
						errs[i] = err
						continue
					}
					var ok bool
					if out[i], ok = each(i, n); !ok {
						errs[i] = ErrItemRefused
					}
					item.reset()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return doc, out, nil
}

// itemSpan is where an item of a List starts, and its line.
type itemSpan struct{ pos, line int }

// errTwoItemLists stops ParseJSONListItems' first reading of a List with
// two "items" lists, which the token reader reads instead.
var errTwoItemLists = errors.New("two lists of items")

// spanItems notes where each item of the "items" list at pos starts,
// reading over them (the token reader hands over the items of each
// "items" list; ParseJSONListItems reads only one).
func (t *jsonTree) spanItems() error {
	if len(t.spans) > 0 || t.spanned {
		return errTwoItemLists
	}
	t.spanned = true
	t.pos++ // [
	t.space()
	for t.data[t.pos] != ']' {
		if t.data[t.pos] == ',' {
			t.pos++
			t.space()
		}
		t.spans = append(t.spans, itemSpan{t.pos, t.line})
		t.skipValue()
		t.space()
	}
	t.pos++
	return nil
}

// skipValue reads over the value at pos, counting its lines.
func (t *jsonTree) skipValue() {
	switch t.data[t.pos] {
	case '"':
		t.skipString()
		return
	case '{', '[':
	default:
		for t.pos < len(t.data) && isScalarByte(t.data[t.pos]) {
			t.pos++
		}
		return
	}
	depth := 0
	for {
		switch t.data[t.pos] {
		case '"':
			t.skipString()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				t.pos++
				return
			}
		case '\n':
			t.line++
		}
		t.pos++
	}
}

func isScalarByte(c byte) bool { return isNumberByte(c) || c >= 'a' && c <= 'z' }

// skipString reads over the string at pos (valid: no raw line break).
func (t *jsonTree) skipString() {
	i := t.pos + 1
	for {
		j := bytes.IndexAny(t.data[i:], `"\`)
		i += j
		if t.data[i] == '"' {
			t.pos = i + 1
			return
		}
		i += 2 // an escape and the byte it escapes
	}
}
