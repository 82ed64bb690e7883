package whatif

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/scenario"
)

// A sweep of many variants can run beyond one machine as a Kubernetes
// Indexed Job: completion i runs variant i with the same program and
// prints one JSON line (a Line); Merge reads the lines back into a
// Comparison. Nothing here schedules anything: Kubernetes runs the
// completions, and the index reaches the program through the
// JOB_COMPLETION_INDEX environment variable, which is also how the sweep
// is run and tested locally.

// CompletionIndexEnv is the environment variable Kubernetes sets to a
// completion's index in an Indexed Job.
const CompletionIndexEnv = "JOB_COMPLETION_INDEX"

// ErrSweep is wrapped by every error about a sweep's index or lines.
var ErrSweep = errors.New("whatif: sweep")

// CompletionIndex reads the completion index from the environment
// (getenv is os.Getenv in a program) and checks it against the number of
// variants.
func CompletionIndex(getenv func(string) string, variants int) (int, error) {
	text := getenv(CompletionIndexEnv)
	if text == "" {
		return 0, fmt.Errorf("%w: %s is not set (Kubernetes sets it in an Indexed Job; set it to run one variant here)", ErrSweep, CompletionIndexEnv)
	}
	i, err := strconv.Atoi(text)
	if err != nil || i < 0 || i >= variants {
		return 0, fmt.Errorf("%w: %s=%q is not an index in 0..%d", ErrSweep, CompletionIndexEnv, text, variants-1)
	}
	return i, nil
}

// Line is what one completion prints: its index among Count variants,
// the scenario, the variant and its summary.
type Line struct {
	Index    int     `json:"index"`
	Count    int     `json:"count"`
	Scenario string  `json:"scenario"`
	Variant  string  `json:"variant"`
	Summary  Summary `json:"summary"`
}

// RunIndex runs variant index of base and returns its line.
func RunIndex(base *scenario.Scenario, variants []Variant, index int, domainKeys []string) (Line, error) {
	if index < 0 || index >= len(variants) {
		return Line{}, fmt.Errorf("%w: index %d is not in 0..%d", ErrSweep, index, len(variants)-1)
	}
	sc, err := variants[index].Apply(base)
	if err != nil {
		return Line{}, err
	}
	rep, err := Run(sc, domainKeys)
	if err != nil {
		return Line{}, err
	}
	return Line{Index: index, Count: len(variants), Scenario: base.Name, Variant: variants[index].Name, Summary: Summarize(rep)}, nil
}

// MarshalLine renders the line as one line of JSON with a final newline.
func (l Line) MarshalLine() ([]byte, error) {
	out, err := json.Marshal(l)
	return append(out, '\n'), err
}

// Merge reads the lines of a sweep's completions, in any order (blank
// lines are skipped), and returns the comparison in index order. Every
// index from 0 to count-1 must appear exactly once, and all lines must
// agree on the count and the scenario.
func Merge(r io.Reader) (*Comparison, error) {
	lines := map[int]Line{}
	var first *Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var l Line
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%w: line %d: not a sweep line: %v", ErrSweep, n, err)
		}
		if first == nil {
			first = &l
		}
		if err := checkLine(l, *first, lines, n); err != nil {
			return nil, err
		}
		lines[l.Index] = l
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if first == nil {
		return nil, fmt.Errorf("%w: no lines to merge", ErrSweep)
	}
	if n := first.Count - len(lines); n > 0 {
		return nil, fmt.Errorf("%w: %d of %d completions are missing: indices %s", ErrSweep, n, first.Count, missingIndices(lines, first.Count, n))
	}
	c := &Comparison{Scenario: first.Scenario}
	for _, i := range slices.Sorted(maps.Keys(lines)) {
		c.Variants = append(c.Variants, VariantResult{Variant: lines[i].Variant, Summary: lines[i].Summary})
	}
	return c, nil
}

func checkLine(l, first Line, seen map[int]Line, n int) error {
	switch {
	case l.Count < 1 || l.Index < 0 || l.Index >= l.Count:
		return fmt.Errorf("%w: line %d: index %d is not in 0..%d", ErrSweep, n, l.Index, l.Count-1)
	case l.Count != first.Count || l.Scenario != first.Scenario:
		return fmt.Errorf("%w: line %d: from another sweep (%q of %d variants, not %q of %d)", ErrSweep, n, l.Scenario, l.Count, first.Scenario, first.Count)
	}
	if _, dup := seen[l.Index]; dup {
		return fmt.Errorf("%w: line %d: index %d given twice", ErrSweep, n, l.Index)
	}
	return nil
}

// missingIndices lists the first of the n indices below count that lines
// lacks, ten at most: a line may claim a count of billions, and the walk
// stops once ten are found (lines holds fewer than ten above them).
func missingIndices(lines map[int]Line, count, n int) string {
	const shown = 10
	var out []string
	for i := 0; i < count && len(out) < shown; i++ {
		if _, ok := lines[i]; !ok {
			out = append(out, strconv.Itoa(i))
		}
	}
	if n > len(out) {
		out = append(out, fmt.Sprintf("and %d more", n-len(out)))
	}
	return strings.Join(out, ", ")
}
