package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/autoscaler"
)

// autoscalerStream is the second word of the autoscaler's PCG, so that its
// draws differ from the workloads' streams with the same seed.
const autoscalerStream = 0x6175746f7363616c // "autoscal"

// newScaler makes the scenario's autoscaler; nil without node groups.
func (sc *Scenario) newScaler() (*scaler, error) {
	if len(sc.NodeGroups) == 0 {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(sc.AutoscalerSeed, autoscalerStream))
	a, err := autoscaler.New(sc.Autoscaler, sc.NodeGroups, rng)
	if err != nil {
		return nil, sc.runError(sc.scalerSource(), err)
	}
	return &scaler{a: a, last: -1, groups: sc.NodeGroups, interval: sc.Autoscaler.WithDefaults().ScanInterval, tap: sc.autoscalerTap}, nil
}

// scalerSource is where the autoscaler's configuration came from: its
// section, else the first node group.
func (sc *Scenario) scalerSource() Source {
	if sc.autoscalerSource.Path != "" {
		return sc.autoscalerSource
	}
	if len(sc.groupSources) > 0 {
		return sc.groupSources[0]
	}
	return Source{Path: "nodeGroups"}
}

// start creates the groups' min nodes at time 0.
func (as *scaler) start(sc *Scenario, s *gangsim.Scheduler) error {
	if as == nil {
		return nil
	}
	if err := as.a.Start(s); err != nil {
		return sc.runError(sc.scalerSource(), err)
	}
	as.flush()
	return nil
}

// addResult adds what the node groups did to a result: each group's
// summary, in input order, and the autoscaler's decisions. A NoScaleUp is
// listed when it first happens and when its reason changes, not at every
// scan that finds the same pods no group can help.
func (as *scaler) addResult(res *Result, end time.Duration) {
	if as == nil {
		return
	}
	rec := &Autoscaling{Groups: as.groups, Summaries: as.a.Groups(end), Events: as.a.Events(), Waits: as.a.PodWaits(end), End: end}
	res.Autoscaling = rec
	for _, g := range rec.Summaries {
		res.NodeGroups = append(res.NodeGroups, NodeGroupResult{Name: g.Name, NodesAdded: g.NodesAdded, NodesRemoved: g.NodesRemoved,
			MaxNodes: g.MaxNodes, NodeHours: round3(g.NodeHours), Cost: round3(g.Cost)})
	}
	res.Autoscaler = make([]AutoscalerEventResult, 0)
	said := map[string]string{} // the pods of a NoScaleUp listed: its reason
	for _, e := range rec.Events {
		if e.Kind == autoscaler.EventNoScaleUp {
			key := fmt.Sprint(e.Pods)
			if r, ok := said[key]; ok && r == e.Reason {
				continue // the same pods for the same reason, scan after scan
			}
			said[key] = e.Reason
		}
		res.Autoscaler = append(res.Autoscaler, autoscalerEvent(e))
	}
}

// round3 rounds to three decimals, so that results read well and do not
// show the noise of floating-point sums.
// Values past 2^53 have no fraction to round, and v*1000 could overflow.
func round3(v float64) float64 {
	if math.Abs(v) >= 1<<53 || math.IsNaN(v) {
		return v
	}
	return math.Round(v*1000) / 1000
}

// autoscalerEvent is a decision as the result lists it.
func autoscalerEvent(e autoscaler.Event) AutoscalerEventResult {
	out := AutoscalerEventResult{At: e.At.String(), Kind: string(e.Kind), Group: e.Group, Nodes: e.Nodes, Reason: e.Reason}
	for _, p := range e.Pods {
		out.Pods = append(out.Pods, p.Display())
	}
	return out
}

// AutoscalerLine renders a decision as one line of a transcript, in the
// manner of gangsim.Event.String: the time, the kind, then the fields it
// has ("4m10s ScaleUp group=gpu nodes=[gpu-1 gpu-2] pods=[a b]").
func AutoscalerLine(e autoscaler.Event) string {
	r := autoscalerEvent(e)
	line := r.At + " " + r.Kind
	if r.Group != "" {
		line += " group=" + r.Group
	}
	if len(r.Nodes) > 0 {
		line += fmt.Sprintf(" nodes=%v", r.Nodes)
	}
	if len(r.Pods) > 0 {
		line += fmt.Sprintf(" pods=%v", r.Pods)
	}
	if r.Reason != "" {
		line += " reason=" + strconv.Quote(r.Reason)
	}
	return line
}

// flush passes the decisions made since the last flush to the tap.
func (as *scaler) flush() {
	if as.tap == nil {
		return
	}
	evs := as.a.Events()
	for _, e := range evs[as.tapped:] {
		as.tap(e)
	}
	as.tapped = len(evs)
}
