package metrics

import (
	"math"
	"slices"
	"time"

	"github.com/gangsim/gangsim/autoscaler"
)

// AutoscalingSummary is what the cluster autoscaler did over a run: each
// node group's nodes, node-hours and cost, the decisions counted, and
// every pod's wait split into waiting for a node (a scale-up it triggered
// was on the way) and waiting for room (all the rest of its wait).
type AutoscalingSummary struct {
	Groups []NodeGroupSummary // in the scenario's order
	// NodeHours and Cost are the groups' totals.
	NodeHours, Cost float64
	// ScaleUps, ScaleDowns, NoScaleUps and Timeouts count the decisions
	// (a ScaleUp may request several nodes; a ScaleDown removes one).
	ScaleUps, ScaleDowns, NoScaleUps, Timeouts int
	// WaitForNode and WaitForRoom summarise the two parts of the waits of
	// every pod the autoscaler saw, bound or not (an unbound pod's wait
	// runs to the end); PodsWaitingForNode counts the pods with some wait
	// for a node.
	WaitForNode, WaitForRoom Durations
	PodsWaitingForNode       int
}

// NodeGroupSummary is one node group over a run: the nodes it added and
// removed, the most it had at once (ready or on the way) and at the end,
// the node-hours it was billed and their cost at its price per hour.
type NodeGroupSummary struct {
	Name                   string
	PricePerHour           float64
	Min, Max               int
	NodesAdded             int
	NodesRemoved           int
	MaxNodes               int
	NodesAtEnd             int // ready or on the way
	NodeHours, Cost        float64
	PeakReady, PeakPending int // the most ready, and the most on the way
}

// The series AddAutoscaling adds, per group ("group=gpu nodes").
const (
	SeriesGroupNodes        = "nodes"              // ready nodes of the group
	SeriesGroupProvisioning = "provisioning nodes" // nodes requested, not ready yet
)

// AddAutoscaling adds the autoscaler's record of the run to the report:
// the summary (Autoscaling) and, per group, the series of its ready nodes
// and of its nodes on the way (metric "nodes" and "provisioning nodes",
// domain "group=NAME"), which the CSV and the plots show. groups and
// summaries are in the same order (the scenario's); events are the
// autoscaler's decisions in order; waits every pod's wait split.
func (rep *Report) AddAutoscaling(groups []autoscaler.NodeGroup, summaries []autoscaler.GroupSummary, events []autoscaler.Event, waits []autoscaler.PodWait) {
	if len(groups) == 0 {
		return
	}
	sum := &AutoscalingSummary{}
	counts := countNodes(groups, events, rep.Start)
	for i, g := range groups {
		gs := NodeGroupSummary{Name: g.Name, PricePerHour: g.PricePerHour, Min: g.Min, Max: g.Max}
		if i < len(summaries) {
			s := summaries[i]
			gs.NodesAdded, gs.NodesRemoved, gs.MaxNodes, gs.NodeHours, gs.Cost = s.NodesAdded, s.NodesRemoved, s.MaxNodes, s.NodeHours, s.Cost
		}
		c := counts[i]
		gs.NodesAtEnd = c.ready.cur + c.pending.cur
		gs.PeakReady, gs.PeakPending = c.ready.peak, c.pending.peak
		sum.NodeHours += gs.NodeHours
		sum.Cost = min(sum.Cost+gs.Cost, math.MaxFloat64) // each is finite; their sum stays so
		sum.Groups = append(sum.Groups, gs)
		domain := "group=" + g.Name
		rep.Series = append(rep.Series,
			Series{Name: domain + " " + SeriesGroupNodes, Metric: SeriesGroupNodes, Domain: domain, Unit: "nodes", Points: c.ready.pts},
			Series{Name: domain + " " + SeriesGroupProvisioning, Metric: SeriesGroupProvisioning, Domain: domain, Unit: "nodes", Points: c.pending.pts})
	}
	for _, e := range events {
		switch e.Kind {
		case autoscaler.EventScaleUp:
			sum.ScaleUps++
		case autoscaler.EventScaleDown:
			sum.ScaleDowns++
		case autoscaler.EventNoScaleUp:
			sum.NoScaleUps++
		case autoscaler.EventScaleUpTimeout:
			sum.Timeouts++
		}
	}
	forNode, forRoom := make([]time.Duration, 0, len(waits)), make([]time.Duration, 0, len(waits))
	for _, w := range waits {
		forNode, forRoom = append(forNode, w.ForNode), append(forRoom, w.ForRoom)
		if w.ForNode > 0 {
			sum.PodsWaitingForNode++
		}
	}
	sum.WaitForNode, sum.WaitForRoom = Summarize(forNode), Summarize(forRoom)
	rep.Autoscaling = sum
}

// groupCounts are one group's ready nodes and nodes on the way over time.
type groupCounts struct{ ready, pending countTrack }

// countTrack is a count as steps, with its peak.
type countTrack struct {
	cur, peak int
	pts       []Point
}

// set records the count at t (one point per instant: the last value).
func (c *countTrack) set(t time.Duration, v int) {
	c.cur, c.peak = v, max(c.peak, v)
	if n := len(c.pts); n > 0 && c.pts[n-1].At == t {
		c.pts[n-1].Value = float64(v)
		return
	}
	if n := len(c.pts); n > 0 && c.pts[n-1].Value == float64(v) {
		return
	}
	c.pts = append(c.pts, Point{At: t, Value: float64(v)})
}

// nodePhase is where a node of a group is in its life.
type nodePhase uint8

const (
	nodeGone nodePhase = iota
	nodeProvisioning
	nodeReady
)

