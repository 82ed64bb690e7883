package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"

	copiedres "github.com/gangsim/gangsim/examples/custom-plugin/copied/noderesources"
	copiedtaint "github.com/gangsim/gangsim/examples/custom-plugin/copied/tainttoleration"
)

// A built-in plugin has no back door: copied/ holds two built-in plugin
// folders, NodeResourcesFit and TaintToleration, copied into this module
// with their names changed, as a policy author starts a plugin. A profile
// that runs the copies in place of the built-ins decides exactly as the
// default profile does (the same events, but for the plugin names), and
// BenchmarkCopiedPlugins shows it runs as fast: the engine's shortcuts
// (the filter and score memo, remembered failures, placement scoring
// without per-node work) serve a user's plugin through the interfaces it
// implements, as they serve the built-ins.

// copiedConfig is the default profile with the two copies in the built-ins'
// places, same order and weights.
func copiedConfig() gangsim.Config {
	refs := gangsim.DefaultPlugins()
	for i := range refs {
		switch refs[i].Name {
		case "TaintToleration":
			refs[i].Name = copiedtaint.Name
		case "NodeResourcesFit":
			refs[i].Name = copiedres.Name
		}
	}
	return gangsim.Config{Profiles: []gangsim.Profile{{Plugins: &gangsim.Plugins{MultiPoint: gangsim.PluginSet{
		Enabled: refs, Disabled: []gangsim.PluginRef{{Name: "*"}},
	}}}}}
}

func copiedRegistry() fw.Registry {
	return fw.Registry{
		copiedtaint.Name: {New: copiedtaint.New},
		copiedres.Name:   {New: copiedres.New, Args: copiedres.NewArgs},
	}
}

// busyWorkload adds to s a cluster of racks, some tainted, and waves of
// pods of three priorities (some tolerating the taints) and rack gangs,
// more than the cluster holds, so that pods fail, retry and preempt; and
// runs it to the end.
func busyWorkload(tb testing.TB, s *gangsim.Scheduler, seed uint64, nodes, pods int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	for i := range nodes {
		n := cluster.Node{
			Name:        fmt.Sprintf("n%04d", i),
			Labels:      map[string]string{"rack": fmt.Sprintf("r%02d", i/10)},
			Allocatable: cluster.NewResources(int64(8+8*r.IntN(3))*1000, int64(32+32*r.IntN(3))<<30, 110),
		}
		switch r.IntN(8) {
		case 0:
			n.Taints = []cluster.Taint{{Key: "gpu", Value: "true", Effect: cluster.TaintNoSchedule}}
		case 1:
			n.Taints = []cluster.Taint{{Key: "spot", Value: "true", Effect: cluster.TaintPreferNoSchedule}}
		}
		require.NoError(tb, s.AddNode(n))
	}
	prios := []int32{0, 100, 1000}
	at, gangs := time.Duration(0), 0
	for added := 0; added < pods; {
		at += time.Duration(1+r.IntN(120)) * time.Second
		require.NoError(tb, s.RunUntil(at))
		prio := prios[r.IntN(len(prios))]
		req := cluster.NewResources(int64(1+r.IntN(8))*500, int64(1+r.IntN(16))<<30, 0)
		var tol []cluster.Toleration
		if r.IntN(4) == 0 {
			tol = []cluster.Toleration{{Key: "gpu", Operator: cluster.TolerationEqual, Value: "true", Effect: cluster.TaintNoSchedule}}
		}
		run := time.Duration(5+r.IntN(60)) * time.Minute
		group, count := "", 1+r.IntN(4)
		if r.IntN(5) == 0 {
			gangs++
			group, count = fmt.Sprintf("gang%d", gangs), 4
			require.NoError(tb, s.AddPodGroup(podgroup.PodGroup{Name: group, Policy: podgroup.Gang, MinCount: 4, TopologyKey: "rack", Priority: &prio}))
		}
		for range count {
			p := cluster.Pod{Name: fmt.Sprintf("p%05d", added), Requests: req, Priority: &prio, Tolerations: tol, PodGroup: group}
			require.NoError(tb, s.AddPod(p, run))
			added++
		}
	}
	require.NoError(tb, s.Run())
}

// events runs the workload under cfg and returns its event stream, with
// the copies' names written as the built-ins'.
func events(t *testing.T, cfg gangsim.Config, seed uint64) []string {
	var out []string
	unname := strings.NewReplacer(copiedtaint.Name, "TaintToleration", copiedres.Name, "NodeResourcesFit")
	s, err := gangsim.New(cfg, gangsim.WithRegistry(copiedRegistry()), gangsim.WithObserver(func(e gangsim.Event) {
		out = append(out, unname.Replace(e.String()))
	}))
	require.NoError(t, err)
	busyWorkload(t, s, seed, 60, 1500)
	return out
}

func TestCopiedPluginsDecideAsTheBuiltIns(t *testing.T) {
	for seed := range uint64(4) {
		want := events(t, gangsim.Config{}, seed)
		got := events(t, copiedConfig(), seed)
		require.Greater(t, len(want), 3000, "seed %d: a busy run", seed)
		require.Equal(t, want, got, "seed %d", seed)
	}
}

// The copies are the built-ins' source but for their names: a change to a
// built-in is copied here too, so that the comparison above stays a
// comparison with the built-in.
func TestCopiesMatchTheirBuiltIns(t *testing.T) {
	for _, dir := range []string{"tainttoleration", "noderesources"} {
		files, err := filepath.Glob(filepath.Join("copied", dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, f := range files {
			copied, err := os.ReadFile(f)
			require.NoError(t, err)
			original, err := os.ReadFile(filepath.Join("..", "..", "plugins", dir, filepath.Base(f)))
			require.NoError(t, err, "%s has no original", f)
			rename := strings.NewReplacer(`"Copied`, `"`)
			require.Equal(t, string(original), rename.Replace(string(copied)), "%s differs from its built-in", f)
		}
	}
}

// BenchmarkCopiedPlugins runs the same busy workload with the built-ins
// and with their copies; the two should take the same time.
func BenchmarkCopiedPlugins(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  gangsim.Config
	}{{"builtin", gangsim.Config{}}, {"copied", copiedConfig()}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := gangsim.New(tc.cfg, gangsim.WithRegistry(copiedRegistry()))
				require.NoError(b, err)
				busyWorkload(b, s, 1, 500, 20000)
			}
		})
	}
}
