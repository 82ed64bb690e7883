package main

import (
	"hash/fnv"
	"math/rand"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// The policies as user plugins: each is a Score plugin written on the
// public plugin API, reading a node's CPU, memory and GPUs from its
// NodeInfo (GPUs are DRA devices of driver gpu.nvidia.com, each with a
// shared capacity of 1000 milligpu) and scoring it with the policy's
// function of policies.go. Their scores depend on the node and the pod's
// shape only, so they are Signers: the scheduler's filter memo keeps a
// node's score per pod shape while the node does not change, which is
// what the pure driver's per-node cache does by hand.
//
// The GPU a sharing pod takes is chosen by the DynamicResources plugin's
// allocator; deviceRank orders a node's GPUs for it as the policy picks
// them (best fit, FGD's best GPU, or pseudo-random for Random).

// The names of the devices' driver and capacity.
const (
	gpuDriver   = "gpu.nvidia.com"
	gpuCapacity = cluster.QualifiedName("milligpu")
	claimEntry  = "gpu" // the pods' ResourceClaims entry
)

// podTable maps the run's pod names to their trace rows: the plugins read a
// pod's GPU request (and a node's pods' kinds) from it rather than parsing
// claims back. A run's table is written before its pods are added and is
// read-only while the scheduler runs.
type podTable map[string]*Pod

// ofClaim is the pod a template's claim was made for ("<pod>-gpu").
func (t podTable) ofClaim(c *cluster.ResourceClaim) *Pod {
	return t[strings.TrimSuffix(c.Name, "-"+claimEntry)]
}

// stateOf reads a node as the policies see it: free CPU and memory, the
// model and each GPU's free thousandths (device gpu-i is GPU i), and, with
// kinds (for GpuClustering), the kinds of the GPU pods on it.
func stateOf(ni *cluster.NodeInfo, pods podTable, kinds bool) NodeState {
	alloc, req := ni.Allocatable(), ni.Requested()
	s := NodeState{CPU: alloc.MilliCPU - req.MilliCPU, Mem: (alloc.Memory - req.Memory) >> 20}
	for _, sl := range ni.Slices() {
		if sl.Driver != gpuDriver {
			continue
		}
		for d := range sl.Devices {
			if a, ok := sl.Devices[d].Attributes["model"]; ok && a.StringValue != nil {
				s.Model = *a.StringValue
			}
		}
		s.GPUs = min(MaxGPUs, s.GPUs+len(sl.Devices))
	}
	for i := range s.GPUs {
		s.Free[i] = milli
	}
	ni.EachDeviceInUse(func(id cluster.DeviceID, u cluster.DeviceUse) {
		if i := gpuIndex(id); id.Driver == gpuDriver && i >= 0 && i < s.GPUs {
			s.Free[i] = int32(milli - int64(u.Capacity[gpuCapacity])/1000)
		}
	})
	if kinds {
		for pi := range ni.Pods() {
			if p := pods[pi.Pod().Name]; p != nil && p.NumGPU > 0 {
				s.Classes[class(p)]++
			}
		}
	}
	return s
}

// gpuIndex is i for device "gpu-i", -1 for another name.
func gpuIndex(id cluster.DeviceID) int {
	d := id.Device
	if len(d) < 5 || d[:4] != "gpu-" {
		return -1
	}
	i := 0
	for _, c := range d[4:] {
		if c < '0' || c > '9' {
			return -1
		}
		i = 10*i + int(c-'0')
	}
	return i
}

// stateCache remembers each node's state while its snapshot stamp holds
// (equal stamps: the node holds what it held), for the policy's Score and
// the device rank of the same run. h is the run's handle, set when the
// plugin is built.
type stateCache struct {
	h    fw.Handle
	pods podTable
	snap *cluster.Snapshot
	ents []stateEnt
	// last is the pod last looked up by name: a pod's filters and score
	// ask for it on every node
	lastName string
	last     *Pod
}

type stateEnt struct {
	stamp uint64
	ok    bool
	kinds bool
	s     NodeState
}

// pod is the trace row of a pod of the run (nil for another pod).
func (c *stateCache) pod(pi *cluster.PodInfo) *Pod {
	name := pi.Pod().Name
	if c.last == nil || name != c.lastName {
		c.lastName, c.last = name, c.pods[name]
	}
	return c.last
}

// get is stateOf(ni, c.pods, kinds), remembered. The state it points to
// is read-only, and valid until the next call.
func (c *stateCache) get(ni *cluster.NodeInfo, kinds bool) *NodeState {
	if c.h == nil {
		s := stateOf(ni, c.pods, kinds)
		return &s
	}
	snap := c.h.Snapshot()
	i := ni.Index()
	if i < 0 || i >= snap.Len() || snap.Node(i) != ni {
		s := stateOf(ni, c.pods, kinds)
		return &s
	}
	if snap != c.snap {
		c.snap, c.ents = snap, nil
	}
	if len(c.ents) < snap.Len() {
		c.ents = append(c.ents, make([]stateEnt, snap.Len()-len(c.ents))...)
	}
	e := &c.ents[i]
	if st := snap.Stamp(i); !e.ok || e.stamp != st || kinds && !e.kinds {
		*e = stateEnt{stamp: st, ok: true, kinds: kinds, s: stateOf(ni, c.pods, kinds)}
	}
	return &e.s
}

// signShape appends what a policy's score reads of a pod.
func signShape(sig []byte, p *Pod) []byte {
	sig = strconv.AppendInt(sig, p.MilliCPU, 10)
	sig = append(sig, ',')
	sig = strconv.AppendInt(sig, p.GPUMilli, 10)
	sig = append(sig, ',')
	sig = strconv.AppendInt(sig, int64(p.NumGPU), 10)
	sig = append(sig, ',')
	for _, m := range p.Models {
		sig = append(sig, m...)
		sig = append(sig, '|')
	}
	return append(sig, ';')
}

// scorePlugin is a deterministic policy's node score.
type scorePlugin struct {
	pol   Policy
	cache *stateCache
}

var (
	_ fw.ScorePlugin = (*scorePlugin)(nil)
	_ fw.Signer      = (*scorePlugin)(nil)
)

func (pl *scorePlugin) Name() string { return pl.pol.Name }

func (pl *scorePlugin) Score(_ *fw.CycleState, pod *cluster.PodInfo, ni *cluster.NodeInfo) (int64, *fw.Status) {
	p := pl.cache.pod(pod)
	if p == nil {
		return 0, nil
	}
	return pl.pol.Score(pl.cache.get(ni, pl.pol.Name == "GpuClustering"), p), nil
}

func (pl *scorePlugin) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	p := pl.cache.pod(pod)
	if p == nil {
		return sig, false
	}
	return signShape(sig, p), true
}

