package scenario

import (
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// kueue gathers the Kueue objects of the input files, in input order,
// and checks them together: names unique within a kind, one
// Configuration. Each object was checked on its own when read.
func (b *builder) kueue(f *schema.File) error {
	if f.Kueue == nil {
		return nil
	}
	if b.sc.Kueue == nil {
		b.sc.Kueue = &kueue.Objects{}
	}
	all, in := b.sc.Kueue, f.Kueue
	if in.Configuration != nil && all.Configuration != nil {
		return b.failf(0, "Configuration", "a second Kueue Configuration: Kueue reads one")
	}
	merged := *all
	merged.ResourceFlavors = append(merged.ResourceFlavors, in.ResourceFlavors...)
	merged.ClusterQueues = append(merged.ClusterQueues, in.ClusterQueues...)
	merged.LocalQueues = append(merged.LocalQueues, in.LocalQueues...)
	merged.Cohorts = append(merged.Cohorts, in.Cohorts...)
	merged.WorkloadPriorityClasses = append(merged.WorkloadPriorityClasses, in.WorkloadPriorityClasses...)
	merged.Topologies = append(merged.Topologies, in.Topologies...)
	if in.Configuration != nil {
		merged.Configuration = in.Configuration
	}
	if kind, name, err := merged.Validate(); err != nil {
		return b.failf(0, kind+" "+name, "%v", err)
	}
	*all = merged
	return nil
}
