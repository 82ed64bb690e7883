package schema

import (
	"math/rand/v2"
	"regexp"
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

// The hand-written name checks agree with the API server's patterns on
// random strings over the letters that matter.
func TestDNSNamesAgreeWithPatterns(t *testing.T) {
	label := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	subdomain := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	rng := rand.New(rand.NewPCG(3, 5))
	alphabet := "az09-.A_ "
	for range 100_000 {
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		require.Equal(t, label.MatchString(s), isDNSLabel(s), "%q", s)
		require.Equal(t, subdomain.MatchString(s), isDNSSubdomain(s), "%q", s)
	}
}
