package main

import (
	"cmp"
	"slices"
	"time"
)

// Kueue's measures computed from a run, as its recorder and checker
// compute them (doc.go, "How Kueue measures them"), for the moment a run
// with Kueue's admission gives each Workload's creation, admissions and
// releases of quota.

// queueRecord is a ClusterQueue: its class (the label
// kueue.x-k8s.io/performance-scheduler-class) and its nominal cpu quota in
// millicores.
type queueRecord struct {
	name, class string
	nominal     int64
}

// holding is a stretch of time in which a ClusterQueue's admitted
// Workload uses cpu millicores of its quota (borrowed or not): from its
// admission to its end or eviction.
type holding struct {
	queue    string
	cpu      int64
	from, to time.Duration
}

// workloadRecord is a Workload: its class, its creation and its latest
// admission (admitted false when it never was).
type workloadRecord struct {
	class    string
	created  time.Duration
	admitted time.Duration
	ok       bool
}

// measured are the figures of one run, in Kueue's units.
type measured struct {
	wall  time.Duration      // the run's span: the last quota released
	usage map[string]float64 // per ClusterQueue class, percent
	tta   map[string]int64   // per workload class, mean milliseconds to admission
}

// measure computes Kueue's figures. ClusterQueue usage of a class: the
// cpu × time its queues' Workloads held, over the sum of the queues'
// nominal quotas times the span from the first queue's creation (time 0)
// to the class's last release of quota. Mean time to admission of a
// class: the sum of (latest admission - creation) in whole milliseconds
// over its Workloads, a Workload never admitted counting 0, divided by
// their number, rounded down, as Kueue divides int64s.
func measure(queues []queueRecord, holdings []holding, workloads []workloadRecord) measured {
	m := measured{usage: map[string]float64{}, tta: map[string]int64{}}
	classOf := map[string]string{}
	nominal := map[string]int64{}
	for _, q := range queues {
		classOf[q.name] = q.class
		nominal[q.class] += q.nominal
	}
	used := map[string]float64{} // millicore-milliseconds
	last := map[string]time.Duration{}
	for _, h := range holdings {
		c := classOf[h.queue]
		used[c] += float64(h.cpu) * float64((h.to - h.from).Milliseconds())
		last[c] = max(last[c], h.to)
		m.wall = max(m.wall, h.to)
	}
	for _, c := range sortedKeys(nominal) {
		span := last[c].Milliseconds()
		if nominal[c] == 0 || span == 0 {
			continue // Kueue's checker calls such data invalid
		}
		m.usage[c] = used[c] * 100 / (float64(nominal[c]) * float64(span))
	}
	total := map[string]int64{}
	count := map[string]int64{}
	for _, w := range workloads {
		count[w.class]++
		if w.ok {
			total[w.class] += (w.admitted - w.created).Milliseconds()
		}
	}
	for c, n := range count {
		m.tta[c] = total[c] / n
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	return keys
}
