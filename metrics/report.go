package metrics

import (
	"cmp"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/gangsim/gangsim/cluster"
)

// Report is what a run came to: summaries and the time series behind
// them. It is a plain value; JSON, WriteCSV and WriteTable render it.
type Report struct {
	// Name names the run (a scenario file, a variant).
	Name string
	// Start and End bound the simulated time the report covers; time
	// averages are over [Start, End].
	Start, End time.Duration
	// Nodes is the number of nodes in the cluster at End.
	Nodes int
	// Resources summarises each resource cluster-wide: cpu, memory, the
	// extended resources by name, pods.
	Resources []ResourceSummary
	// Domains summarises each resource in each topology domain, by key,
	// value and resource.
	Domains []DomainSummary
	// Devices summarises the nodes' devices by class and by model, and
	// DeviceFragmentation each class's fragmentation; both are empty
	// when no node has devices (or the Recorder has no DeviceSource).
	Devices             []DeviceSummary
	DeviceFragmentation []DeviceFragmentation
	Pods                PodSummary
	Groups              GroupSummary
	Preemptions         PreemptionSummary
	Unschedulable       []ReasonSummary // most attempts first
	// Series are the step functions the summaries come from.
	Series []Series
	// Waits lists every scheduled pod's wait, in the order they were first
	// bound.
	Waits []PodWait
	// Pending are the pods pending at End with why, in name order: the
	// scheduler's reason and an explanation from the nodes at End.
	Pending []PendingPod
	// PendingPods names the pods pending at End, in name order.
	PendingPods []string
	// Warnings are what the inputs hold that the simulation does not
	// model, as the loader warned.
	Warnings []string
	// Notices say how to read the figures before anything else: what
	// they leave out (workloads the inputs hold that were skipped) or
	// what they cannot mean (waits, when no pod ever ends). The table
	// prints them under its title, the JSON as notices, the HTML page at
	// its top.
	Notices []string
	// Skipped are the objects of the inputs that make pods the simulation
	// does not read, by kind: their pods are in none of the figures.
	Skipped []SkippedWorkload
	// Autoscaling is what the cluster autoscaler did (AddAutoscaling);
	// nil without node groups.
	Autoscaling *AutoscalingSummary
	// Kueue is what Kueue did, per ClusterQueue and LocalQueue
	// (AddKueue); nil without Kueue.
	Kueue *KueueSummary
}

// SkippedWorkload is a kind of object of the inputs that makes pods and
// was skipped: how many objects, the pods they would make as far as the
// objects say, and how many do not say.
type SkippedWorkload struct {
	Kind      string
	Objects   int
	Pods      int
	Uncounted int
	First     string
}

// PodWait is one pod's wait from its arrival to its first binding.
type PodWait struct {
	Pod      string // "name", or "namespace/name" outside the default namespace
	Priority int32
	Arrived  time.Duration
	Wait     time.Duration
}

// ResourceSummary is one resource over the run, in its Unit. Capacity,
// Allocated and Fragmented are time averages; Utilization is the
// allocation integral over the capacity integral (0 without capacity).
// A report of one instant (Start == End, as for a cluster dump with no
// pod ending) has the values at that instant, and Utilization is their
// ratio.
type ResourceSummary struct {
	Resource       cluster.ResourceName
	Unit           string
	Capacity       float64
	Allocated      float64
	AllocatedPeak  float64
	AllocatedHours float64 // the allocation integral, in Unit-hours
	Utilization    float64
	Fragmented     float64
	FragmentedPeak float64
}

// DomainSummary is one resource in one topology domain (Key=Value).
type DomainSummary struct {
	Key, Value    string
	Resource      cluster.ResourceName
	Unit          string
	Capacity      float64
	Allocated     float64
	AllocatedPeak float64
	Utilization   float64
}

// PodSummary counts pods and sums up their waits.
type PodSummary struct {
	Arrived        int // every pod seen
	ArrivedRunning int // arrived with their node: they never waited
	Placed         int // bound at least once (arrived running included)
	Unplaced       int // never bound and not deleted
	PendingAtEnd   int // waiting at End, evicted pods waiting again included
	Succeeded      int
	Evicted        int // evictions (a pod evicted twice counts twice)
	// Rejected counts the pods admission refused to create (a
	// ResourceQuota, a LimitRange's bounds) and that never arrived.
	Rejected int
	// Wait is from arrival to first binding, over the pods that were
	// scheduled; WaitByPriority splits it by pod priority, highest first,
	// and WaitByWorkload by workload (see Workload), in name order.
	Wait           Durations
	WaitByPriority []PriorityWait
	WaitByWorkload []WorkloadWait
}

// PriorityWait is the wait of the pods of one priority.
type PriorityWait struct {
	Priority int32
	Wait     Durations
}

// GroupSummary counts PodGroups and sums up their time to schedule: from
// the arrival of a group's first pod to the first binding of any.
type GroupSummary struct {
	Arrived        int
	Placed         int
	Unplaced       int
	TimeToSchedule Durations
}

