package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// ParseDocuments parses a file's documents: JSON (one document; text
// after it is an error) or a YAML stream, leaving out empty documents.
// Text starting with "{" that is not JSON may still be YAML in flow
// style. A JSON error is a *JSONSyntaxError, which says the line.
func ParseDocuments(data []byte) (docs []*yaml.Node, isJSON bool, err error) {
	if LooksLikeJSON(data) {
		doc, err := ParseJSON(data)
		if err == nil {
			return []*yaml.Node{doc}, true, nil
		}
		var se *JSONSyntaxError
		if !errors.As(err, &se) {
			return nil, false, err
		}
		if !errors.Is(err, ErrTrailingData) {
			if docs, yerr := parseYAML(data); yerr == nil {
				return docs, false, nil
			}
		}
		return nil, false, se
	}
	docs, err = parseYAML(data)
	if err != nil {
		return nil, false, flowFault(data, err)
	}
	return docs, false, nil
}

// parseYAML parses a stream of YAML documents, leaving out empty ones:
// nothing, a comment, or null.
func parseYAML(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		doc := new(yaml.Node)
		err := dec.Decode(doc)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(doc.Content) > 0 && !isNull(doc.Content[0]) {
			if err := ExpandMerges(doc); err != nil {
				return nil, err
			}
			docs = append(docs, doc)
		}
	}
}

// EachYAMLDocument parses a stream of YAML documents one at a time,
// leaving out empty ones, and gives each to f as soon as it is parsed, so
// that a stream of a million small documents is never held as a million
// trees. f's error stops the reading; so does a document that does not
// parse (its error as ParseDocuments words it).
func EachYAMLDocument(data []byte, f func(*yaml.Node) error) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		doc := new(yaml.Node)
		err := dec.Decode(doc)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return flowFault(data, err)
		}
		if len(doc.Content) == 0 || isNull(doc.Content[0]) {
			continue
		}
		if err := ExpandMerges(doc); err != nil {
			return flowFault(data, err)
		}
		if err := f(doc); err != nil {
			return err
		}
	}
}

// isNull reports whether n is null: empty, ~ or null.
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// LooksLikeJSON reports whether data starts, after white space, with a
// JSON object or array.
func LooksLikeJSON(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// ErrTrailingData is the error for text after a complete JSON document,
// which the API server refuses too.
var ErrTrailingData = errors.New("trailing data after the JSON document")

// JSONSyntaxError is a JSON document that does not parse, at a line.
type JSONSyntaxError struct {
	Line int
	Err  error
}

// Error renders "line N: what is wrong".
func (e *JSONSyntaxError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *JSONSyntaxError) Unwrap() error { return e.Err }

// ParseJSON reads one JSON document into a YAML node tree, so that JSON
// and YAML share one strict decoder; every node carries its line. It is
// about ten times faster than the YAML parser on large kubectl dumps.
// Text after the document is an error.
func ParseJSON(data []byte) (*yaml.Node, error) {
	return parseJSON(data, nil)
}

// ErrItemRefused is what ParseJSONItems returns when its function refused
// an item.
var ErrItemRefused = errors.New("an item was refused")

// ParseJSONItems is ParseJSON for a kubectl List: the elements of the
// top-level object's "items" list are handed to each, in order, as they
// are read, and left out of the tree, so that a dump of a million objects
// is never one tree. each returns false to stop (ErrItemRefused).
func ParseJSONItems(data []byte, each func(i int, item *yaml.Node) bool) (*yaml.Node, error) {
	return parseJSON(data, each)
}

func parseJSON(data []byte, each func(int, *yaml.Node) bool) (*yaml.Node, error) {
	if json.Valid(data) {
		return parseValidJSON(data, each)
	}
	return parseJSONTokens(data, each)
}

// parseJSONTokens is parseJSON through encoding/json's tokens, which
// says what is wrong with a document that is not valid JSON, and where.
func parseJSONTokens(data []byte, each func(int, *yaml.Node) bool) (*yaml.Node, error) {
	p := &jsonParser{dec: json.NewDecoder(bytes.NewReader(data)), data: data, lineAt: 1, each: each}
	p.dec.UseNumber()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	root, err := p.node(tok)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, &JSONSyntaxError{Line: p.line(), Err: ErrTrailingData}
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}, nil
}

