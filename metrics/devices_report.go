package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// DeviceSummary is one group of devices over the run: the devices a
// class selects (By "class"), or those of one model (By "model", Name
// the devices' model attribute, "" for devices without one). Amounts are
// in devices; Devices, Allocated and Capacity are time averages.
type DeviceSummary struct {
	By, Name string
	// Devices counts the group's devices on the nodes.
	Devices, DevicesPeak float64
	// Allocated counts the devices some claim holds, whole or in part.
	Allocated, AllocatedPeak float64
	// Capacity sums the part of each device the claims take: a device
	// held whole counts 1, a shared one its most taken capacity's share
	// (three claims of 200 milligpu on a GPU of 1000 count 0.6).
	Capacity, CapacityPeak float64
	// Utilization is the Capacity integral over the Devices integral
	// (over a report of one instant, Capacity over Devices).
	Utilization float64
}

// DeviceFragmentation is one device class's fragmentation over the run,
// as Weng et al. define it in "Beware of Fragmentation" (USENIX ATC '23;
// docs/capacity-planning.md): the free capacity of the class's devices
// that the workload's task types, weighed by popularity, cannot use.
type DeviceFragmentation struct {
	Class string
	// TaskTypes counts the distinct kinds of pods requesting the class.
	TaskTypes int
	// Percent is the time average of the fragmentation ratio, in
	// percent: expected fragment over the free capacity (0 while none is
	// free); PercentPeak its highest value.
	Percent, PercentPeak float64
	// Fragmented is the time average of the expected fragment, in
	// devices; FragmentedPeak its highest value.
	Fragmented, FragmentedPeak float64
}

// ratioScale is how many ratio track units make one percent (the track
// holds millionths).
const ratioScale = 1e4

// deviceSummaries adds the device groups' and classes' summaries and
// series; nothing when no node has devices.
func (r *Recorder) deviceSummaries(rep *Report) {
	groups := make([]*deviceGroup, 0, len(r.dev.groups))
	for _, g := range r.dev.groups {
		if len(g.total.pts) > 0 {
			groups = append(groups, g)
		}
	}
	slices.SortFunc(groups, func(a, b *deviceGroup) int {
		return cmp.Or(cmp.Compare(a.id.by, b.id.by), cmp.Compare(a.id.name, b.id.name))
	})
	for _, g := range groups {
		tot := g.total.stats(rep.Start, rep.End)
		alloc := g.allocated.stats(rep.Start, rep.End)
		capa := g.capacity.stats(rep.Start, rep.End)
		rep.Devices = append(rep.Devices, DeviceSummary{By: g.id.by, Name: g.id.name,
			Devices: tot.mean, DevicesPeak: float64(tot.peak), Allocated: alloc.mean, AllocatedPeak: float64(alloc.peak),
			Capacity: capa.mean / unit, CapacityPeak: float64(capa.peak) / unit, Utilization: share(capa, tot, unit)})
		label := g.id.by + "=" + g.id.name
		rep.Series = append(rep.Series,
			deviceSeries(label, "devices", "devices", &g.total, 1),
			deviceSeries(label, "allocated devices", "devices", &g.allocated, 1),
			deviceSeries(label, "allocated device capacity", "devices", &g.capacity, unit))
	}
	for c, cf := range r.dev.frag.classes {
		name := r.dev.classes[c]
		if g := r.dev.groups[groupID{"class", name}]; cf.types == 0 || g == nil || len(g.total.pts) == 0 {
			continue // no pod asks for the class, or no node has its devices
		}
		pct := cf.ratio.stats(rep.Start, rep.End)
		frag := cf.frag.stats(rep.Start, rep.End)
		rep.DeviceFragmentation = append(rep.DeviceFragmentation, DeviceFragmentation{Class: name, TaskTypes: cf.types,
			Percent: pct.mean / ratioScale, PercentPeak: float64(pct.peak) / ratioScale,
			Fragmented: frag.mean / unit, FragmentedPeak: float64(frag.peak) / unit})
	}
	slices.SortFunc(rep.DeviceFragmentation, func(a, b DeviceFragmentation) int { return cmp.Compare(a.Class, b.Class) })
	for _, f := range rep.DeviceFragmentation {
		cf := r.dev.frag.classes[r.dev.classIdx[f.Class]]
		label := "class=" + f.Class
		rep.Series = append(rep.Series,
			deviceSeries(label, "device fragmentation", "%", &cf.ratio, ratioScale),
			deviceSeries(label, "fragmented devices", "devices", &cf.frag, unit))
	}
	r.gpuResources(rep, groups)
}

// DRAPrefix begins the name of a resource row of GPUs served through
// Dynamic Resource Allocation: "class=" and the device class.
const DRAPrefix = "class="

// gpuResources adds to the resources a row for each class of GPUs served
// through Dynamic Resource Allocation (gpuClass), before pods, so that
// the GPUs a device plugin would count as nvidia.com/gpu show as GPUs too:
// capacity the class's devices, allocated the part of them the claims
// take (a shared GPU's share), utilisation and unit-hours from those, and
// fragmented the class's device fragmentation.
func (r *Recorder) gpuResources(rep *Report, groups []*deviceGroup) {
	ext := map[string]cluster.ResourceName{}
	if r.dev.src != nil {
		for c := range r.dev.src.DeviceClasses() {
			ext[c.Name] = c.ExtendedResourceName
		}
	}
	var rows []ResourceSummary
	for _, g := range groups {
		if g.id.by != "class" || !gpuClass(g.id.name, ext[g.id.name]) {
			continue
		}
		tot := g.total.stats(rep.Start, rep.End)
		capa := g.capacity.stats(rep.Start, rep.End)
		row := ResourceSummary{Resource: cluster.ResourceName(DRAPrefix + g.id.name), Unit: "GPUs", Capacity: tot.mean,
			Allocated: capa.mean / unit, AllocatedPeak: float64(capa.peak) / unit, AllocatedHours: capa.integral / unit / 3600,
			Utilization: share(capa, tot, unit)}
		if i := slices.IndexFunc(rep.DeviceFragmentation, func(f DeviceFragmentation) bool { return f.Class == g.id.name }); i >= 0 {
			row.Fragmented, row.FragmentedPeak = rep.DeviceFragmentation[i].Fragmented, rep.DeviceFragmentation[i].FragmentedPeak
		}
		rows = append(rows, row)
	}
	at := slices.IndexFunc(rep.Resources, func(s ResourceSummary) bool { return s.Resource == cluster.ResourcePods })
	if at < 0 {
		at = len(rep.Resources)
	}
	rep.Resources = slices.Insert(rep.Resources, at, rows...)
}

// gpuClass reports whether a device class is one of GPUs: a word of its
// name is "gpu" (gpu.nvidia.com, gpu.amd.com, gpu.example.com), or the
// extended resource it serves is reported in GPUs (Unit).
func gpuClass(name string, ext cluster.ResourceName) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(c rune) bool { return c == '.' || c == '-' })
	if slices.Contains(words, "gpu") {
		return true
	}
	unit, _ := Unit(ext)
	return ext != "" && unit == "GPUs"
}

// deviceSeries converts a device track: "class=gpu allocated devices".
func deviceSeries(group, metric, u string, t *track, scale float64) Series {
	return Series{Name: group + " " + metric, Metric: metric, Domain: group, Unit: u, Points: points(t, scale)}
}
