package gangsim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Result is the outcome of a scenario run, shaped as SCENARIO.md's output.
type Result struct {
	Pods      []PodResult      `json:"pods"`
	Evictions []EvictionResult `json:"evictions"`
	PodGroups []GroupResult    `json:"podGroups"`
	Stats     StatsResult      `json:"stats"`
}

// PodResult is a pod's final state. Reason is set for pending pods.
type PodResult struct {
	Name   string `json:"name"`
	Node   string `json:"node"`
	Phase  Phase  `json:"phase"`
	Reason string `json:"reason,omitempty"`
}

// EvictionResult is one eviction; By names the preemptor, At is the
// simulated time ("1m30s").
type EvictionResult struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
	By   string `json:"by"`
	At   string `json:"at"`
}

// GroupResult is a PodGroup with its status conditions.
type GroupResult struct {
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions"`
}

// Condition is a status condition.
type Condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// StatsResult counts what happened over the run.
type StatsResult struct {
	Scheduled     int    `json:"scheduled"`
	Pending       int    `json:"pending"`
	Evictions     int    `json:"evictions"`
	PDBViolations int    `json:"pdbViolations"`
	Cycles        int    `json:"cycles"`
	SimulatedTime string `json:"simulatedTime"`
}

// JSON renders the result as indented JSON with a final newline; the same
// result always gives the same bytes.
func (r *Result) JSON() ([]byte, error) {
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// action is something the runner does at a simulated time: a pod arrives
// or an event happens. At equal times events come first (the cluster
// changes, then new pods arrive), each kind in input order.
type action struct {
	at    time.Duration
	order int
	pod   *ScenarioPod
	event *ScenarioEvent
}

// Run simulates the scenario until nothing more can happen and returns
// the result. An error means the scenario asked for something impossible
// at run time (a pre-bound pod that does not fit its node, an event on a
// node that is gone).
func (sc *Scenario) Run() (*Result, error) {
	s, err := sc.NewScheduler()
	if err != nil {
		return nil, err
	}
	for _, a := range sc.timeline() {
		if err := s.RunUntil(a.at); err != nil {
			return nil, err
		}
		if err := sc.apply(s, a); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Name, err)
		}
	}
	if err := s.Run(); err != nil {
		return nil, err
	}
	return sc.result(s), nil
}

// NewScheduler returns a scheduler holding the scenario's configuration,
// priority classes, nodes and budgets, at time 0, with no pod added yet.
func (sc *Scenario) NewScheduler() (*Scheduler, error) {
	s, err := New(sc.Config)
	if err != nil {
		return nil, err
	}
	for _, pc := range sc.PriorityClasses {
		if err := s.AddPriorityClass(pc); err != nil {
			return nil, err
		}
	}
	for _, n := range sc.Nodes {
		if err := s.AddNode(n); err != nil {
			return nil, err
		}
	}
	for _, b := range sc.Budgets {
		if err := s.AddPodDisruptionBudget(b); err != nil {
			return nil, err
		}
	}
	for _, c := range sc.CompositePodGroups {
		if err := s.AddCompositePodGroup(c); err != nil {
			return nil, err
		}
	}
	for _, g := range sc.PodGroups {
		if err := s.AddPodGroup(g); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (sc *Scenario) timeline() []action {
	var acts []action
	for i := range sc.Events {
		acts = append(acts, action{at: sc.Events[i].At, order: i, event: &sc.Events[i]})
	}
	for i := range sc.Pods {
		acts = append(acts, action{at: sc.Pods[i].At, order: len(sc.Events) + i, pod: &sc.Pods[i]})
	}
	slices.SortStableFunc(acts, func(a, b action) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order))
	})
	return acts
}

func (sc *Scenario) apply(s *Scheduler, a action) error {
	if a.pod != nil {
		if err := s.AddPod(a.pod.Pod, a.pod.Duration); err != nil {
			return fmt.Errorf("pod %s at %v: %w", displayName(a.pod.Pod.Key()), a.at, err)
		}
		return nil
	}
	e := a.event
	var err error
	switch e.Kind {
	case EventAddNode:
		err = s.AddNode(*e.Node)
	case EventCordonNode:
		err = s.CordonNode(e.Name)
	case EventUncordonNode:
		err = s.UncordonNode(e.Name)
	case EventRemoveNode:
		err = s.RemoveNode(e.Name)
	case EventDrainNode:
		err = s.DrainNode(e.Name)
	case EventDeletePod:
		err = s.DeletePod(podKeyOf(e.Name))
	}
	if err != nil {
		return fmt.Errorf("event %s at %v: %w", e.Kind, e.At, err)
	}
	return nil
}

func (sc *Scenario) result(s *Scheduler) *Result {
	res := &Result{Pods: []PodResult{}, Evictions: []EvictionResult{}, PodGroups: []GroupResult{}}
	for _, sp := range sc.Pods {
		st, _ := s.Pod(sp.Pod.Key())
		pr := PodResult{Name: displayName(st.Key), Node: st.Node, Phase: st.Phase}
		if st.Phase == PhasePending {
			pr.Reason = st.Reason
			res.Stats.Pending++
		}
		res.Pods = append(res.Pods, pr)
	}
	for _, g := range sc.PodGroups {
		gs, _ := s.PodGroup(g.Key())
		gres := GroupResult{Name: displayName(cluster.PodKey(gs.Key)), Conditions: []Condition{}}
		for _, c := range gs.Conditions {
			gres.Conditions = append(gres.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason})
		}
		res.PodGroups = append(res.PodGroups, gres)
	}
	for _, e := range s.Evictions() {
		res.Evictions = append(res.Evictions, EvictionResult{Pod: displayName(e.Pod), Node: e.Node, By: e.By, At: e.At.String()})
	}
	st := s.Stats()
	res.Stats.Scheduled, res.Stats.Evictions, res.Stats.Cycles = st.Scheduled, st.Evictions, st.Cycles
	res.Stats.PDBViolations = st.PDBViolations
	res.Stats.SimulatedTime = s.Now().String()
	return res
}