type jsonParser struct {
	dec   *json.Decoder
	data  []byte
	depth int // lists and objects open
	// offset and lineAt are the last offset whose line was asked and its
	// line: tokens come in order, so lines are counted once
	offset int64
	lineAt int
	// each, when set, takes the items of the top-level object's "items"
	each func(int, *yaml.Node) bool
}

// maxJSONDepth bounds nesting, as the YAML reader bounds it: the tree is
// built by recursion.
const maxJSONDepth = 10_000

// errTooDeep is the error for a document nested deeper than maxJSONDepth.
var errTooDeep = fmt.Errorf("lists and objects nested more than %d deep", maxJSONDepth)

// line is the line of the last byte read: the last token's, since a JSON
// token never spans lines.
func (p *jsonParser) line() int { return p.lineOf(p.dec.InputOffset() - 1) }

// lineOf is the line of the byte at off, counted on from the last one
// asked (from the start when off lies before it).
func (p *jsonParser) lineOf(off int64) int {
	off = max(0, min(off, int64(len(p.data))))
	if off < p.offset {
		p.offset, p.lineAt = 0, 1
	}
	p.lineAt += bytes.Count(p.data[p.offset:off], []byte{'\n'})
	p.offset = off
	return p.lineAt
}

func (p *jsonParser) syntax(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &JSONSyntaxError{Line: p.lineOf(se.Offset - 1), Err: err}
	}
	return &JSONSyntaxError{Line: p.line(), Err: err}
}

// node converts the value starting with tok.
func (p *jsonParser) node(tok json.Token) (*yaml.Node, error) {
	n := &yaml.Node{Line: p.line(), Column: 1}
	switch t := tok.(type) {
	case json.Delim:
		if p.depth++; p.depth > maxJSONDepth {
			return nil, &JSONSyntaxError{Line: p.line(), Err: errTooDeep}
		}
		defer func() { p.depth-- }()
		if t == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
			return n, p.object(n)
		}
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		return n, p.array(n)
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", t, yaml.DoubleQuotedStyle
	case json.Number:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!float", t.String()
		if _, err := t.Int64(); err == nil {
			n.Tag = "!!int"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(t)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}

func (p *jsonParser) object(n *yaml.Node) error {
	for {
		tok, err := p.dec.Token()
		if err != nil {
			return p.syntax(err)
		}
		if tok == json.Delim('}') {
			return nil
		}
		key, err := p.node(tok) // a string: the decoder checks
		if err != nil {
			return err
		}
		if tok, err = p.dec.Token(); err != nil {
			return p.syntax(err)
		}
		if p.each != nil && p.depth == 1 && key.Value == "items" && tok == json.Delim('[') {
			val := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: p.line(), Column: 1}
			p.depth++
			err := p.items()
			p.depth--
			if err != nil {
				return err
			}
			n.Content = append(n.Content, key, val)
			continue
		}
		val, err := p.node(tok)
		if err != nil {
			return err
		}
		n.Content = append(n.Content, key, val)
	}
}

func (p *jsonParser) array(n *yaml.Node) error {
	return p.elements(func(_ int, item *yaml.Node) error {
		n.Content = append(n.Content, item)
		return nil
	})
}

// items reads the top-level "items" list, handing each element to each.
func (p *jsonParser) items() error {
	return p.elements(func(i int, item *yaml.Node) error {
		if !p.each(i, item) {
			return ErrItemRefused
		}
		return nil
	})
}

// elements reads a list's elements up to its end, handing each to take.
func (p *jsonParser) elements(take func(i int, item *yaml.Node) error) error {
	for i := 0; ; i++ {
		tok, err := p.dec.Token()
		if err != nil {
			return p.syntax(err)
		}
		if tok == json.Delim(']') {
			return nil
		}
		item, err := p.node(tok)
		if err != nil {
			return err
		}
		if err := take(i, item); err != nil {
			return err
		}
	}
}
