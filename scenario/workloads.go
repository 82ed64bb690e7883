package scenario

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Workload templates (docs/scenario-format.md, "Workload templates"): one
// entry of the file's workloads list stands for many pods, or many
// PodGroups with their pods, arriving over time with drawn run times and
// sizes. The builder expands them into the same Pods and PodGroups a
// hand-written file gives, so everything downstream (the runner, the
// result, metrics) cannot tell them apart.

// maxWeight bounds a size's weight, so that sums cannot overflow.
const maxWeight = 1_000_000

// workloadPlan is a workload checked and ready to expand: its arrival
// times, its run-time distribution, its size choices and random streams.
type workloadPlan struct {
	spec     *schema.Workload
	index    int
	where    string
	arrivals []time.Duration
	runTime  runTimeDist
	sizes    []size
	total    int // sum of the weights
	sizeRand *rand.Rand
	runRand  *rand.Rand
}

// size is a checked size choice.
type size struct {
	weight   int
	requests cluster.Resources // the template's requests with the size's applied
	pods     int               // pods per group (group workloads)
	minCount *int32
}

// workloads expands every workload entry into pods and PodGroups.
func (b *builder) workloads(f *schema.File) error {
	for i := range f.Workloads {
		plan, err := b.planWorkload(&f.Workloads[i], i)
		if err != nil {
			return err
		}
		if err := b.expandWorkload(plan); err != nil {
			return err
		}
	}
	return nil
}

// planWorkload checks a workload entry and draws its arrival times.
func (b *builder) planWorkload(w *schema.Workload, i int) (*workloadPlan, error) {
	p := &workloadPlan{spec: w, index: i, where: b.entry(nil, "workloads", i, w.Name)}
	if w.Name == "" {
		return nil, b.failf(w.Line, p.where+".name", "required")
	}
	if w.Pod == nil {
		return nil, b.failf(w.Line, p.where+".pod", "required: the template of the workload's pods")
	}
	// its pods and groups are named after it: name-0, name-0-0...
	if err := b.checkNames(w.Line, p.where, w.Name, w.Pod.Namespace); err != nil {
		return nil, err
	}
	if err := b.checkPodTemplate(w.Pod, p.where+".pod"); err != nil {
		return nil, err
	}
	var seed uint64
	if w.Seed != nil {
		seed = *w.Seed
	}
	streams := streamsOf(seed, w.Name)
	arr, err := b.arrival(w.Arrival, p.where+".arrival")
	if err != nil {
		return nil, err
	}
	n, err := b.replicas(w, arr, p.where)
	if err != nil {
		return nil, err
	}
	if p.arrivals, err = arr.times(n, streams[0]); err != nil {
		return nil, b.fail(w.Line, p.where+".arrival", err)
	}
	if p.runTime, err = b.decodeRunTime(w.Duration, p.where+".duration"); err != nil {
		return nil, err
	}
	p.sizeRand, p.runRand = streams[1], streams[2]
	if err := b.planSizes(p); err != nil {
		return nil, err
	}
	return p, nil
}

// streamsOf returns the workload's three random streams (arrivals, sizes,
// run times), each a PCG seeded by the seed and the workload's name, so
// that workloads sharing a seed still draw independently and changing one
// distribution leaves the other draws as they were.
func streamsOf(seed uint64, name string) [3]*rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	key := h.Sum64()
	var out [3]*rand.Rand
	for i := range out {
		out[i] = rand.New(rand.NewPCG(seed, key+uint64(i)))
	}
	return out
}

// checkPodTemplate rejects the pod fields a workload sets itself.
func (b *builder) checkPodTemplate(s *schema.Pod, where string) error {
	for _, f := range []struct {
		name string
		set  bool
	}{{"name", s.Name != ""}, {"at", s.At != ""}, {"duration", s.Duration != ""}, {"count", s.Count != nil},
		{"podGroup", s.PodGroup != ""}, {"nodeName", s.NodeName != ""}} {
		if f.set {
			return b.failf(s.Line, where+"."+f.name, "is set by the workload (name, arrival, duration, replicas, group); remove it from the template")
		}
	}
	return nil
}

