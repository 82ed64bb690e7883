package gangsim

import (
	"fmt"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

func (b *builder) pods(f *scenarioFile) error {
	for i := range f.Pods {
		s := &f.Pods[i]
		where := fmt.Sprintf("pods[%d] (%s)", i, s.Name)
		pods, err := b.expandPod(s, where)
		if err != nil {
			return err
		}
		b.sc.Pods = append(b.sc.Pods, pods...)
	}
	return nil
}

func (b *builder) expandPod(s *podSpec, where string) ([]ScenarioPod, error) {
	if s.Name == "" {
		return nil, fmt.Errorf("%s: name: required", where)
	}
	p, err := b.podTemplate(s, where)
	if err != nil {
		return nil, err
	}
	at, err := parseTime(s.At)
	if err != nil {
		return nil, fmt.Errorf("%s: at: %v", where, err)
	}
	duration, err := parseTime(s.Duration)
	if err != nil {
		return nil, fmt.Errorf("%s: duration: %v", where, err)
	}
	if p.NodeName != "" && !b.nodeNames[p.NodeName] {
		return nil, fmt.Errorf("%s: nodeName: node %q is not defined", where, p.NodeName)
	}
	names, err := expandNames(s.Name, s.Count, where)
	if err != nil {
		return nil, err
	}
	out := make([]ScenarioPod, 0, len(names))
	for _, name := range names {
		c := p.Clone()
		c.Name = name
		if b.podNames[c.Key()] {
			return nil, fmt.Errorf("%s: name: pod %s is defined twice", where, displayName(c.Key()))
		}
		b.podNames[c.Key()] = true
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", where, strings.TrimPrefix(err.Error(), cluster.ErrInvalidPod.Error()+" "))
		}
		out = append(out, ScenarioPod{Pod: c, At: at, Duration: duration})
	}
	return out, nil
}

// podTemplate converts the fields every expanded copy shares.
func (b *builder) podTemplate(s *podSpec, where string) (cluster.Pod, error) {
	req, err := cluster.ParseResources(s.Requests)
	if err != nil {
		return cluster.Pod{}, fmt.Errorf("%s: requests: %v", where, err)
	}
	p := cluster.Pod{
		Namespace: s.Namespace, Name: s.Name, Labels: s.Labels, Requests: req,
		PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy), SchedulerName: s.SchedulerName,
		NodeName: s.NodeName, NodeSelector: s.NodeSelector, PodGroup: s.PodGroup,
	}
	var group *podgroup.PodGroup
	if s.PodGroup != "" {
		if group = b.groupByKey[podgroup.Key(s.Namespace, s.PodGroup)]; group == nil {
			return cluster.Pod{}, fmt.Errorf("%s: podGroup: pod group %q is not defined in namespace %q", where, s.PodGroup, cmpOr(s.Namespace, "default"))
		}
	}
	if err := b.resolvePriority(&p, s, group, where); err != nil {
		return cluster.Pod{}, err
	}
	for _, t := range s.Tolerations {
		p.Tolerations = append(p.Tolerations, cluster.Toleration{
			Key: t.Key, Operator: cluster.TolerationOperator(t.Operator), Value: t.Value, Effect: cluster.TaintEffect(t.Effect)})
	}
	p.Affinity = convertAffinity(s.Affinity)
	return p, nil
}

// resolvePriority applies SCENARIO.md's rule: priority, else the
// priorityClassName's value, else its group's priority, else the global
// default class, else 0. The class's (or group's) preemption policy applies
// unless the pod sets its own.
func (b *builder) resolvePriority(p *cluster.Pod, s *podSpec, group *podgroup.PodGroup, where string) error {
	if s.Priority != nil && s.PriorityClassName != "" {
		return fmt.Errorf("%s: priority: give priority or priorityClassName, not both", where)
	}
	if s.Priority != nil {
		p.Priority = *s.Priority
		return nil
	}
	if s.PriorityClassName == "" && group != nil {
		p.Priority = group.Priority
		if p.PreemptionPolicy == "" {
			p.PreemptionPolicy = group.EffectivePreemptionPolicy()
		}
		return nil
	}
	prio, policy, err := b.classes.Resolve(s.PriorityClassName)
	if err != nil {
		return fmt.Errorf("%s: priorityClassName: %v", where, err)
	}
	p.Priority = prio
	if p.PreemptionPolicy == "" {
		p.PreemptionPolicy = policy
	}
	return nil
}

