package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/dra"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/dynamicresources"
)

// This file runs a run through gangsim's Scheduler: the nodes with their
// GPUs as DRA devices, one claim template per GPU shape, the policy's
// Score plugin as the only score, and the pods added and scheduled one by
// one; a pod that does not bind is deleted (not retried).

// schedConfig is the profile of a policy: the default filters (and the
// DynamicResources plugin with the policy's device rank), every default
// score off and the policy's plugin on; no preemption (all the pods have
// the same priority, so it could never help).
func schedConfig(pol string, rank func(*cluster.NodeInfo, []*cluster.ResourceClaim) func(cluster.DeviceID) int64) gangsim.Config {
	all := []gangsim.PluginRef{{Name: "*"}}
	// the default filters, in their order, GPUFit just before DynamicResources
	var filters []gangsim.PluginRef
	for _, name := range []string{"NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodeResourcesFit",
		"PodTopologySpread", "InterPodAffinity", gpuFitName, dynamicresources.Name} {
		filters = append(filters, gangsim.PluginRef{Name: name})
	}
	plugins := &gangsim.Plugins{
		Filter:     gangsim.PluginSet{Disabled: all, Enabled: filters},
		PreScore:   gangsim.PluginSet{Disabled: all},
		Score:      gangsim.PluginSet{Disabled: all, Enabled: []gangsim.PluginRef{{Name: pol, Weight: 1}}},
		PostFilter: gangsim.PluginSet{Disabled: all},
	}
	if pol == "Random" {
		plugins.PreScore.Enabled = []gangsim.PluginRef{{Name: pol}}
	}
	return gangsim.Config{
		PercentageOfNodesToScore: 100,
		Profiles: []gangsim.Profile{{
			Plugins: plugins,
			PluginConfig: []gangsim.PluginConfig{{Name: dynamicresources.Name, Args: &dynamicresources.Args{
				Features: dra.DefaultFeatures(), DeviceRank: rank,
			}}},
		}},
	}
}

// SchedOptions are the scheduler path's switches.
type SchedOptions struct {
	// MinMax runs BestFit's min-max normalisation (see normalizedPlugin):
	// the same decisions, slower.
	MinMax bool
}

// registry registers the policy's plugin for one run.
func registry(pol Policy, run *Run, cache *stateCache, opt SchedOptions) fw.Registry {
	var pl fw.Plugin
	switch {
	case pol.Score == nil:
		pl = &randomPlugin{r: run.Rand}
	case pol.Normalize && opt.MinMax:
		pl = &normalizedPlugin{scorePlugin{pol: pol, cache: cache}}
	default:
		pl = &scorePlugin{pol: pol, cache: cache}
	}
	return fw.Registry{
		pol.Name: {New: func(_ any, h fw.Handle) (fw.Plugin, error) {
			if h != nil {
				cache.h = h
			}
			return pl, nil
		}},
		gpuFitName: {New: func(_ any, h fw.Handle) (fw.Plugin, error) {
			if h != nil {
				cache.h = h
			}
			return &gpuFitPlugin{cache: cache}, nil
		}},
	}
}

// nodeName is node i's name in the scheduler: the artefact's prefix (its
// tie-break rank), so that gangsim's tie-break, the first name, is the
// artefact's.
func nodeName(run *Run, i int) string { return fmt.Sprintf("%04d-%s", run.Rank[i], run.Nodes[i].Name) }

// templateName is the claim template of a GPU pod's shape. Under FGD a
// sharing pod's template also names its CPU: the GPU FGD picks depends on
// it, and the allocator remembers its choices per claim spec and node.
func templateName(pol string, p *Pod) string {
	name := fmt.Sprintf("gpu-%dx%d", p.NumGPU, p.GPUMilli)
	if len(p.Models) > 0 {
		name += "-" + strings.ToLower(strings.Join(p.Models, "-"))
	}
	if pol == "FGD" && p.Sharing() {
		name += fmt.Sprintf("-cpu%d", p.MilliCPU)
	}
	return name
}

// templateSpec asks for the pod's GPUs: whole ones (each taking all of a
// device's capacity) or a share of one; the models as a selector. The
// request's name carries the template's name so that each template's spec
// is distinct.
func templateSpec(name string, p *Pod) cluster.ResourceClaimSpec {
	r := &cluster.ExactDeviceRequest{DeviceClassName: "gpu", Count: int64(p.NumGPU)}
	if p.Sharing() {
		r.Count = 1
		r.Capacity = map[cluster.QualifiedName]cluster.Quantity{gpuCapacity: cluster.Quantity(p.GPUMilli * 1000)}
	}
	if len(p.Models) > 0 {
		quoted := make([]string, len(p.Models))
		for i, m := range p.Models {
			quoted[i] = fmt.Sprintf("%q", m)
		}
		r.Selectors = []cluster.DeviceSelector{{CEL: fmt.Sprintf(`device.attributes[%q].model in [%s]`, gpuDriver, strings.Join(quoted, ", "))}}
	}
	return cluster.ResourceClaimSpec{Requests: []cluster.DeviceRequest{{Name: name, Exactly: r}}}
}