// normalizedPlugin is a scorePlugin with BestFit's min-max normalisation
// over the scored nodes. The example leaves it off by default: BestFit's
// raw scores are integers in 0..100, so the normalised scores
// (v-lo)*100/(hi-lo) keep their order strictly (hi-lo <= 100: one apart
// stays at least one apart) and every tie as it is, and the node chosen is
// the same; without the normaliser, which is not pointwise (it reads the
// lowest score), the filter memo remembers BestFit's scores. The
// comparison test runs both (SchedOptions.MinMax).
type normalizedPlugin struct{ scorePlugin }

var _ fw.ScoreNormalizer = (*normalizedPlugin)(nil)

func (pl *normalizedPlugin) NormalizeScore(_ *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	raw := make([]int64, len(scores))
	for i := range scores {
		raw[i] = scores[i].Score
	}
	Normalize(raw)
	for i := range scores {
		scores[i].Score = raw[i]
	}
	return nil
}

// randomPlugin is the Random policy: its PreScore draws one of the feasible
// nodes from the run's stream (when there are two or more: the scheduler
// takes a single one unscored), which then scores 100 and the others 0.
// It is not a Signer: its answer changes from pod to pod.
type randomPlugin struct {
	r      *rand.Rand
	chosen string
}

var (
	_ fw.PreScorePlugin = (*randomPlugin)(nil)
	_ fw.ScorePlugin    = (*randomPlugin)(nil)
)

func (pl *randomPlugin) Name() string { return "Random" }

func (pl *randomPlugin) PreScore(_ *fw.CycleState, _ *cluster.PodInfo, nodes []*cluster.NodeInfo) *fw.Status {
	pl.chosen = ""
	if len(nodes) > 1 {
		pl.chosen = nodes[pl.r.Intn(len(nodes))].Name()
	}
	return nil
}

func (pl *randomPlugin) Score(_ *fw.CycleState, _ *cluster.PodInfo, ni *cluster.NodeInfo) (int64, *fw.Status) {
	if ni.Name() == pl.chosen {
		return fw.MaxNodeScore, nil
	}
	return 0, nil
}

