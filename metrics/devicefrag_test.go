package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

const milligpu = cluster.QualifiedName("milligpu")

// gpuNode is a node of 8 cpus (cpuFree of them free) and 32Gi with one
// shared GPU (1000 milligpu) per entry of used, each with that many
// milligpu taken.
func gpuNode(name string, cpuFree int64, used ...int64) *nodeState {
	ns := &nodeState{node: &cluster.Node{Name: name}, alloc: []int64{8000, 32 << 30, 110},
		used: []int64{8000 - 1000*cpuFree, 0, 1}, pods: 1, schedulable: true}
	nd := &nodeDevices{index: map[cluster.DeviceID]int{}, byClass: [][]int{nil}}
	for i, u := range used {
		d := device{id: cluster.DeviceID{Driver: "gpu.nvidia.com", Pool: name, Device: fmt.Sprintf("gpu-%d", i)}, shared: true,
			caps: []capacity{{name: milligpu, value: 1000 * 1000}}}
		if u > 0 {
			d.take(&cluster.DeviceRequestAllocation{ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{milligpu: cluster.Quantity(u * 1000)}}, 1)
		}
		nd.index[d.id] = i
		nd.devs = append(nd.devs, d)
		nd.byClass[0] = append(nd.byClass[0], i)
	}
	ns.dev = nd
	return ns
}

// task is a task type of class 0 asking for cpu cores and either whole
// GPUs or a share of one (milli > 0).
func task(cpu, whole, milli int64) *taskType {
	t := &taskType{whole: whole, shape: shape{vec: []int64{1000 * cpu, 1 << 30, 1}, pod: &cluster.Pod{}}}
	if milli > 0 {
		t.share = []amount{{milligpu, cluster.Quantity(milli * 1000)}}
	}
	return t
}

// By hand, on a node of two GPUs with 0.6 of gpu-0 used (1.4 free): a
// 0.5 share cannot use gpu-0's 0.4 but fits gpu-1, so 0.4 is its
// fragment; a whole GPU fits gpu-1 and cannot use the partly used gpu-0's
// 0.4; two whole GPUs, all of them, or a task short of cpu cannot run:
// all 1.4 is a fragment; a 0.3 share fits both: none is.
func TestFragmentOfATaskType(t *testing.T) {
	for _, tc := range []struct {
		name string
		task *taskType
		node *nodeState
		want int64
	}{
		{"0.5 share", task(1, 0, 500), gpuNode("n", 4, 600, 0), 400},
		{"0.3 share", task(1, 0, 300), gpuNode("n", 4, 600, 0), 0},
		{"0.5 share, gpus 0.6 and 0.7 used", task(1, 0, 500), gpuNode("n", 4, 600, 700), 700},
		{"whole gpu", task(1, 1, 0), gpuNode("n", 4, 600, 0), 400},
		{"two whole gpus", task(1, 2, 0), gpuNode("n", 4, 600, 0), 1400},
		{"all gpus", task(1, -1, 0), gpuNode("n", 4, 600, 0), 1400},
		{"all gpus of an idle node", task(1, -1, 0), gpuNode("n", 4, 0, 0), 0},
		{"short of cpu", task(6, 0, 500), gpuNode("n", 4, 600, 0), 1400},
		{"whole gpu, none free", task(1, 1, 0), gpuNode("n", 4, 1000, 1000), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, fragment(tc.node, tc.task))
		})
	}
	cordoned := gpuNode("n", 4, 600, 0)
	cordoned.schedulable = false
	assert.Zero(t, fragment(cordoned, task(1, 0, 500)), "a cordoned node counts nothing")
}

// The expected fragment weighs the types by popularity, and the ratio
// divides by the free capacity. Two pods of a 0.5 share, one of a whole
// GPU and one short of cpu on the node above: (2x0.4 + 0.4 + 1.4) / 4 =
// 0.65 of 1.4 free, 46.43%. A second node, idle, adds 2 free GPUs and no
// fragment but the cpu-short task's (it fits this node): 0.65 of 3.4.
func TestExpectedFragmentAndRatio(t *testing.T) {
	r := NewRecorder(Options{})
	r.nodes["n1"] = gpuNode("n1", 4, 600, 0)
	f := &r.dev.frag
	addType := func(tt *taskType, pods int64) {
		f.types = append(f.types, tt)
		f.sum = append(f.sum, 0)
		f.class(0).types++
		tt.count = pods
		f.pods[0] += pods
	}
	addType(task(1, 0, 500), 2)
	addType(task(1, 1, 0), 1)
	f.nodeChanged(r.nodes["n1"])
	f.update(r)
	addType(task(6, 0, 500), 1) // a new type after the first update: computed on every node
	f.update(r)
	cf := f.classes[0]
	assert.Equal(t, int64(650), cf.frag.cur)
	assert.Equal(t, int64(464286), cf.ratio.cur) // millionths
	assert.Equal(t, int64(1400), f.free[0])

	r.nodes["n2"] = gpuNode("n2", 8, 0, 0)
	f.nodeChanged(r.nodes["n2"])
	f.update(r)
	assert.Equal(t, int64(650), cf.frag.cur)
	assert.Equal(t, int64(191176), cf.ratio.cur) // 0.65 / 3.4
	assert.Equal(t, []int64{400, 400, 1400}, f.sum, "per type, summed over the nodes")

	// a change of a node recomputes it: gpu-0 freed on n1
	n1 := r.nodes["n1"].dev
	n1.devs[0].take(&cluster.DeviceRequestAllocation{ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{milligpu: 600 * 1000}}, -1)
	f.nodeChanged(r.nodes["n1"])
	f.update(r)
	assert.Equal(t, []int64{0, 0, 2000}, f.sum, "the cpu-short task still cannot run on n1")
	assert.Equal(t, int64(500), cf.frag.cur)
	require.Equal(t, int64(4000), f.free[0])
	assert.Equal(t, int64(125000), cf.ratio.cur)
}

