package framework

import (
	"slices"
	"strings"
)

// Code is the outcome of a cycle or a plugin, as kube-scheduler's
// framework codes it.
type Code int

// The codes. A nil *Status means Success.
const (
	Success Code = iota
	Error
	Unschedulable
	UnschedulableAndUnresolvable
	Wait
	Skip
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip"}

// String returns the code's name.
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Code(?)"
}

// Status is the result of a cycle or plugin: a code and the reasons. The
// nil *Status is Success, so `if st != nil` reads "something went wrong".
type Status struct {
	code    Code
	reasons []string
	plugin  string
}

// NewStatus returns a status with the given code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// Equal reports whether s and o say the same: code, reasons and plugin.
func (s *Status) Equal(o *Status) bool {
	if s == o {
		return true
	}
	if s == nil || o == nil {
		return s.Code() == o.Code() && len(s.Reasons()) == 0 && len(o.Reasons()) == 0 && s.Plugin() == o.Plugin()
	}
	return s.code == o.code && s.plugin == o.plugin && slices.Equal(s.reasons, o.reasons)
}

// WithPlugin returns a copy of s that names the plugin it came from (nil
// stays nil). Statuses are shared values: never modify one in place.
func (s *Status) WithPlugin(name string) *Status {
	if s == nil {
		return nil
	}
	cp := *s
	cp.plugin = name
	return &cp
}

// AsError returns an error carrying s, for callers that speak errors (nil
// for Success).
func (s *Status) AsError() error {
	if s.IsSuccess() {
		return nil
	}
	return &StatusError{Status: s}
}

// StatusError is a non-success Status as an error.
type StatusError struct{ Status *Status }

// Error returns the status's message (its code when it has no reasons).
func (e *StatusError) Error() string {
	if msg := e.Status.Message(); msg != "" {
		return msg
	}
	return e.Status.Code().String()
}

// IsSkip reports whether the code is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsWait reports whether the code is Wait.
func (s *Status) IsWait() bool { return s.Code() == Wait }

// Code returns the status code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether s is nil or has code Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsRejected reports whether the code is Unschedulable or
// UnschedulableAndUnresolvable.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// Reasons returns the reasons, read-only: a status may be shared (the
// cycles of pods that fail alike share one).
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// Plugin names the plugin that produced the status, if one did.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// String renders "Code: message".
func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	if len(s.reasons) == 0 {
		return s.code.String()
	}
	return s.code.String() + ": " + s.Message()
}