// countNodes follows each group's nodes through the decisions: requested
// by a ScaleUp, ready at NodeReady, gone at ScaleDown or, still on the
// way, at ScaleUpTimeout. Every group starts at 0 at start.
func countNodes(groups []autoscaler.NodeGroup, events []autoscaler.Event, start time.Duration) []groupCounts {
	out := make([]groupCounts, len(groups))
	index := make(map[string]int, len(groups))
	for i, g := range groups {
		index[g.Name] = i
		out[i].ready.set(start, 0)
		out[i].pending.set(start, 0)
	}
	phase := map[string]nodePhase{}
	for _, e := range events {
		i, ok := index[e.Group]
		if !ok {
			continue
		}
		c := &out[i]
		for _, n := range e.Nodes {
			was, now := phase[n], phase[n]
			switch e.Kind {
			case autoscaler.EventScaleUp:
				if was == nodeGone {
					now = nodeProvisioning
				}
			case autoscaler.EventNodeReady:
				now = nodeReady
			case autoscaler.EventScaleDown:
				now = nodeGone
			case autoscaler.EventScaleUpTimeout:
				if was == nodeProvisioning {
					now = nodeGone
				}
			}
			if now == was {
				continue
			}
			phase[n] = now
			c.ready.set(e.At, c.ready.cur+delta(was, now, nodeReady))
			c.pending.set(e.At, c.pending.cur+delta(was, now, nodeProvisioning))
		}
	}
	return out
}

// delta is how a move from was to now changes the count of nodes in p.
func delta(was, now, p nodePhase) int {
	return boolInt(now == p) - boolInt(was == p)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// GroupNodesSeries returns the report's series of a metric of the node
// groups (SeriesGroupNodes or SeriesGroupProvisioning), in group order.
func (rep *Report) GroupNodesSeries(metric string) []*Series {
	var out []*Series
	for i := range rep.Series {
		s := &rep.Series[i]
		if s.Metric == metric && len(s.Domain) > len("group=") && s.Domain[:len("group=")] == "group=" {
			out = append(out, s)
		}
	}
	return slices.Clip(out)
}

// The JSON form of the autoscaling summary: durations in seconds.

type jsonAutoscaling struct {
	Groups             []jsonNodeGroup `json:"nodeGroups"`
	NodeHours          float64         `json:"nodeHours"`
	Cost               float64         `json:"cost"`
	ScaleUps           int             `json:"scaleUps"`
	ScaleDowns         int             `json:"scaleDowns"`
	NoScaleUps         int             `json:"noScaleUps"`
	Timeouts           int             `json:"scaleUpTimeouts"`
	WaitForNode        jsonDurations   `json:"waitForNode"`
	WaitForRoom        jsonDurations   `json:"waitForRoom"`
	PodsWaitingForNode int             `json:"podsWaitingForNode"`
}

type jsonNodeGroup struct {
	Name         string  `json:"name"`
	PricePerHour float64 `json:"pricePerHour"`
	Min          int     `json:"min"`
	Max          int     `json:"max"`
	NodesAdded   int     `json:"nodesAdded"`
	NodesRemoved int     `json:"nodesRemoved"`
	MaxNodes     int     `json:"maxNodes"`
	NodesAtEnd   int     `json:"nodesAtEnd"`
	NodeHours    float64 `json:"nodeHours"`
	Cost         float64 `json:"cost"`
	PeakReady    int     `json:"peakReady"`
	PeakPending  int     `json:"peakProvisioning"`
}

func (a *AutoscalingSummary) json() *jsonAutoscaling {
	if a == nil {
		return nil
	}
	j := &jsonAutoscaling{Groups: []jsonNodeGroup{}, NodeHours: a.NodeHours, Cost: a.Cost, ScaleUps: a.ScaleUps, ScaleDowns: a.ScaleDowns,
		NoScaleUps: a.NoScaleUps, Timeouts: a.Timeouts, WaitForNode: a.WaitForNode.json(), WaitForRoom: a.WaitForRoom.json(),
		PodsWaitingForNode: a.PodsWaitingForNode}
	for _, g := range a.Groups {
		j.Groups = append(j.Groups, jsonNodeGroup(g))
	}
	return j
}

// autoscalingTable lists the node groups and the split of the waits;
// nothing without node groups.
func (rep *Report) autoscalingTable(p printer) {
	a := rep.Autoscaling
	if a == nil {
		return
	}
	p("NODE GROUP\tMIN..MAX\tADDED\tREMOVED\tMOST\tAT END\tNODE-HOURS\tCOST\n")
	for _, g := range a.Groups {
		p("%s\t%d..%d\t%d\t%d\t%d\t%d\t%s\t%s\n", g.Name, g.Min, g.Max, g.NodesAdded, g.NodesRemoved, g.MaxNodes, g.NodesAtEnd, num(g.NodeHours), num(g.Cost))
	}
	p("total\t\t\t\t\t\t%s\t%s\n", num(a.NodeHours), num(a.Cost))
	p("(%d scale-ups, %d scale-downs, %d scans found pending pods no group could help, %d requests not ready in time; node-hours from each request to removal or the end)\n\n",
		a.ScaleUps, a.ScaleDowns, a.NoScaleUps, a.Timeouts)
	p("WAIT SPLIT\tPODS\tMEAN\tP50\tP90\tP99\tMAX\n")
	for _, r := range []struct {
		label string
		d     Durations
	}{{"waiting for a node", a.WaitForNode}, {"waiting for room", a.WaitForRoom}} {
		d := r.d
		p("%s\t%d\t%v\t%v\t%v\t%v\t%v\n", r.label, d.Count, Round(d.Mean), Round(d.P50), Round(d.P90), Round(d.P99), Round(d.Max))
	}
	p("(every pod, pending ones to the end; %d pods waited for a node)\n\n", a.PodsWaitingForNode)
}
