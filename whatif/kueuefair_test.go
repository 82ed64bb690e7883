package whatif_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// fairOn is Kueue's Configuration with fair sharing on, strategies
// LessThanInitialShare alone, beside kueueTeams.
const fairOn = `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {preemptionStrategies: [LessThanInitialShare]}
`

func loadFair(t *testing.T, configuration string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.ParseFiles([]scenario.File{{Name: "k.yaml", Data: []byte(kueueTeams)}, {Name: "config.yaml", Data: []byte(configuration)}})
	require.NoError(t, err)
	return sc
}

func weightOf(f *kueue.FairSharing) string {
	if f == nil || f.Weight == nil {
		return "default"
	}
	return fmt.Sprint(*f.Weight)
}

// Each fair-sharing change, parsed from its spelling and applied to a
// copy, on a scenario without a Configuration (base "none") or with
// fair sharing on (fairOn); the base is never changed.
func TestKueueFairSharingVariants(t *testing.T) {
	defaultPair := []string{whatif.LessThanOrEqualToFinalShare, whatif.LessThanInitialShare}
	tests := []struct {
		spec, base string
		check      func(t *testing.T, o *kueue.Objects)
	}{
		{"fairsharing:on", "none", func(t *testing.T, o *kueue.Objects) {
			require.NotNil(t, o.Configuration)
			assert.Equal(t, defaultPair, o.Configuration.FairSharing.PreemptionStrategies, "Kueue's default pair")
			// the Configuration made keeps what none meant: waitForPodsReady on, 30m
			require.NotNil(t, o.Configuration.WaitForPodsReady)
			assert.Equal(t, int64(30*60e9), o.Configuration.WaitForPodsReady.Timeout)
		}},
		{"fairsharing:on", fairOn, func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, []string{whatif.LessThanInitialShare}, o.Configuration.FairSharing.PreemptionStrategies, "on already: its strategies kept")
		}},
		{"fairsharing:off", fairOn, func(t *testing.T, o *kueue.Objects) {
			assert.Nil(t, o.Configuration.FairSharing)
		}},
		{"fairsharing:LessThanOrEqualToFinalShare", "none", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, []string{whatif.LessThanOrEqualToFinalShare}, o.Configuration.FairSharing.PreemptionStrategies)
		}},
		{"fairsharing:LessThanOrEqualToFinalShare/LessThanInitialShare", fairOn, func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, defaultPair, o.Configuration.FairSharing.PreemptionStrategies)
		}},
		{"clusterqueue:team-a:fairSharing.weight=2", fairOn, func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, "2000000000", weightOf(o.ClusterQueues[0].FairSharing))
			assert.Equal(t, "default", weightOf(o.ClusterQueues[1].FairSharing))
		}},
		{"clusterqueue:*:fairSharing.weight=0", fairOn, func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, "0", weightOf(o.ClusterQueues[0].FairSharing))
			assert.Equal(t, "0", weightOf(o.ClusterQueues[1].FairSharing))
		}},
		{"cohort:pool:fairSharing.weight=500m", fairOn, func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, "500000000", weightOf(o.Cohorts[0].FairSharing))
		}},
		{"fairsharing:on,clusterqueue:team-b:fairSharing.weight=1.5", "none", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, "1500000000", weightOf(o.ClusterQueues[1].FairSharing))
		}},
		{"clusterqueue:*:queueingStrategy=StrictFIFO", "none", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, kueue.StrictFIFO, o.ClusterQueues[0].QueueingStrategy)
			assert.Equal(t, kueue.StrictFIFO, o.ClusterQueues[1].QueueingStrategy)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec+" on "+tt.base, func(t *testing.T) {
			base := loadKueue(t, kueueTeams)
			if tt.base != "none" {
				base = loadFair(t, tt.base)
			}
			before := fmt.Sprintf("%+v %+v", *base.Kueue, base.Kueue.Configuration)
			v, err := whatif.ParseVariant(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.spec, v.Name, "the spelling reads back")
			sc, err := v.Apply(base)
			require.NoError(t, err)
			tt.check(t, sc.Kueue)
			assert.Equal(t, before, fmt.Sprintf("%+v %+v", *base.Kueue, base.Kueue.Configuration), "the base's objects are not changed")
			assert.Nil(t, base.Kueue.ClusterQueues[0].FairSharing)
		})
	}
}

