package scenario

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Volcano Job's spec.minAvailable is its PodGroup's minMember: a job of
// 3 pods with minAvailable 2 starts once 2 can run. Without it (or 0),
// the minimum is the sum of its tasks', here every pod.
func TestVolcanoJobMinAvailableIsTheGangMinimum(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want int32
	}{
		{"minAvailable: 2, ", 2},
		{"minAvailable: 0, ", 3},
		{"", 3},
	} {
		t.Run(fmt.Sprint(tc.want, tc.spec), func(t *testing.T) {
			doc := "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\n" +
				"spec: {" + tc.spec + "tasks: [{name: w, replicas: 3, template: {spec: {containers: [{name: c}]}}}]}\n"
			sc, err := Parse("f.yaml", []byte(doc))
			require.NoError(t, err)
			require.Len(t, sc.PodGroups, 1)
			require.Equal(t, "vj-0", sc.PodGroups[0].Name)
			require.Equal(t, tc.want, sc.PodGroups[0].MinCount)
		})
	}
}
