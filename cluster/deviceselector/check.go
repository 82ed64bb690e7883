package deviceselector

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
)

// CheckClaimSpec compiles every CEL selector of a claim spec (a claim's,
// or a template's) as the API server does when the object is created:
// the first that does not compile is a *cluster.FieldError naming object
// and the field under at ("spec.devices" for a claim), with CEL's
// message.
func CheckClaimSpec(object, at string, spec *cluster.ResourceClaimSpec) error {
	for i := range spec.Requests {
		r := &spec.Requests[i]
		field := fmt.Sprintf("%s.requests[%d]", at, i)
		if r.Exactly != nil {
			if err := CheckSelectors(object, field+".exactly", r.Exactly.Selectors); err != nil {
				return err
			}
		}
		for j := range r.FirstAvailable {
			if err := CheckSelectors(object, fmt.Sprintf("%s.firstAvailable[%d]", field, j), r.FirstAvailable[j].Selectors); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckSelectors compiles a list of selectors (a class's, a request's)
// found at field of object.
func CheckSelectors(object, field string, sels []cluster.DeviceSelector) error {
	for i, sel := range sels {
		if _, err := Compile(sel.CEL); err != nil {
			return &cluster.FieldError{Sentinel: cluster.ErrInvalidDevices, Object: object,
				Field: fmt.Sprintf("%s.selectors[%d].cel.expression", field, i), Detail: err.Error()}
		}
	}
	return nil
}
