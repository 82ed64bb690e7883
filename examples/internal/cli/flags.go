package cli

import (
	"flag"
	"strconv"

	"github.com/gangsim/gangsim/scenario"
)

// tolerationFlag is -extended-resource-toleration: unset (the inputs
// decide), true or false.
type tolerationFlag struct{ on *bool }

func (f *tolerationFlag) String() string {
	if f.on == nil {
		return ""
	}
	return strconv.FormatBool(*f.on)
}

func (f *tolerationFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	f.on = &v
	return nil
}

func (f *tolerationFlag) IsBoolFlag() bool { return true }

// ExtendedResourceToleration adds the flag -extended-resource-toleration
// to fs, which turns the API server's ExtendedResourceToleration
// admission on (or off with =false) whatever the inputs say
// (scenario.WithExtendedResourceToleration); the function it returns
// gives the load's options once the flags are parsed (none when the flag
// was not given: GKE's nodes turn it on).
func ExtendedResourceToleration(fs *flag.FlagSet) func() []scenario.Option {
	f := &tolerationFlag{}
	fs.Var(f, "extended-resource-toleration", "pods requesting an extended resource (nvidia.com/gpu) tolerate the taint of that name, "+
		"as GKE's API server makes them (default: on when a node has GKE's label cloud.google.com/gke-nodepool; =false: off)")
	return func() []scenario.Option {
		if f.on == nil {
			return nil
		}
		return []scenario.Option{scenario.WithExtendedResourceToleration(*f.on)}
	}
}
