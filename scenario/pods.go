package scenario

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

func (b *builder) pods(f *schema.File) error {
	n := 0
	for i := range f.Pods {
		if c := f.Pods[i].Count; c != nil && *c > 1 {
			n += min(*c, b.opts.limits.Pods) // the limit is checked on expansion
		} else {
			n++
		}
	}
	// made once for a file of many entries; a few entries with large
	// counts (which may yet break the limit) grow as they expand
	room := min(n, b.opts.limits.Pods, 2*len(f.Pods))
	b.sc.Pods = slices.Grow(b.sc.Pods, room)
	if len(b.podNames) == 0 && room > 64 {
		b.podNames = make(map[cluster.PodKey]bool, room) // not grown by rehashing
	}
	for i := range f.Pods {
		if err := b.expandPod(&f.Pods[i], i); err != nil {
			return err
		}
	}
	return nil
}

// expandPod converts the pod entry at index i into the scenario's pods,
// expanding count; each copy names its entry and its own name as its
// source ("pods[3] (web-2)").
func (b *builder) expandPod(s *schema.Pod, i int) error {
	where := b.entry(s.Origin, "pods", i, s.Name)
	if err := b.checkNames(s.Line, where, s.Name, s.Namespace); err != nil {
		return err
	}
	if s.PodGroup != "" {
		if err := schema.NameError(s.PodGroup, false); err != nil {
			return b.fail(s.Line, where+".podGroup", err)
		}
	}
	p, err := b.podTemplate(s, where)
	if err != nil {
		return err
	}
	at, err := parseTime(s.At)
	if err != nil {
		return b.fail(s.Line, where+".at", err)
	}
	duration, err := parseTime(s.Duration)
	if err != nil {
		return b.fail(s.Line, where+".duration", err)
	}
	claims, containerClaims, err := b.podClaims(s, where)
	if err != nil {
		return err
	}
	if p.NodeName != "" && !b.nodeNames[p.NodeName] {
		return b.failf(s.Line, where+".nodeName", "node %q is not defined", p.NodeName)
	}
	one := [1]string{s.Name}
	names := one[:] // the usual entry, one pod: no list to make
	if s.Count != nil {
		if names, err = b.expandNames(s.Name, s.Count, b.opts.limits.Pods, s.Line, where); err != nil {
			return err
		}
	}
	p.ResourceClaims = claims
	if len(s.ResourceClaimStatuses) > 0 {
		for _, st := range s.ResourceClaimStatuses {
			p.ResourceClaimStatuses = append(p.ResourceClaimStatuses, cluster.PodResourceClaimStatus(st))
		}
		if field, detail := cluster.ValidateClaimStatuses(claims, p.ResourceClaimStatuses); field != "" {
			return b.failf(s.Line, where+"."+field, "%s", detail)
		}
	}
	topology, err := kueueTopology(s.Annotations)
	if err != nil {
		return b.fail(s.Line, where+".annotations", err)
	}
	group, err := b.kueuePodGroup(s, s.Line, where)
	if err != nil {
		return err
	}
	defaulted := s.Origin != nil && s.Duration == "" && !b.opts.runTime.IsZero() && !s.KeepRunning // a Kubernetes object's, without the annotation
	for _, name := range names {
		c := p // the copies share the template's maps: read-only (Scenario)
		c.Name = name
		key := c.Key()
		had := len(b.podNames)
		if b.podNames[key] = true; len(b.podNames) == had { // one hash, not a lookup and an insert
			return b.failf(s.Line, where+".name", "pod %s is defined twice", key.Display())
		}
		if err := c.Validate(); err != nil {
			return b.fail(s.Line, where, err)
		}
		src := Source{File: b.file, Line: s.Line, Path: where}
		switch {
		case s.Origin != nil:
			src.Path = s.Origin.Object
		case name != s.Name:
			src.Path = entry("pods", i, name) // a copy of a counted entry
		}
		d := duration
		if defaulted {
			d = b.opts.runTime.draw(string(key), 0)
		}
		b.sc.Pods = append(b.sc.Pods, Pod{Pod: c, At: at, Duration: d, Source: src, ContainerClaims: containerClaims, Topology: topology, kueue: group})
	}
	return nil
}

