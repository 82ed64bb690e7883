package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

const workloadNodes = `
nodes:
  - {name: n, labels: {rack: r1}, allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "8"}, count: 4}
`

func parseWorkloads(t *testing.T, text string) *Scenario {
	t.Helper()
	sc, err := Parse("w.yaml", []byte(workloadNodes+text))
	require.NoError(t, err)
	return sc
}

func TestWorkloadFixedArrivals(t *testing.T) {
	sc := parseWorkloads(t, `
workloads:
  - name: web
    replicas: 3
    arrival: {start: 1m, every: 5m}
    duration: 2h
    pod: {labels: {app: web}, requests: {cpu: 500m, memory: 1Gi}, priority: 100}
`)
	require.Len(t, sc.Pods, 3)
	for i, p := range sc.Pods {
		assert.Equal(t, fmt.Sprintf("web-%d", i), p.Pod.Name)
		assert.Equal(t, time.Minute+time.Duration(i)*5*time.Minute, p.At)
		assert.Equal(t, 2*time.Hour, p.Duration)
		assert.Equal(t, Source{File: "w.yaml", Line: 6, Path: fmt.Sprintf("workloads[0] (web-%d)", i)}, p.Source)
		assert.Equal(t, map[string]string{"app": "web"}, p.Pod.Labels)
	}
}

// A workload gives exactly the pods and groups of the hand-written file
// it stands for, and the same result.
func TestWorkloadEqualsHandWritten(t *testing.T) {
	tmpl := parseWorkloads(t, `
workloads:
  - name: train
    replicas: 2
    arrival: {every: 10m}
    duration: {fixed: 1h}
    group: {minCount: 2, topologyKey: rack, priority: 50, pods: 2}
    pod: {requests: {nvidia.com/gpu: "4"}}
`)
	hand := parseWorkloads(t, `
podGroups:
  - {name: train-0, minCount: 2, topologyKey: rack, priority: 50}
  - {name: train-1, minCount: 2, topologyKey: rack, priority: 50}
pods:
  - {name: train-0-0, podGroup: train-0, requests: {nvidia.com/gpu: "4"}, duration: 1h}
  - {name: train-0-1, podGroup: train-0, requests: {nvidia.com/gpu: "4"}, duration: 1h}
  - {name: train-1-0, podGroup: train-1, requests: {nvidia.com/gpu: "4"}, at: 10m, duration: 1h}
  - {name: train-1-1, podGroup: train-1, requests: {nvidia.com/gpu: "4"}, at: 10m, duration: 1h}
`)
	require.Equal(t, hand.PodGroups, tmpl.PodGroups)
	require.Len(t, tmpl.Pods, len(hand.Pods))
	for i := range hand.Pods {
		h, w := hand.Pods[i], tmpl.Pods[i]
		h.Source, w.Source = Source{}, Source{}
		require.Equal(t, h, w, "pod %d", i)
	}
	require.Equal(t, "workloads[0] (train-1-0)", tmpl.Pods[2].Source.Path)
	a, err := hand.Run()
	require.NoError(t, err)
	b, err := tmpl.Run()
	require.NoError(t, err)
	aj, _ := a.JSON()
	bj, _ := b.JSON()
	require.Equal(t, string(aj), string(bj))
}

const randomWorkload = `
workloads:
  - name: batch
    seed: %d
    replicas: 200
    arrival: {rate: 12/h}
    duration: {logNormal: {median: 30m, sigma: 0.8}, max: 4h}
    sizes:
      - {weight: 3, requests: {cpu: "1"}}
      - {weight: 1, requests: {cpu: "4", memory: 8Gi}}
    pod: {requests: {cpu: 500m, memory: 1Gi}}
`

func TestWorkloadSameSeedSameWorkload(t *testing.T) {
	a := parseWorkloads(t, fmt.Sprintf(randomWorkload, 7))
	b := parseWorkloads(t, fmt.Sprintf(randomWorkload, 7))
	c := parseWorkloads(t, fmt.Sprintf(randomWorkload, 8))
	require.Equal(t, a.Pods, b.Pods)
	require.NotEqual(t, a.Pods, c.Pods)
	for _, p := range a.Pods {
		require.Equal(t, p.At.Truncate(time.Second), p.At, "drawn times are whole seconds")
		require.Positive(t, p.Duration)
		require.LessOrEqual(t, p.Duration, 4*time.Hour, "max caps the run time")
		mem := p.Pod.Requests.Get(cluster.ResourceMemory)
		require.Contains(t, []int64{1 << 30, 8 << 30}, mem, "a size replaces only the resources it names")
	}
	require.True(t, slices.IsSortedFunc(a.Pods, func(x, y Pod) int { return int(x.At - y.At) }))
}

