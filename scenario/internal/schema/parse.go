package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

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
	p := &jsonParser{dec: json.NewDecoder(bytes.NewReader(data)), lines: newlineOffsets(data)}
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
	lines []int64 // offsets of the newlines
	depth int     // lists and objects open
}

// maxJSONDepth bounds nesting, as the YAML reader bounds it: the tree is
// built by recursion.
const maxJSONDepth = 10_000

// errTooDeep is the error for a document nested deeper than maxJSONDepth.
var errTooDeep = fmt.Errorf("lists and objects nested more than %d deep", maxJSONDepth)

func newlineOffsets(data []byte) []int64 {
	var out []int64
	for i, c := range data {
		if c == '\n' {
			out = append(out, int64(i))
		}
	}
	return out
}

// line is the line of the last byte read: the last token's, since a JSON
// token never spans lines.
func (p *jsonParser) line() int {
	off := p.dec.InputOffset() - 1
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] >= off }) + 1
}

func (p *jsonParser) syntax(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := se.Offset - 1
		line := sort.Search(len(p.lines), func(i int) bool { return p.lines[i] >= off }) + 1
		return &JSONSyntaxError{Line: line, Err: err}
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
		val, err := p.node(tok)
		if err != nil {
			return err
		}
		n.Content = append(n.Content, key, val)
	}
}

func (p *jsonParser) array(n *yaml.Node) error {
	for {
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
		n.Content = append(n.Content, item)
	}
}
