package main

import (
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario"
)

// -measure DIR runs a folder this tool wrote and puts gangsim's figures
// beside Kueue's published ones: per ClusterQueue, the cpu its admitted
// Workloads held from each admission to the release of their quota (or
// their end); per Workload, its creation and latest admission; measure
// computes Kueue's usage and mean times to admission from them.

// queueClass takes the class from a ClusterQueue's name,
// "<class>-<set>-<index>-<cohort>".
var queueClass = regexp.MustCompile(`^(.*)-[0-9]+-[0-9]+-`)

// measureRun loads and runs the folder dir and prints the comparison with
// the built-in configuration name, and how long the run took.
func measureRun(w io.Writer, name, dir string) error {
	start := time.Now()
	sc, err := scenario.LoadFiles([]string{dir})
	if err != nil {
		return err
	}
	res, err := sc.Run()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	m := measure(recordsOf(sc, res))
	if err := writeCompare(w, name, &m); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ngangsim: %d workloads, %d ClusterQueues; loaded and run in %s\n", len(res.Workloads), len(sc.Kueue.ClusterQueues), elapsed.Round(time.Millisecond))
	return nil
}

// recordsOf reads a run's ClusterQueues, holdings and Workloads.
func recordsOf(sc *scenario.Scenario, res *scenario.Result) ([]queueRecord, []holding, []workloadRecord) {
	var queues []queueRecord
	for _, q := range sc.Kueue.ClusterQueues {
		r := queueRecord{name: q.Name, class: q.Name}
		if m := queueClass.FindStringSubmatch(q.Name); m != nil {
			r.class = m[1]
		}
		if len(q.ResourceGroups) > 0 && len(q.ResourceGroups[0].Flavors) > 0 {
			for _, rq := range q.ResourceGroups[0].Flavors[0].Resources {
				if rq.Name == cluster.ResourceCPU {
					r.nominal = rq.NominalQuota
				}
			}
		}
		queues = append(queues, r)
	}
	// a Workload's class and cpu: its pods' (a pod alone, or a group's)
	class, milli := map[string]string{}, map[string]int64{}
	for _, p := range sc.Pods {
		owner := "Pod " + p.Pod.Key().Display()
		if g := p.Pod.Labels[podGroupLabel]; g != "" {
			owner = "Pod group " + cluster.MakePodKey(p.Pod.Namespace, g).Display()
		}
		class[owner] = p.Pod.Labels[classLabel]
		milli[owner] += p.Pod.Requests.MilliCPU
	}
	byName := map[string]string{} // Workload name -> owner
	created := map[string]time.Duration{}
	for _, w := range res.Workloads {
		if w.Kind == "Workload" {
			byName[w.Name] = w.Owner
			created[w.Name], _ = time.ParseDuration(w.CreatedAt)
		}
	}
	var holdings []holding
	open := map[string]holding{}
	admitted := map[string]time.Duration{}
	for _, e := range res.KueueEvents {
		at, _ := time.ParseDuration(e.At)
		switch e.Kind {
		case "QuotaReserved":
			open[e.Workload] = holding{queue: e.ClusterQueue, cpu: milli[byName[e.Workload]], from: at}
			admitted[e.Workload] = at
		case "QuotaReleased", "Finished":
			if h, ok := open[e.Workload]; ok {
				h.to = at
				holdings = append(holdings, h)
				delete(open, e.Workload)
			}
		}
	}
	var workloads []workloadRecord
	for _, w := range res.Workloads {
		if w.Kind != "Workload" {
			continue
		}
		at, ok := admitted[w.Name]
		workloads = append(workloads, workloadRecord{class: class[w.Owner], created: created[w.Name], admitted: at, ok: ok})
	}
	return queues, holdings, workloads
}
