package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario"
)

// The fair-sharing day, as the scenario reader reads it: ten ClusterQueues
// (2 train, 3 eval in research-0; 2 serve, 3 batch in product-0), both
// cohorts under "company", the weights given (train 2, eval 1, serve 1.5,
// batch 0.5), fair sharing on with Kueue's default strategies; 100,000
// workloads, the last created within the day; nodes of twice the 1,600
// cpu of quota.
func TestFairDayLoads(t *testing.T) {
	dir := generate(t, "-config", "fair-day")
	sc, err := scenario.LoadFiles([]string{dir})
	require.NoError(t, err)
	require.Len(t, sc.Pods, 100_000)
	k := sc.Kueue
	require.Len(t, k.ClusterQueues, 10)
	require.NotNil(t, k.Configuration.FairSharing)
	require.Empty(t, k.Configuration.FairSharing.PreemptionStrategies)
	cohorts := map[string]string{}
	for _, c := range k.Cohorts {
		cohorts[c.Name] = c.ParentName
	}
	require.Equal(t, map[string]string{"company": "", "research-0": "company", "product-0": "company"}, cohorts)
	weights := map[string]int64{}
	var quota int64
	for _, q := range k.ClusterQueues {
		weights[q.Name[:strings.Index(q.Name, "-")]] = *q.FairSharing.Weight
		quota += q.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota
		require.Equal(t, kueue.PreemptAny, q.Preemption.ReclaimWithinCohort, q.Name)
	}
	require.Equal(t, map[string]int64{"train": 2e9, "eval": 1e9, "serve": 1.5e9, "batch": 0.5e9}, weights)
	require.Equal(t, int64(1_600_000), quota)
	require.Equal(t, int64(800_000), sc.Nodes[0].Allocatable.MilliCPU)
	last := sc.Pods[len(sc.Pods)-1].At
	require.LessOrEqual(t, last, 24*time.Hour)
	require.Equal(t, 85_000*time.Second, last, "the last large workload, 500 × 170 s")
}

// -seed draws each workload set's creations as a Poisson process of the
// same mean: the same seed, the same folder; another seed, other times;
// the mean interval stays (7,000 small workloads every 12 s on average:
// the last near 84,000 s). -scale multiplies the counts and the quotas
// over the same span.
func TestSeedAndScale(t *testing.T) {
	read := func(args ...string) []byte {
		dir := generate(t, args...)
		data, err := os.ReadFile(filepath.Join(dir, scenarioFile))
		require.NoError(t, err)
		return data
	}
	a, b := read("-config", "fair-day", "-seed", "1"), read("-config", "fair-day", "-seed", "1")
	require.Equal(t, a, b)
	require.NotEqual(t, a, read("-config", "fair-day", "-seed", "2"))
	require.NotEqual(t, a, read("-config", "fair-day"))

	c, _, err := loadConfig("fair-day")
	require.NoError(t, err)
	p, err := makePlanWith(c, options{nodes: 4, scale: 1, seed: 1})
	require.NoError(t, err)
	var lastSmall int64
	for _, w := range p.workloads {
		if w.namespace == "train-0-0-research-0" && strings.HasPrefix(w.name, "small-") {
			lastSmall = max(lastSmall, w.at)
		}
	}
	// the sum of 7,000 exponential gaps of mean 12 s: 84,000 s, within
	// 3 % (its standard deviation is 1.2 %)
	require.InDelta(t, 84_000_000, lastSmall, 84_000_000*0.03)

	half, err := makePlanWith(c, options{nodes: 4, scale: 0.5})
	require.NoError(t, err)
	require.Len(t, half.workloads, 50_000)
	require.Equal(t, int64(400_000), half.nodeCPU, "half the quota: 800 cpu, twice over 4 nodes")
	require.Equal(t, "150000m", string(half.queues[0].set.NominalQuota))
	require.LessOrEqual(t, half.workloads[len(half.workloads)-1].at, int64(86_400_000))
}

// The extensions are checked as the rest: errors name the file and the
// field.
func TestExtensionErrors(t *testing.T) {
	base := "cohorts: [{className: c, count: 1, %s queuesSets: [{className: q, count: 1, nominalQuota: 1 %s}]}]\n"
	for _, tc := range []struct{ top, cohort, queue, want string }{
		{"fairSharing: {preemptionStrategies: [Nope]}\n", "", "", `fairSharing.preemptionStrategies[0]: "Nope"`},
		{"", "parentName: Not_A_Label,", "", "cohorts[0].parentName"},
		{"", "parentName: c-0,", "", `cohorts[0].parentName: "c-0" is the name of a cohort`},
		{"", "fairWeight: x,", "", "cohorts[0].fairWeight"},
		{"", "", ", fairWeight: -1", "cohorts[0].queuesSets[0].fairWeight"},
		{"", "", ", fairWeight: 2000000", "cohorts[0].queuesSets[0].fairWeight: 2000000 is more than a million"},
	} {
		text := tc.top + strings.Replace(strings.Replace(base, "%s", tc.cohort, 1), "%s", tc.queue, 1)
		_, err := parseConfig("x.yaml", []byte(text))
		require.ErrorIs(t, err, errConfig, text)
		require.ErrorContains(t, err, "x.yaml", text)
		require.ErrorContains(t, err, tc.want, text)
	}
	// a weight, a parent and fair sharing give the objects, as read back
	c, err := parseConfig("x.yaml", []byte("fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n"+
		"cohorts: [{className: c, count: 2, parentName: top, fairWeight: 3, queuesSets: [{className: q, count: 1, nominalQuota: 1, fairWeight: 250m}]}]\n"))
	require.NoError(t, err)
	p, err := makePlan(c, 1)
	require.NoError(t, err)
	var k, s bytes.Buffer
	require.NoError(t, p.writeKueue(&k))
	require.NoError(t, p.writeScenario(&s))
	sc, err := scenario.ParseFiles([]scenario.File{{Name: "out/" + kueueFile, Data: k.Bytes()}, {Name: "out/" + scenarioFile, Data: s.Bytes()}})
	require.NoError(t, err)
	require.Equal(t, []string{"LessThanInitialShare"}, sc.Kueue.Configuration.FairSharing.PreemptionStrategies)
	require.Len(t, sc.Kueue.Cohorts, 3)
	require.Equal(t, "top", sc.Kueue.Cohorts[1].ParentName)
	require.Equal(t, int64(3e9), *sc.Kueue.Cohorts[2].FairSharing.Weight)
	require.Equal(t, int64(0.25e9), *sc.Kueue.ClusterQueues[0].FairSharing.Weight)
}
