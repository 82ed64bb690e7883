package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario"
)

// Defaults of Options.
const (
	// DefaultGPUResource counts GPUs in thousandths, in the pooled mode
	// (Options.PooledGPUs), so that pods sharing a GPU (gpu_milli below
	// 1000) fit beside each other. It does not model packing onto one
	// physical device.
	DefaultGPUResource cluster.ResourceName = "alibaba.com/gpu-milli"
	// DefaultModelLabel is the node label holding the GPU model.
	DefaultModelLabel = "alibaba.com/gpu-model"
	// DefaultRackLabel is the node label of synthesised racks.
	DefaultRackLabel = "topology.gangsim.io/rack"
	// defaultPodsPerNode is the kubelet's default pod capacity.
	defaultPodsPerNode = 110
)

// Options say how a trace becomes a scenario. The zero value reads the
// trace as it is, with GPUs as devices.
type Options struct {
	// PooledGPUs counts each node's GPUs as one extended resource
	// (GPUResource) rather than as devices. It is an approximation: the
	// shares of different GPUs pool together, so three pods of 0.6 GPU fit
	// on a node of two GPUs, where on devices only two do. It is cheaper,
	// and it is how the trace was read before devices were modelled.
	PooledGPUs bool
	// GPUResource is the extended resource GPUs are counted in, in
	// thousandths of a GPU, when PooledGPUs ("": DefaultGPUResource).
	GPUResource cluster.ResourceName
	// ModelLabel is the node label of the GPU model ("":
	// DefaultModelLabel). Nodes with a model carry it. A pod with a
	// gpu_spec asks for one of its models, unless IgnoreGPUSpec: with
	// devices, by a CEL selector on the devices' model attribute; pooled,
	// by a required node affinity on the label.
	ModelLabel    string
	IgnoreGPUSpec bool
	// RackSize, when above 0, labels the nodes, in file order, into racks
	// of that many nodes: RackLabel ("": DefaultRackLabel) = "rack-0",
	// "rack-1", ...
	RackSize  int
	RackLabel string
	// Gangs groups pods into gangs; see GangOptions.
	Gangs GangOptions
	// MaxPods, when above 0, reads the first MaxPods pods only.
	MaxPods int
}

// GangOptions synthesise gangs: the pods asking for at least MinGPUs whole
// GPUs are taken in file (creation) order and grouped, Size at a time,
// into gangs: PodGroups "gang-0", "gang-1"... with minCount the number of
// members (the last gang may be smaller). A gang's members all arrive when
// its first member is created, and each runs until its own deletion time.
// TopologyKey, when set, keeps each gang in one domain of that node label
// (the rack label, for instance). Size below 2 makes no gangs.
type GangOptions struct {
	Size        int
	MinGPUs     int // 0 means 2
	TopologyKey string
}

func (o Options) withDefaults() Options {
	if o.GPUResource == "" {
		o.GPUResource = DefaultGPUResource
	}
	if o.ModelLabel == "" {
		o.ModelLabel = DefaultModelLabel
	}
	if o.RackLabel == "" {
		o.RackLabel = DefaultRackLabel
	}
	if o.Gangs.MinGPUs == 0 {
		o.Gangs.MinGPUs = 2
	}
	return o
}

// Load reads an openb node CSV and pod CSV into a scenario, named after
// the pod file.
func Load(nodesPath, podsPath string, opts Options) (*scenario.Scenario, error) {
	// read as scenario files are: within their size limit, a device or a
	// socket refused, a pipe with no writer an error, not a wait
	nodes, err := scenario.ReadFile(nodesPath)
	if err != nil {
		return nil, &Error{File: nodesPath, Err: readCause(err)}
	}
	pods, err := scenario.ReadFile(podsPath)
	if err != nil {
		return nil, &Error{File: podsPath, Err: readCause(err)}
	}
	return Read(nodesPath, bytes.NewReader(nodes), podsPath, bytes.NewReader(pods), opts)
}

// readCause is what scenario.ReadFile's error says, without the file
// (trace errors name it).
func readCause(err error) error {
	if fe, ok := errors.AsType[*scenario.FieldError](err); ok {
		return fe.Err
	}
	return err
}

