package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// podNamesOf lists a scenario's pods as the result names them.
func podNamesOf(sc *Scenario) []string {
	var out []string
	for _, p := range sc.Pods {
		out = append(out, p.Pod.Key().Display())
	}
	return out
}

// Objects created with generateName are named the prefix and their index
// among the objects of their kind and prefix, in input order over every
// file of the load; an index whose name is taken by an explicit name (an
// object's or a scenario entry's, same kind and namespace) is skipped.
func TestGenerateNameAcrossFiles(t *testing.T) {
	pod := func(meta string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: " + meta + "\nspec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n"
	}
	a := File{Name: "a.yaml", Data: []byte(pod("{generateName: web-}") + "---\n" + pod("{generateName: web-}") + "---\n" +
		pod("{generateName: web-, namespace: ml}") + "---\n" + pod("{name: named, generateName: web-}"))}
	b := File{Name: "b.yaml", Data: []byte(pod("{name: web-1}") + "---\n" + pod("{generateName: web-}") + "---\n" +
		pod("{generateName: api-}") + "---\n" +
		"apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: pi-}\nspec: {template: {spec: {containers: [{name: c}]}}}\n")}
	c := File{Name: "c.yaml", Data: []byte("pods: [{name: web-3}]\nnodes: [{name: n, allocatable: {cpu: \"8\"}}]\n")}
	sc, err := ParseFiles([]File{a, b, c})
	require.NoError(t, err)
	require.Equal(t, []string{"web-0", "web-2", "ml/web-3", "named", "web-1", "web-4", "api-0", "pi-0-0", "web-3"}, podNamesOf(sc),
		"web-1 and web-3 are taken in the default namespace only; a namespace does not restart the count; a name wins over generateName")
	res, err := sc.Run()
	require.NoError(t, err)
	require.Equal(t, "web-0", res.Pods[0].Name)

	// the same files in another order name the objects in that order
	sc, err = ParseFiles([]File{b, a, c})
	require.NoError(t, err)
	require.Equal(t, []string{"web-1", "web-0", "api-0", "pi-0-0", "web-2", "web-4", "ml/web-5", "named", "web-3"}, podNamesOf(sc))
}

// The kinds besides pods are named alike, each kind counting on its own;
// a generated name is checked as any name is.
func TestGenerateNameKindsAndErrors(t *testing.T) {
	text := "apiVersion: v1\nkind: Namespace\nmetadata: {generateName: team-}\n---\n" +
		"apiVersion: v1\nkind: Node\nmetadata: {generateName: team-}\nstatus: {allocatable: {cpu: \"2\"}}\n---\n" +
		"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {generateName: team-}\nspec: {schedulingPolicy: {basic: {}}}\n"
	sc, err := Parse("k.yaml", []byte(text))
	require.NoError(t, err)
	require.Equal(t, "team-0", sc.Namespaces[0].Name)
	require.Equal(t, "team-0", sc.Nodes[0].Name)
	require.Equal(t, "team-0", sc.PodGroups[0].Name)

	long := strings.Repeat("a", 70)
	sc, err = Parse("k.yaml", []byte("apiVersion: v1\nkind: Namespace\nmetadata: {generateName: "+long+"}\n"))
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("a", 58)+"0", sc.Namespaces[0].Name, "cut to 58 characters, as the API server cuts it")

	tests := []struct{ name, text, want string }{
		{"capital", "apiVersion: v1\nkind: Pod\nmetadata: {generateName: Web-}\nspec: {containers: [{name: c}]}",
			`k.yaml: line 3: Pod default/(no name): metadata.generateName: "Web-" cannot begin a name: "Weba" is not a DNS subdomain`},
		{"neither", "apiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\nspec: {containers: [{name: c}]}",
			`Pod x/(no name): metadata.name: required`},
		{"namespace dot", "apiVersion: v1\nkind: Namespace\nmetadata: {generateName: a.b-}",
			`Namespace (no name): metadata.generateName: "a.b-" cannot begin a name: "a.ba" is not a DNS label`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("k.yaml", []byte(tt.text))
			require.ErrorContains(t, err, tt.want)
		})
	}
}
