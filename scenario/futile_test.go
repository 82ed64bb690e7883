package scenario

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/scenario/synthetic"
	"github.com/stretchr/testify/require"
)

// The FutileRetries shortcut changes no result on the synthetic busy
// cluster (gangs in racks, blocks and anywhere, three priorities,
// budgets, failures and drains) at shares of never-ending services from a
// twentieth to a third, on several seeds and two sizes: the result's
// bytes are the same with it and without it.
func TestFutileRetriesKeepSyntheticResults(t *testing.T) {
	type mix struct {
		size     string
		seed     uint64
		services float64
	}
	mixes := []mix{{"small", 1, 0.05}, {"small", 2, 0.1}, {"small", 3, 0.2}, {"small", 4, 0.3}}
	switch {
	case raceOn:
		mixes = mixes[:1]
	case !testing.Short():
		mixes = append(mixes, mix{"small", 5, 0.15}, mix{"medium", 2, 0.1})
	}
	for _, m := range mixes {
		t.Run(fmt.Sprintf("%s/seed=%d/services=%v", m.size, m.seed, m.services), func(t *testing.T) {
			c, err := synthetic.Sized(m.size, m.seed)
			require.NoError(t, err)
			c.Services = m.services
			var file bytes.Buffer
			require.NoError(t, synthetic.Write(&file, c))
			run := func(opts ...gangsim.Option) []byte {
				sc, err := Parse("busy.json", file.Bytes())
				require.NoError(t, err)
				res, err := sc.Run(opts...)
				require.NoError(t, err)
				out, err := res.JSON()
				require.NoError(t, err)
				return out
			}
			with, without := run(), run(gangsim.WithoutShortcuts(gangsim.FutileRetries))
			require.True(t, bytes.Equal(with, without), "the results differ")
		})
	}
}
