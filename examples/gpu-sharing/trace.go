package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario"
)

// The trace is read here rather than through package trace: that reader
// turns a pod's GPUs into one scalar of milli-GPUs and a node's into a
// resource total, while this example needs the device shape (how many
// GPUs, what share of each) and the file's own pod order.

// Node is a row of an openb node file.
type Node struct {
	Name      string
	MilliCPU  int64
	MemoryMiB int64
	GPUs      int    // 0..MaxGPUs
	Model     string // "" for a node without GPUs
}

// Pod is a row of an openb pod file, or a clone of one made by Sample.
type Pod struct {
	Name      string
	MilliCPU  int64
	MemoryMiB int64
	// NumGPU is the number of GPUs; GPUMilli the thousandths of each one
	// it takes (1000 for whole GPUs, below 1000 for a share of one GPU).
	// A pod without GPUs has both 0.
	NumGPU   int
	GPUMilli int64
	// Models are the GPU models the pod accepts (none: any).
	Models []string
}

// TotalGPUMilli is the pod's GPU request in thousandths: NumGPU*GPUMilli.
func (p *Pod) TotalGPUMilli() int64 { return int64(p.NumGPU) * p.GPUMilli }

// Sharing reports whether the pod takes a share of one GPU.
func (p *Pod) Sharing() bool { return p.NumGPU == 1 && p.GPUMilli < milli }

// milli is one whole GPU in thousandths.
const milli = 1000

// MaxGPUs bounds the GPUs of a node (the trace has 8 at most).
const MaxGPUs = 8

// TraceError is a problem with one value of a trace file. Line is 0 for
// the whole file and Column "" for a whole line.
type TraceError struct {
	File   string
	Line   int
	Column string
	Err    error
}

