package deviceselector

import (
	"math"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"

	"github.com/gangsim/gangsim/cluster"
)

// The cost of a selector, as the API server estimates it before it
// admits an object, and as the scheduler charges it while evaluating.
//
// cel-go prices most calls at 1 whatever their arguments; the string
// functions of the strings extension then let a short expression build a
// string of gigabytes (eight nested replace calls) for almost nothing.
// Kubernetes' CEL library prices those calls by the sizes of the strings
// they read and build, and bounds the sizes of what a device holds by the
// API's limits; an expression whose worst case is over CostLimit is
// refused ("too complex, exceeds cost limit"). This file does the same:
// sizeEstimator gives the worst-case sizes of device.driver, attribute
// values and names, and the maps of a device; estimateCall prices the
// string functions by size and says how big their results can be; and
// runtimeCoster charges the same calls by the sizes they really meet, so
// the CostLimit of an evaluation counts their work too.

// stringTraversalCost is what reading one character costs (cel-go's and
// Kubernetes' common factor).
const stringTraversalCost = 0.1

// The largest sizes of what a device holds, from resource.k8s.io's limits.
const (
	maxDriverLength     = 63                              // a driver's name
	maxDomainLength     = 63                              // the domain of a qualified name
	maxIDLength         = 32                              // the id of a qualified name
	maxNamesPerDevice   = cluster.MaxDeviceNameParts      // attributes and capacities
	maxAttributeLength  = cluster.MaxAttributeValueLength // a string or version value
	maxQualifiedNameLen = maxDomainLength + 1 + maxIDLength
)

// sizeEstimator gives the worst-case sizes of the parts of the device
// variable, by their path (device, then field names, @keys, @values).
type sizeEstimator struct{}

func (sizeEstimator) EstimateSize(node cost.AstNode) *cost.SizeEstimate {
	if t := node.Type(); t != nil && (t.IsExactType(quantityType) || t.IsExactType(semverType)) {
		one := cost.FixedSizeEstimate(1) // a value, compared in one step
		return &one
	}
	path := node.Path()
	if len(path) < 2 || path[0] != deviceVar {
		return nil
	}
	fixed := func(n uint64) *cost.SizeEstimate { e := cost.RangedSizeEstimate(0, n); return &e }
	switch path[1] {
	case driverField:
		if len(path) == 2 {
			return fixed(maxDriverLength)
		}
	case attributesVar, capacityVar:
		switch rest := path[2:]; {
		case len(rest) == 0:
			return fixed(maxNamesPerDevice) // domains
		case len(rest) == 1 && rest[0] == "@keys":
			return fixed(maxDomainLength)
		case len(rest) == 1:
			return fixed(maxNamesPerDevice) // one domain's map
		case len(rest) == 2 && rest[1] == "@keys":
			return fixed(maxQualifiedNameLen)
		case len(rest) == 2:
			if path[1] == attributesVar {
				return fixed(maxAttributeLength) // a string or version value
			}
			return nil
		}
	}
	return nil
}

func (sizeEstimator) EstimateCallCost(function, overloadID string, target *cost.AstNode, args []cost.AstNode) *cost.CallEstimate {
	return estimateCall(function, overloadID, target, args)
}

// size is the size estimate of a node: computed from the expression, or
// from the device's limits, or unknown (0 to the most a uint64 holds).
func size(n cost.AstNode) cost.SizeEstimate {
	if s := n.ComputedSize(); s != nil {
		return *s
	}
	if s := (sizeEstimator{}).EstimateSize(n); s != nil {
		return *s
	}
	return cost.UnknownSizeEstimate()
}

