package kube

import (
	"strconv"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// index records, before any conversion, every node present at time 0 (of
// scenario files and objects alike) and, for every controller, the pods
// and ReplicaSets of the inputs it controls and its selector.
func (k *kubeImport) index(ins []*Input) {
	for _, in := range ins {
		for i := range in.File.Nodes {
			k.nodes = append(k.nodes, scenarioNodes(&in.File.Nodes[i])...)
		}
		for _, p := range in.File.Pods {
			for _, name := range schema.CountNames(p.Name, p.Count) {
				k.podNames[cluster.MakePodKey(p.Namespace, name)] = true
			}
		}
	}
	for _, d := range k.objs {
		switch v := d.v.(type) {
		case *kubeNode:
			k.nodes = append(k.nodes, kubeClusterNode(d.o, v))
		case *kubePod:
			k.podNames[cluster.MakePodKey(d.o.namespace, d.o.name)] = true
			k.indexPod(d.o, v)
		case *kubeReplicaSet:
			k.selectors[kubeOwnerKey{d.o.namespace, d.o.kind, d.o.name}] = v.Spec.Selector
			if ref := controllerOf(&v.Metadata); ref != nil {
				k.ownedBy(d.o.namespace, ref).children++
			}
		case *kubeStatefulSet:
			k.selectors[kubeOwnerKey{d.o.namespace, d.o.kind, d.o.name}] = v.Spec.Selector
		}
	}
}

// scenarioNodes are the nodes a scenario entry makes (count expanded), as
// far as a DaemonSet looks at them.
func scenarioNodes(s *schema.Node) []cluster.Node {
	n := cluster.Node{Name: s.Name, Labels: s.Labels, Unschedulable: s.Unschedulable}
	for _, t := range s.Taints {
		n.Taints = append(n.Taints, cluster.Taint{Key: t.Key, Value: t.Value, Effect: cluster.TaintEffect(t.Effect)})
	}
	var out []cluster.Node
	for _, name := range schema.CountNames(s.Name, s.Count) {
		c := n
		c.Name = name
		out = append(out, withHostname(c))
	}
	return out
}

// withHostname gives n the hostname label the scheduler gives every node.
func withHostname(n cluster.Node) cluster.Node {
	if _, ok := n.Labels[gangsim.LabelHostname]; ok {
		return n
	}
	labels := map[string]string{gangsim.LabelHostname: n.Name}
	for k, v := range n.Labels {
		labels[k] = v
	}
	n.Labels = labels
	return n
}

func kubeClusterNode(o *Object, v *kubeNode) cluster.Node {
	n := cluster.Node{Name: o.name, Labels: v.Metadata.Labels, Unschedulable: v.Spec.Unschedulable}
	for _, t := range v.Spec.Taints {
		n.Taints = append(n.Taints, cluster.Taint{Key: t.Key, Value: t.Value, Effect: cluster.TaintEffect(t.Effect)})
	}
	return withHostname(n)
}

// controllerOf returns the owner reference that is the object's controller.
func controllerOf(m *kubeMeta) *kubeOwnerRef {
	for i := range m.OwnerReferences {
		if r := &m.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

func (k *kubeImport) ownedBy(namespace string, ref *kubeOwnerRef) *kubeOwnedCount {
	key := kubeOwnerKey{namespace, ref.Kind, ref.Name}
	c := k.owned[key]
	if c == nil {
		c = &kubeOwnedCount{nodes: map[string]bool{}, activeIndexes: map[int]bool{}, succeededIndexes: map[int]bool{}}
		k.owned[key] = c
	}
	return c
}

// indexPod counts a pod for its controller: finished or not, and on which
// node (a DaemonSet's pending pod names its node in its node affinity).
func (k *kubeImport) indexPod(o *Object, p *kubePod) {
	ref := controllerOf(&p.Metadata)
	if ref == nil {
		return
	}
	c := k.ownedBy(o.namespace, ref)
	index, indexed := completionIndex(p.Metadata.Labels)
	switch p.Status.Phase {
	case "Succeeded":
		c.succeeded++
		if indexed {
			c.succeededIndexes[index] = true
		}
		return
	case "Failed":
		c.failed++
		return
	}
	c.active++
	if indexed {
		c.activeIndexes[index] = true
	}
	if node := p.Spec.NodeName; node != "" {
		c.nodes[node] = true
	} else if node := daemonNodeOf(p.Spec.Affinity); node != "" {
		c.nodes[node] = true
	}
}

// daemonNodeOf reads the node a DaemonSet's pod is pinned to: a required
// term matching the field metadata.name to one node.
func daemonNodeOf(a *schema.Affinity) string {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.Required == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.Required.Terms {
		for _, r := range t.MatchFields {
			if r.Key == cluster.NodeNameField && r.Operator == "In" && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}

// completionIndex reads the completion index a Job's controller labels its
// pod with (Indexed Jobs).
func completionIndex(labels map[string]string) (int, bool) {
	v, ok := labels[controllers.JobCompletionIndexLabel]
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(v)
	return i, err == nil && i >= 0
}