// Durations summarises a sample of durations: its size, mean and
// empirical quantiles (the smallest sample at or above the given fraction
// of the samples, as gonum's stat.Empirical), all 0 for an empty sample.
type Durations struct {
	Count              int
	Mean               time.Duration
	P50, P90, P99, Max time.Duration
}

// PreemptionSummary counts preemptions (one preemptor's evictions in one
// cycle) and their victims.
type PreemptionSummary struct {
	Preemptions      int
	Victims          int
	BudgetViolations int
	// ByPriority counts preemptions by the preemptor's priority and
	// victims by their own, highest priority first.
	ByPriority []PriorityCount
}

// PriorityCount is one priority's preemptions and victims.
type PriorityCount struct {
	Priority    int32
	Preemptions int
	Victims     int
}

// ReasonSummary is one unschedulable reason (see Reasons): how many
// failed attempts gave it and to how many distinct pods.
type ReasonSummary struct {
	Reason   string
	Attempts int
	Pods     int
}

// Series is one quantity over time, as steps: each point's value holds
// from its time until the next point's, the last until the report's End.
type Series struct {
	Name string // "allocated cpu", "rack=r1 allocated cpu", "pending pods", "class=gpu allocated devices"
	// Metric is capacity, allocated, fragmented or pending for resources;
	// devices, allocated devices, allocated device capacity, device
	// fragmentation or fragmented devices for devices.
	Metric   string
	Domain   string // "rack=r1", or a device group "class=gpu", "model=A100"; "" cluster-wide
	Resource cluster.ResourceName
	Unit     string
	Points   []Point
}

// Point is a step of a Series.
type Point struct {
	At    time.Duration
	Value float64
}

// Report returns the report of the stream so far, ending at the last
// event's time.
func (r *Recorder) Report() *Report { return r.ReportUntil(r.now) }

// ReportUntil returns the report of the stream so far over [start, end];
// an end before the last event is taken as the last event's time. The
// Recorder may go on observing afterwards.
func (r *Recorder) ReportUntil(end time.Duration) *Report {
	r.flush()
	end = max(end, r.now)
	rep := &Report{Start: r.start, End: end, Nodes: len(r.nodes)}
	r.resourceSummaries(rep)
	r.domainSummaries(rep)
	r.deviceSummaries(rep)
	r.podSummary(rep)
	r.groupSummary(rep)
	r.preemptionSummary(rep)
	r.reasonSummaries(rep)
	return rep
}

// resourceSummaries adds the cluster-wide summaries and series.
func (r *Recorder) resourceSummaries(rep *Report) {
	for _, i := range r.res.order() {
		name := r.res.names[i]
		unit, scale := Unit(name)
		capa := r.capacity.get(i).stats(rep.Start, rep.End)
		alloc := r.allocated.get(i).stats(rep.Start, rep.End)
		frag := r.frag.total.get(i).stats(rep.Start, rep.End)
		rep.Resources = append(rep.Resources, ResourceSummary{
			Resource: name, Unit: unit, Capacity: capa.mean / scale, Allocated: alloc.mean / scale,
			AllocatedPeak: float64(alloc.peak) / scale, AllocatedHours: alloc.integral / scale / 3600,
			Utilization: share(alloc, capa, 1), Fragmented: frag.mean / scale, FragmentedPeak: float64(frag.peak) / scale,
		})
		for _, m := range []struct {
			metric string
			t      *track
		}{{"capacity", r.capacity.get(i)}, {"allocated", r.allocated.get(i)}, {"fragmented", r.frag.total.get(i)}} {
			rep.Series = append(rep.Series, series(m.metric, "", name, m.t))
		}
	}
	rep.Series = append(rep.Series,
		Series{Name: "pending pods", Metric: "pending", Unit: "pods", Points: points(&r.pendingPods, 1)},
		Series{Name: "pending groups", Metric: "pending", Unit: "groups", Points: points(&r.pendingGroups, 1)})
}

// domainSummaries adds each domain's summaries and series, by key (in
// the order of Options.DomainKeys), value and resource.
func (r *Recorder) domainSummaries(rep *Report) {
	ids := make([]domainID, 0, len(r.domains))
	for id := range r.domains {
		ids = append(ids, id)
	}
	keyRank := func(k string) int { return slices.Index(r.opts.DomainKeys, k) }
	slices.SortFunc(ids, func(a, b domainID) int {
		return cmp.Or(cmp.Compare(keyRank(a.key), keyRank(b.key)), cmp.Compare(a.value, b.value))
	})
	for _, id := range ids {
		d := r.domains[id]
		for _, i := range r.res.order() {
			name := r.res.names[i]
			unit, scale := Unit(name)
			capa := d.capacity.get(i).stats(rep.Start, rep.End)
			if capa.peak == 0 {
				continue // a resource the domain does not have
			}
			alloc := d.allocated.get(i).stats(rep.Start, rep.End)
			rep.Domains = append(rep.Domains, DomainSummary{Key: id.key, Value: id.value, Resource: name, Unit: unit,
				Capacity: capa.mean / scale, Allocated: alloc.mean / scale, AllocatedPeak: float64(alloc.peak) / scale,
				Utilization: share(alloc, capa, 1)})
			domain := id.key + "=" + id.value
			rep.Series = append(rep.Series, series("capacity", domain, name, d.capacity.get(i)), series("allocated", domain, name, d.allocated.get(i)))
		}
	}
}

