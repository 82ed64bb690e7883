package gangsimtest_test

import (
	"fmt"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/gangsimtest"
)

// A policy test in ten lines: a gang of two 3-cpu pods that must share a
// rack skips rack a, which has room for one of them only.
func Example() {
	s, _ := gangsim.New(gangsim.Config{})
	_ = s.AddNode(gangsimtest.MakeNode("a1").CPU("4").Memory("16Gi").Rack("a").Obj())
	_ = s.AddNode(gangsimtest.MakeNode("b1").CPU("4").Memory("16Gi").Rack("b").Obj())
	_ = s.AddNode(gangsimtest.MakeNode("b2").CPU("4").Memory("16Gi").Rack("b").Obj())
	_ = s.AddPodGroup(gangsimtest.MakeGang("train", 2).Rack().Obj())
	_ = s.AddPod(gangsimtest.MakePod("train-0").Group("train").CPU("3").Memory("8Gi").Obj(), 0)
	_ = s.AddPod(gangsimtest.MakePod("train-1").Group("train").CPU("3").Memory("8Gi").Obj(), 0)
	_ = s.Run()
	fmt.Println(gangsimtest.Placements(s))
	// Output: map[default/train-0:b1 default/train-1:b2]
}
