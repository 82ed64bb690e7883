package admission

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

const gi = 1 << 30

// cpu returns a list of cpu alone, in millicores.
func cpu(milli int64) cluster.ResourceList { return cluster.ResourceList{cluster.ResourceCPU: milli} }

// podWith returns a pod in namespace ns whose containers, named c0, c1...,
// set the given requests and limits.
func podWith(ns, name string, containers ...cluster.ResourceRequirements) cluster.Pod {
	res := &cluster.PodResources{}
	for i, c := range containers {
		res.Containers = append(res.Containers, cluster.Container{Name: fmt.Sprintf("c%d", i), Resources: c})
	}
	return cluster.Pod{Namespace: ns, Name: name, Resources: res, Requests: res.Requests().Resources()}
}

func limitRanger(t *testing.T, ranges ...cluster.LimitRange) *LimitRanger {
	t.Helper()
	var l LimitRanger
	for _, lr := range ranges {
		require.NoError(t, l.Set(lr))
	}
	return &l
}

func containerItem(item cluster.LimitRangeItem) []cluster.LimitRangeItem {
	item.Type = cluster.LimitTypeContainer
	return []cluster.LimitRangeItem{item}
}

// Default then Check, as the API server runs LimitRanger's two halves
// around the other admission plugins: the containers' requests and limits
// the pod is created with, or the refusal in LimitRanger's words.
func TestLimitRanger(t *testing.T) {
	bounded := cluster.LimitRange{Name: "bounds", Limits: containerItem(cluster.LimitRangeItem{
		DefaultRequest: cpu(250), Default: cpu(500), Max: cpu(1000), Min: cpu(100)})}
	ratio := cluster.LimitRange{Name: "ratio", Limits: containerItem(cluster.LimitRangeItem{MaxLimitRequestRatio: cpu(2000)})}
	podMax := cluster.LimitRange{Name: "pod", Limits: []cluster.LimitRangeItem{{Type: cluster.LimitTypePod, Max: cluster.ResourceList{cluster.ResourceMemory: gi}}}}
	first := cluster.LimitRange{Name: "a", Limits: containerItem(cluster.LimitRangeItem{Default: cpu(300)})}
	second := cluster.LimitRange{Name: "b", Limits: containerItem(cluster.LimitRangeItem{Default: cpu(700), DefaultRequest: cpu(50)})}
	tests := []struct {
		name    string
		ranges  []cluster.LimitRange
		pod     cluster.Pod
		want    []cluster.ResourceRequirements // the containers after Default
		refusal string
	}{
		{name: "no limit range: the pod as given", pod: podWith("", "p", cluster.ResourceRequirements{}),
			want: []cluster.ResourceRequirements{{}}},
		{name: "defaults fill what is unset", ranges: []cluster.LimitRange{bounded}, pod: podWith("", "p", cluster.ResourceRequirements{}),
			want: []cluster.ResourceRequirements{{Requests: cpu(250), Limits: cpu(500)}}},
		{name: "what a container sets is kept", ranges: []cluster.LimitRange{bounded}, pod: podWith("", "p", cluster.ResourceRequirements{Requests: cpu(300)}),
			want: []cluster.ResourceRequirements{{Requests: cpu(300), Limits: cpu(500)}}},
		{name: "another namespace's limit range does not apply", ranges: []cluster.LimitRange{bounded}, pod: podWith("other", "p", cluster.ResourceRequirements{Requests: cpu(5000)}),
			want: []cluster.ResourceRequirements{{Requests: cpu(5000)}}},
		{name: "the first in name order fills first", ranges: []cluster.LimitRange{second, first}, pod: podWith("", "p", cluster.ResourceRequirements{}),
			want: []cluster.ResourceRequirements{{Requests: cpu(300), Limits: cpu(300)}}},
		{name: "a request above the max", ranges: []cluster.LimitRange{bounded}, pod: podWith("", "big", cluster.ResourceRequirements{Requests: cpu(2000), Limits: cpu(1000)}),
			refusal: `pods "big" is forbidden: maximum cpu usage per Container is 1, but request is 2`},
		{name: "a limit above the max", ranges: []cluster.LimitRange{bounded}, pod: podWith("", "capped", cluster.ResourceRequirements{Limits: cpu(2000)}),
			refusal: `pods "capped" is forbidden: maximum cpu usage per Container is 1, but limit is 2`},
		{name: "a request below the min", ranges: []cluster.LimitRange{bounded}, pod: podWith("", "small", cluster.ResourceRequirements{Requests: cpu(50)}),
			refusal: `pods "small" is forbidden: minimum cpu usage per Container is 100m, but request is 50m`},
		{name: "every problem with one limit range, aggregated", ranges: []cluster.LimitRange{bounded},
			pod:     podWith("", "two", cluster.ResourceRequirements{Requests: cpu(50)}, cluster.ResourceRequirements{Limits: cpu(3000)}),
			refusal: `pods "two" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum cpu usage per Container is 1, but limit is 3]`},
		{name: "a ratio too large", ranges: []cluster.LimitRange{ratio}, pod: podWith("", "r", cluster.ResourceRequirements{Requests: cpu(250), Limits: cpu(1000)}),
			refusal: `pods "r" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000`},
		{name: "the pod's total above a Pod item's max", ranges: []cluster.LimitRange{podMax},
			pod: podWith("", "pair", cluster.ResourceRequirements{Limits: cluster.ResourceList{cluster.ResourceMemory: gi}},
				cluster.ResourceRequirements{Limits: cluster.ResourceList{cluster.ResourceMemory: gi}}),
			refusal: `pods "pair" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 2Gi`},
		{name: "the first limit range in name order that refuses", ranges: []cluster.LimitRange{ratio, bounded},
			pod:     podWith("", "both", cluster.ResourceRequirements{Requests: cpu(50), Limits: cpu(1000)}),
			refusal: `pods "both" is forbidden: minimum cpu usage per Container is 100m, but request is 50m`},
		{name: "a request above the default limit", ranges: []cluster.LimitRange{bounded}, pod: podWith("", "over", cluster.ResourceRequirements{Requests: cpu(800)}),
			refusal: `Pod "over" is invalid: spec.containers[0] (c0).resources.requests.cpu: 800m must be less than or equal to cpu limit of 500m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, p := limitRanger(t, tt.ranges...), tt.pod
			given := p.Resources.Clone()
			l.Default(&p)
			require.Equal(t, given, tt.pod.Resources, "the pod's resources are replaced, never changed")
			rej := l.Check(&p)
			if tt.refusal != "" {
				require.NotNil(t, rej)
				require.Equal(t, tt.refusal, rej.Reason)
				require.Equal(t, cluster.MakePodKey(p.Namespace, p.Name), rej.Pod)
				require.ErrorIs(t, rej, ErrRejected)
				return
			}
			require.Nil(t, rej)
			var got []cluster.ResourceRequirements
			for _, c := range p.Resources.Containers {
				got = append(got, c.Resources)
			}
			require.Equal(t, tt.want, got)
			require.Equal(t, p.Resources.Requests().Resources(), p.Requests, "the requests follow the containers")
		})
	}
}

// A pod given by its requests alone is one container with no limits.
func TestLimitRangerRequestsAlone(t *testing.T) {
	l := limitRanger(t, cluster.LimitRange{Name: "lr", Limits: containerItem(cluster.LimitRangeItem{Default: cpu(500)})})
	p := cluster.Pod{Name: "p", Requests: cluster.NewResources(200, 0, 0)}
	l.Default(&p)
	require.Equal(t, []cluster.Container{{Name: "p", Resources: cluster.ResourceRequirements{Requests: cpu(200), Limits: cpu(500)}}}, p.Resources.Containers)
	require.Equal(t, int64(200), p.Requests.MilliCPU)
}

// Set stores a copy with the API server's defaults, replaces by name and
// keeps name order; a clone goes on on its own.
func TestLimitRangerSet(t *testing.T) {
	var l LimitRanger
	item := cluster.LimitRangeItem{Max: cpu(1000)}
	require.NoError(t, l.Set(cluster.LimitRange{Name: "b", Limits: containerItem(item)}))
	require.NoError(t, l.Set(cluster.LimitRange{Name: "a", Limits: containerItem(item)}))
	require.NoError(t, l.Set(cluster.LimitRange{Namespace: "team", Name: "c", Limits: containerItem(item)}))
	item.Max[cluster.ResourceCPU] = 1 // the caller's list is not kept
	names := func(l *LimitRanger, ns string) []string {
		var out []string
		for _, lr := range l.List(ns) {
			out = append(out, lr.Name)
		}
		return out
	}
	require.Equal(t, []string{"a", "b"}, names(&l, ""))
	require.Equal(t, []string{"a", "b"}, names(&l, cluster.DefaultNamespace))
	require.Equal(t, []string{"c"}, names(&l, "team"))
	stored := l.List("")[0]
	require.Equal(t, cluster.DefaultNamespace, stored.Namespace)
	require.Equal(t, cpu(1000), stored.Limits[0].Max)
	require.Equal(t, cpu(1000), stored.Limits[0].Default, "the default limit is the max, as the API server stores it")

	fork := l.Clone()
	require.NoError(t, l.Set(cluster.LimitRange{Name: "a", Limits: containerItem(cluster.LimitRangeItem{Max: cpu(2000)})}))
	require.NoError(t, fork.Set(cluster.LimitRange{Name: "z"}))
	require.Equal(t, cpu(2000), l.List("")[0].Limits[0].Max, "replaced")
	require.Equal(t, cpu(1000), fork.List("")[0].Limits[0].Max)
	require.Equal(t, []string{"a", "b"}, names(&l, ""))
	require.Equal(t, []string{"a", "b", "z"}, names(&fork, ""))

	err := l.Set(cluster.LimitRange{Name: "bad", Limits: []cluster.LimitRangeItem{{Type: cluster.LimitTypePod, Default: cpu(1)}}})
	require.ErrorIs(t, err, cluster.ErrLimitRange)
	require.Equal(t, []string{"a", "b"}, names(&l, ""), "a refused limit range is not stored")
}
