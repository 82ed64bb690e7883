package gangsim

import (
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
)

// Explanation says why a pod went where it went, or why it went nowhere:
// each filter plugin's rejections, and each feasible node's score, plugin
// by plugin, as the pod's last attempt saw them.
type Explanation struct {
	Pod  cluster.PodKey
	At   time.Duration // when the attempt ran
	Node string        // where the pod went; "" when it was not placed
	// Filtered breaks down the nodes the filters rejected, by plugin.
	Filtered []fw.PluginRejections
	// Scored is false when no scoring ran (a lone feasible node is taken
	// unscored; a pod that fit nowhere is not scored).
	Scored bool
	// Nodes are the feasible nodes with their scores, in the order the
	// filters found them.
	Nodes []NodeScore
}

// NodeScore is one node's total and each plugin's part of it.
type NodeScore struct {
	Node    string
	Total   int64
	Plugins []placement.PluginScore
}

// WithExplain asks for explanations of the given pods (Explanation): every
// attempt to place them records the filters' verdicts and each plugin's
// raw and normalised score on every feasible node. Explained pods are
// scored plugin by plugin, without the memo, so ask only for the pods you
// want to see.
func WithExplain(pods ...cluster.PodKey) Option {
	return func(s *Scheduler) {
		if s.explainer.want == nil {
			s.explainer.want = map[cluster.PodKey]bool{}
		}
		for _, p := range pods {
			s.explainer.want[p] = true
		}
	}
}

// Explanation returns the latest explanation of a pod asked for with
// WithExplain, once it has been attempted: a copy, the caller's to change.
func (s *Scheduler) Explanation(key cluster.PodKey) (Explanation, bool) {
	if s == nil {
		return Explanation{}, false
	}
	ex, ok := s.explainer.done[key]
	if !ok {
		return Explanation{}, false
	}
	ex.Filtered = slices.Clone(ex.Filtered)
	for i := range ex.Filtered {
		ex.Filtered[i].Reasons = slices.Clone(ex.Filtered[i].Reasons)
	}
	ex.Nodes = slices.Clone(ex.Nodes)
	for i := range ex.Nodes {
		ex.Nodes[i].Plugins = slices.Clone(ex.Nodes[i].Plugins)
	}
	return ex, true
}

// Diagnosis breaks down the last failed attempt of a pending pod by filter
// plugin: how many nodes each rejected and why. It is nil for a pod whose
// last attempt was not a filter failure (or that is not pending).
func (s *Scheduler) Diagnosis(key cluster.PodKey) []fw.PluginRejections {
	if s == nil {
		return nil
	}
	r := s.tracker.record(key)
	if r == nil || r.phase != PhasePending || r.lastFit == nil {
		return nil
	}
	return r.lastFit.Diagnosis()
}

// explainer records score explanations for the pods asked about.
type explainer struct {
	want  map[cluster.PodKey]bool
	cycle []placement.ScoreExplanation // the current cycle's, in order
	done  map[cluster.PodKey]Explanation
}

// wire makes a profile's pod pipeline report to the explainer.
func (e *explainer) wire(ps *placement.PodScheduler) {
	if len(e.want) == 0 {
		return
	}
	ps.Explain = func(p *cluster.PodInfo) bool { return e.want[p.Key()] }
	ps.Explained = func(x placement.ScoreExplanation) { e.cycle = append(e.cycle, x) }
}

// start forgets the previous cycle's explanations.
func (e *explainer) start() { e.cycle = e.cycle[:0] }

// finish records pod r's explanation for the cycle: the one of the
// placement that put it on node (a group's pods are scored in every
// candidate placement), or its last one when it was not placed.
func (e *explainer) finish(s *Scheduler, r *podRecord, node string) {
	if len(e.want) == 0 {
		return // most runs want none: the pod's key is not even read (a cache miss a failed pod)
	}
	key := r.info.Key()
	if !e.want[key] {
		return
	}
	ex := Explanation{Pod: key, At: s.now, Node: node}
	for i := len(e.cycle) - 1; i >= 0; i-- {
		x := &e.cycle[i]
		if x.Pod != key || node != "" && s.snap.Node(x.Chosen).Name() != node {
			continue
		}
		ex.Scored = x.Scored
		for _, n := range x.Nodes {
			ex.Nodes = append(ex.Nodes, NodeScore{Node: s.snap.Node(n.Node).Name(), Total: n.Total, Plugins: n.Plugins})
		}
		fe := fw.FitError{Statuses: x.Rejected}
		ex.Filtered = fe.Diagnosis()
		break
	}
	if node == "" && r.lastFit != nil {
		ex.Filtered = r.lastFit.Diagnosis()
	}
	if e.done == nil {
		e.done = map[cluster.PodKey]Explanation{}
	}
	e.done[key] = ex
}
