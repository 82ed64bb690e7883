package whatif_test

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// When will my job start? A dump of the cluster (testdata/when/dump.yaml:
// Job a running, Job b waiting for Kueue's quota) and a new job (d, in
// small.yaml) are loaded together; StartTimes runs forward from the
// dump's moment until both have started.
func ExampleStartTimes() {
	load := func(seed uint64) (*scenario.Scenario, error) {
		return scenario.LoadFiles([]string{"testdata/when/dump.yaml", "testdata/when/small.yaml"})
	}
	answer, err := whatif.StartTimes(load, []string{"Job b", "Job d"}, whatif.StartOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range answer.Jobs {
		s := j.First
		fmt.Printf("%s starts at %v, admitted at %v to %s (%v)\n", s.Job, s.StartedAt, s.AdmittedAt, s.ClusterQueue, s.Flavors)
		if s.WaitedForQuota != "" {
			fmt.Println("  it waited:", s.WaitedForQuota)
		}
	}
	fmt.Println("the run stopped at", answer.Stopped[0])
	// Output:
	// Job default/b starts at 12m1s, admitted at 12m1s to cq ([main: cpu=default-flavor])
	//   it waited: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 1 more needed
	// Job default/d starts at 2ms, admitted at 2ms to cq ([main: cpu=default-flavor])
	// the run stopped at 12m1s
}