// Changing one distribution leaves the other draws as they were: each
// has its own random stream.
func TestWorkloadStreamsAreIndependent(t *testing.T) {
	a := parseWorkloads(t, fmt.Sprintf(randomWorkload, 7))
	other := strings.Replace(fmt.Sprintf(randomWorkload, 7), "{logNormal: {median: 30m, sigma: 0.8}, max: 4h}", "{exponential: 1h}", 1)
	b := parseWorkloads(t, other)
	for i := range a.Pods {
		require.Equal(t, a.Pods[i].At, b.Pods[i].At)
		require.Equal(t, a.Pods[i].Pod.Requests, b.Pods[i].Pod.Requests)
	}
}

// The draws follow their distributions: a Poisson process's mean gap, an
// exponential's mean, a log-normal's median, and the sizes' weights.
func TestWorkloadDistributions(t *testing.T) {
	const n = 20000
	rng := streamsOf(1, "x")
	arr := arrival{rate: 1.0 / 300} // one per 5m
	times, err := arr.times(n, rng[0])
	require.NoError(t, err)
	assert.InEpsilon(t, 300, times[n-1].Seconds()/n, 0.03, "mean gap")

	exp := runTimeDist{mean: 3600}
	ln := runTimeDist{median: 1800, sigma: 1}
	var sum float64
	var draws []float64
	for range n {
		sum += exp.draw(rng[1]).Seconds()
		draws = append(draws, ln.draw(rng[2]).Seconds())
	}
	assert.InEpsilon(t, 3600, sum/n, 0.03, "exponential mean")
	slices.Sort(draws)
	assert.InEpsilon(t, 1800, draws[n/2], 0.05, "log-normal median")

	p := &workloadPlan{sizes: []size{{weight: 3}, {weight: 1, pods: 1}}, total: 4, sizeRand: rng[0]}
	small := 0
	for range n {
		if p.pick().pods == 0 {
			small++
		}
	}
	assert.InDelta(t, 0.75, float64(small)/n, 0.02)
}

func TestWorkloadGroupSizes(t *testing.T) {
	sc := parseWorkloads(t, `
workloads:
  - name: train
    replicas: 40
    pod: {requests: {nvidia.com/gpu: "4"}}
    group: {topologyKey: rack, pods: 8, minCount: 8}
    sizes:
      - {requests: {nvidia.com/gpu: "8"}, pods: 4, minCount: 4}
      - {}
`)
	sizes := map[int32]int{}
	require.Len(t, sc.PodGroups, 40)
	members := map[string]int{}
	for _, p := range sc.Pods {
		members[p.Pod.PodGroup]++
	}
	for _, g := range sc.PodGroups {
		require.Equal(t, podgroup.Gang, g.Policy)
		require.Equal(t, int(g.MinCount), members[g.Name], "group %s", g.Name)
		sizes[g.MinCount]++
	}
	require.Len(t, sizes, 2, "both sizes are drawn")
}

func TestWorkloadErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"rate", `{name: web, replicas: 2, arrival: {rate: fast}, pod: {}}`,
			`line 5: workloads[0] (web).arrival.rate: "fast" is not a rate like 12/h, 0.5/m or 3/10m`},
		{"two processes", `{name: web, replicas: 2, arrival: {every: 1m, rate: 1/h}, pod: {}}`,
			`workloads[0] (web).arrival: needs exactly one of every (a fixed interval), rate (a Poisson process) and at (a list of times); has 2`},
		{"unknown arrival field", `{name: web, replicas: 2, arrival: {evry: 1m}, pod: {}}`,
			`workloads[0] (web).arrival.evry: unknown field`},
		{"replicas", `{name: web, pod: {}}`, `workloads[0] (web).replicas: required`},
		{"replicas range", `{name: web, replicas: 0, pod: {}}`, `workloads[0] (web).replicas: 0 is not in 1..1000000`},
		{"list length", `{name: web, replicas: 3, arrival: {at: [0s, 1m]}, pod: {}}`,
			`workloads[0] (web).replicas: 3 replicas but arrival.at lists 2 times`},
		{"list time", `{name: web, arrival: {at: [0s, soon]}, pod: {}}`, `workloads[0] (web).arrival.at[1]: "soon" is not a duration`},
		{"no pod", `{name: web, replicas: 1}`, `workloads[0] (web).pod: required`},
		{"no name", `{replicas: 1, pod: {}}`, `workloads[0].name: required`},
		{"template name", `{name: web, replicas: 1, pod: {name: x}}`, `workloads[0] (web).pod.name: is set by the workload`},
		{"template count", `{name: web, replicas: 1, pod: {count: 2}}`, `workloads[0] (web).pod.count: is set by the workload`},
		{"quantity", `{name: web, replicas: 1, pod: {requests: {cpu: lots}}}`, `workloads[0] (web).pod.requests.cpu: "lots" is not a valid quantity`},
		{"size quantity", `{name: web, replicas: 1, pod: {}, sizes: [{requests: {cpu: "-1"}}]}`, `workloads[0] (web).sizes[0].requests.cpu:`},
		{"size weight", `{name: web, replicas: 1, pod: {}, sizes: [{weight: 0}]}`, `workloads[0] (web).sizes[0].weight: 0 is not in 1..1000000`},
		{"size pods without group", `{name: web, replicas: 1, pod: {}, sizes: [{pods: 2}]}`, `workloads[0] (web).sizes[0].pods: pods and minCount are for workloads with a group`},
		{"sigma", `{name: web, replicas: 1, pod: {}, duration: {logNormal: {median: 1h, sigma: 0}}}`, `workloads[0] (web).duration.logNormal.sigma: 0 is not in (0, 5]`},
		{"exponential", `{name: web, replicas: 1, pod: {}, duration: {exponential: 0s}}`, `workloads[0] (web).duration.exponential: "0s" is not positive`},
		{"duration", `{name: web, replicas: 1, pod: {}, duration: long}`, `workloads[0] (web).duration: "long" is not a duration`},
		{"no distribution", `{name: web, replicas: 1, pod: {}, duration: {max: 1h}}`, `workloads[0] (web).duration: needs exactly one of fixed, exponential (the mean) and logNormal; has 0`},
		{"group pods", `{name: t, replicas: 1, pod: {}, group: {minCount: 2}}`, `workloads[0] (t).group.pods: required: how many pods each group has`},
		{"gang too big", `{name: t, replicas: 1, pod: {}, group: {minCount: 3, pods: 2}}`, `workloads[0] (t).group.minCount: 3 is more than the 2 pods of each group`},
		{"size gang too big", `{name: t, replicas: 1, pod: {}, group: {minCount: 2, pods: 2}, sizes: [{pods: 1}]}`, `workloads[0] (t).sizes[0].minCount: 2 is more than the 1 pods`},
		{"group name", `{name: t, replicas: 1, pod: {}, group: {name: g, pods: 1}}`, `workloads[0] (t).group.name: is set by the workload`},
		{"group parent", `{name: t, replicas: 1, pod: {}, group: {parent: nope, pods: 1}}`, `workloads[0] (t).group.parent: composite pod group "nope" is not defined`},
		{"class", `{name: t, replicas: 1, pod: {priorityClassName: gold}}`, `workloads[0] (t).pod`},
		{"duplicate", `{name: t, replicas: 1, pod: {}}
  - {name: t, replicas: 1, pod: {}}`, `workloads[1] (t-0).name: pod t-0 is defined twice`},
		{"past the end", `{name: t, replicas: 1000, arrival: {every: 1000h}, pod: {}}`, `workloads[0] (t).arrival: the arrivals go past the largest simulated time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("w.yaml", []byte(workloadNodes+"workloads:\n  - "+tt.body+"\n"))
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrScenario))
			require.Contains(t, err.Error(), "invalid scenario: w.yaml: line ")
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		text string
		want float64 // per second
	}{{"12/h", 12.0 / 3600}, {"0.5/m", 0.5 / 60}, {"3/10m", 3.0 / 600}, {"1/s", 1}, {"24/d", 24.0 / 86400}}
	for _, tt := range tests {
		got, err := parseRate(tt.text)
		require.NoError(t, err, tt.text)
		require.InDelta(t, tt.want, got, 1e-15, tt.text)
	}
	for _, bad := range []string{"", "12", "12/", "/h", "0/h", "-1/h", "1/0s", "1/-1h", "NaN/h", "Inf/h", "1/x", "1e308/1ns"} {
		_, err := parseRate(bad)
		require.Error(t, err, bad)
	}
}
