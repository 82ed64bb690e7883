package interpodaffinity

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "InterPodAffinity"

// Args configure InterPodAffinity.
type Args struct {
	// HardPodAffinityWeight is what an existing pod's required affinity
	// term adds to the score of the nodes in its domain when the incoming
	// pod matches it (0..100; nil means 1, 0 turns it off).
	HardPodAffinityWeight *int32 `yaml:"hardPodAffinityWeight"`
	// IgnorePreferredTermsOfExistingPods skips scoring for pods without
	// preferred terms of their own.
	IgnorePreferredTermsOfExistingPods bool `yaml:"ignorePreferredTermsOfExistingPods"`
}

// Validate checks the arguments; its errors name the field.
func (a *Args) Validate() error {
	if a != nil && a.HardPodAffinityWeight != nil && (*a.HardPodAffinityWeight < 0 || *a.HardPodAffinityWeight > 100) {
		return fw.ArgError("hardPodAffinityWeight", "%d is not in 0..100", *a.HardPodAffinityWeight)
	}
	return nil
}

// InterPodAffinity places pods by the other pods in their topology
// domains, as kube-scheduler's plugin of that name does.
//
// Filter: a pod with required affinity terms goes only where, for every
// term, some pod matching all its terms runs in the node's domain of the
// term's key (the first pod of a group whose terms select itself may go to
// any node carrying the keys); a pod with required anti-affinity terms
// never joins a domain holding a pod a term selects; and no pod joins a
// domain where an existing pod's required anti-affinity selects it.
// Affinity failures cannot be resolved by preemption, anti-affinity ones
// can.
//
// Score: in each domain, preferred terms of the incoming pod add (or, for
// anti-affinity, subtract) their weight per matching pod there, and so do
// the existing pods' preferred terms matching the incoming pod; an existing
// pod's required affinity term matching the incoming pod adds
// HardPodAffinityWeight. The sums are stretched to 0..100 over the scored
// nodes.
//
// Counts are kept per pod signature and follow the snapshot's changes
// (see helper.TopologyCounts): a gang's earlier members, reserved tentatively in the
// same cycle, count for the later ones, and pods preemption removes
// tentatively stop counting.
type InterPodAffinity struct {
	snapshots       helper.SnapshotSource
	hardWeight      int64
	ignorePreferred bool
	cache           helper.TopologyCache
	sig             []byte
}

var statusSkip = fw.NewStatus(fw.Skip)

var (
	_ fw.Stateless            = (*InterPodAffinity)(nil)
	_ fw.EnqueueExtensions    = (*InterPodAffinity)(nil)
	_ fw.PreFilterPlugin      = (*InterPodAffinity)(nil)
	_ fw.PreFilterExtensions  = (*InterPodAffinity)(nil)
	_ fw.FilterPlugin         = (*InterPodAffinity)(nil)
	_ fw.PreScorePlugin       = (*InterPodAffinity)(nil)
	_ fw.PreScoreIgnoresNodes = (*InterPodAffinity)(nil)
	_ fw.ScorePlugin          = (*InterPodAffinity)(nil)
	_ fw.ScoreNormalizer      = (*InterPodAffinity)(nil)
)

// New builds the plugin from its arguments (nil, an Args or an *Args),
// reading the cycle's snapshot through h, as the registry does.
func New(args any, h fw.Handle) (fw.Plugin, error) {
	a, err := fw.ArgsAs[Args](args)
	if err != nil {
		return nil, err
	}
	return NewInterPodAffinity(a, h)
}

// NewArgs returns the default arguments, for a loader to decode a file's
// arguments into.
func NewArgs() any { return &Args{} }

// EventsToRegister: pods matching a term may arrive, conflicting pods may
// leave, nodes may be added or relabelled.
func (*InterPodAffinity) EventsToRegister() fw.ClusterEvent {
	return fw.AssignedPodAdded | fw.AssignedPodDeleted | fw.NodeAdded | fw.NodeChanged
}

// NewInterPodAffinity returns the plugin configured by a (nil: defaults),
// reading the cycle's snapshot from snapshots.
func NewInterPodAffinity(a *Args, snapshots helper.SnapshotSource) (*InterPodAffinity, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	p := &InterPodAffinity{snapshots: snapshots, hardWeight: 1}
	if a != nil {
		if a.HardPodAffinityWeight != nil {
			p.hardWeight = int64(*a.HardPodAffinityWeight)
		}
		p.ignorePreferred = a.IgnorePreferredTermsOfExistingPods
	}
	return p, nil
}

// PreScoreIgnoresNodes declares that PreScore reads the whole snapshot,
// not the feasible nodes.
func (*InterPodAffinity) PreScoreIgnoresNodes() {}

// Stateless declares that the plugin's answers depend on the pod, the
// snapshot and the nominations alone: its counts are a cache of the snapshot.
func (*InterPodAffinity) Stateless() {}

// Name returns Name.
func (*InterPodAffinity) Name() string { return Name }

// PodLocalFor reports that the plugin does nothing for the pod: it has
// no pod affinity or anti-affinity terms, and no pod in the cluster has
// any (framework.PodLocal).
func (pl *InterPodAffinity) PodLocalFor(pod *cluster.PodInfo, snap *cluster.Snapshot) bool {
	return !pod.HasPodAffinity() && !pod.HasRequiredAntiAffinity() && snap.PodsWithAffinity() == 0 && snap.PodsWithRequiredAntiAffinity() == 0
}

var _ fw.PodLocal = (*InterPodAffinity)(nil)
