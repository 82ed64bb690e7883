package synthetic

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Config is the size and seed of a synthetic cluster. Sized gives the
// project's three sizes; a zero field of a Config given to Write takes
// Large's value.
type Config struct {
	Nodes int     // nodes of 32 cpu and 128 GiB; a multiple of RackSize is best
	Pods  int     // pods to draw (the last entry may take it a few over)
	Hours float64 // arrivals are spread over this many hours
	Seed  uint64
	// Budgets is the number of services that get a disruption budget; 0
	// means one per hundred nodes, a negative number none.
	Budgets int
	// Services is the share of the single-pod entries that are services,
	// which never end; 0 means DefaultServices. Services hold their nodes
	// for good, so this share sets how long the cluster takes to work off
	// its backlog (docs/synthetic.md).
	Services float64
}

// DefaultServices is the share of single-pod entries that are services
// when Config.Services is 0: with it, the reference size works off its
// backlog in about twice its arrival window (some 150 simulated hours
// for three days of arrivals), as the clusters the mix is modelled on do.
const DefaultServices = 0.05

// The three sizes.
var (
	Small  = Config{Nodes: 100, Pods: 2500, Hours: 72}
	Medium = Config{Nodes: 400, Pods: 10000, Hours: 72}
	Large  = Config{Nodes: 2000, Pods: 50000, Hours: 72}
)

// ErrConfig is wrapped by every error of a Config.
var ErrConfig = errors.New("synthetic: invalid config")

// Sized returns the Config of a size by name ("small", "medium",
// "large") with the given seed.
func Sized(name string, seed uint64) (Config, error) {
	var c Config
	switch name {
	case "small":
		c = Small
	case "medium":
		c = Medium
	case "large":
		c = Large
	default:
		return Config{}, fmt.Errorf("%w: size %q is not small, medium or large", ErrConfig, name)
	}
	c.Seed = seed
	return c, nil
}

// The topology and the shares of the mix (doc.go).
const (
	rackSize      = 25
	racksPerBlock = 4
	blocksPerZone = 5
	gangShare     = 0.2567 // of the pods
	failedShare   = 0.04   // of the nodes
	returnShare   = 0.6625 // of the failed nodes
	drainedShare  = 0.0335 // of the nodes
	criticalShare = 0.10
	maxPods       = 10_000_000
	maxNodes      = 1_000_000
)

func (c Config) withDefaults() (Config, error) {
	if c.Nodes == 0 {
		c.Nodes = Large.Nodes
	}
	if c.Pods == 0 {
		c.Pods = Large.Pods
	}
	if c.Hours == 0 {
		c.Hours = Large.Hours
	}
	if c.Budgets == 0 {
		c.Budgets = max(1, c.Nodes/100)
	}
	if c.Services == 0 {
		c.Services = DefaultServices
	}
	switch {
	case c.Nodes < 0 || c.Nodes > maxNodes:
		return c, fmt.Errorf("%w: nodes %d is not between 1 and %d", ErrConfig, c.Nodes, maxNodes)
	case c.Pods < 0 || c.Pods > maxPods:
		return c, fmt.Errorf("%w: pods %d is not between 1 and %d", ErrConfig, c.Pods, maxPods)
	case !(c.Hours > 0 && c.Hours <= 24*365):
		return c, fmt.Errorf("%w: hours %v is not above 0 and at most a year", ErrConfig, c.Hours)
	case !(c.Services > 0 && c.Services <= 1-criticalShare):
		return c, fmt.Errorf("%w: services %v is not above 0 and at most %v", ErrConfig, c.Services, 1-criticalShare)
	}
	return c, nil
}

// Write writes the scenario file of c to w, as JSON.
func Write(w io.Writer, c Config) error {
	f, err := generate(c)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		return err
	}
	return bw.Flush()
}

// generate returns the scenario file of c as values that encode to the
// scenario format's JSON.
func generate(c Config) (*file, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &generator{c: c, rng: rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))}
	f := &file{
		Config: fileConfig{TerminationGracePeriod: "30s"},
		PriorityClasses: []priorityClass{
			{Name: "batch", Value: 0},
			{Name: "service", Value: 100, GlobalDefault: true},
			{Name: "critical", Value: 1000},
		},
	}
	f.Nodes = g.nodes()
	g.workloads(f)
	f.Events = g.nodeEvents(f.Nodes)
	return f, nil
}

type generator struct {
	c   Config
	rng *rand.Rand
}

// nodes returns one entry a rack (count up to rackSize), named
// z<zone>-b<block>-r<rack>; its nodes are that name and an index.
func (g *generator) nodes() []node {
	var out []node
	for first := 0; first < g.c.Nodes; first += rackSize {
		rack := first / rackSize
		block := rack / racksPerBlock
		zone := block / blocksPerZone
		name := fmt.Sprintf("z%d-b%d-r%d", zone, block, rack)
		out = append(out, node{
			Name: name,
			Labels: map[string]string{
				"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", zone),
				"block":                       fmt.Sprintf("block-%d", block),
				"rack":                        fmt.Sprintf("rack-%d", rack),
			},
			Allocatable: map[string]string{"cpu": "32", "memory": "128Gi", "pods": "110"},
			Count:       min(rackSize, g.c.Nodes-first),
		})
	}
	return out
}