func convertAffinity(a *affinitySpec) *cluster.NodeAffinity {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.Required == nil {
		return nil
	}
	out := &cluster.NodeAffinity{Required: []cluster.SelectorTerm{}}
	for _, t := range a.NodeAffinity.Required.Terms {
		var term cluster.SelectorTerm
		for _, e := range t.MatchExpressions {
			term.MatchExpressions = append(term.MatchExpressions, cluster.SelectorRequirement{
				Key: e.Key, Operator: cluster.SelectorOperator(e.Operator), Values: e.Values})
		}
		out.Required = append(out.Required, term)
	}
	return out
}

// parseTime reads a simulated time or duration ("0s", "5m", "6m30s");
// empty means 0.
func parseTime(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration like 90s or 5m", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

func (b *builder) events(f *scenarioFile) error {
	for i, s := range f.Events {
		where := fmt.Sprintf("events[%d]", i)
		at, err := parseTime(s.At)
		if err != nil {
			return fmt.Errorf("%s: at: %v", where, err)
		}
		ev, err := b.event(&s, where)
		if err != nil {
			return err
		}
		ev.At = at
		b.sc.Events = append(b.sc.Events, ev)
	}
	return nil
}

// event converts one event, which must hold exactly one action.
func (b *builder) event(s *eventSpec, where string) (ScenarioEvent, error) {
	var evs []ScenarioEvent
	if s.AddNode != nil {
		nodes, err := b.eventNode(s.AddNode, where)
		if err != nil {
			return ScenarioEvent{}, err
		}
		evs = append(evs, ScenarioEvent{Kind: EventAddNode, Node: &nodes[0]})
	}
	for _, named := range []struct {
		kind EventKind
		name string
	}{{EventCordonNode, s.CordonNode}, {EventUncordonNode, s.UncordonNode}, {EventRemoveNode, s.RemoveNode}, {EventDrainNode, s.DrainNode}, {EventDeletePod, s.DeletePod}} {
		if named.name == "" {
			continue
		}
		if err := b.checkTarget(named.kind, named.name, where); err != nil {
			return ScenarioEvent{}, err
		}
		evs = append(evs, ScenarioEvent{Kind: named.kind, Name: named.name})
	}
	if len(evs) != 1 {
		return ScenarioEvent{}, fmt.Errorf("%s: needs exactly one of addNode, cordonNode, uncordonNode, removeNode, drainNode, deletePod (has %d)", where, len(evs))
	}
	return evs[0], nil
}

// eventNode converts an addNode spec; its name was registered while the
// nodes were read, so it is not registered again.
func (b *builder) eventNode(s *nodeSpec, where string) ([]cluster.Node, error) {
	if s.Count != nil {
		return nil, fmt.Errorf("%s: addNode.count: an event adds one node", where)
	}
	delete(b.nodeNames, s.Name)
	return b.expandNode(s, where+".addNode")
}

func (b *builder) checkTarget(kind EventKind, name, where string) error {
	if kind == EventDeletePod {
		if !b.podNames[podKeyOf(name)] {
			return fmt.Errorf("%s: deletePod: pod %q is not defined", where, name)
		}
		return nil
	}
	if !b.nodeNames[name] {
		return fmt.Errorf("%s: %s: node %q is not defined", where, kind, name)
	}
	return nil
}

// podKeyOf reads a pod reference: "name" (default namespace) or "ns/name".
func podKeyOf(ref string) cluster.PodKey {
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		return cluster.MakePodKey(ns, name)
	}
	return cluster.MakePodKey("", ref)
}

// displayName renders a pod key as results show it: the bare name in the
// default namespace, "ns/name" elsewhere.
func displayName(k cluster.PodKey) string {
	return strings.TrimPrefix(string(k), "default/")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