// podRequests parses a pod's requests, once per map: the JSON decoder
// shares equal maps, so a million pods parse a few. Maps are read-only.
func (b *builder) podRequests(m map[string]string) (cluster.Resources, error) {
	id := reflect.ValueOf(m).UnsafePointer()
	if req, ok := b.requests[id]; ok {
		return req, nil
	}
	// pods passes the name check: Validate says why it cannot be requested
	if err := checkResourceNames(m, schema.ResourcesOfNode); err != nil {
		return cluster.Resources{}, err
	}
	req, err := cluster.ParseResources(m)
	if err != nil {
		return cluster.Resources{}, err
	}
	if id == nil {
		return req, nil // no map: nothing to parse again
	}
	if b.requests == nil || len(b.requests) >= maxRememberedRequests {
		b.requests = map[unsafe.Pointer]cluster.Resources{} // maps not shared (YAML): do not grow without end
	}
	b.requests[id] = req
	return req, nil
}

// maxRememberedRequests bounds the request maps remembered.
const maxRememberedRequests = 4096

// podTemplate converts the fields every expanded copy shares, and checks
// its priority as the Scheduler's admission will resolve it.
func (b *builder) podTemplate(s *schema.Pod, where string) (cluster.Pod, error) {
	req, err := b.podRequests(s.Requests)
	if err != nil {
		return cluster.Pod{}, b.fail(s.Line, where+".requests", err)
	}
	p := cluster.Pod{
		Namespace: orDefault(s.Namespace, cluster.DefaultNamespace), Name: s.Name, Labels: s.Labels, Requests: req,
		Priority: s.Priority, PriorityClassName: s.PriorityClassName,
		PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy), SchedulerName: s.SchedulerName,
		NodeName: s.NodeName, NodeSelector: s.NodeSelector, PodGroup: s.PodGroup, Owner: s.Controller,
		SchedulingGates: schema.GateNames(s.SchedulingGates),
	}
	if err := b.podLimits(s, &p, where); err != nil {
		return cluster.Pod{}, err
	}
	var group *podgroup.PodGroup
	if s.PodGroup != "" {
		if admitted, ok := b.groupByKey[podgroup.Key(s.Namespace, s.PodGroup)]; ok {
			group = admitted
		} else if b.ws != nil {
			// as in a cluster, the pod waits for its group; its result says so
			b.ws.Add("", "podGroup", fmt.Sprintf("names a pod group no input defines (%s): the pod stays pending, waiting for it",
				podgroup.Key(s.Namespace, s.PodGroup)), b.file+": "+where)
		}
	}
	prio, err := b.checkPriority(&p, group, s.Line, where)
	if err != nil {
		return cluster.Pod{}, err
	}
	if p.NodeName != "" && group != nil && prio != group.EffectivePriority() {
		// a running member cannot be fixed by a later cycle: the run would refuse it
		return cluster.Pod{}, b.failf(s.Line, where+".priority", "%d differs from the priority %d of its pod group %s, and the pod is already running (nodeName)",
			prio, group.EffectivePriority(), group.Name)
	}
	for _, t := range s.Tolerations {
		p.Tolerations = append(p.Tolerations, t.Convert())
	}
	p.Affinity = s.Affinity.Convert()
	p.TopologySpreadConstraints = schema.ConvertSpread(s.TopologySpreadConstraints)
	if o := s.Owner; o != nil {
		if o.Kind == "" {
			return cluster.Pod{}, b.failf(s.Line, where+".owner.kind", "must not be empty")
		}
		p.Owner = &cluster.Owner{Kind: o.Kind, Name: o.Name, Selector: o.Selector.Convert()}
	}
	return p, nil
}

// checkPriority resolves the pod's priority as admission will, with its
// group as admitted.
func (b *builder) checkPriority(p *cluster.Pod, group *podgroup.PodGroup, line int, where string) (int32, error) {
	prio, _, err := gangsim.PodPriority(&b.classes, p, group)
	if err != nil {
		return 0, b.fail(line, where, err)
	}
	return prio, nil
}

func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
