package controllers_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
)

// A pod of the simulator fails only when it is deleted, evicted or loses
// its node. runFailing runs the controllers as Run does, and deletes the
// pods that fate says fail, that long after they are bound, as a user (or
// a node problem) would: the Job controller counts each as a failure.

// failAt is a pod to delete at a time: the n-th pod added under its name
// (a pod made again under the same name is another pod).
type failAt struct {
	at  time.Duration
	key cluster.PodKey
	n   int
}

// runFailing runs ws on nodes to the end, deleting each pod fate says
// fails (its key, the times it was bound under that name before) that
// long after it is bound. It returns the Manager, the events one a line
// ("time kind pod"), and the run's error.
func runFailing(t *testing.T, nodes []cluster.Node, ws []controllers.Workload, fate func(key cluster.PodKey, n int) (time.Duration, bool)) (*controllers.Manager, []string, error) {
	t.Helper()
	m := controllers.NewManager(ws)
	var events []string
	var due []failAt
	seen := map[cluster.PodKey]int{}  // times bound, by name
	added := map[cluster.PodKey]int{} // times added, by name
	held := false                     // a failure was scheduled during the last run: act on it before going on
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, m.Attach(),
		gangsim.WithObserver(func(e gangsim.Event) {
			events = append(events, e.At.String()+" "+e.Kind.String()+" "+e.PodKey().Display())
		}),
		gangsim.WithPause(func(e gangsim.Event) bool {
			if e.Kind == gangsim.EventPodArrived {
				added[e.PodKey()]++
			}
			if e.Kind != gangsim.EventPodBound {
				return false
			}
			key := e.PodKey()
			n := seen[key]
			seen[key]++
			if after, fails := fate(key, n); fails {
				due = append(due, failAt{e.At + after, key, added[key]})
				held = true
				return true
			}
			return false
		}))
	require.NoError(t, err)
	for _, n := range nodes {
		require.NoError(t, s.AddNode(n))
	}
	m.Start(s)
	paused := func() bool { return m.Paused() || held }
	for {
		if m.Busy() {
			if err := m.React(); err != nil {
				return m, events, err
			}
			continue
		}
		m.Resume()
		held = false
		slices.SortStableFunc(due, func(a, b failAt) int { return cmp.Compare(a.at, b.at) })
		w, woken := m.NextWakeup()
		switch {
		case len(due) > 0 && (!woken || due[0].at <= w):
			f := due[0]
			if err := s.RunUntil(f.at); err != nil {
				return m, events, err
			}
			if paused() {
				continue
			}
			due = due[1:]
			if st, ok := s.Pod(f.key); ok && added[f.key] == f.n && (st.Phase == gangsim.PhaseBound || st.Phase == gangsim.PhasePending) {
				if err := s.DeletePod(f.key); err != nil {
					return m, events, err
				}
			}
		case woken:
			if err := s.RunUntil(w); err != nil {
				return m, events, err
			}
			if !paused() {
				m.Wake(w)
			}
		case m.InProgress():
			if err := s.Run(); err != nil {
				return m, events, err
			}
			if !paused() {
				return m, events, nil
			}
		default:
			if err := s.Settle(); err != nil {
				return m, events, err
			}
			if !paused() && !m.InProgress() && !m.Busy() {
				return m, events, nil
			}
		}
	}
}
