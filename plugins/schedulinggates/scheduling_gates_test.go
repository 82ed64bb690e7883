package schedulinggates

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

func TestPreEnqueue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gates []string
		want  string // "" for success
	}{
		{"no gates", nil, ""},
		{"empty list", []string{}, ""},
		{"one gate", []string{"example.com/quota"}, "waiting for scheduling gates: [example.com/quota]"},
		{"gates in the pod's order", []string{"b", "a"}, "waiting for scheduling gates: [b a]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := cluster.NewPodInfo(cluster.Pod{Name: "p", Namespace: "default", SchedulingGates: tc.gates})
			st := SchedulingGates{}.PreEnqueue(pod)
			if tc.want == "" {
				require.Nil(t, st)
				return
			}
			require.Equal(t, fw.UnschedulableAndUnresolvable, st.Code())
			require.Equal(t, tc.want, st.Message())
			require.Equal(t, Name, st.Plugin())
		})
	}
}
