// Package plugins holds the built-in plugins, one folder each with
// kube-scheduler's names (schedulinggates, nodename, nodeunschedulable, tainttoleration,
// nodeaffinity, noderesources, podtopologyspread, interpodaffinity,
// topologyplacement, podgrouppodscount, gangscheduling, dynamicresources,
// defaultpreemption), and NewInTreeRegistry, which names them for
// profiles. Every built-in is written on the public framework API alone,
// as a user's plugin is: copy a folder to start one of your own.
package plugins

import (
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/defaultpreemption"
	"github.com/gangsim/gangsim/plugins/dynamicresources"
	"github.com/gangsim/gangsim/plugins/gangscheduling"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
	"github.com/gangsim/gangsim/plugins/nodeaffinity"
	"github.com/gangsim/gangsim/plugins/nodename"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/nodeunschedulable"
	"github.com/gangsim/gangsim/plugins/podgrouppodscount"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
	"github.com/gangsim/gangsim/plugins/schedulinggates"
	"github.com/gangsim/gangsim/plugins/tainttoleration"
	"github.com/gangsim/gangsim/plugins/topologyplacement"
)

// NewInTreeRegistry returns the factories of the built-in plugins by name.
// Each call returns a new map.
func NewInTreeRegistry() fw.Registry {
	return fw.Registry{
		schedulinggates.Name:                 {New: schedulinggates.New},
		nodename.Name:                        {New: nodename.New},
		nodeunschedulable.Name:               {New: nodeunschedulable.New},
		tainttoleration.Name:                 {New: tainttoleration.New},
		nodeaffinity.Name:                    {New: nodeaffinity.New},
		noderesources.Name:                   {New: noderesources.New, Args: noderesources.NewArgs},
		noderesources.BalancedAllocationName: {New: noderesources.NewBalancedAllocation},
		podtopologyspread.Name:               {New: podtopologyspread.New, Args: podtopologyspread.NewArgs},
		interpodaffinity.Name:                {New: interpodaffinity.New, Args: interpodaffinity.NewArgs},
		gangscheduling.Name:                  {New: gangscheduling.New},
		topologyplacement.Name:               {New: topologyplacement.New},
		podgrouppodscount.Name:               {New: podgrouppodscount.New},
		dynamicresources.Name:                {New: dynamicresources.New, Args: dynamicresources.NewArgs},
		defaultpreemption.Name:               {New: defaultpreemption.New},
	}
}
