package scenario

import (
	"errors"
	"strings"

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
	merged.Dumped = append(merged.Dumped, in.Dumped...)
	merged.Owned = append(merged.Owned, in.Owned...)
	if in.Configuration != nil {
		merged.Configuration = in.Configuration
	}
	if kind, name, err := merged.Validate(); err != nil {
		// the object, then the field at fault, as the importer's errors
		// name them ("ResourceFlavor spot: metadata.name")
		path := strings.TrimSpace(kind + " " + name)
		var fe *kueue.FieldError
		if errors.As(err, &fe) {
			return b.failf(0, path+": "+fe.Field, "%s", fe.Detail)
		}
		return b.failf(0, path, "%v", err)
	}
	*all = merged
	b.kueueUnmodelled(in)
	return nil
}

// kueueUnmodelled warns about what of Kueue's objects the simulation
// does not run yet.
func (b *builder) kueueUnmodelled(in *kueue.Objects) {
	tas := "Kueue's topology-aware scheduling places the pods of plain pods, pod groups and jobs in their domains; " +
		"a LeaderWorkerSet's or a RayCluster's pods admitted in this flavor get its node labels, not their domains, and balanced placement, leaders and TAS-driven preemption are not modelled"
	for _, f := range in.ResourceFlavors {
		if f.TopologyName != "" {
			b.ws.Add("ResourceFlavor", "spec.topologyName", tas, b.file+": ResourceFlavor "+f.Name)
		}
	}
	for _, q := range in.ClusterQueues {
		if len(q.AdmissionChecks) > 0 {
			b.ws.Add("ClusterQueue", "spec.admissionChecks", "admission checks are not modelled: a workload is admitted once it has quota", b.file+": ClusterQueue "+q.Name)
		}
	}
	if c := in.Configuration; c != nil {
		if c.AdmissionFairSharing != nil {
			if on, set := c.FeatureGates["AdmissionFairSharing"]; set && !on {
				b.ws.Add("Configuration", "featureGates.AdmissionFairSharing", "the gate is off: admissionFairSharing is ignored, as Kueue ignores it", b.file+": Configuration")
			}
		}
		if w := c.WaitForPodsReady; w != nil && w.BlockAdmission {
			b.ws.Add("Configuration", "waitForPodsReady.blockAdmission", "not modelled: admission goes on while admitted workloads wait for their pods", b.file+": Configuration")
		}
		if w := c.WaitForPodsReady; w != nil && w.RecoveryTimeout != nil {
			b.ws.Add("Configuration", "waitForPodsReady.recoveryTimeout", "not modelled: a workload whose pods were ready once is not evicted when one is lost", b.file+": Configuration")
		}
	}
}
