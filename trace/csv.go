package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// ErrTrace is wrapped by every error about a trace file.
var ErrTrace = errors.New("trace")

// Error is a problem with one value of a trace file: the file, the line
// (0 for the whole file), the column and the cause, which errors.Is and
// errors.As reach. It matches ErrTrace.
type Error struct {
	File   string
	Line   int
	Column string
	Err    error
}

// Error renders "trace: FILE: line N: column C: what is wrong".
func (e *Error) Error() string {
	msg := ErrTrace.Error() + ": " + cluster.PrintableLine(e.File)
	if e.Line > 0 {
		msg += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Column != "" {
		msg += ": column " + cluster.PrintableLine(e.Column)
	}
	return msg + ": " + cluster.Printable(e.Err.Error())
}

// Unwrap returns ErrTrace and the cause.
func (e *Error) Unwrap() []error { return []error{ErrTrace, e.Err} }

// table is a CSV file read by column name.
type table struct {
	file    string
	columns map[string]int
	rows    []row
}

// row is one record and its line.
type row struct {
	line   int
	fields []string
}

// readTable reads a CSV file with a header, checks that the required
// columns are there, and that every record has as many fields as the
// header.
func readTable(file string, r io.Reader, required []string) (*table, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &Error{File: file, Err: errors.New("empty: a header line is required")}
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	t := &table{file: file, columns: map[string]int{}}
	for i, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		if _, dup := t.columns[name]; dup {
			return nil, &Error{File: file, Line: 1, Column: name, Err: errors.New("given twice")}
		}
		t.columns[name] = i
	}
	for _, name := range required {
		if _, ok := t.columns[name]; !ok {
			return nil, &Error{File: file, Line: 1, Column: name, Err: fmt.Errorf("required (the header has %s)", strings.Join(header, ","))}
		}
	}
	for {
		fields, err := cr.Read()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		t.rows = append(t.rows, row{line: line, fields: fields})
	}
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Line, Err: pe.Err}
	}
	return &Error{File: file, Err: err}
}

// has reports whether the table has a column.
func (t *table) has(column string) bool {
	_, ok := t.columns[column]
	return ok
}

// text returns a row's value in a column ("" when the table has not the
// column).
func (t *table) text(r row, column string) string {
	i, ok := t.columns[column]
	if !ok {
		return ""
	}
	return strings.TrimSpace(r.fields[i])
}

// count reads a non-negative integer; an empty value is 0.
func (t *table) count(r row, column string) (int64, error) {
	s := t.text(r, column)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > maxValue {
		return 0, t.fail(r, column, fmt.Errorf("%q is not a whole number in 0..%d", s, int64(maxValue)))
	}
	return v, nil
}

// maxValue bounds every number of a trace, so that a unit conversion
// (MiB to bytes, GPUs to thousandths, seconds to nanoseconds) cannot
// overflow.
const maxValue = 1 << 32

func (t *table) fail(r row, column string, err error) error {
	return &Error{File: t.file, Line: r.line, Column: column, Err: err}
}

// alternatives reads a "|"-separated list ("V100M16|V100M32"); "nan" or
// empty means none. The result is sorted, without repeats.
func alternatives(s string) []string {
	if s == "" || strings.EqualFold(s, "nan") {
		return nil
	}
	var out []string
	for _, v := range strings.Split(s, "|") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
