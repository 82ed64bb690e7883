package deviceselector

import (
	"fmt"
	"reflect"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"

	"github.com/gangsim/gangsim/cluster"
)

// Selector is a compiled device selector. It is immutable and safe for
// concurrent use.
type Selector struct {
	expr string
	prog cel.Program
}

// CompileError is why an expression does not compile. Its Error is the
// body of the field error the API server reports for the expression
// (spec.selectors[i].cel.expression: <Error()>).
type CompileError struct {
	// Expression is the expression as given.
	Expression string
	// TooLong reports an expression over MaxExpressionLength bytes.
	TooLong bool
	// TooCostly reports an expression whose estimated worst-case cost
	// is over CostLimit (Detail is then "too complex, exceeds cost
	// limit", the API server's words).
	TooCostly bool
	// Detail is CEL's message, as the scheduler wraps it ("class %s:
	// selector #%d: CEL compile error: <Detail>"): "compilation failed:
	// ERROR: <input>:1:5: ..." with cel-go's position and source excerpt,
	// or "must evaluate to bool or the unknown type, not int".
	Detail string
}

// Error renders the field error's body: `Invalid value: "<expression>":
// <Detail>`, or "Too long: may not be more than 10240 bytes".
func (e *CompileError) Error() string {
	if e.TooLong {
		return "Too long: " + e.Detail
	}
	if e.TooCostly {
		return "Forbidden: " + e.Detail
	}
	return fmt.Sprintf("Invalid value: %q: %s", e.Expression, e.Detail)
}

// RuntimeError is why an evaluation failed. The scheduler reports it as
// "class %s: selector #%d: CEL runtime error: <Error()>" (or "claim %s:
// ..."), and gives up on the claim.
type RuntimeError struct {
	// Expression is the selector's expression.
	Expression string
	// Err is the error as CEL (or the device's conversion) gave it.
	Err error
}

// missingKeyHint is what Kubernetes adds to a "no such key" error.
const missingKeyHint = ". Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields"

// Error renders Err, with Kubernetes' hint after a missing key: "no such
// key: model. Consider using CEL optional chaining (?), has() macro, or
// orValue() for optional fields".
func (e *RuntimeError) Error() string {
	msg := e.Err.Error()
	if strings.HasPrefix(msg, "no such key:") {
		return msg + missingKeyHint
	}
	return msg
}

// Unwrap returns Err.
func (e *RuntimeError) Unwrap() error { return e.Err }

// Compile compiles a device selector expression. The error, if any, is a
// *CompileError.
func Compile(expr string) (*Selector, error) {
	fail := func(detail string) (*Selector, error) {
		return nil, &CompileError{Expression: expr, Detail: detail}
	}
	if len(expr) > MaxExpressionLength {
		return nil, &CompileError{Expression: expr, TooLong: true,
			Detail: fmt.Sprintf("may not be more than %d bytes", MaxExpressionLength)}
	}
	env, err := environment()
	if err != nil {
		return fail("unexpected error loading CEL environment: " + err.Error())
	}
	ast, issues := env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return fail("compilation failed: " + issues.String())
	}
	out := ast.OutputType()
	if !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) && !out.IsExactType(cel.AnyType) {
		return fail(fmt.Sprintf("must evaluate to %v or the unknown type, not %v", cel.BoolType, out))
	}
	// The API server's estimate of the worst case, with the sizes of
	// what a device holds bounded by the API's limits (cost.go).
	est, err := env.EstimateCost(ast, sizeEstimator{})
	if err != nil {
		return fail("cost estimation failed: " + err.Error())
	}
	if est.Max > CostLimit {
		return nil, &CompileError{Expression: expr, TooCostly: true, Detail: tooCostly}
	}
	prog, err := env.Program(ast, programOptions...)
	if err != nil {
		return fail("program instantiation failed: " + err.Error())
	}
	return &Selector{expr: expr, prog: prog}, nil
}

// MustCompile is Compile for expressions known to be good; it panics on
// an error.
func MustCompile(expr string) *Selector {
	s, err := Compile(expr)
	if err != nil {
		panic(err)
	}
	return s
}

// Expression returns the selector's expression.
func (s *Selector) Expression() string { return s.expr }

var boolType = reflect.TypeOf(true)

// Matches evaluates the selector on a device of driver's: the device is
// given to CEL as it is, without copying its attributes and capacities
// into maps. The error, if any, is a *RuntimeError.
func (s *Selector) Matches(driver string, d *cluster.Device) (bool, error) {
	if err := checkAttributes(d); err != nil {
		return false, &RuntimeError{Expression: s.expr, Err: err}
	}
	out, _, err := s.prog.Eval(newDeviceVal(driver, d))
	if err != nil {
		return false, &RuntimeError{Expression: s.expr, Err: err}
	}
	if b, ok := out.(types.Bool); ok {
		return bool(b), nil
	}
	v, err := out.ConvertToNative(boolType)
	if err != nil {
		return false, &RuntimeError{Expression: s.expr,
			Err: fmt.Errorf("CEL result of type %s could not be converted to bool: %w", out.Type().TypeName(), err)}
	}
	b, ok := v.(bool)
	if !ok {
		return false, &RuntimeError{Expression: s.expr,
			Err: fmt.Errorf("CEL native result value should have been a bool, got instead: %T", v)}
	}
	return b, nil
}
