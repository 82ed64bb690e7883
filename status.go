package gangsim

import fw "github.com/gangsim/gangsim/framework"

// Status is the outcome of a cycle or a plugin (framework.Status); nil
// means Success.
type Status = fw.Status

// Code is a Status's code (framework.Code).
type Code = fw.Code

// The codes, as in package framework.
const (
	Success                      = fw.Success
	Error                        = fw.Error
	Unschedulable                = fw.Unschedulable
	UnschedulableAndUnresolvable = fw.UnschedulableAndUnresolvable
	Wait                         = fw.Wait
	Skip                         = fw.Skip
)

// NewStatus returns a status with the given code and reasons.
func NewStatus(code Code, reasons ...string) *Status { return fw.NewStatus(code, reasons...) }
