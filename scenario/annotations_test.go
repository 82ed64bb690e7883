package scenario_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
)

// Annotations are checked as the API server checks them: keys are
// qualified names, and an object's keys and values hold at most 256 KiB
// together (a pod template's too). Aliases and merge keys count as what
// they stand for.
func TestKubeAnnotationsCheckedAsTheAPIServerDoes(t *testing.T) {
	node := func(annotations string) string {
		return "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  annotations:\n" + annotations + "status:\n  allocatable: {cpu: \"1\", pods: \"10\"}\n"
	}
	big := strings.Repeat("x", 200<<10)
	ok := []string{
		"    example.com/note: hello\n    Kubectl.Kubernetes.io/x: y\n",
		"    a: " + big + "\n",
		"    base: &v hello\n    other: *v\n",
		"    <<: {example.com/a: b}\n    c: d\n",
	}
	for _, a := range ok {
		_, err := scenario.ParseFiles([]scenario.File{{Name: "n.yaml", Data: []byte(node(a))}})
		require.NoError(t, err, a[:min(len(a), 60)])
	}
	bad := map[string]string{
		"    bad key: v\n":                         `n.yaml: line 6: Node n: metadata.annotations: "bad key" is not an annotation key`,
		"    a: " + big + "\n    b: " + big + "\n": `n.yaml: line 6: Node n: metadata.annotations: Too long: the keys and values hold 409602 bytes, more than the 262144`,
		"    a: &v " + big + "\n    b: *v\n":       "Too long: the keys and values hold 409602 bytes",
	}
	for a, want := range bad {
		_, err := scenario.ParseFiles([]scenario.File{{Name: "n.yaml", Data: []byte(node(a))}})
		require.Error(t, err, a[:min(len(a), 60)])
		require.Contains(t, err.Error(), want)
	}
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    metadata:\n      annotations:\n        \"-x\": v\n" +
		"    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: i}]\n"
	_, err := scenario.ParseFiles([]scenario.File{{Name: "j.yaml", Data: []byte(job)}})
	require.ErrorContains(t, err, `j.yaml: line 8: Job default/j: spec.template.metadata.annotations: "-x" is not an annotation key`)
}
