package metrics

import (
	"cmp"
	"slices"
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
}

// deviceSeries converts a device track: "class=gpu allocated devices".
func deviceSeries(group, metric, u string, t *track, scale float64) Series {
	return Series{Name: group + " " + metric, Metric: metric, Domain: group, Unit: u, Points: points(t, scale)}
}
