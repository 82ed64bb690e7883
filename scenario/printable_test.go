package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
)

// An input's control characters never reach an error message raw, in a
// file name, an entry's name or a Kubernetes object's: a hostile file
// cannot drive the terminal that shows the error.
func TestErrorsEscapeControlCharacters(t *testing.T) {
	for name, data := range map[string]string{
		"scenario entry": "nodes:\n- name: \"n\\e[31m\"\n  allocatable: {cpu: 1}\n",
		"kube object":    "apiVersion: v1\nkind: Node\nmetadata:\n  name: \"n\\e]0;owned\\a\"\n",
		"bad value":      "nodes:\n- name: n\n  allocatable: {cpu: \"1\\e[2J\"}\n",
	} {
		_, err := scenario.ParseFiles([]scenario.File{{Name: "in\x1b[31m.yaml", Data: []byte(data)}})
		require.Error(t, err, name)
		require.NotContains(t, err.Error(), "\x1b", name)
		require.NotContains(t, err.Error(), "\x07", name)
		require.Contains(t, err.Error(), `in\x1b[31m.yaml`, name)
	}
}
