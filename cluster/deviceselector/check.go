package deviceselector

import (
	"fmt"

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
		if _, err := Compile(sel.CEL); err != nil {
			return i, err
		}
	}
	return 0, nil
}

func selectorError(object, field string, i int, err error) *cluster.FieldError {
	return &cluster.FieldError{Sentinel: cluster.ErrInvalidDevices, Object: object,
		Field: fmt.Sprintf("%s.selectors[%d].cel.expression", field, i), Detail: err.Error()}
}