// Error renders "gpu-sharing: FILE: line N: column C: what is wrong".
func (e *TraceError) Error() string {
	msg := "gpu-sharing: " + cluster.PrintableLine(e.File)
	if e.Line > 0 {
		msg += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Column != "" {
		msg += ": column " + cluster.PrintableLine(e.Column)
	}
	return msg + ": " + cluster.Printable(e.Err.Error())
}

// Unwrap returns the cause.
func (e *TraceError) Unwrap() error { return e.Err }

// LoadNodes reads an openb node file (sn,cpu_milli,memory_mib,gpu,model).
func LoadNodes(path string) ([]Node, error) {
	t, err := loadTable(path, []string{"sn", "cpu_milli", "memory_mib", "gpu"})
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	out := make([]Node, 0, len(t.rows))
	for _, r := range t.rows {
		n := Node{Name: t.text(r, "sn"), Model: t.text(r, "model")}
		if first, dup := seen[n.Name]; dup {
			return nil, t.fail(r, "sn", fmt.Errorf("node %q is listed twice (first on line %d)", n.Name, first))
		}
		seen[n.Name] = r.line
		var gpus int64
		if err := t.counts(r, field{"cpu_milli", &n.MilliCPU}, field{"memory_mib", &n.MemoryMiB}, field{"gpu", &gpus}); err != nil {
			return nil, err
		}
		if gpus > MaxGPUs {
			return nil, t.fail(r, "gpu", fmt.Errorf("%d GPUs: at most %d are supported", gpus, MaxGPUs))
		}
		n.GPUs = int(gpus)
		if strings.EqualFold(n.Model, "nan") || n.GPUs == 0 {
			n.Model = ""
		}
		out = append(out, n)
	}
	return out, nil
}

// LoadPods reads an openb pod file (name,cpu_milli,memory_mib,num_gpu,
// gpu_milli[,gpu_spec,...]) in file order. As in the paper's artefact, a
// GPU pod's gpu_milli is clamped to 1..1000 per GPU; without the column
// every GPU is whole.
func LoadPods(path string) ([]Pod, error) {
	t, err := loadTable(path, []string{"name", "cpu_milli", "memory_mib", "num_gpu"})
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	out := make([]Pod, 0, len(t.rows))
	for _, r := range t.rows {
		p := Pod{Name: t.text(r, "name"), Models: alternatives(t.text(r, "gpu_spec"))}
		if first, dup := seen[p.Name]; dup {
			return nil, t.fail(r, "name", fmt.Errorf("pod %q is listed twice (first on line %d)", p.Name, first))
		}
		seen[p.Name] = r.line
		var num, share int64
		if err := t.counts(r, field{"cpu_milli", &p.MilliCPU}, field{"memory_mib", &p.MemoryMiB}, field{"num_gpu", &num}, field{"gpu_milli", &share}); err != nil {
			return nil, err
		}
		if num > MaxGPUs {
			return nil, t.fail(r, "num_gpu", fmt.Errorf("%d GPUs: at most %d are supported", num, MaxGPUs))
		}
		if num > 0 {
			p.NumGPU, p.GPUMilli = int(num), min(share, milli)
			if !t.has("gpu_milli") {
				p.GPUMilli = milli
			}
			if p.GPUMilli == 0 {
				return nil, t.fail(r, "gpu_milli", errors.New("a pod with GPUs must take more than 0 of each"))
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// table is a CSV file read by column name.
type table struct {
	file    string
	columns map[string]int
	rows    []row
}

type row struct {
	line   int
	fields []string
}

// loadTable reads a CSV file as scenario files are read: within their
// size limit, a device or a socket refused.
func loadTable(path string, required []string) (*table, error) {
	data, err := scenario.ReadFile(path)
	if fe, ok := errors.AsType[*scenario.FieldError](err); ok {
		err = fe.Err // the file is named below
	}
	if err != nil {
		return nil, &TraceError{File: path, Err: err}
	}
	return readTable(path, bytes.NewReader(data), required)
}

// readTable reads a CSV file with a header line and checks that the
// required columns are there.
func readTable(file string, r io.Reader, required []string) (*table, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &TraceError{File: file, Err: errors.New("empty: a header line is required")}
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	t := &table{file: file, columns: map[string]int{}}
	for i, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		if _, dup := t.columns[name]; dup {
			return nil, &TraceError{File: file, Line: 1, Column: name, Err: errors.New("given twice")}
		}
		t.columns[name] = i
	}
	for _, name := range required {
		if !t.has(name) {
			return nil, &TraceError{File: file, Line: 1, Column: name, Err: fmt.Errorf("required (the header is %s)", strings.Join(header, ","))}
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
		return &TraceError{File: file, Line: pe.Line, Err: pe.Err}
	}
	return &TraceError{File: file, Err: err}
}

func (t *table) has(column string) bool { _, ok := t.columns[column]; return ok }

// text is a row's value in a column, "" when the file has no such column.
func (t *table) text(r row, column string) string {
	i, ok := t.columns[column]
	if !ok {
		return ""
	}
	return strings.TrimSpace(r.fields[i])
}

// maxValue bounds every number, so that sums over a trace cannot overflow.
const maxValue = 1 << 32

// field is a column to read and where its value goes.
type field struct {
	column string
	into   *int64
}

// counts reads non-negative integers (empty is 0), in the order given, so
// that the first bad value of a line is the one reported.
func (t *table) counts(r row, fields ...field) error {
	for _, f := range fields {
		s := t.text(r, f.column)
		if s == "" {
			*f.into = 0
			continue
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > maxValue {
			return t.fail(r, f.column, fmt.Errorf("%q is not a whole number in 0..%d", s, int64(maxValue)))
		}
		*f.into = v
	}
	return nil
}

func (t *table) fail(r row, column string, err error) error {
	return &TraceError{File: t.file, Line: r.line, Column: column, Err: err}
}

// alternatives reads a "|"-separated list of models; "nan" or "" is none.
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
	return out
}