// estimateCall prices the calls whose work grows with their arguments'
// sizes, or nil to leave a call to cel-go's estimate.
func estimateCall(function, overloadID string, target *cost.AstNode, args []cost.AstNode) *cost.CallEstimate {
	if target == nil {
		switch function {
		case "quantity", "isQuantity", "semver", "isSemver":
			if len(args) >= 1 {
				return &cost.CallEstimate{CostEstimate: size(args[0]).MultiplyByCostFactor(stringTraversalCost)}
			}
		}
		return nil
	}
	if !strings.HasPrefix(overloadID, "string_") {
		return nil // join's result is of unknown size: its uses are priced as unbounded
	}
	t := size(*target)
	switch function {
	case "lowerAscii", "upperAscii", "trim", "reverse", "substring":
		return &cost.CallEstimate{CostEstimate: t.MultiplyByCostFactor(stringTraversalCost), ResultSize: &t}
	case "charAt":
		one := cost.RangedSizeEstimate(0, 1)
		return &cost.CallEstimate{CostEstimate: t.MultiplyByCostFactor(stringTraversalCost), ResultSize: &one}
	case "indexOf", "lastIndexOf":
		if len(args) >= 1 {
			return &cost.CallEstimate{CostEstimate: t.MultiplyByCostFactor(stringTraversalCost).Multiply(size(args[0]).MultiplyByCostFactor(stringTraversalCost))}
		}
	case "split":
		most := t.Max
		if len(args) >= 2 {
			if n, ok := intLiteral(args[1].Expr()); ok && n >= 0 && uint64(n) < most {
				most = uint64(n)
			}
		}
		parts := cost.RangedSizeEstimate(0, most)
		return &cost.CallEstimate{CostEstimate: t.MultiplyByCostFactor(2 * stringTraversalCost), ResultSize: &parts}
	case "replace":
		if len(args) >= 2 {
			out := replacedSize(t, size(args[0]), size(args[1]))
			// reading the string, and writing the result
			return &cost.CallEstimate{CostEstimate: t.MultiplyByCostFactor(2 * stringTraversalCost).Add(out.MultiplyByCostFactor(stringTraversalCost)), ResultSize: &out}
		}
	}
	return nil
}

// replacedSize bounds the size of s.replace(old, new): each character of s
// (or the place before each, for an empty old) may be replaced by new.
func replacedSize(s, old, repl cost.SizeEstimate) cost.SizeEstimate {
	var most uint64
	switch {
	case old.Min == 0:
		most = cost.SafeAdd(cost.SafeMultiply(cost.SafeAdd(s.Max, 1), repl.Max), s.Max)
	case repl.Max <= old.Min:
		most = s.Max
	default:
		times := uint64(math.Ceil(float64(s.Max) / float64(old.Min)))
		most = cost.SafeMultiply(times, repl.Max)
	}
	return cost.RangedSizeEstimate(0, most)
}

func intLiteral(e ast.Expr) (int64, bool) {
	if e.Kind() != ast.LiteralKind {
		return 0, false
	}
	i, ok := e.AsLiteral().(types.Int)
	return int64(i), ok
}

// runtimeCoster charges, while evaluating, the string calls the estimate
// prices by size, by the sizes they meet: an evaluation that reads and
// builds big strings reaches CostLimit.
type runtimeCoster struct{}

func (runtimeCoster) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	switch function {
	case "lowerAscii", "upperAscii", "trim", "reverse", "substring", "charAt", "indexOf", "lastIndexOf",
		"split", "replace", "join", "quantity", "isQuantity", "semver", "isSemver":
	default:
		return nil
	}
	n := uint64(0)
	if len(args) > 0 {
		n = actualSize(args[0])
	}
	c := float64(n) * stringTraversalCost
	switch function {
	case "split":
		c *= 2
	case "replace":
		c = c*2 + float64(actualSize(result))*stringTraversalCost
	case "join":
		c = float64(actualSize(result)) * stringTraversalCost
	}
	v := uint64(math.Ceil(c))
	if v == 0 {
		v = 1
	}
	return &v
}

// actualSize is the length of a string, or the size of a list or map.
func actualSize(v ref.Val) uint64 {
	switch x := v.(type) {
	case types.String:
		return uint64(len(x))
	case traits.Sizer:
		if n, ok := x.Size().(types.Int); ok && n > 0 {
			return uint64(n)
		}
	}
	return 1
}

// tooCostly is the API server's message for a selector over the limit.
const tooCostly = "too complex, exceeds cost limit"
