package gangsim

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// addRejected adds a pod and returns the refusal's message ("" when the
// pod was created).
func (ts *testSched) addRejected(p cluster.Pod, d time.Duration) string {
	ts.t.Helper()
	err := ts.AddPod(p, d)
	if err == nil {
		return ""
	}
	var rej *RejectedError
	require.True(ts.t, errors.As(err, &rej), "%v", err)
	require.ErrorIs(ts.t, err, ErrRejected)
	return rej.Reason
}

func quotaUsed(s *Scheduler, name string) cluster.ResourceList {
	for q := range s.ResourceQuotas() {
		if q.Quota.Name == name {
			return q.Used
		}
	}
	return nil
}

// The case: four pods of one core where the quota allows two
// cores of requests. Kubernetes creates two; the others are refused, not
// created, and say why in the API server's words.
func TestQuotaAdmitsTwoOfFour(t *testing.T) {
	var rejected []Event
	s, err := New(Config{CheckInvariants: true}, WithObserver(func(e Event) {
		if e.Kind == EventPodRejected {
			rejected = append(rejected, e)
		}
	}))
	require.NoError(t, err)
	ts := &testSched{Scheduler: s, t: t}
	ts.nodes("n", 2, 8000)
	require.NoError(t, ts.SetResourceQuota(cluster.ResourceQuota{Name: "compute", Hard: cluster.ResourceList{"requests.cpu": 2000, "pods": 10}}))
	var reasons []string
	for _, name := range []string{"a", "b", "c", "d"} {
		reasons = append(reasons, ts.addRejected(gangsimtest.MakePod(name).CPU("1").Obj(), 0))
	}
	ts.run()
	require.Equal(t, []string{"", "",
		`pods "c" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=2, limited: requests.cpu=2`,
		`pods "d" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=2, limited: requests.cpu=2`}, reasons)
	require.Equal(t, 2, ts.Stats().Scheduled)
	require.Equal(t, 2, ts.Stats().Rejected)
	require.Len(t, rejected, 2)
	_, known := ts.Pod(cluster.MakePodKey("", "c"))
	require.False(t, known, "a refused pod is not created")
	require.Equal(t, cluster.ResourceList{"pods": 2, "requests.cpu": 2000}, quotaUsed(ts.Scheduler, "compute"))
}

// Quota is used by pods not in a terminal phase: it frees when a pod
// succeeds or is deleted (count/pods only on deletion, as a succeeded pod
// is still stored); an evicted pod that waits again keeps it, standing for
// its replacement.
func TestQuotaFreesWhenPodsEnd(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 2000)
	require.NoError(t, ts.SetResourceQuota(cluster.ResourceQuota{Name: "q", Hard: cluster.ResourceList{"pods": 2, "count/pods": 3, "cpu": 4000}}))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("job").CPU("1").Obj(), time.Minute))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("low").CPU("1").Priority(1).Obj(), 0))
	require.Contains(t, ts.addRejected(gangsimtest.MakePod("third").CPU("1").Obj(), 0), "exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2")
	ts.run()
	require.Equal(t, PhaseSucceeded, ts.status("job").Phase)
	require.Equal(t, cluster.ResourceList{"pods": 1, "count/pods": 2, "cpu": 1000}, quotaUsed(ts.Scheduler, "q"), "the succeeded pod counts as stored only")

	// a preemptor evicts low; low waits again and still holds its share
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("urgent").CPU("2").Priority(100).Obj(), 0))
	ts.run()
	require.Equal(t, PhaseBound, ts.status("urgent").Phase)
	require.Equal(t, PhasePending, ts.status("low").Phase)
	require.Equal(t, cluster.ResourceList{"pods": 2, "count/pods": 3, "cpu": 3000}, quotaUsed(ts.Scheduler, "q"))
	require.Contains(t, ts.addRejected(gangsimtest.MakePod("more").CPU("100m").Obj(), 0), "requested: count/pods=1,pods=1, used: count/pods=3,pods=2, limited: count/pods=3,pods=2")

	require.NoError(t, ts.DeletePod(cluster.MakePodKey("", "low")))
	require.Equal(t, cluster.ResourceList{"pods": 1, "count/pods": 2, "cpu": 2000}, quotaUsed(ts.Scheduler, "q"))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("more").CPU("100m").Obj(), 0))

	f, err := ts.Fork()
	require.NoError(t, err)
	require.NoError(t, f.DeletePod(cluster.MakePodKey("", "more")))
	require.Equal(t, int64(2), quotaUsed(ts.Scheduler, "q")["pods"], "a fork's usage is its own")
	require.Equal(t, int64(1), quotaUsed(f, "q")["pods"])
}

