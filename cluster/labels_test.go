package cluster

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Labels, node selectors and taints are checked as the API server checks
// them; a bad key with control characters is not echoed in the field.
func TestLabelsAndTaintsValidated(t *testing.T) {
	node := func(labels map[string]string, taints ...Taint) Node {
		return Node{Name: "n", Labels: labels, Allocatable: NewResources(1000, 1<<30, 10), Taints: taints}
	}
	for _, tc := range []struct {
		name string
		node Node
		want string // "" for valid
	}{
		{"valid", node(map[string]string{"topology.kubernetes.io/zone": "z-1", "empty": ""}), ""},
		{"long value", node(map[string]string{"a": strings.Repeat("v", 10_000)}), `labels[a]: a label value of 10000 characters is longer than 63`},
		{"key with a space", node(map[string]string{"my key": "v"}), `labels[my key]: "my key" is not a label key`},
		{"empty key", node(map[string]string{"": "v"}), `labels[]: "" is not a label key`},
		{"value with a slash", node(map[string]string{"a": "x/y"}), `"x/y" is not a label value`},
		{"control characters", node(map[string]string{"a\x1b[31m": "v"}), `labels: "a\x1b[31m" is not a label key`},
		{"duplicate taint", node(nil, Taint{Key: "gpu", Effect: TaintNoSchedule}, Taint{Key: "gpu", Value: "x", Effect: TaintNoSchedule}),
			`taints[1]: taint gpu:NoSchedule is given twice (taints[0])`},
		{"same key, other effect", node(nil, Taint{Key: "gpu", Effect: TaintNoSchedule}, Taint{Key: "gpu", Effect: TaintNoExecute}), ""},
		{"bad taint key", node(nil, Taint{Key: "a b", Effect: TaintNoSchedule}), `taints[0].key: "a b" is not a label key`},
		{"bad taint value", node(nil, Taint{Key: "a", Value: "-x", Effect: TaintNoSchedule}), `taints[0].value: "-x" is not a label value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.node.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidNode)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "\x1b")
		})
	}
	p := Pod{Name: "p", NodeSelector: map[string]string{"bad key": "x"}}
	require.ErrorContains(t, p.Validate(), `nodeSelector[bad key]: "bad key" is not a label key`)
	p = Pod{Name: "p", Labels: map[string]string{"app": strings.Repeat("x", 64)}}
	require.ErrorContains(t, p.Validate(), `labels[app]: a label value of 64 characters`)
}
