package controllers_test

import (
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// The pod hook sees each pod the Manager makes before it is added: here
// it gates web-1 and labels both; its error fails the making of the pod,
// naming it.
func TestManagerPodHook(t *testing.T) {
	tmpl := gt.MakePod("").CPU("1").Obj()
	tmpl.Labels = map[string]string{"app": "web"}
	w := controllers.Workload{Kind: controllers.KindStatefulSet, Namespace: "default", Name: "web", Replicas: 2, Template: tmpl}
	var seen []string
	hook := func(p *cluster.Pod) error {
		seen = append(seen, p.Name)
		p.Labels = maps.Clone(p.Labels)
		p.Labels["hooked"] = "yes"
		if p.Name == "web-1" {
			p.SchedulingGates = append(p.SchedulingGates, "example.com/hold")
		}
		return nil
	}
	m := controllers.NewManager([]controllers.Workload{w}, controllers.WithPodHook(hook))
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, m.Attach())
	require.NoError(t, err)
	require.NoError(t, s.AddNode(gt.MakeNode("n1").CPU("8").Memory("32Gi").Obj()))
	m.Start(s)
	runManager(t, s, m, time.Second)
	require.Equal(t, []string{"web-0", "web-1"}, seen)
	web0, _ := s.Pod("default/web-0")
	web1, _ := s.Pod("default/web-1")
	require.Equal(t, gangsim.PhaseBound, web0.Phase)
	require.NotEqual(t, gangsim.PhaseBound, web1.Phase, "gated by the hook")
	require.Equal(t, "web", tmpl.Labels["app"])
	require.Empty(t, tmpl.Labels["hooked"], "the template's map is not changed")

	refuse := errors.New("refused by the hook")
	m = controllers.NewManager([]controllers.Workload{w}, controllers.WithPodHook(func(*cluster.Pod) error { return refuse }))
	s, err = gangsim.New(gangsim.Config{CheckInvariants: true}, m.Attach())
	require.NoError(t, err)
	m.Start(s)
	w0, woken := m.NextWakeup()
	require.True(t, woken)
	require.NoError(t, s.RunUntil(w0))
	m.Wake(w0)
	err = m.React()
	require.ErrorIs(t, err, refuse)
	require.ErrorContains(t, err, "web-0")
}

// runManager runs s and the Manager's reactions until end.
func runManager(t *testing.T, s *gangsim.Scheduler, m *controllers.Manager, end time.Duration) {
	t.Helper()
	for s.Now() < end {
		if m.Busy() {
			require.NoError(t, m.React())
			continue
		}
		m.Resume()
		if w, woken := m.NextWakeup(); woken {
			require.NoError(t, s.RunUntil(w))
			if !m.Paused() {
				m.Wake(w)
			}
			continue
		}
		require.NoError(t, s.RunUntil(end))
	}
}
