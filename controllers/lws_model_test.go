package controllers_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
)

// A LeaderWorkerSet's controller against a brute-force model on tiny sets:
// 1 to 3 groups of size 1 to 3, RecreateGroupOnPodRestart or None, the
// pods running until deleted, each deleted after a random time on its
// first two bindings under its name. The model: a pod deleted under
// RecreateGroupOnPodRestart, or a leader under None, deletes its group,
// which is made again at once, leader first; a worker deleted under None
// is made again alone. The pods deleted and made, in order, and the
// restarts must agree.
func TestLeaderWorkerSetAgainstModel(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 4949))
		n, size, recreate := 1+r.IntN(3), 1+r.IntN(3), r.IntN(2) == 0
		pFail := []float64{0.2, 0.5, 0.9}[r.IntN(3)]
		fate := func(key cluster.PodKey, k int) (time.Duration, bool) {
			h := fnv.New64a()
			_, _ = fmt.Fprintf(h, "%s/%d", key.Display(), k)
			rr := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
			d := time.Minute + time.Duration(rr.IntN(60*60*1000))*time.Millisecond
			return d, k < 2 && rr.Float64() < pFail
		}
		act := controllers.ActionRestartPod
		if recreate {
			act = controllers.ActionRestartGroup
		}
		w := leading(groups("lws", n, size, "0", 0, 0, act))

		// the model
		type member struct {
			name  string
			group int
			lead  bool
			binds int // times bound under its name
		}
		var members []*member
		for g := range n {
			members = append(members, &member{name: fmt.Sprintf("lws-%d", g), group: g, lead: true})
			for i := 1; i < size; i++ {
				members = append(members, &member{name: fmt.Sprintf("lws-%d-%d", g, i), group: g})
			}
		}
		type kill struct {
			at time.Duration
			m  *member
		}
		var due []kill
		var want []string
		restarts := 0
		makePod := func(m *member, now time.Duration) {
			want = append(want, now.String()+" PodArrived "+m.name)
			if d, fails := fate(cluster.MakePodKey("default", m.name), m.binds); fails {
				due = append(due, kill{now + d, m})
			}
			m.binds++
		}
		for _, m := range members {
			makePod(m, 0)
		}
		for len(due) > 0 {
			slices.SortStableFunc(due, func(a, b kill) int { return int(a.at - b.at) })
			k := due[0]
			due = due[1:]
			want = append(want, k.at.String()+" PodDeleted "+k.m.name)
			if !recreate && !k.m.lead {
				makePod(k.m, k.at)
				continue
			}
			restarts++
			due = slices.DeleteFunc(due, func(d kill) bool { return d.m.group == k.m.group })
			for _, m := range members {
				if m.group == k.m.group && m != k.m {
					want = append(want, k.at.String()+" PodDeleted "+m.name)
				}
			}
			for _, m := range members {
				if m.group == k.m.group {
					makePod(m, k.at)
				}
			}
		}

		name := fmt.Sprintf("seed %d: %d groups of %d, recreate %v, failure chance %v", seed, n, size, recreate, pFail)
		m, events, err := runFailing(t, node8, []controllers.Workload{w}, fate)
		require.NoError(t, err, name)
		var got []string
		for _, e := range events {
			if f := strings.Fields(e); f[1] == "PodArrived" || f[1] == "PodDeleted" {
				got = append(got, e)
			}
		}
		require.Equal(t, want, got, name)
		require.Equal(t, []string{fmt.Sprintf("lws Running %d %d", restarts, n*size)}, run{m: m}.sets(), name)
	}
}