// newScheduler builds the run's cluster under the policy.
func newScheduler(pol Policy, run *Run, pods podTable, memo *FragMemo, seed int64, opt SchedOptions, extra ...gangsim.Option) (*gangsim.Scheduler, error) {
	cache := &stateCache{pods: pods}
	s, err := gangsim.New(schedConfig(pol.Name, deviceRank(pol.Name, memo, cache, seed)), append([]gangsim.Option{gangsim.WithRegistry(registry(pol, run, cache, opt))}, extra...)...)
	if err != nil {
		return nil, err
	}
	if err := s.AddDeviceClass(cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: fmt.Sprintf(`device.driver == %q`, gpuDriver)}}}); err != nil {
		return nil, err
	}
	for i := range run.Nodes {
		n := &run.Nodes[i]
		name := nodeName(run, i)
		if err := s.AddNode(cluster.Node{Name: name, Allocatable: cluster.NewResources(n.MilliCPU, n.MemoryMiB<<20, 1001)}); err != nil {
			return nil, err
		}
		if n.GPUs == 0 {
			continue
		}
		devs := make([]cluster.Device, n.GPUs)
		for j := range devs {
			devs[j] = cluster.Device{
				Name:                     fmt.Sprintf("gpu-%d", j),
				Attributes:               map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &n.Model}},
				AllowMultipleAllocations: true,
				Capacity:                 map[cluster.QualifiedName]cluster.DeviceCapacity{gpuCapacity: {Value: milli * 1000}},
			}
		}
		if err := s.AddResourceSlice(cluster.ResourceSlice{Name: name + "-gpus", Driver: gpuDriver,
			Pool: cluster.ResourcePool{Name: name, SliceCount: 1}, NodeName: name, Devices: devs}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// SimulateScheduler replays the run through the Scheduler under the
// policy, as Simulate does with its own loop. memo is FGD's (one per
// goroutine: it is not safe for concurrent use).
func SimulateScheduler(run *Run, pol Policy, memo *FragMemo, seed int64, opt SchedOptions) (Outcome, error) {
	pods := make(podTable, len(run.Pods))
	for k := range run.Pods {
		pods[run.Pods[k].Name] = &run.Pods[k]
	}
	// the resourceclaim controller makes each pod's claim from its
	// template as the pod is added, and deletes it with the pod
	claims := controllers.NewResourceClaims()
	s, err := newScheduler(pol, run, pods, memo, seed, opt, claims.Attach())
	if err != nil {
		return Outcome{}, err
	}
	if err := claims.Start(s); err != nil {
		return Outcome{}, err
	}
	index := make(map[string]int, len(run.Nodes))
	for i := range run.Nodes {
		index[nodeName(run, i)] = i
	}
	templates := map[string]bool{}
	out := Outcome{ClusterGPUs: int(clusterGPUMilli(run.Nodes) / milli)}
	var arrived, used int64
	for k := range run.Pods {
		p := &run.Pods[k]
		pod := cluster.Pod{Name: p.Name, Requests: cluster.NewResources(p.MilliCPU, p.MemoryMiB<<20, 0)}
		if p.NumGPU > 0 {
			t := templateName(pol.Name, p)
			if !templates[t] {
				if err := claims.AddTemplate(cluster.ResourceClaimTemplate{Name: t, Spec: templateSpec(t, p)}); err != nil {
					return out, err
				}
				templates[t] = true
			}
			pod.ResourceClaims = []cluster.PodResourceClaim{{Name: claimEntry, ResourceClaimTemplateName: t}}
		}
		if err := s.AdvanceTo(time.Duration(k) * time.Second); err != nil {
			return out, err
		}
		if err := claims.Prepare(&pod); err != nil {
			return out, err
		}
		if err := s.AddPod(pod, 0); err != nil {
			return out, err
		}
		res, _, err := s.ScheduleOne()
		if err != nil {
			return out, err
		}
		arrived += p.TotalGPUMilli()
		node := -1
		if len(res.Bound) == 1 {
			node = index[res.Bound[0].Node]
			used += p.TotalGPUMilli()
		} else {
			out.Failed++
			if err := s.DeletePod(pod.Key()); err != nil {
				return out, err
			}
		}
		out.Node = append(out.Node, node)
		out.Arrived = append(out.Arrived, arrived)
		out.Used = append(out.Used, used)
	}
	return out, nil
}
