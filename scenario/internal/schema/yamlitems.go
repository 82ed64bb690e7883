package schema

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ErrNotKubectlYAML is what ParseYAMLItems returns for YAML it does not
// read item by item: anything but one document whose top-level "items"
// sequence is laid out in block style, each element starting with "- ",
// as kubectl -o yaml writes a List. The caller reads such a file whole.
var ErrNotKubectlYAML = errors.New("not a List laid out as kubectl writes one")

// maxListHead is how many lines a List may have before its items: kubectl
// writes one, apiVersion.
const maxListHead = 64

// ParseYAMLItems is ParseJSONItems for a List in YAML, as kubectl -o yaml
// writes it: each element of the top-level "items" sequence is cut out of
// the text, parsed on its own (lines and columns as in the file) and
// handed to each, in order; the document returned has an empty items
// sequence. So a dump of a million objects is never one tree.
//
// An element is read alone only when that reads it as the whole document
// would: one with an alias (its anchor may be elsewhere) or a merge key
// makes it ErrNotKubectlYAML, as do document markers, directives, tabs,
// text indented less than the elements, or more than maxListHead lines
// before them. A syntax error is returned
// as the YAML parser reports it; the caller reads the file whole then,
// to report it as it always does. each returns false to stop
// (ErrItemRefused).
func ParseYAMLItems(data []byte, each func(i int, item *yaml.Node) bool) (*yaml.Node, error) {
	all := data
	var rest []byte     // the document without its items
	var restLines []int // the file's line of each line of rest
	var item []byte     // the element being cut out, dedented
	open, itemLine, firstLine, index := false, 0, 0, 0
	indent := -1 // the column of the elements' "-"; -1 before the first
	inItems := false
	flush := func() error {
		if !open {
			return nil
		}
		n, err := parseItem(item, itemLine, indent+2)
		if err != nil {
			return err
		}
		item, open = item[:0], false
		if !each(index, n) {
			return ErrItemRefused
		}
		index++
		return nil
	}
	line := 0
	for len(data) > 0 {
		line++
		end := bytes.IndexByte(data, '\n') + 1
		if end == 0 {
			end = len(data)
		}
		text := data[:end]
		data = data[end:]
		body := bytes.TrimRight(text, "\r\n")
		if isMarker(body) ||
			bytes.IndexByte(body, '\t') >= 0 && bytes.IndexByte(bytes.TrimLeft(body, " "), '\t') == 0 {
			return nil, ErrNotKubectlYAML // a document marker, a directive, or a tab in the indentation
		}
		lead := len(body) - len(bytes.TrimLeft(body, " "))
		blank := lead == len(body) || body[lead] == '#'
		if inItems {
			switch {
			case indent < 0 && blank:
				rest = append(rest, text...) // a comment, for the parser to see what it holds
				restLines = append(restLines, line)
				continue
			case indent < 0 && bytes.HasPrefix(body[lead:], []byte("- ")):
				indent = lead
			}
			switch {
			case indent >= 0 && lead == indent && bytes.HasPrefix(body[lead:], []byte("- ")):
				if len(body) == lead+2 || body[lead+2] == ' ' {
					return nil, ErrNotKubectlYAML // the content not where kubectl puts it, two columns in
				}
				if err := flush(); err != nil {
					return nil, err
				}
				itemLine, open = line, true
				if firstLine == 0 {
					firstLine = line
				}
				if isMarker(text[indent+2:]) {
					return nil, ErrNotKubectlYAML
				}
				item = append(item, text[indent+2:]...)
				continue
			case lead >= indent+2 && open: // a block scalar's "#" too
				if isMarker(text[indent+2:]) {
					return nil, ErrNotKubectlYAML
				}
				item = append(item, text[indent+2:]...)
				continue
			case blank:
				if open { // kept, for the lines after it; a comment ends a plain scalar as it did
					item = append(append(item, body[lead:]...), '\n')
				}
				continue
			case lead > 0 || indent < 0:
				return nil, ErrNotKubectlYAML // indented less than the elements' content, or not a block sequence
			}
			if err := flush(); err != nil {
				return nil, err
			}
			inItems = false // a top-level key after the items
		}
		if lead == 0 && string(bytes.TrimRight(body, " ")) == "items:" {
			if index > 0 || indent >= 0 {
				return nil, ErrNotKubectlYAML // items twice
			}
			if !utf8.Valid(all) || otherBreaks(all) {
				// the parser refuses bad UTF-8 wherever it is (a comment
				// dropped here too); it breaks lines where this reading
				// would not. Checked here, once a List is likely: a file
				// that is none costs no pass over all of it.
				return nil, ErrNotKubectlYAML
			}
			inItems = true
			rest = append(rest, "items: []\n"...)
			restLines = append(restLines, line)
			continue
		}
		if indent < 0 && len(restLines) == maxListHead {
			return nil, ErrNotKubectlYAML // a long text before any items: no kubectl List
		}
		rest = append(rest, text...) // the file's last line may lack its newline: so does rest's
		restLines = append(restLines, line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if indent < 0 {
		return nil, ErrNotKubectlYAML // no items, or none read apart
	}
	docs, err := parseYAML(rest)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 || hasAliases(docs[0]) {
		return nil, ErrNotKubectlYAML
	}
	last := restLines[len(restLines)-1]
	walkNodes(docs[0], func(n *yaml.Node) {
		switch {
		case n.Line >= 1 && n.Line <= len(restLines):
			n.Line = restLines[n.Line-1]
		case n.Line > len(restLines): // the end of the text: an empty value's place
			n.Line = last + n.Line - len(restLines)
		}
	})
	if seq := MapValue(docs[0].Content[0], "items"); seq != nil {
		// where the block sequence is in the file, as a whole parse has it
		seq.Line, seq.Column, seq.Style = firstLine, indent+1, 0
	}
	return docs[0], nil
}

// isMarker reports whether a line, at the start of a document's line,
// would be a document marker or a directive.
func isMarker(line []byte) bool {
	return bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) || bytes.HasPrefix(line, []byte("%"))
}

// otherBreaks reports whether data breaks a line otherwise than with "\n"
// or "\r\n": a lone "\r", or NEL, LS or PS, which YAML counts as breaks.
func otherBreaks(data []byte) bool {
	for i := bytes.IndexByte(data, '\r'); i >= 0; i = bytes.IndexByte(data, '\r') {
		if i+1 == len(data) || data[i+1] != '\n' {
			return true
		}
		data = data[i+1:]
	}
	return bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029"))
}

// parseItem parses one element's text, cut out of the file at line first
// and column shift, and puts its nodes back where they are in the file.
func parseItem(text []byte, first, shift int) (*yaml.Node, error) {
	docs, err := parseYAML(text)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 || docs[0].Content[0].Kind != yaml.MappingNode || docs[0].Content[0].Style&yaml.FlowStyle != 0 || hasAliases(docs[0]) {
		// an object, as kubectl writes it, is a block mapping; anything
		// else cut out of its place may read otherwise (a block scalar's
		// indentation; text after a flow collection, which a document
		// may have and an item may not)
		return nil, ErrNotKubectlYAML
	}
	walkNodes(docs[0], func(n *yaml.Node) {
		n.Line += first - 1
		n.Column += shift
	})
	return docs[0].Content[0], nil
}

// hasAliases reports whether the tree under n has an alias or a merge key.
func hasAliases(n *yaml.Node) bool {
	found := false
	walkNodes(n, func(m *yaml.Node) {
		if m.Kind == yaml.AliasNode || m.Kind == yaml.ScalarNode && m.Tag == "!!merge" {
			found = true
		}
	})
	return found
}

// walkNodes calls visit on n and every node under it.
func walkNodes(n *yaml.Node, visit func(*yaml.Node)) {
	visit(n)
	for _, c := range n.Content {
		walkNodes(c, visit)
	}
}
