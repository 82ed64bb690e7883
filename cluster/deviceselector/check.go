package deviceselector

import (
	"fmt"
	"sync"

	"github.com/gangsim/gangsim/cluster"
)

// CheckClaimSpec compiles every CEL selector of a claim spec (a claim's,
// or a template's) as the API server does when the object is created:
// the first that does not compile is a *cluster.FieldError naming the
// field under at ("spec.devices" for a claim), with CEL's message; the
// caller sets its Object. A spec without a fault costs no field name.
func CheckClaimSpec(at string, spec *cluster.ResourceClaimSpec) *cluster.FieldError {
	for i := range spec.Requests {
		r := &spec.Requests[i]
		if r.Exactly != nil {
			if k, err := firstBad(r.Exactly.Selectors); err != nil {
				return selectorError("", fmt.Sprintf("%s.requests[%d].exactly", at, i), k, err)
			}
		}
		for j := range r.FirstAvailable {
			if k, err := firstBad(r.FirstAvailable[j].Selectors); err != nil {
				return selectorError("", fmt.Sprintf("%s.requests[%d].firstAvailable[%d]", at, i, j), k, err)
			}
		}
	}
	return nil
}

// CheckSelectors compiles a list of selectors (a class's, a request's)
// found at field of object.
func CheckSelectors(object, field string, sels []cluster.DeviceSelector) *cluster.FieldError {
	if k, err := firstBad(sels); err != nil {
		return selectorError(object, field, k, err)
	}
	return nil
}

// firstBad returns the index of the first selector that does not
// compile, and why.
func firstBad(sels []cluster.DeviceSelector) (int, error) {
	for i, sel := range sels {
		if err := check(sel.CEL); err != nil {
			return i, err
		}
	}
	return 0, nil
}

// checked remembers whether expressions compile: a workload makes a claim
// per pod from a few templates, and checking each claim compiled its
// selectors again (some 250 µs each, a tenth of a GPU-sharing sweep).
// Compilation is deterministic, so a verdict remembered is the verdict.
// Shared by every goroutine; at most maxChecked expressions are kept
// (past that, new ones are compiled every time).
var checked = struct {
	sync.Mutex
	errs map[string]error
}{errs: map[string]error{}}

const maxChecked = 4096

// check compiles expr, or says what compiling it said before.
func check(expr string) error {
	checked.Lock()
	err, ok := checked.errs[expr]
	checked.Unlock()
	if ok {
		return err
	}
	_, err = Compile(expr)
	checked.Lock()
	if len(checked.errs) < maxChecked {
		checked.errs[expr] = err
	}
	checked.Unlock()
	return err
}

func selectorError(object, field string, i int, err error) *cluster.FieldError {
	return &cluster.FieldError{Sentinel: cluster.ErrInvalidDevices, Object: object,
		Field: fmt.Sprintf("%s.selectors[%d].cel.expression", field, i), Detail: err.Error()}
}