// replicas returns how many replicas the workload has: its replicas field,
// or the length of its list of arrival times.
func (b *builder) replicas(w *schema.Workload, arr *arrival, where string) (int, error) {
	if w.Replicas == nil {
		if len(arr.at) > 0 {
			return len(arr.at), nil
		}
		return 0, b.failf(w.Line, where+".replicas", "required (or give arrival.at, one time per replica)")
	}
	n := *w.Replicas
	if n < 1 || n > b.opts.limits.Pods {
		return 0, b.failf(w.Line, where+".replicas", "%d is not in 1..%d", n, b.opts.limits.Pods)
	}
	if len(arr.at) > 0 && len(arr.at) != n {
		return 0, b.failf(w.Line, where+".replicas", "%d replicas but arrival.at lists %d times", n, len(arr.at))
	}
	return n, nil
}

// planSizes checks the size choices (one implicit choice when none is
// given) against the template.
func (b *builder) planSizes(p *workloadPlan) error {
	w := p.spec
	base, err := cluster.ParseResources(w.Pod.Requests)
	if err != nil {
		return b.fail(w.Pod.Line, p.where+".pod.requests", err)
	}
	def := size{weight: 1, requests: base}
	if g := w.Group; g != nil {
		if def.pods, err = b.groupPods(g.Pods, g.Line, p.where+".group.pods"); err != nil {
			return err
		}
		def.minCount = g.MinCount
	}
	if len(w.Sizes) == 0 {
		p.sizes, p.total = []size{def}, 1
		return b.checkSize(&def, w.Line, p.where+".group")
	}
	for j := range w.Sizes {
		s, err := b.size(&w.Sizes[j], def, fmt.Sprintf("%s.sizes[%d]", p.where, j), w.Group != nil)
		if err != nil {
			return err
		}
		p.sizes = append(p.sizes, s)
		p.total += s.weight
	}
	return nil
}

// size converts one size choice on top of the template's size.
func (b *builder) size(s *schema.Size, def size, where string, group bool) (size, error) {
	out := def
	if s.Weight != nil {
		if *s.Weight < 1 || *s.Weight > maxWeight {
			return out, b.failf(s.Line, where+".weight", "%d is not in 1..%d", *s.Weight, maxWeight)
		}
		out.weight = *s.Weight
	}
	req, err := cluster.ParseResources(s.Requests)
	if err != nil {
		return out, b.fail(s.Line, where+".requests", err)
	}
	for name := range s.Requests {
		out.requests = out.requests.With(cluster.ResourceName(name), req.Get(cluster.ResourceName(name)))
	}
	if !group && (s.Pods != nil || s.MinCount != nil) {
		field := ".pods"
		if s.Pods == nil {
			field = ".minCount"
		}
		return out, b.failf(s.Line, where+field, "pods and minCount are for workloads with a group")
	}
	if s.Pods != nil {
		if out.pods, err = b.groupPods(s.Pods, s.Line, where+".pods"); err != nil {
			return out, err
		}
	}
	if s.MinCount != nil {
		out.minCount = s.MinCount
	}
	return out, b.checkSize(&out, s.Line, where)
}

// groupPods checks a group's number of pods.
func (b *builder) groupPods(n *int, line int, where string) (int, error) {
	if n == nil {
		return 0, b.failf(line, where, "required: how many pods each group has")
	}
	if *n < 1 || *n > b.opts.limits.Pods {
		return 0, b.failf(line, where, "%d is not in 1..%d", *n, b.opts.limits.Pods)
	}
	return *n, nil
}

// checkSize rejects a gang that could never be complete.
func (b *builder) checkSize(s *size, line int, where string) error {
	if s.minCount != nil && s.pods > 0 && int(*s.minCount) > s.pods {
		return b.failf(line, where+".minCount", "%d is more than the %d pods of each group: the gang could never be complete", *s.minCount, s.pods)
	}
	return nil
}

// pick draws a size choice by weight.
func (p *workloadPlan) pick() size {
	if len(p.sizes) == 1 {
		return p.sizes[0]
	}
	r := p.sizeRand.IntN(p.total)
	for _, s := range p.sizes {
		if r < s.weight {
			return s
		}
		r -= s.weight
	}
	return p.sizes[len(p.sizes)-1]
}

