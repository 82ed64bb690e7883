package gangsimtest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// A scheduler is a Cluster.
var _ gangsimtest.Cluster = (*gangsim.Scheduler)(nil)

// recorder is a require.TestingT that keeps what a failing check says.
type recorder struct {
	failed bool
	msg    string
}

func (r *recorder) Errorf(format string, args ...any) { r.msg += fmt.Sprintf(format, args...) }
func (r *recorder) FailNow()                          { r.failed = true }

// newCluster runs, with a 10s grace period, a cluster of two 2-cpu nodes:
// "web" in namespace shop (priority 50) and "db" (0) fill a and b, and
// "big" fits nowhere; then "boss" preempts db, which is left terminating.
func newCluster(t *testing.T) *gangsim.Scheduler {
	grace := 10 * time.Second
	s, err := gangsim.New(gangsim.Config{TerminationGracePeriod: &grace, CheckInvariants: true})
	require.NoError(t, err)
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("a").CPU("2").Rack("r1").Obj()))
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("b").CPU("2").Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("web").Namespace("shop").CPU("2").NodeName("a").Priority(50).Obj(), 0))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("db").CPU("2").NodeName("b").Priority(0).Obj(), 0))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("big").CPU("3").Obj(), 0))
	require.NoError(t, s.RunUntil(time.Second))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("boss").CPU("2").Priority(100).Obj(), 0))
	require.NoError(t, s.RunUntil(2*time.Second))
	st, _ := s.Pod("default/db")
	require.Equal(t, gangsim.PhaseTerminating, st.Phase, "the test needs db terminating")
	return s
}

func TestPlacements(t *testing.T) {
	s := newCluster(t)
	require.Equal(t, map[cluster.PodKey]string{"shop/web": "a"}, gangsimtest.Placements(s),
		"db terminates, big and boss are pending")
	require.NoError(t, s.Run())
	require.Equal(t, map[cluster.PodKey]string{"shop/web": "a", "default/boss": "b"}, gangsimtest.Placements(s))
	require.Equal(t, "map[default/boss:b shop/web:a]", fmt.Sprint(gangsimtest.Placements(s)), "printed in key order")
}

func TestRequireOnAndNotPlaced(t *testing.T) {
	s := newCluster(t)
	require.NoError(t, s.Run())
	for _, tc := range []struct {
		name  string
		check func(require.TestingT)
		want  []string // in the failure message; none: passes
	}{
		{"on its node, by key", func(r require.TestingT) { gangsimtest.RequireOn(r, s, "a", "shop/web") }, nil},
		{"on its node, by name", func(r require.TestingT) { gangsimtest.RequireOn(r, s, "b", "boss") }, nil},
		{"nowhere", func(r require.TestingT) { gangsimtest.RequireNotPlaced(r, s, "big", "db", "missing") }, nil},
		{"elsewhere", func(r require.TestingT) { gangsimtest.RequireOn(r, s, "a", "boss", "shop/web") },
			[]string{`actual  : map[cluster.PodKey]string{"default/boss":"b"`, `expected: map[cluster.PodKey]string{"default/boss":"a"`, "where the pods are"}},
		{"not placed", func(r require.TestingT) { gangsimtest.RequireOn(r, s, "b", "big") },
			[]string{`actual  : map[cluster.PodKey]string{"default/big":""}`, `expected: map[cluster.PodKey]string{"default/big":"b"}`}},
		{"the default namespace is not another", func(r require.TestingT) { gangsimtest.RequireOn(r, s, "a", "web") },
			[]string{`actual  : map[cluster.PodKey]string{"default/web":""}`}},
		{"placed after all", func(r require.TestingT) { gangsimtest.RequireNotPlaced(r, s, "big", "boss") },
			[]string{`"default/boss":"b"}`, `"default/boss":""}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r recorder
			tc.check(&r)
			require.Equal(t, len(tc.want) > 0, r.failed, r.msg)
			for _, w := range tc.want {
				require.Contains(t, r.msg, w)
			}
		})
	}
}

func TestNodeLabels(t *testing.T) {
	s := newCluster(t)
	labels := gangsimtest.NodeLabels(s, "a")
	require.Equal(t, map[string]string{"rack": "r1", "kubernetes.io/hostname": "a"}, labels)
	labels["rack"] = "changed"
	require.Equal(t, "r1", gangsimtest.NodeLabels(s, "a")["rack"], "a copy")
	require.Nil(t, gangsimtest.NodeLabels(s, "missing"))
}
