package kube

import (
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// daemonTolerations are the tolerations the DaemonSet controller adds to
// its pods, so that they run on nodes that are not ready, under pressure
// or cordoned; network-unavailable only for host-network pods.
var daemonTolerations = []schema.Toleration{
	{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"},
	{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute"},
	{Key: "node.kubernetes.io/disk-pressure", Operator: "Exists", Effect: "NoSchedule"},
	{Key: "node.kubernetes.io/memory-pressure", Operator: "Exists", Effect: "NoSchedule"},
	{Key: "node.kubernetes.io/pid-pressure", Operator: "Exists", Effect: "NoSchedule"},
	{Key: "node.kubernetes.io/unschedulable", Operator: "Exists", Effect: "NoSchedule"},
}

var hostNetworkToleration = schema.Toleration{Key: "node.kubernetes.io/network-unavailable", Operator: "Exists", Effect: "NoSchedule"}

// daemonSet makes one pod for every node present at time 0 that should run
// one, as the DaemonSet controller decides: the template's node selector
// and required node affinity match the node, and its tolerations, with
// those the controller adds, tolerate every NoSchedule and NoExecute
// taint. The controller does not look at resources: a pod that does not
// fit stays pending. Each pod is pinned to its node by a required node
// affinity on the node's name, which replaces the template's required
// terms, as the controller does, and is named <daemonset>-<node>.
func (k *kubeImport) daemonSet(o *Object, v *kubeDaemonSet, f *schema.File) error {
	t, err := k.template(o, &v.Metadata, &v.Spec.Template, v.Spec.Selector, true)
	if err != nil {
		return err
	}
	tols := withDaemonTolerations(v.Spec.Template.Spec.Tolerations, v.Spec.Template.Spec.HostNetwork)
	var check cluster.Pod
	for _, tol := range tols {
		check.Tolerations = append(check.Tolerations, tol.Convert())
	}
	check.NodeSelector, check.Affinity, check.NodeName = t.entry.NodeSelector, t.entry.Affinity.Convert(), t.entry.NodeName
	hash := map[string]string{"controller-revision-hash": t.hash}
	c := t.controller(hash)
	c.Template.Tolerations, c.Template.NodeName = tols, "" // each pod is pinned to its node
	f.Controllers = append(f.Controllers, c)
	have := k.owned[kubeOwnerKey{o.namespace, o.kind, o.name}]
	for i := range k.nodes {
		n := &k.nodes[i]
		if have != nil && have.nodes[n.Name] || !daemonRunsOn(&check, n) {
			continue
		}
		name := o.name + "-" + n.Name
		if k.podNames[cluster.MakePodKey(o.namespace, name)] {
			continue
		}
		if err := k.room(o, "", 1); err != nil {
			return err
		}
		k.podNames[cluster.MakePodKey(o.namespace, name)] = true
		p := t.pod(name, hash)
		p.Tolerations, p.Affinity, p.NodeName = tols, pinToNode(t.entry.Affinity, n.Name), ""
		f.Pods = append(f.Pods, p)
	}
	return nil
}

// withDaemonTolerations adds the controller's tolerations that the
// template does not have already.
func withDaemonTolerations(own []schema.Toleration, hostNetwork bool) []schema.Toleration {
	out := append([]schema.Toleration(nil), own...)
	add := daemonTolerations
	if hostNetwork {
		add = append(append([]schema.Toleration(nil), add...), hostNetworkToleration)
	}
	for _, t := range add {
		dup := false
		for _, o := range own {
			dup = dup || o.Key == t.Key && o.Operator == t.Operator && o.Effect == t.Effect && o.Value == t.Value
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

// daemonRunsOn is the DaemonSet controller's test: node name, node
// selector and required node affinity, and the NoSchedule and NoExecute
// taints.
func daemonRunsOn(p *cluster.Pod, n *cluster.Node) bool {
	if p.NodeName != "" && p.NodeName != n.Name || !cluster.MatchesSelector(p.NodeSelector, n.Labels) {
		return false
	}
	if p.Affinity != nil && !p.Affinity.NodeAffinity.MatchesNode(n) {
		return false
	}
	for i := range n.Taints {
		t := &n.Taints[i]
		if (t.Effect == cluster.TaintNoSchedule || t.Effect == cluster.TaintNoExecute) && !cluster.TolerationsTolerate(p.Tolerations, t) {
			return false
		}
	}
	return true
}

// pinToNode returns a's copy whose required node affinity is one term
// matching the node's name.
func pinToNode(a *schema.Affinity, node string) *schema.Affinity {
	var out schema.Affinity
	if a != nil {
		out = *a
	}
	var na schema.NodeAffinity
	if out.NodeAffinity != nil {
		na = *out.NodeAffinity
	}
	na.Required = &schema.NodeSelector{Terms: []schema.NodeSelectorTerm{{MatchFields: []schema.Requirement{{Key: cluster.NodeNameField, Operator: "In", Values: []string{node}}}}}}
	out.NodeAffinity = &na
	return &out
}
