package scenario

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
)

// Kueue's topology-aware scheduling in a run (docs/kueue.md, "Topology-
// aware scheduling"): a pod of a pod set asking for TAS carries Kueue's
// topology gate besides its admission gate; when its workload is
// admitted, the pods of each pod set are given the domains of its
// TopologyAssignment in order (by name, as Kueue's ungater takes them
// greedily), each pod's node selector narrowed to its domain's level
// labels, and ungated. The Admitter reads the nodes from the scheduler
// once per cycle: their labels, taints, allocatable, and what the pods
// bound to them that are not of TAS workloads request.

// Kueue's pod-set topology annotations and its topology gate.
const (
	tasRequired      = "kueue.x-k8s.io/podset-required-topology"
	tasPreferred     = "kueue.x-k8s.io/podset-preferred-topology"
	tasUnconstrained = "kueue.x-k8s.io/podset-unconstrained-topology"
	tasSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology"
	tasSliceSize     = "kueue.x-k8s.io/podset-slice-size"
	topologyGate     = "kueue.x-k8s.io/topology"
)

// kueueTopology reads a pod's topology annotations as Kueue's webhook
// checks them: at most one of required, preferred and unconstrained; a
// slice size a whole number of at least 1, given with a slice level.
func kueueTopology(ann map[string]string) (*kueue.TopologyRequest, error) {
	req, hasReq := ann[tasRequired]
	pref, hasPref := ann[tasPreferred]
	unc, hasUnc := ann[tasUnconstrained]
	slice, hasSlice := ann[tasSliceRequired]
	size, hasSize := ann[tasSliceSize]
	if !hasReq && !hasPref && !hasUnc && !hasSlice && !hasSize {
		return nil, nil
	}
	n := 0
	for _, b := range []bool{hasReq, hasPref, hasUnc} {
		if b {
			n++
		}
	}
	if n > 1 {
		return nil, fmt.Errorf("%s: must not contain more than one topology annotation: [%q, %q, %q]", tasRequired, tasRequired, tasPreferred, tasUnconstrained)
	}
	t := &kueue.TopologyRequest{Required: req, Preferred: pref, SliceRequired: slice}
	for key, v := range map[string]string{tasRequired: req, tasPreferred: pref, tasSliceRequired: slice} {
		if (key == tasRequired && hasReq || key == tasPreferred && hasPref || key == tasSliceRequired && hasSlice) && v == "" {
			return nil, fmt.Errorf("%s: must name a level (a node label)", key)
		}
	}
	if hasUnc {
		b, err := strconv.ParseBool(unc)
		if err != nil {
			return nil, fmt.Errorf("%s: %q must be a boolean value", tasUnconstrained, unc)
		}
		t.Unconstrained = b
	}
	if hasSize != hasSlice {
		return nil, fmt.Errorf("%s and %s must be given together", tasSliceRequired, tasSliceSize)
	}
	if hasSize {
		v, err := strconv.ParseInt(size, 10, 32)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%s: %q must be a whole number of at least 1", tasSliceSize, size)
		}
		t.SliceSize = int32(v)
	}
	return t, nil
}

// noteNodes follows the event stream for tasNodes: a node's change, or a
// pod not of a TAS workload coming to or leaving a node, changes what
// Kueue's TAS cache reads (a TAS pod's usage is its workload's
// assignment, counted by the Admitter).
//
// When room may have been freed that way (a node added, updated or
// uncordoned; a non-TAS pod that was on a node ending), the Admitter is
// told (TASCapacityFreed), and noteNodes reports that the run should
// pause for what that made due.
func (kr *kueueRun) noteNodes(e gangsim.Event) bool {
	freed := false
	switch e.Kind {
	case gangsim.EventNodeAdded, gangsim.EventNodeUpdated, gangsim.EventNodeUncordoned:
		kr.nodesDirty, freed = true, true
	case gangsim.EventNodeCordoned, gangsim.EventNodeRemoved, gangsim.EventNodeDrained:
		kr.nodesDirty = true
	case gangsim.EventPodArrived, gangsim.EventPodBound:
		if e.Pod == nil || !kr.tasPods[e.Pod.Key()] {
			kr.nodesDirty = true
		}
	case gangsim.EventPodEvicted, gangsim.EventPodTerminated, gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
		if e.Pod == nil || !kr.tasPods[e.Pod.Key()] {
			kr.nodesDirty = true
			freed = e.Pod == nil || e.Pod.NodeName() != ""
		}
	}
	if !freed || !kr.hasTAS || kr.err != nil {
		return false
	}
	if err := kr.a.AdvanceTo(max(e.At, kr.a.Now())); err != nil {
		kr.err = err
		return true
	}
	kr.a.TASCapacityFreed()
	return true
}

// tasNodes is the cluster as Kueue's TAS cache reads it, by node name:
// the last list while nothing it reads changed (noteNodes).
func (kr *kueueRun) tasNodes() []kueue.TASNode {
	if kr.s == nil {
		return nil
	}
	if kr.nodeList != nil && !kr.nodesDirty {
		return kr.nodeList
	}
	kr.nodesDirty = false
	var out []kueue.TASNode
	for ni := range kr.s.Nodes() {
		n := ni.Node()
		nonTAS := ni.Requested()
		for pi := range ni.Pods() {
			if kr.tasPods[pi.Key()] {
				nonTAS = nonTAS.Sub(pi.Request())
			}
		}
		used := cluster.ListOf(nonTAS)
		used[cluster.ResourcePods] = nonTAS.Pods // and one pod each, as Kueue's non-TAS cache counts
		alloc := cluster.ListOf(n.Allocatable)
		alloc[cluster.ResourcePods] = n.Allocatable.Pods
		out = append(out, kueue.TASNode{Name: n.Name, Labels: n.Labels, Taints: n.Taints, Unschedulable: n.Unschedulable,
			Allocatable: alloc, NonTAS: used})
	}
	slices.SortFunc(out, func(x, y kueue.TASNode) int { return strings.Compare(x.Name, y.Name) })
	kr.nodeList = out
	return out
}

