package scenario

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gangsim/gangsim"
	"github.com/stretchr/testify/require"
)

// WriteJSON writes, a pod at a time, exactly what encoding/json writes for
// the whole result: no pods, one, several with characters JSON escapes.
func TestWriteJSONIsMarshalIndent(t *testing.T) {
	for _, r := range []*Result{
		{Pods: []PodResult{}, Evictions: []EvictionResult{}, PodGroups: []GroupResult{}},
		{Pods: []PodResult{{Name: "a", Node: "n", Phase: gangsim.PhaseBound}}, Evictions: []EvictionResult{}, PodGroups: []GroupResult{}, Warnings: []string{"w"}},
		{Pods: []PodResult{{Name: "a<b>&\"c\"", Phase: gangsim.PhasePending, Reason: "0/1 nodes are available: 1 Insufficient cpu."}, {Name: "é\u2028", Node: "n"}},
			Evictions: []EvictionResult{{Pod: "x", Node: "n", By: "y", ByKind: "Pod", At: "1s"}}, PodGroups: []GroupResult{{Name: "g", Conditions: []Condition{}}},
			Explanations: []ExplanationResult{{Pod: "a", Filtered: []FilteredResult{}, Nodes: []NodeScoreResult{}}}},
		{},
	} {
		want, err := json.MarshalIndent(r, "", "  ")
		require.NoError(t, err)
		var got bytes.Buffer
		require.NoError(t, r.WriteJSON(&got))
		require.Equal(t, string(append(want, '\n')), got.String())
	}
}