// A quota set while pods exist counts them; one replaced is counted
// anew; a pod that arrives running counts and is never refused (it was
// admitted before); a namespace's quota leaves other namespaces alone.
func TestQuotaCountsWhatIsThere(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 8000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("running").CPU("3").NodeName("n-0").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("other").Namespace("b").CPU("3").Obj(), 0))
	require.NoError(t, ts.SetResourceQuota(cluster.ResourceQuota{Name: "q", Hard: cluster.ResourceList{"requests.cpu": 2000}}))
	require.Equal(t, cluster.ResourceList{"requests.cpu": 3000}, quotaUsed(ts.Scheduler, "q"))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("also-running").CPU("1").NodeName("n-0").Obj(), 0))
	require.NotEmpty(t, ts.addRejected(gangsimtest.MakePod("new").CPU("1").Obj(), 0))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("new").Namespace("b").CPU("1").Obj(), 0))
	require.NoError(t, ts.SetResourceQuota(cluster.ResourceQuota{Name: "q", Hard: cluster.ResourceList{"requests.cpu": 8000, "pods": 5}}))
	require.Equal(t, cluster.ResourceList{"requests.cpu": 4000, "pods": 2}, quotaUsed(ts.Scheduler, "q"))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("new").CPU("1").Obj(), 0), "the same name may be created once there is room")
}

// A quota tracking cpu or memory needs every container to set it, as
// Kubernetes keeps requiring; a LimitRange's defaults can set it.
func TestQuotaMustSpecify(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 8000)
	require.NoError(t, ts.SetResourceQuota(cluster.ResourceQuota{Name: "mem", Hard: cluster.ResourceList{"limits.memory": 4 << 30, "requests.cpu": 4000}}))
	require.Equal(t, `pods "p" is forbidden: failed quota: mem: must specify limits.memory for: p`,
		ts.addRejected(gangsimtest.MakePod("p").CPU("1").Obj(), 0))
	require.NoError(t, ts.SetLimitRange(cluster.LimitRange{Name: "defaults", Limits: []cluster.LimitRangeItem{{Type: cluster.LimitTypeContainer,
		Default: cluster.ResourceList{cluster.ResourceMemory: 1 << 30}}}}))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("p").CPU("1").Obj(), 0))
	require.Equal(t, cluster.ResourceList{"limits.memory": 1 << 30, "requests.cpu": 1000}, quotaUsed(ts.Scheduler, "mem"))
	st := ts.status("p")
	require.Equal(t, PhasePending, st.Phase)
	ts.run()
	ni, _ := ts.Node("n-0")
	require.Equal(t, int64(1<<30), ni.Requested().Memory, "the default limit requested its amount, as the API server defaults it")
}

// LimitRange defaults fill what containers leave unset and the pod is
// scheduled with them; its bounds refuse a pod, which is not created
// (admission's own tests hold LimitRanger's rules and words).
func TestLimitRangeAdmission(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 8000)
	require.NoError(t, ts.SetLimitRange(cluster.LimitRange{Name: "lr", Limits: []cluster.LimitRangeItem{{Type: cluster.LimitTypeContainer,
		DefaultRequest: cluster.ResourceList{cluster.ResourceCPU: 250},
		Default:        cluster.ResourceList{cluster.ResourceCPU: 500},
		Max:            cluster.ResourceList{cluster.ResourceCPU: 1000}}}}))
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("bare").Obj(), 0))
	require.Equal(t, `pods "big" is forbidden: maximum cpu usage per Container is 1, but request is 2`,
		ts.addRejected(gangsimtest.MakePod("big").CPU("2").Obj(), 0))
	require.Equal(t, `Pod "over" is invalid: spec.containers[0] (over).resources.requests.cpu: 800m must be less than or equal to cpu limit of 500m`,
		ts.addRejected(gangsimtest.MakePod("over").CPU("800m").Obj(), 0), "checked once the default limit is filled")
	require.Empty(t, ts.addRejected(gangsimtest.MakePod("other-ns").Namespace("x").CPU("2").Obj(), 0))
	ts.run()
	ni, _ := ts.Node("n-0")
	require.Equal(t, int64(250+2000), ni.Requested().MilliCPU, "bare requests the default request")
	require.Equal(t, 2, ts.Stats().Rejected)
	_, known := ts.Pod(cluster.MakePodKey("", "big"))
	require.False(t, known, "a refused pod is not created")

	err := ts.SetLimitRange(cluster.LimitRange{Name: "bad", Limits: []cluster.LimitRangeItem{{Type: cluster.LimitTypePod, Default: cluster.ResourceList{"cpu": 1}}}})
	require.ErrorIs(t, err, cluster.ErrLimitRange)
}
