package cluster

import (
	"errors"
	"fmt"
)

// FieldError is a validation problem with one field of one object. It
// wraps the sentinel of its kind (ErrInvalidPod, ErrInvalidNode, ...), so
// errors.Is finds that, and it keeps the field and the detail apart, so a
// file loader can add the field to its own path and say the detail once
// instead of picking a message apart.
type FieldError struct {
	Sentinel error  // the kind of object: ErrInvalidPod, ErrInvalidNode, ...
	Object   string // the object, as "pod default/x" or "node n"; may be empty
	Field    string // the field path inside the object ("taints[0].effect"); may be empty
	Detail   string // what is wrong, without object or field
}

// Error renders "sentinel object: field: detail".
func (e *FieldError) Error() string {
	msg := e.Sentinel.Error()
	if e.Object != "" {
		msg += " " + PrintableLine(e.Object)
	}
	if e.Field != "" {
		msg += ": " + PrintableLine(e.Field)
	}
	return msg + ": " + Printable(e.Detail)
}

// Unwrap returns the sentinel.
func (e *FieldError) Unwrap() error { return e.Sentinel }

// fieldError returns a FieldError with a formatted detail.
func fieldError(sentinel error, object, field, format string, args ...any) *FieldError {
	return &FieldError{Sentinel: sentinel, Object: object, Field: field, Detail: fmt.Sprintf(format, args...)}
}

// Within returns err with prefix added in front of its field when it is a
// FieldError (a copy; the original is unchanged), and err unchanged
// otherwise. Validators of nested values use it to report the full path.
func Within(prefix string, err error) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return err
	}
	cp := *fe
	cp.Field = JoinField(prefix, cp.Field)
	return &cp
}

// JoinField joins two parts of a field path: "a" and "b" give "a.b", "a"
// and "[0].b" give "a[0].b", and an empty part is left out.
func JoinField(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	case field[0] == '[':
		return prefix + field
	}
	return prefix + "." + field
}
