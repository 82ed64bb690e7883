package schema

import (
	"errors"
	"fmt"
	"strings"
)

// MaxErrors is how many errors a load reports at most; beyond it, a last
// line says how many more there were.
const MaxErrors = 20

// Errors collects the errors of a load, so that a folder's mistakes are
// reported at once rather than one per attempt: the first MaxErrors in
// the order found, and how many more. A LimitError stops the collection
// (whatever comes after it would go past the limit too).
type Errors struct {
	List    []error
	More    int
	Stopped bool // a LimitError was added: the load goes no further
}

// Add records err (nil is nothing) and reports whether the load may go on.
func (e *Errors) Add(err error) bool {
	if err == nil {
		return !e.Stopped
	}
	if len(e.List) < MaxErrors {
		e.List = append(e.List, err)
	} else {
		e.More++
	}
	var le *LimitError
	if errors.As(err, &le) {
		e.Stopped = true
	}
	return !e.Stopped
}

// Err is nil without errors, the one error, or e itself.
func (e *Errors) Err() error {
	switch {
	case len(e.List) == 0:
		return nil
	case len(e.List) == 1 && e.More == 0:
		return e.List[0]
	}
	return e
}

// Error renders every error on its own line, then "and N more errors".
func (e *Errors) Error() string {
	lines := make([]string, 0, len(e.List)+1)
	for _, err := range e.List {
		lines = append(lines, err.Error())
	}
	if e.More > 0 {
		lines = append(lines, fmt.Sprintf("and %d more %s", e.More, map[bool]string{true: "error", false: "errors"}[e.More == 1]))
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (e *Errors) Unwrap() []error { return e.List }
