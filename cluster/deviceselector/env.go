package deviceselector

import (
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
)

// The limits of resource.k8s.io/v1 on a selector.
const (
	// MaxExpressionLength is the longest expression accepted, in bytes
	// (CELSelectorExpressionMaxLength).
	MaxExpressionLength = 10 * 1024
	// CostLimit is both the most an expression's estimated worst-case
	// cost may be for it to compile, and the runtime cost an evaluation
	// may spend (CELSelectorExpressionMaxCost).
	CostLimit = 1_000_000
)

var (
	envOnce sync.Once
	envVal  *cel.Env
	envErr  error
)

// environment is the device selector environment, built once: cel.Env is
// safe for concurrent use.
func environment() (*cel.Env, error) {
	envOnce.Do(func() { envVal, envErr = newEnv() })
	return envVal, envErr
}

// newEnv builds the environment Kubernetes v1.37 compiles device selectors
// in: the base environment (k8s.io/apiserver/pkg/cel/environment) of its
// compatibility version, the `device` variable and cel.bind. See doc.go
// for what is and is not here.
func newEnv() (*cel.Env, error) {
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	return cel.NewEnv(
		cel.CustomTypeAdapter(reg),
		cel.CustomTypeProvider(provider{reg}),

		// Base environment, 1.0 on.
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CostEstimatorOptions(cost.PresenceTestHasCost(false)),
		// 1.28
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.Lib(quantityLibrary{}),
		// 1.29
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		// 1.32
		ext.TwoVarComprehensions(),
		// 1.33
		cel.Lib(semverLibrary{}),
		// 1.34
		ext.Lists(ext.ListsVersion(3)),

		// The device selector environment (k8s.io/dynamic-resource-allocation/cel).
		ext.Bindings(ext.BindingsVersion(0)),
		cel.Variable(deviceVar, deviceType),
		// includes: the scheduler's stored-expression environment has it
		// whatever the DRAListTypeAttributes gate says.
		cel.Function("includes", cel.MemberOverload("dra_includes_dyn_dyn",
			[]*cel.Type{cel.DynType, cel.DynType}, cel.BoolType, cel.BinaryBinding(includes))),
	)
}

// programOptions are the base environment's program options with DRA's
// cost limit.
var programOptions = []cel.ProgramOption{
	cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
	cel.CostTracking(runtimeCoster{}),
	cel.CostTrackerOptions(cost.TrackerPresenceTestHasCost(false)),
	cel.CostLimit(CostLimit),
	cel.CustomDecoratorV2(foldLiterals),
}

// literalOverloads are the parsing functions whose constant calls
// foldLiterals evaluates once, when the program is planned.
var literalOverloads = map[string]bool{
	"string_to_quantity":    true,
	"string_to_semver":      true,
	"string_bool_to_semver": true,
}

// foldLiterals replaces quantity("40Gi"), semver("1.2.3") and the like by
// their value, so that an evaluation does not parse them again (cel-go's
// OptOptimize does not fold them). A literal that does not parse is left
// as it is: it fails at run time, where Kubernetes reports it. The only
// other difference is cost: a folded call costs nothing where it cost 1.
func foldLiterals(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	call, ok := i.(interpreter.InterpretableCall)
	if !ok || !literalOverloads[call.OverloadID()] {
		return i, nil
	}
	for _, a := range call.Args() {
		if _, ok := a.(interpreter.InterpretableConst); !ok {
			return i, nil
		}
	}
	v := call.Eval(interpreter.EmptyActivation())
	if types.IsError(v) {
		return i, nil
	}
	return interpreter.NewConstValue(call.ID(), v), nil
}

// maxIncludes is how many list items includes looks at
// (ResourceSliceMaxAttributeValuesPerDevice).
const maxIncludes = 48

// includes is target.includes(arg): arg is in the target list, or equal
// to the target scalar.
func includes(target, arg ref.Val) ref.Val {
	if list, ok := target.(traits.Lister); ok {
		it := list.Iterator()
		for i := 0; it.HasNext() == types.True && i < maxIncludes; i++ {
			if it.Next().Equal(arg) == types.True {
				return types.True
			}
		}
		return types.False
	}
	return types.Bool(target.Equal(arg) == types.True)
}