// series converts a resource track.
func series(metric, domain string, name cluster.ResourceName, t *track) Series {
	unit, scale := Unit(name)
	full := metric + " " + string(name)
	if domain != "" {
		full = domain + " " + full
	}
	return Series{Name: full, Metric: metric, Domain: domain, Resource: name, Unit: unit, Points: points(t, scale)}
}

func points(t *track, scale float64) []Point {
	out := make([]Point, len(t.pts))
	for i, p := range t.pts {
		out[i] = Point{At: p.at, Value: float64(p.v) / scale}
	}
	return out
}

// share returns part's integral over scale times whole's: a time-weighted
// ratio. Over a report of one instant, where every integral is 0, it is
// the ratio of the values at that instant (a cluster dump read at time 0
// with 99 of 112 cores allocated is 88.4% utilised, not 0).
func share(part, whole stepStats, scale float64) float64 {
	if whole.integral > 0 {
		return part.integral / (scale * whole.integral)
	}
	return ratio(part.mean, scale*whole.mean)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func (r *Recorder) podSummary(rep *Report) {
	ps := &rep.Pods
	ps.Succeeded, ps.Evicted = r.succeeded, r.evicted
	for key := range r.rejected {
		if r.pods[key] == nil {
			ps.Rejected++
		}
	}
	for _, p := range r.pods {
		ps.Arrived++
		if p.running {
			ps.ArrivedRunning++
		}
		if p.bound {
			ps.Placed++
		} else if p.pending {
			ps.Unplaced++
		}
		if p.pending {
			ps.PendingAtEnd++
			rep.PendingPods = append(rep.PendingPods, p.info.Key().Display())
		}
	}
	slices.Sort(rep.PendingPods)
	rep.Pending = r.pendingDetails()
	all := make([]time.Duration, len(r.waits))
	byPrio := map[int32][]time.Duration{}
	for i, s := range r.waits {
		all[i] = s.wait
		rep.Waits = append(rep.Waits, PodWait{Pod: s.pod.Display(), Priority: s.priority, Arrived: s.arrived, Wait: s.wait})
		byPrio[s.priority] = append(byPrio[s.priority], s.wait)
	}
	ps.Wait = Summarize(all)
	for _, prio := range sortedDesc(byPrio) {
		ps.WaitByPriority = append(ps.WaitByPriority, PriorityWait{Priority: prio, Wait: Summarize(byPrio[prio])})
	}
	ps.WaitByWorkload = r.workloadWaits()
}

func (r *Recorder) groupSummary(rep *Report) {
	gs := &rep.Groups
	var tts []time.Duration
	for _, g := range r.groups {
		gs.Arrived++
		if g.bound {
			gs.Placed++
			tts = append(tts, g.firstBind-g.arrived)
		} else {
			gs.Unplaced++
		}
	}
	gs.TimeToSchedule = Summarize(tts)
}

func (r *Recorder) preemptionSummary(rep *Report) {
	ps := &rep.Preemptions
	ps.BudgetViolations = r.preempt.violations
	for _, prio := range sortedDesc(r.preempt.byPriority) {
		c := *r.preempt.byPriority[prio]
		ps.Preemptions += c.Preemptions
		ps.Victims += c.Victims
		ps.ByPriority = append(ps.ByPriority, c)
	}
}

func (r *Recorder) reasonSummaries(rep *Report) {
	for reason, c := range r.reasons {
		rep.Unschedulable = append(rep.Unschedulable, ReasonSummary{Reason: reason, Attempts: c.attempts, Pods: c.pods})
	}
	slices.SortFunc(rep.Unschedulable, func(a, b ReasonSummary) int {
		return cmp.Or(cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.Reason, b.Reason))
	})
}

// sortedDesc returns a map's priorities, highest first.
func sortedDesc[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b int32) int { return cmp.Compare(b, a) })
	return out
}

// Summarize returns the size, mean and empirical quantiles of a sample
// (computed with gonum's stat package; the sample is not modified).
func Summarize(sample []time.Duration) Durations {
	if len(sample) == 0 {
		return Durations{}
	}
	x := make([]float64, len(sample))
	for i, d := range sample {
		x[i] = float64(d)
	}
	slices.Sort(x)
	q := func(p float64) time.Duration { return time.Duration(stat.Quantile(p, stat.Empirical, x, nil)) }
	return Durations{Count: len(x), Mean: time.Duration(stat.Mean(x, nil)), P50: q(0.5), P90: q(0.9), P99: q(0.99), Max: time.Duration(x[len(x)-1])}
}
