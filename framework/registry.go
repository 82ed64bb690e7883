package framework

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// PluginFactory builds a plugin. A profile instantiates each plugin it
// enables once and uses that instance at every extension point.
type PluginFactory struct {
	// New builds the plugin from its arguments (nil: the plugin's
	// defaults; otherwise a value as Args returns, or the same type as a
	// value) and the scheduler's handle (nil while a configuration is only
	// checked: the plugin must not use it then).
	New func(args any, h Handle) (Plugin, error)
	// Args returns a new arguments value holding the defaults, for
	// loaders to decode a file's arguments into; nil for a plugin without
	// arguments.
	Args func() any
}

// Registry maps plugin names to their factories.
type Registry map[string]PluginFactory

// Names returns the registered names in order.
func (r Registry) Names() []string { return slices.Sorted(maps.Keys(r)) }

// ErrArgs is wrapped by every invalid plugin argument.
var ErrArgs = errors.New("framework: invalid plugin arguments")

// ArgError is the error of an invalid plugin argument: field names it
// inside the plugin's arguments ("scoringStrategy.type").
func ArgError(field, format string, args ...any) error {
	return &cluster.FieldError{Sentinel: ErrArgs, Field: field, Detail: fmt.Sprintf(format, args...)}
}

// ArgsAs reads a plugin's arguments as a factory receives them: nil, a *T
// or a T.
func ArgsAs[T any](args any) (*T, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case *T:
		return a, nil
	case T:
		return &a, nil
	}
	var want *T
	return nil, fmt.Errorf("arguments of type %T, want %T", args, want)
}
