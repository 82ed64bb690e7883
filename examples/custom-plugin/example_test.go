package main

import (
	"fmt"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// Register the policy's plugins, enable them in a profile, and watch a pod
// go where the policy wants it.
func Example() {
	cfg := gangsim.Config{Profiles: []gangsim.Profile{{
		Plugins:      &gangsim.Plugins{MultiPoint: gangsim.PluginSet{Enabled: []gangsim.PluginRef{{Name: "PreferLabel", Weight: 5}}}},
		PluginConfig: []gangsim.PluginConfig{{Name: "PreferLabel", Args: &PreferLabelArgs{Label: "disk", Value: "ssd"}}},
	}}}
	s, err := gangsim.New(cfg, gangsim.WithRegistry(Registry()))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.AddNode(cluster.Node{Name: "hdd", Allocatable: cluster.NewResources(4000, 8<<30, 110)})
	_ = s.AddNode(cluster.Node{Name: "ssd", Labels: map[string]string{"disk": "ssd"}, Allocatable: cluster.NewResources(4000, 8<<30, 110)})
	_ = s.AddPod(cluster.Pod{Name: "db", Requests: cluster.NewResources(1000, 1<<30, 0)}, 0)
	_ = s.Run()
	st, _ := s.Pod(cluster.MakePodKey("", "db"))
	fmt.Println(st.Node)
	// Output:
	// ssd
}
