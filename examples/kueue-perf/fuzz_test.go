package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gangsim/gangsim/scenario"
)

// FuzzParseConfig: the reader never panics, and a configuration it takes
// gives folders the scenario reader takes too, as pods and as Workloads
// (or, for two cohort sets that make the same ClusterQueue, a clear
// error).
func FuzzParseConfig(f *testing.F) {
	for _, path := range []string{"testdata/tiny.yaml", "configs/baseline.yaml", "testdata/tiny-tas.yaml"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 2, nominalQuota: 1.5, workloadsSets: [{count: 3, creationIntervalMs: 0, workloads: [{className: w, runtimeMs: 1, priority: -3, request: 100m}]}]}]}]`))
	f.Add([]byte(`cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, nominalQuota: 0, borrowingLimit: 0}]}]`))
	// gangsim's extensions: fair sharing, a parent cohort, weights
	f.Add([]byte("fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n" +
		`cohorts: [{className: c, count: 2, parentName: top, fairWeight: 3, queuesSets: [{className: q, count: 1, nominalQuota: 1, fairWeight: 250m, workloadsSets: [{count: 2, creationIntervalMs: 5, workloads: [{className: w, runtimeMs: 1, request: 1}]}]}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig("fuzz.yaml", data)
		if err != nil {
			return
		}
		queues, workloads := 0, 0
		for _, cs := range c.Cohorts {
			for _, qs := range cs.QueuesSets {
				queues += cs.Count * qs.Count
				for _, ws := range qs.WorkloadsSets {
					for ti := range ws.Workloads {
						workloads += cs.Count * qs.Count * ws.Count * podsOf(&ws.Workloads[ti])
					}
				}
			}
		}
		nodes := 1
		if c.Topology != nil {
			for _, l := range c.Topology.Levels {
				nodes *= l.Count
			}
		}
		if queues > 50 || workloads > 500 || nodes > 200 {
			return // large: the loader's speed is not what this fuzzes
		}
		p, err := makePlan(c, 2)
		if err != nil {
			return
		}
		var k, s bytes.Buffer
		if err := p.writeKueue(&k); err != nil {
			t.Fatal(err)
		}
		if err := p.writeScenario(&s); err != nil {
			t.Fatal(err)
		}
		if _, err := scenario.ParseFiles([]scenario.File{
			{Name: filepath.Join("out", kueueFile), Data: k.Bytes()},
			{Name: filepath.Join("out", scenarioFile), Data: s.Bytes()},
		}); err != nil {
			t.Fatalf("a configuration taken gives a folder the scenario reader refuses: %v\n%s", err, data)
		}
		if c.Topology != nil {
			return // written as pods only
		}
		var cl, w bytes.Buffer
		if err := p.writeCluster(&cl); err != nil {
			t.Fatal(err)
		}
		if err := p.writeWorkloads(&w); err != nil {
			t.Fatal(err)
		}
		if _, err := scenario.ParseFiles([]scenario.File{
			{Name: filepath.Join("out", clusterFile), Data: cl.Bytes()},
			{Name: filepath.Join("out", kueueFile), Data: k.Bytes()},
			{Name: filepath.Join("out", scenarioFile), Data: w.Bytes()},
		}); err != nil {
			t.Fatalf("a configuration taken gives Workloads the scenario reader refuses: %v\n%s", err, data)
		}
	})
}