// deviceRank is the policy's GPU choice as the allocator's device order:
// the allocator tries lower ranks first, equal ranks in device order, and
// takes the first GPUs that fit. A pod of whole GPUs fits only fully free
// GPUs, all of equal rank: the lowest-indexed, as the artefact takes them.
// A sharing pod's GPU is ranked by the policy: the least free first (best
// fit, the lowest index on a tie), FGD's score per GPU (the highest first,
// the lowest index on a tie), or a hash of the seed, the node, its GPUs'
// use, the share asked and the GPU (Random: the artefact draws a fitting
// GPU from its stream; a rank must depend on the node and the claims'
// specs only, as the allocator remembers its choice per node state and
// spec, so the draw is a hash of those).
func deviceRank(pol string, m *FragMemo, cache *stateCache, seed int64) func(*cluster.NodeInfo, []*cluster.ResourceClaim) func(cluster.DeviceID) int64 {
	return func(ni *cluster.NodeInfo, claims []*cluster.ResourceClaim) func(cluster.DeviceID) int64 {
		if len(claims) != 1 {
			return nil
		}
		p := cache.pods.ofClaim(claims[0])
		if p == nil || !p.Sharing() {
			return nil
		}
		s := *cache.get(ni, false)
		var rank [MaxGPUs]int64
		switch pol {
		case "FGD":
			before := m.Frag(&s)
			for i := range s.GPUs {
				if int64(s.Free[i]) < p.GPUMilli {
					continue
				}
				after := s
				after.Place(p, GPUSet(0).With(i))
				rank[i] = -fgdScore(before, m.Frag(&after))
			}
		case "Random":
			h := fnv.New64a()
			var buf [128]byte
			h.Write(randomKey(buf[:0], seed, ni.Name(), s.Free[:s.GPUs], p.GPUMilli))
			base := h.Sum64()
			for i := range s.GPUs {
				rank[i] = int64(mix(base+uint64(i)) >> 1)
			}
		default:
			for i := range s.GPUs {
				rank[i] = int64(s.Free[i])
			}
		}
		return func(id cluster.DeviceID) int64 {
			if i := gpuIndex(id); i >= 0 && i < MaxGPUs {
				return rank[i]
			}
			return 0
		}
	}
}

// randomKey appends what Random's GPU ranks hash, as
// fmt.Sprintf("%d/%s/%v/%d", seed, node, free, milli) prints it.
func randomKey(b []byte, seed int64, node string, free []int32, milli int64) []byte {
	b = append(append(strconv.AppendInt(b, seed, 10), '/'), node...)
	b = append(b, '/', '[')
	for i, f := range free {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendInt(append(b, ']', '/'), milli, 10)
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// gpuFitName is the plugin that checks a GPU pod's GPUs before the
// DynamicResources plugin allocates them.
const gpuFitName = "GPUFit"

// gpuFitPlugin is a cheap filter ahead of DynamicResources: a GPU pod
// needs a node whose GPUs of an accepted model have its share free (one
// GPU for a share, NumGPU fully free GPUs for whole ones), the artefact's
// Open-Gpu-Share filter. DynamicResources then allocates only on nodes
// where the allocation succeeds, and decides as it would alone (it
// rejects the same nodes); the filter only saves its work.
type gpuFitPlugin struct{ cache *stateCache }

var (
	_ fw.FilterPlugin = (*gpuFitPlugin)(nil)
	_ fw.Signer       = (*gpuFitPlugin)(nil)
)

func (pl *gpuFitPlugin) Name() string { return gpuFitName }

func (pl *gpuFitPlugin) Filter(_ *fw.CycleState, pod *cluster.PodInfo, ni *cluster.NodeInfo) *fw.Status {
	p := pl.cache.pod(pod)
	if p == nil || p.NumGPU == 0 {
		return nil
	}
	s := pl.cache.get(ni, false)
	if s.GPUs == 0 || !s.Accepts(p.Models) || s.gpusWith(p.GPUMilli) < p.NumGPU {
		return errInsufficientGPUs
	}
	return nil
}

// errInsufficientGPUs is GPUFit's rejection, one value for every node
// (a Status is read-only).
var errInsufficientGPUs = fw.NewStatus(fw.Unschedulable, "insufficient GPUs").WithPlugin(gpuFitName)

func (pl *gpuFitPlugin) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	p := pl.cache.pod(pod)
	if p == nil {
		return sig, false
	}
	return signShape(sig, p), true
}
