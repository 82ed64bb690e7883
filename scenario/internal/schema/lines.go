package schema

import (
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Lines finds the line of a field of an object by its path, as LineOf
// does in the object's tree: the field's, or the closest enclosing one's.
type Lines interface {
	LineOf(path string) int
	// KeyLine is the line of key in the mapping at path, the mapping's (or
	// the nearest parent's) when the key is not there; the key may hold
	// dots (a label's).
	KeyLine(path, key string) int
}

// TreeLines finds lines in a node tree.
type TreeLines struct{ Node *yaml.Node }

// LineOf is LineOf in the tree.
func (t TreeLines) LineOf(path string) int { return LineOf(t.Node, path) }

// KeyLine is the line of the key itself.
func (t TreeLines) KeyLine(path, key string) int {
	n := t.Node
	for _, part := range strings.Split(path, ".") {
		next := MapValue(n, part)
		if next == nil {
			return n.Line
		}
		n = next
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

// LineIndex is the lines of a tree's nodes by their paths, without the
// tree: about a tenth of its size. An object decoded as it is read keeps
// it instead of its tree, so that a problem found later still names its
// field's line.
type LineIndex struct {
	root    int
	entries []lineEntry // by key
}

// lineEntry is a node's line under the hash of its path.
type lineEntry struct {
	key  uint64
	line int32
}

// FNV-1a, 64 bits: a node's key is its parent's key extended by the
// mapping key or the list index that reaches it, with a different mark.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func extend(h uint64, mark byte, text string) uint64 {
	h = (h ^ uint64(mark)) * fnvPrime
	for i := range len(text) {
		h = (h ^ uint64(text[i])) * fnvPrime
	}
	return h
}

func keyHash(h uint64, key string) uint64 { return extend(h, 'k', key) }
func indexHash(h uint64, i int) uint64    { return extend(h, 'i', strconv.Itoa(i)) }

// IndexLines indexes the lines of a tree without aliases (JSON's).
func IndexLines(n *yaml.Node) *LineIndex {
	x := &LineIndex{root: n.Line, entries: make([]lineEntry, 0, countEntries(n))}
	var walk func(n *yaml.Node, h uint64)
	walk = func(n *yaml.Node, h uint64) {
		switch n.Kind {
		case yaml.MappingNode:
			var seen map[string]bool // for large mappings; small ones are searched
			if len(n.Content) > 64 {
				seen = make(map[string]bool, len(n.Content)/2)
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				if repeated(n, i, seen) {
					continue // MapValue finds the first
				}
				k := keyHash(h, n.Content[i].Value)
				x.entries = append(x.entries, lineEntry{k, int32(n.Content[i+1].Line)})
				walk(n.Content[i+1], k)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				k := indexHash(h, i)
				x.entries = append(x.entries, lineEntry{k, int32(c.Line)})
				walk(c, k)
			}
		}
	}
	walk(n, fnvOffset)
	slices.SortStableFunc(x.entries, func(a, b lineEntry) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	x.entries = slices.Clip(x.entries)
	return x
}

// repeated reports whether the key at i of a mapping came before (a
// decoded object has none: a guard), with seen the keys so far when set.
func repeated(n *yaml.Node, i int, seen map[string]bool) bool {
	if seen != nil {
		k := n.Content[i].Value
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	}
	for j := 0; j < i; j += 2 {
		if n.Content[j].Value == n.Content[i].Value {
			return true
		}
	}
	return false
}

func (x *LineIndex) find(k uint64) (int, bool) {
	i, ok := slices.BinarySearchFunc(x.entries, k, func(e lineEntry, k uint64) int {
		switch {
		case e.key < k:
			return -1
		case e.key > k:
			return 1
		}
		return 0
	})
	if !ok {
		return 0, false
	}
	return int(x.entries[i].line), true
}

// LineOf is LineOf in the tree the index was made of.
func (x *LineIndex) LineOf(path string) int {
	h, line := uint64(fnvOffset), x.root
	for _, part := range strings.Split(path, ".") {
		part, _, _ = strings.Cut(part, " (")
		name, rest, indexed := strings.Cut(part, "[")
		h = keyHash(h, name)
		l, ok := x.find(h)
		if !ok {
			return line
		}
		line = l
		for indexed {
			var idx string
			idx, rest, _ = strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			if err != nil || i < 0 {
				return line
			}
			h = indexHash(h, i)
			if l, ok = x.find(h); !ok {
				return line
			}
			line = l
			rest, indexed = strings.CutPrefix(rest, "[")
		}
	}
	return line
}

// KeyLine is the line of the key's value (a JSON key's).
func (x *LineIndex) KeyLine(path, key string) int {
	h, line := uint64(fnvOffset), x.root
	for _, part := range append(strings.Split(path, "."), key) {
		h = keyHash(h, part)
		l, ok := x.find(h)
		if !ok {
			return line
		}
		line = l
	}
	return line
}

// countEntries is how many entries IndexLines makes of n, or a few more
// (it leaves out repeated keys): counted first, to spare the copies of a
// growing list.
func countEntries(n *yaml.Node) int {
	c := 0
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			c += 1 + countEntries(n.Content[i])
		}
	case yaml.SequenceNode:
		for _, k := range n.Content {
			c += 1 + countEntries(k)
		}
	}
	return c
}