// gatedForTopology reports whether a pod arriving for Kueue gets the
// topology gate: its pod set asks for TAS, or its queue is TAS-only.
func (kr *kueueRun) gatedForTopology(p *cluster.Pod) bool {
	if kr.topo[p.Key()] != nil {
		return true
	}
	ns := p.Namespace
	if ns == "" {
		ns = cluster.DefaultNamespace
	}
	return kr.a.TASOnly(ns, p.Labels[kueueQueueLabel])
}

// placeTopology gives the unit's pods of each pod set with a
// TopologyAssignment their domains: the pods by name, the domains in
// order, each pod's node selector narrowed to its domain's labels.
func (kr *kueueRun) placeTopology(s *gangsim.Scheduler, u *kueueUnit, ad *kueue.Admission) error {
	for _, psa := range ad.PodSets {
		ta := psa.TopologyAssignment
		if ta == nil {
			continue
		}
		var pods []*heldPod
		for _, hp := range u.pods {
			if !hp.ended && u.w.PodSets[hp.podSet].Name == psa.Name {
				pods = append(pods, hp)
			}
		}
		slices.SortFunc(pods, func(x, y *heldPod) int { return strings.Compare(string(x.pod.Key()), string(y.pod.Key())) })
		i := 0
		for _, d := range ta.Domains {
			sel := map[string]string{}
			for k, l := range ta.Levels {
				sel[l] = d.Values[k]
			}
			for c := int32(0); c < d.Count && i < len(pods); c++ {
				key := pods[i].pod.Key()
				i++
				if err := s.NarrowNodeSelection(key, maps.Clone(sel), nil); err != nil {
					return fmt.Errorf("Kueue: placing pod %s in its topology domain: %w", key, err)
				}
				kr.tasPods[key] = true
			}
		}
		if i < len(pods) {
			return errors.New("Kueue: a topology assignment with fewer pods than its pod set has")
		}
	}
	return nil
}

// controllerTopology is the topology request of a controller's pods: its
// pods' of time 0 (the importer reads the template's annotations into
// them), nil when none asks.
func (kr *kueueRun) controllerTopology(c *Controller) *kueue.TopologyRequest {
	for _, at := range c.pods {
		if t := kr.sc.Pods[at].Topology; t != nil {
			return t
		}
	}
	return nil
}

// slot is one pod's domain of a TopologyAssignment and the pod in it.
type slot struct {
	selector map[string]string
	pod      cluster.PodKey
}

// slotsOf expands an admission's TopologyAssignments into one slot a pod,
// domain by domain in order.
func slotsOf(ad *kueue.Admission) map[string][]slot {
	var out map[string][]slot
	for _, psa := range ad.PodSets {
		ta := psa.TopologyAssignment
		if ta == nil {
			continue
		}
		if out == nil {
			out = map[string][]slot{}
		}
		for _, d := range ta.Domains {
			sel := map[string]string{}
			for k, l := range ta.Levels {
				sel[l] = d.Values[k]
			}
			for range d.Count {
				out[psa.Name] = append(out[psa.Name], slot{selector: sel})
			}
		}
	}
	return out
}

// completionIndex is the label by which a Job's pod gives its index.
const completionIndex = "batch.kubernetes.io/job-completion-index"

// steer gives a pod a job makes once Kueue admitted it in a TAS flavor its
// domain, as Kueue's ungater does: the slot of its completion index (its
// rank) when it has one and that slot is free, else the first free one; a
// slot is free when its pod is gone or finished. The pod's node selector
// gets the domain's labels.
func (kr *kueueRun) steer(p *cluster.Pod) error {
	if p.Owner == nil {
		return nil
	}
	ns := p.Namespace
	if ns == "" {
		ns = cluster.DefaultNamespace
	}
	owner := ownerKey{ns, p.Owner.Kind, p.Owner.Name}
	u := kr.byOwner[owner]
	if u == nil || u.state != unitAdmitted || u.slots == nil {
		return nil
	}
	slots := u.slots[kr.roles[owner]]
	if len(slots) == 0 {
		return nil
	}
	free := func(i int) bool {
		if slots[i].pod == "" {
			return true
		}
		st, ok := kr.s.Pod(slots[i].pod)
		return !ok || st.Phase == gangsim.PhaseSucceeded || st.Phase == gangsim.PhaseDeleted
	}
	pick := -1
	if idx, err := strconv.Atoi(p.Labels[completionIndex]); err == nil && idx >= 0 && idx < len(slots) && free(idx) {
		pick = idx
	}
	for i := 0; pick < 0 && i < len(slots); i++ {
		if free(i) {
			pick = i
		}
	}
	if pick < 0 {
		return nil // more pods than the assignment: left to the scheduler
	}
	slots[pick].pod = p.Key()
	sel := maps.Clone(p.NodeSelector)
	if sel == nil {
		sel = map[string]string{}
	}
	maps.Copy(sel, slots[pick].selector)
	p.NodeSelector = sel
	kr.tasPods[p.Key()] = true
	return nil
}
