package gangscheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/gangscheduling"
)

func leaf(w *gangsimtest.PodGroupWrapper) *fw.Group {
	pg := w.Obj()
	return &fw.Group{PodGroup: &pg}
}

func composite(w *gangsimtest.CompositeWrapper) *fw.Group {
	c := w.Obj()
	return &fw.Group{Composite: &c}
}

// A group waits until its quorum is scheduled, and is unschedulable as
// soon as the members left cannot bring it there: a gang's MinCount pods,
// a gang composite's MinGroupCount children, one member of a basic group
// or composite.
func TestGangSchedulingPlacementFeasible(t *testing.T) {
	wait := fw.NewStatus(fw.Wait).WithPlugin(gangscheduling.Name)
	short := func(msg string) *fw.Status {
		return fw.NewStatus(fw.Unschedulable, msg).WithPlugin(gangscheduling.Name)
	}
	gang3 := leaf(gangsimtest.MakeGang("g", 3))
	tests := []struct {
		name     string
		group    *fw.Group
		progress fw.Progress
		quorum   int
		want     *fw.Status // nil: Success
	}{
		{"gang of 3: none scheduled, 3 to try", gang3, fw.Progress{Remaining: 3}, 3, wait},
		{"gang of 3: 2 scheduled, 1 to try", gang3, fw.Progress{Remaining: 1, Scheduled: 2}, 3, wait},
		{"gang of 3: 3 scheduled", gang3, fw.Progress{Scheduled: 3}, 3, nil},
		{"gang of 3: 3 scheduled, more to try", gang3, fw.Progress{Remaining: 2, Scheduled: 3}, 3, nil},
		{"gang of 3: more than the quorum", gang3, fw.Progress{Scheduled: 4}, 3, nil},
		{"gang of 3: 1 scheduled, 1 to try", gang3, fw.Progress{Remaining: 1, Scheduled: 1}, 3,
			short("minCount (3) cannot be satisfied: 1 scheduled, 1 remaining")},
		{"gang of 3: 2 scheduled, none to try", gang3, fw.Progress{Scheduled: 2}, 3,
			short("minCount (3) cannot be satisfied: 2 scheduled, 0 remaining")},
		{"gang of 3: nothing at all", gang3, fw.Progress{}, 3,
			short("minCount (3) cannot be satisfied: 0 scheduled, 0 remaining")},
		{"basic group: one to try", leaf(gangsimtest.MakeBasicGroup("b")), fw.Progress{Remaining: 1}, 1, wait},
		{"basic group: one scheduled", leaf(gangsimtest.MakeBasicGroup("b")), fw.Progress{Remaining: 4, Scheduled: 1}, 1, nil},
		{"basic group: none left", leaf(gangsimtest.MakeBasicGroup("b")), fw.Progress{}, 1,
			short("minCount (1) cannot be satisfied: 0 scheduled, 0 remaining")},
		{"gang composite of 2: 2 children to try", composite(gangsimtest.MakeComposite("c", 2)), fw.Progress{Remaining: 2}, 2, wait},
		{"gang composite of 2: 2 children scheduled", composite(gangsimtest.MakeComposite("c", 2)), fw.Progress{Scheduled: 2}, 2, nil},
		{"gang composite of 2: 1 child to try", composite(gangsimtest.MakeComposite("c", 2)), fw.Progress{Remaining: 1}, 2,
			short("minCount (2) cannot be satisfied: 0 scheduled, 1 remaining")},
		{"basic composite: one child scheduled", composite(gangsimtest.MakeBasicComposite("c")), fw.Progress{Remaining: 1, Scheduled: 1}, 1, nil},
		{"basic composite: one child to try", composite(gangsimtest.MakeBasicComposite("c")), fw.Progress{Remaining: 1}, 1, wait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := gangscheduling.GangScheduling{}
			require.Equal(t, tt.want, pl.PlacementFeasible(tt.group, tt.progress))
			require.Equal(t, tt.quorum, pl.Quorum(tt.group), "the quorum it declares")
		})
	}
}
