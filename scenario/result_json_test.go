package scenario

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
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

// The pod writer must give the encoder's bytes for any strings: plain,
// with characters JSON or HTML escaping changes, control characters,
// multi-byte and invalid UTF-8, with and without a reason.
func TestPodJSONMatchesEncoder(t *testing.T) {
	alphabet := []string{"a", "Z", "0", "-", "/", " ", "\"", "\\", "<", ">", "&", "\n", "\t", "\x00", "\x7f", "é", "\u2028", "\xff", "\xc3"}
	r := rand.New(rand.NewPCG(3, 4))
	str := func() string {
		var sb strings.Builder
		for range r.IntN(6) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	for range 3000 {
		pod := PodResult{Name: str(), Node: str(), Phase: gangsim.Phase(str())}
		if r.IntN(2) == 0 {
			pod.Reason = str()
		}
		want, err := json.MarshalIndent(&pod, "    ", "  ")
		require.NoError(t, err)
		got, err := appendPodJSON(nil, &pod)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%q", pod)
	}
}
