package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResourceNames(t *testing.T) {
	for _, name := range []string{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu", "example.com/a_b.c"} {
		require.NoError(t, CheckResourceName(name, ResourcesOfContainer), name)
	}
	require.NoError(t, CheckResourceName("pods", ResourcesOfNode))
	for _, name := range []string{"memroy", "gpu", "pods", "CPU", "nvidia.com/", "Example.com/gpu", "a/b/c", "x.io/-bad"} {
		require.Error(t, CheckResourceName(name, ResourcesOfContainer), name)
	}
}
