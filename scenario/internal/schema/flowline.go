package schema

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// The YAML parser says where a flow collection ({...} or [...]) that it
// cannot finish began, one line early, rather than where it went wrong:
// a missing comma on line 40 of a mapping opened on line 12 reads "line
// 11". flowFault finds the faulty line itself: the first line after which
// the collection, closed there by the brackets still open, no longer
// parses.

// flowError matches the parser's message for a broken flow collection.
var flowError = regexp.MustCompile(`^yaml: line (\d+): (did not find expected ',' or '[}\]]')$`)

// maxFlowLines bounds the lines flowFault reads from the collection's
// first line: a broken collection is found in its first thousand lines,
// or the parser's message stands.
const maxFlowLines = 1000

// FlowError is a broken flow collection, at the line where it breaks.
type FlowError struct {
	Line, Start int // the faulty line, the collection's first line (1-based)
	Msg         string
}

func (e *FlowError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Detail()) }

// Detail is the message without the line.
func (e *FlowError) Detail() string {
	if e.Start == e.Line {
		return e.Msg
	}
	return fmt.Sprintf("%s (in the flow collection of line %d)", e.Msg, e.Start)
}

// flowFault returns err as a *FlowError at the faulty line when err is
// the parser's message for a broken flow collection and the line can be
// found, else err.
func flowFault(data []byte, err error) error {
	m := flowError.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	reported, _ := strconv.Atoi(m[1])
	lines := bytes.SplitAfter(data, []byte("\n"))
	// the parser's line is the collection's first line, 0-based; when
	// that is the file's first line, it gives the faulty line instead,
	// 0-based too: then the collection is read from the top
	for _, start := range []int{reported + 1, 1} {
		if line, ok := faultFrom(lines, start); ok {
			return &FlowError{Line: line, Start: start, Msg: m[2]}
		}
	}
	return err
}

// faultFrom reads lines from start (1-based) and returns the first line
// after which the text, its open brackets closed, does not parse.
func faultFrom(lines [][]byte, start int) (int, bool) {
	if start > len(lines) {
		return 0, false
	}
	indent := len(lines[start-1]) - len(bytes.TrimLeft(lines[start-1], " "))
	var fragment []byte
	for l := start; l <= len(lines) && l < start+maxFlowLines; l++ {
		line := lines[l-1]
		if len(line)-len(bytes.TrimLeft(line, " ")) >= indent {
			line = line[indent:]
		}
		fragment = append(fragment, line...)
		closed := append(bytes.Clone(fragment), closers(fragment)...)
		var n yaml.Node
		if yaml.Unmarshal(closed, &n) != nil {
			return l, true
		}
	}
	return 0, false
}

// closers returns the brackets that close the flow collections text
// leaves open, innermost first; quoted strings and comments are passed
// over.
func closers(text []byte) []byte {
	var open []byte
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{', '[':
			open = append(open, c)
		case '}', ']':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(text) && text[i] != '\''; i++ {
			}
		case '#':
			if i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n' {
				for i < len(text) && text[i] != '\n' {
					i++
				}
			}
		}
	}
	out := []byte{'\n'}
	for i := len(open) - 1; i >= 0; i-- {
		out = append(out, map[byte]byte{'{': '}', '[': ']'}[open[i]])
	}
	return out
}