// Read is Load on readers; the names are the files errors name.
func Read(nodesName string, nodes io.Reader, podsName string, pods io.Reader, opts Options) (*scenario.Scenario, error) {
	opts = opts.withDefaults()
	if opts.RackSize < 0 || opts.Gangs.Size < 0 || opts.Gangs.MinGPUs < 0 || opts.MaxPods < 0 {
		return nil, &Error{File: podsName, Err: fmt.Errorf("options: negative sizes (%+v)", opts)}
	}
	sc := &scenario.Scenario{Name: podsName}
	nt, err := readTable(nodesName, nodes, []string{"sn", "cpu_milli", "memory_mib", "gpu"})
	if err != nil {
		return nil, err
	}
	if sc.Nodes, sc.Devices.Slices, err = readNodes(nt, opts); err != nil {
		return nil, err
	}
	pt, err := readTable(podsName, pods, []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"})
	if err != nil {
		return nil, err
	}
	rows := pt.rows
	if opts.MaxPods > 0 && len(rows) > opts.MaxPods {
		rows = rows[:opts.MaxPods]
	}
	tp, err := readPods(pt, rows, opts)
	if err != nil {
		return nil, err
	}
	if !opts.PooledGPUs {
		if err := claimGPUs(sc, nt, pt, tp); err != nil {
			return nil, err
		}
	}
	sc.Pods, sc.PodGroups = makeGangs(tp, opts)
	return sc, nil
}

// readNodes converts the node rows, and in device mode makes the slices
// of their GPUs; names are unique.
func readNodes(t *table, opts Options) ([]cluster.Node, []cluster.ResourceSlice, error) {
	seen := map[string]int{}
	var out []cluster.Node
	var slices []cluster.ResourceSlice
	for i, r := range t.rows {
		name := t.text(r, "sn")
		if first, dup := seen[name]; dup {
			return nil, nil, t.fail(r, "sn", fmt.Errorf("node %q is listed twice (first on line %d)", name, first))
		}
		seen[name] = r.line
		var v [3]int64
		for k, col := range []string{"cpu_milli", "memory_mib", "gpu"} {
			var err error
			if v[k], err = t.count(r, col); err != nil {
				return nil, nil, err
			}
		}
		n := cluster.Node{Name: name, Labels: map[string]string{},
			Allocatable: cluster.NewResources(v[0], v[1]<<20, defaultPodsPerNode)}
		if opts.PooledGPUs {
			n.Allocatable = cluster.NewResources(v[0], v[1]<<20, defaultPodsPerNode, cluster.Scalar{Name: opts.GPUResource, Value: 1000 * v[2]})
		}
		model := ""
		if models := alternatives(t.text(r, "model")); len(models) == 1 {
			model = models[0]
			n.Labels[opts.ModelLabel] = model
		} else if len(models) > 1 {
			return nil, nil, t.fail(r, "model", fmt.Errorf("a node has one GPU model, not %v", models))
		}
		if opts.RackSize > 0 {
			n.Labels[opts.RackLabel] = fmt.Sprintf("rack-%d", i/opts.RackSize)
		}
		if err := n.Validate(); err != nil {
			return nil, nil, t.fail(r, "sn", err)
		}
		out = append(out, n)
		if opts.PooledGPUs || v[2] == 0 {
			continue
		}
		if v[2] > cluster.MaxSlicedDevices {
			return nil, nil, t.fail(r, "gpu", fmt.Errorf("%d GPUs: one slice holds at most %d devices (PooledGPUs counts more)", v[2], cluster.MaxSlicedDevices))
		}
		sl := gpuSlice(name, v[2], model)
		if err := sl.Validate(); err != nil {
			return nil, nil, t.fail(r, "sn", err)
		}
		slices = append(slices, sl)
	}
	return out, slices, nil
}

// tracePod is a pod row read: the pod, its times, its whole GPUs and, in
// device mode, the shape of its GPU claim (count 0: none).
type tracePod struct {
	pod      scenario.Pod
	deletion time.Duration // 0: never
	gpus     int64
	shape    gpuShape
	line     int
}

// readPods converts the pod rows: requests, arrival at creation_time and
// a run time until deletion_time (none when the file has no times, or the
// pod is deleted when created: it then runs to the end).
func readPods(t *table, rows []row, opts Options) ([]tracePod, error) {
	seen := map[string]int{}
	var out []tracePod
	for _, r := range rows {
		name := t.text(r, "name")
		if first, dup := seen[name]; dup {
			return nil, t.fail(r, "name", fmt.Errorf("pod %q is listed twice (first on line %d)", name, first))
		}
		seen[name] = r.line
		p, err := readPod(t, r, name, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func readPod(t *table, r row, name string, opts Options) (tracePod, error) {
	cols := []string{"cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "creation_time", "deletion_time"}
	var v [6]int64
	for k, col := range cols {
		var err error
		if v[k], err = t.count(r, col); err != nil {
			return tracePod{}, err
		}
	}
	if v[3] > 1000 {
		return tracePod{}, t.fail(r, "gpu_milli", fmt.Errorf("%d: a GPU is 1000 thousandths", v[3]))
	}
	gpu := 1000 * v[2]
	shape := gpuShape{count: v[2]}
	if v[2] == 1 && v[3] > 0 && v[3] < 1000 {
		gpu = v[3] // a share of one GPU
		shape.milli = v[3]
	}
	created, deleted := time.Duration(v[4])*time.Second, time.Duration(v[5])*time.Second
	if t.text(r, "deletion_time") != "" && deleted < created {
		return tracePod{}, t.fail(r, "deletion_time", fmt.Errorf("%d is before creation_time %d", v[5], v[4]))
	}
	p := cluster.Pod{Name: name, Requests: cluster.NewResources(v[0], v[1]<<20, 0)}
	models := alternatives(t.text(r, "gpu_spec"))
	if opts.IgnoreGPUSpec {
		models = nil
	}
	switch {
	case opts.PooledGPUs:
		p.Requests = cluster.NewResources(v[0], v[1]<<20, 0, cluster.Scalar{Name: opts.GPUResource, Value: gpu})
		if len(models) > 0 {
			p.Affinity = &cluster.Affinity{NodeAffinity: &cluster.NodeAffinity{Required: []cluster.SelectorTerm{{
				MatchExpressions: []cluster.SelectorRequirement{{Key: opts.ModelLabel, Operator: cluster.SelectorIn, Values: models}}}}}}
		}
	case shape.count > 0:
		// The selector alone keeps the pod to its models, as a DRA user
		// writes it: no node affinity beside it.
		// claimGPUs names its template.
		shape.models = strings.Join(models, "|")
	default:
		shape = gpuShape{}
	}
	if err := p.Validate(); err != nil {
		return tracePod{}, t.fail(r, "name", err)
	}
	tp := tracePod{pod: scenario.Pod{Pod: p, At: created, Source: scenario.Source{File: t.file, Line: r.line, Path: "pod " + name}},
		gpus: v[2], shape: shape, line: r.line}
	if deleted > created {
		tp.deletion, tp.pod.Duration = deleted, deleted-created
	}
	return tp, nil
}

// claimGPUs gives the scenario the device objects of the pods' GPU
// claims: the class, one template per shape, and each pod's template by
// name. A pod asking for models cannot have its selector read a node's
// devices without a model (Kubernetes' "no such key" error): such a trace
// is an error in device mode.
func claimGPUs(sc *scenario.Scenario, nodes, pods *table, tp []tracePod) error {
	var shapes []gpuShape
	modelled := -1 // the first pod asking for models
	for i := range tp {
		if s := tp[i].shape; s.count > 0 {
			shapes = append(shapes, s)
			if s.models != "" && modelled < 0 {
				modelled = i
			}
		}
	}
	if modelled >= 0 {
		if err := modelsKnown(nodes, &tp[modelled]); err != nil {
			return err
		}
	}
	templates, names, err := gpuTemplates(shapes)
	if err != nil {
		return &Error{File: pods.file, Column: "gpu_spec", Err: err}
	}
	for i := range tp {
		if tp[i].shape.count > 0 {
			tp[i].pod.Pod.ResourceClaims = []cluster.PodResourceClaim{{Name: GPUClaim, ResourceClaimTemplateName: names[tp[i].shape]}}
		}
	}
	sc.Devices.Templates = templates
	if len(sc.Devices.Slices) > 0 || len(templates) > 0 {
		sc.Devices.Classes = []cluster.DeviceClass{gpuClass()}
	}
	return nil
}

// modelsKnown reports a node with GPUs and no model, which the selector
// of pod p cannot be evaluated on.
func modelsKnown(nodes *table, p *tracePod) error {
	for _, r := range nodes.rows {
		if gpus, _ := nodes.count(r, "gpu"); gpus > 0 && len(alternatives(nodes.text(r, "model"))) == 0 {
			return nodes.fail(r, "model", fmt.Errorf("node %q has GPUs of no model, and pod %q (line %d) asks for models: "+
				"its selector cannot read them (set IgnoreGPUSpec or PooledGPUs)", nodes.text(r, "sn"), p.pod.Pod.Name, p.line))
		}
	}
	return nil
}