// Bad fair-sharing changes: refused when parsed, or when applied, in the
// words of Kueue's validation where it would refuse them.
func TestKueueFairSharingErrors(t *testing.T) {
	parse := []struct{ spec, want string }{
		{"fairsharing", "want fairsharing:on, fairsharing:off or fairsharing:STRATEGIES (LessThanOrEqualToFinalShare, LessThanInitialShare, LessThanOrEqualToFinalShare/LessThanInitialShare)"},
		{"fairsharing:", "want fairsharing:on"},
		{"fairsharing:on:off", "want fairsharing:on"},
		{"fairsharing:yes", `preemption strategy "yes" is not LessThanOrEqualToFinalShare or LessThanInitialShare`},
		{"fairsharing:LessThanInitialShare/LessThanOrEqualToFinalShare", "Kueue would refuse the Configuration: fairSharing.preemptionStrategies LessThanInitialShare/LessThanOrEqualToFinalShare: supported values: LessThanOrEqualToFinalShare, LessThanInitialShare, LessThanOrEqualToFinalShare/LessThanInitialShare"},
		{"fairsharing:LessThanInitialShare/LessThanInitialShare", "Kueue would refuse the Configuration"},
		{"cohort:pool", "want cohort:NAME:fairSharing.weight=VALUE"},
		{"cohort:pool:weight=2", "want cohort:NAME:fairSharing.weight=VALUE"},
		{"cohort::fairSharing.weight=2", "want cohort:NAME:fairSharing.weight=VALUE"},
		{"clusterqueue:team-a:fairSharing.weight=", "want clusterqueue:NAME:FIELD=VALUE"},
	}
	for _, tt := range parse {
		_, err := whatif.ParseVariant(tt.spec)
		require.Error(t, err, tt.spec)
		assert.True(t, errors.Is(err, whatif.ErrVariant), tt.spec)
		assert.Contains(t, err.Error(), tt.want, tt.spec)
	}
	apply := []struct{ spec, base, want string }{
		{"clusterqueue:team-a:fairSharing.weight=2", "none", "ClusterQueue team-a: fairSharing.weight: the weight counts only with fair sharing on, and the scenario's Configuration has it off (put fairsharing:on before this change)"},
		{"clusterqueue:team-a:fairSharing.weight=2,fairsharing:on", "none", "put fairsharing:on before this change"},
		{"clusterqueue:team-c:fairSharing.weight=2", fairOn, `ClusterQueue "team-c" is not one of the scenario's`},
		{"cohort:other:fairSharing.weight=2", fairOn, `Cohort "other" is not one of the scenario's`},
		{"clusterqueue:team-a:fairSharing.weight=heavy", fairOn, `ClusterQueue team-a: fairSharing.weight: "heavy" is not a quantity (2, 0.5, 500m)`},
		{"clusterqueue:team-a:fairSharing.weight=-1", fairOn, "ClusterQueue team-a: fairSharing.weight: Kueue would refuse the ClusterQueue team-a: spec.fairSharing: Invalid value: must be greater than or equal to 0"},
		{"cohort:pool:fairSharing.weight=1n", fairOn, "Cohort pool: fairSharing.weight: Kueue would refuse the Cohort pool: spec.fairSharing: Invalid value: When not 0, weight must be > 10e-9"},
		{"clusterqueue:*:queueingStrategy=LIFO", "none", `ClusterQueue *: queueingStrategy: Kueue would refuse the ClusterQueue team-a: spec.queueingStrategy: Unsupported value: "LIFO"`},
		{"clusterqueue:*:reclaimWithinCohort=Never", "none", "Kueue would refuse the ClusterQueue team-b: spec.preemption: Invalid value: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"},
	}
	for _, tt := range apply {
		base := loadKueue(t, kueueTeams)
		if tt.base != "none" {
			base = loadFair(t, tt.base)
		}
		before := fmt.Sprintf("%+v %+v", *base.Kueue, base.Kueue.Configuration)
		v, err := whatif.ParseVariant(tt.spec)
		require.NoError(t, err, tt.spec)
		_, err = v.Apply(base)
		require.Error(t, err, tt.spec)
		assert.True(t, errors.Is(err, whatif.ErrChange), tt.spec)
		assert.Contains(t, err.Error(), tt.want, tt.spec)
		assert.Equal(t, before, fmt.Sprintf("%+v %+v", *base.Kueue, base.Kueue.Configuration), "the base's objects are not changed: %s", tt.spec)
	}
	plain, err := scenario.Parse("p.yaml", []byte("nodes: [{name: n, allocatable: {cpu: \"1\"}}]\n"))
	require.NoError(t, err)
	_, err = whatif.Variant{Changes: []whatif.Change{whatif.KueueFairSharing{On: true}}}.Apply(plain)
	assert.ErrorContains(t, err, "the scenario has no Kueue objects")
}