// expandWorkload adds the workload's replicas: a pod each, or a PodGroup
// and its pods each.
func (b *builder) expandWorkload(p *workloadPlan) error {
	most := 1
	for _, s := range p.sizes {
		most = max(most, s.pods)
	}
	if err := b.tally.Room(len(p.arrivals) * most); err != nil {
		return b.fail(p.spec.Line, p.where+".replicas", err)
	}
	for i, at := range p.arrivals {
		s := p.pick()
		d := p.runTime.draw(p.runRand)
		name := p.spec.Name + "-" + strconv.Itoa(i)
		var err error
		if p.spec.Group == nil {
			err = b.addWorkloadPods(p, "", []string{name}, s.requests, at, d)
		} else {
			err = b.addWorkloadGroup(p, name, s, at, d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// addWorkloadGroup adds one replica of a group workload: the PodGroup,
// then its pods name-0 .. name-(pods-1).
func (b *builder) addWorkloadGroup(p *workloadPlan, name string, s size, at, d time.Duration) error {
	gs := p.spec.Group
	where := p.where + ".group"
	if gs.Name != "" {
		return b.failf(gs.Line, where+".name", "is set by the workload (%s-0, %s-1, ...); remove it from the template", p.spec.Name, p.spec.Name)
	}
	if gs.Namespace != "" {
		return b.failf(gs.Line, where+".namespace", "is the pod template's: set it there")
	}
	g := podgroup.PodGroup{Namespace: p.spec.Pod.Namespace, Name: name, Parent: gs.Parent, TopologyKey: gs.TopologyKey,
		Priority: gs.Priority, PriorityClassName: gs.PriorityClassName, DisruptionMode: podgroup.DisruptionMode(gs.DisruptionMode),
		PreemptionPolicy: cluster.PreemptionPolicy(gs.PreemptionPolicy)}
	if s.minCount != nil {
		g.Policy, g.MinCount = podgroup.Gang, *s.minCount
	}
	if err := b.addGroup(g, &gs.GroupCommon, gs.Line, where); err != nil {
		return err
	}
	names := make([]string, s.pods)
	for j := range names {
		names[j] = name + "-" + strconv.Itoa(j)
	}
	return b.addWorkloadPods(p, name, names, s.requests, at, d)
}

// addWorkloadPods adds pods made from the workload's template, named
// names, in group (or none), with the size's requests.
func (b *builder) addWorkloadPods(p *workloadPlan, group string, names []string, req cluster.Resources, at, d time.Duration) error {
	spec := *p.spec.Pod
	spec.Name, spec.PodGroup = names[0], group
	where := p.where + ".pod"
	tmpl, err := b.podTemplate(&spec, where)
	if err != nil {
		return err
	}
	claims, containerClaims, err := b.podClaims(&spec, where)
	if err != nil {
		return err
	}
	tmpl.Requests = req
	if r := tmpl.Resources; r != nil { // the template has limits: the size's requests are its container's
		tmpl.Resources = cluster.SingleContainer(spec.Name, req, r.Containers[0].Resources.Limits)
		tmpl.Requests = tmpl.Resources.Requests().Resources()
	}
	tmpl.ResourceClaims = claims
	if err := b.tally.AddPods(len(names)); err != nil {
		return b.fail(p.spec.Line, p.where+".replicas", err)
	}
	for _, name := range names {
		if len(name) > 253 {
			return b.failf(p.spec.Line, p.where+".name", "makes the name %s, longer than 253 characters", name)
		}
		c := tmpl.Clone()
		c.Name = name
		src := Source{File: b.file, Line: p.spec.Line, Path: entry("workloads", p.index, name)}
		if b.podNames[c.Key()] {
			return b.failf(p.spec.Line, src.Path+".name", "pod %s is defined twice", c.Key().Display())
		}
		if err := c.Validate(); err != nil {
			return b.fail(p.spec.Line, where, err)
		}
		b.podNames[c.Key()] = true
		b.sc.Pods = append(b.sc.Pods, Pod{Pod: c, At: at, Duration: d, Source: src, ContainerClaims: containerClaims})
	}
	return nil
}