// workloads draws entries until the pods are drawn: a gang with the
// share gangShare of the pods, else an entry of single pods.
func (g *generator) workloads(f *file) {
	meanGang := (4.0 + 8 + 16) / 3
	meanSingle := 5.5
	// the chance an entry is a gang, so that gangs hold gangShare of the pods
	pGang := gangShare / meanGang / (gangShare/meanGang + (1-gangShare)/meanSingle)
	entries := float64(g.c.Pods) / (pGang*meanGang + (1-pGang)*meanSingle)
	gap := g.c.Hours * float64(time.Hour) / entries // mean time between entries
	var at float64
	pods, gangs, services := 0, 0, 0
	for pods < g.c.Pods {
		at += g.rng.ExpFloat64() * gap
		when := time.Duration(at).Round(time.Second)
		if g.rng.Float64() < pGang {
			gangs++
			pods += g.gang(f, gangs, when)
			continue
		}
		n := 1 + g.rng.IntN(10)
		p := g.pod(fmt.Sprintf("p%d", len(f.Pods)), when, n)
		switch r := g.rng.Float64(); {
		case r < g.c.Services:
			services++
			app := fmt.Sprintf("svc-%d", services)
			p.Name = app
			p.Labels = map[string]string{"app": app}
			p.PriorityClassName = "service"
			p.Duration = ""
			if services <= g.c.Budgets {
				f.Budgets = append(f.Budgets, budget{Name: app, Selector: map[string]string{"app": app}, MinAvailable: "50%"})
			}
		case r < g.c.Services+criticalShare:
			p.PriorityClassName = "critical"
		default:
			p.PriorityClassName = "batch"
		}
		f.Pods = append(f.Pods, p)
		pods += n
	}
}

// gang adds a PodGroup of minCount 4, 8 or 16 and its members, all
// arriving at when; it returns the members.
func (g *generator) gang(f *file, i int, when time.Duration) int {
	size := []int{4, 8, 16}[g.rng.IntN(3)]
	name := fmt.Sprintf("gang-%d", i)
	pg := podGroup{Name: name, MinCount: size}
	switch g.rng.IntN(4) {
	case 0:
		pg.TopologyKey = "rack"
	case 1:
		pg.TopologyKey = "block"
	}
	class := "batch"
	if g.rng.Float64() < criticalShare {
		class = "critical"
	}
	pg.PriorityClassName = class
	f.PodGroups = append(f.PodGroups, pg)
	p := g.pod(name, when, size)
	p.PodGroup = name
	p.Labels = map[string]string{"job": name}
	f.Pods = append(f.Pods, p)
	return size
}

// pod draws an entry's requests and run time.
func (g *generator) pod(name string, when time.Duration, count int) pod {
	cpu := 2 + g.rng.IntN(7)        // 2..8
	mem := 4 << g.rng.IntN(4)       // 4, 8, 16, 32 GiB
	hours := 3 + g.rng.Float64()*33 // 3..36
	p := pod{
		Name:     name,
		Requests: map[string]string{"cpu": fmt.Sprint(cpu), "memory": fmt.Sprintf("%dGi", mem)},
		At:       when.String(),
		Duration: (time.Duration(hours * float64(time.Hour))).Round(time.Minute).String(),
	}
	if count > 1 {
		p.Count = count
	}
	return p
}

// nodeEvents draws the failures and drains over the arrival window: each
// on its own node (a node fails or is drained once), so no event refers
// to a node another has removed. A failed node that comes back is a new
// machine in its rack, named after it with "-new" (names are never
// reused in a scenario).
func (g *generator) nodeEvents(racks []node) []event {
	type nodeOf struct {
		name string
		rack int
	}
	var nodes []nodeOf
	for r, rack := range racks {
		for i := range rack.Count {
			nodes = append(nodes, nodeOf{fmt.Sprintf("%s-%d", rack.Name, i), r})
		}
	}
	order := g.rng.Perm(len(nodes))
	failed := int(math.Round(failedShare * float64(len(nodes))))
	returned := int(math.Round(returnShare * float64(failed)))
	drained := int(math.Round(drainedShare * float64(len(nodes))))
	window := g.c.Hours * float64(time.Hour)
	type timed struct {
		at time.Duration
		e  event
	}
	var out []timed
	add := func(at time.Duration, e event) {
		e.At = at.String()
		out = append(out, timed{at, e})
	}
	for k := 0; k < failed+drained && k < len(order); k++ {
		n := nodes[order[k]]
		at := time.Duration(g.rng.Float64() * window).Round(time.Second)
		back := at + time.Duration((0.5+g.rng.Float64()*11.5)*float64(time.Hour)).Round(time.Second)
		switch {
		case k < returned:
			r := racks[n.rack]
			add(at, event{RemoveNode: n.name})
			add(back, event{AddNode: &node{Name: n.name + "-new", Labels: r.Labels, Allocatable: r.Allocatable}})
		case k < failed:
			add(at, event{RemoveNode: n.name})
		default:
			add(at, event{DrainNode: n.name})
			add(back, event{UncordonNode: n.name})
		}
	}
	slices.SortStableFunc(out, func(a, b timed) int { return cmp.Compare(a.at, b.at) })
	events := make([]event, len(out))
	for i, t := range out {
		events[i] = t.e
	}
	return events
}