// Turning fair sharing off on a scenario without a Configuration changes
// nothing: the Configuration the change makes stands for none, and the
// run's report equals the base's.
func TestKueueFairSharingNoOp(t *testing.T) {
	sc := loadKueue(t, fourJobs())
	base, err := whatif.Run(sc, nil)
	require.NoError(t, err)
	off, err := whatif.ParseVariant("fairsharing:off")
	require.NoError(t, err)
	vsc, err := off.Apply(sc)
	require.NoError(t, err)
	rep, err := whatif.Run(vsc, nil)
	require.NoError(t, err)
	rep.Name = base.Name
	a, _ := base.JSON(false)
	b, _ := rep.JSON(false)
	assert.Equal(t, string(a), string(b), "the Configuration made stands for none")
}

var update = flag.Bool("update", false, "rewrite testdata golden files")

// Classic preemption against fair sharing on testdata/fairsharing, the
// comparison's table and JSON kept as golden files. By hand: classic
// preemption gives team-a its 4 nominal cores from team-c at 10m, its
// other two wait for team-c's pods to end at 1h; fair sharing lets
// team-a take 6 of team-c's 8 (its share after, 2 borrowed, stays under
// team-c's). At 20m team-b reclaims its 2: from team-c under classic
// preemption (the one borrowing); under fair sharing one from team-c and
// one from team-a, which then borrow 2 cores each, the same share.
func TestCompareFairSharingGolden(t *testing.T) {
	var files []scenario.File
	for _, name := range []string{"kueue.yaml", "work.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "fairsharing", name))
		require.NoError(t, err)
		files = append(files, scenario.File{Name: name, Data: data})
	}
	sc, err := scenario.ParseFiles(files)
	require.NoError(t, err)
	var variants []whatif.Variant
	for _, spec := range []string{"fairsharing:off", "fairsharing:on"} {
		v, err := whatif.ParseVariant(spec)
		require.NoError(t, err)
		variants = append(variants, v)
	}
	c, err := whatif.Compare(sc, variants, whatif.Options{Workers: 1})
	require.NoError(t, err)
	off, on := c.Variants[0].Summary.Kueue, c.Variants[1].Summary.Kueue
	assert.Equal(t, []whatif.KueuePreemptions{{Preemptor: "team-a", Victim: "team-c", Count: 4}, {Preemptor: "team-b", Victim: "team-c", Count: 2}}, off.Preemptions)
	assert.Equal(t, 6, on.ClusterQueues[0].Preempting, "fair sharing: team-a takes 6")
	assert.InDelta(t, 0, on.ClusterQueues[0].TimeToAdmission.Max, 1)
	var table bytes.Buffer
	require.NoError(t, c.WriteTable(&table))
	js, err := c.JSON()
	require.NoError(t, err)
	for name, got := range map[string][]byte{"compare.txt": table.Bytes(), "compare.json": js} {
		path := filepath.Join("testdata", "fairsharing", name)
		if *update {
			require.NoError(t, os.WriteFile(path, got, 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s (go test -update rewrites it)", name)
	}
}