// With nothing free, the ratio is 0.
func TestRatioWithNothingFree(t *testing.T) {
	r := NewRecorder(Options{})
	r.nodes["n"] = gpuNode("n", 4, 1000, 1000)
	f := &r.dev.frag
	f.types = []*taskType{task(1, 1, 0)}
	f.sum = []int64{0}
	f.class(0).types = 1
	f.types[0].count, f.pods[0] = 1, 1
	f.nodeChanged(r.nodes["n"])
	f.update(r)
	assert.Zero(t, f.classes[0].ratio.cur)
	assert.Zero(t, f.classes[0].frag.cur)
}

// A device's used part is its most taken capacity's share; a claim
// holding it whole takes all of it.
func TestDeviceFraction(t *testing.T) {
	d := device{shared: true, caps: []capacity{{name: "memory", value: 80 * 1000}, {name: milligpu, value: 1000 * 1000}}}
	third := &cluster.DeviceRequestAllocation{ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{milligpu: 1000 * 1000 / 3, "memory": 10 * 1000}}
	d.take(third, 1)
	assert.Equal(t, int64(333), d.used)
	d.take(third, 1)
	d.take(third, 1)
	assert.Equal(t, int64(1000), d.used, "three thirds fill it")
	d.take(third, -1)
	d.take(third, -1)
	d.take(third, -1)
	assert.Zero(t, d.used)
	d.take(&cluster.DeviceRequestAllocation{}, 1) // no capacity: the device whole
	assert.Equal(t, int64(1000), d.used)
	assert.False(t, d.fitsShare([]amount{{milligpu, 1}}))
}

// The cached sums equal a recomputation from scratch after every
// instant of random changes: devices taken and freed, cpu used, nodes
// cordoned, new task types.
func TestIncrementalFragmentsMatchRecomputation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	r := NewRecorder(Options{})
	f := &r.dev.frag
	var names []string
	for i := range 6 {
		name := fmt.Sprintf("n%d", i)
		r.nodes[name] = gpuNode(name, 8, 0, 0, 0, 0)
		names = append(names, name)
		f.nodeChanged(r.nodes[name])
	}
	shares := []int64{0, 0, 300, 500, 700}
	addType := func() {
		tt := task(1+rng.Int64N(6), 1+rng.Int64N(3), shares[rng.IntN(len(shares))])
		if tt.share != nil {
			tt.whole = 0
		}
		tt.count = 1 + rng.Int64N(5)
		f.types = append(f.types, tt)
		f.sum = append(f.sum, 0)
		f.class(0).types++
		f.pods[0] += tt.count
	}
	addType()
	for step := range 300 {
		for range 1 + rng.IntN(3) {
			ns := r.nodes[names[rng.IntN(len(names))]]
			switch rng.IntN(4) {
			case 0: // take or free a share of a device
				d := &ns.dev.devs[rng.IntN(len(ns.dev.devs))]
				q := cluster.Quantity(100 * (1 + rng.Int64N(5)) * 1000)
				a := &cluster.DeviceRequestAllocation{ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{milligpu: q}}
				c := d.capacity(milligpu)
				if c.consumed >= q && rng.IntN(2) == 0 {
					d.take(a, -1)
				} else if c.value-c.consumed >= q {
					d.take(a, 1)
				}
			case 1:
				ns.used[0] = 1000 * rng.Int64N(9)
			case 2:
				ns.schedulable = rng.IntN(4) > 0
			case 3:
				if rng.IntN(3) == 0 {
					addType()
				}
				continue
			}
			f.nodeChanged(ns)
		}
		f.update(r)
		want := make([]int64, len(f.types))
		var free int64
		for _, name := range names {
			ns := r.nodes[name]
			for i, tt := range f.types {
				want[i] += fragment(ns, tt)
			}
			if ns.schedulable {
				free += freeOf(ns.dev, 0)
			}
		}
		require.Equal(t, want, f.sum, "step %d", step)
		require.Equal(t, free, f.free[0], "step %d", step)
	}
}
