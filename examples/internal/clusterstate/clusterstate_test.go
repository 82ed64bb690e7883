package clusterstate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
)

func small(seed uint64) Params {
	p := Defaults()
	p.Nodes, p.Running, p.Pending, p.Queues, p.Seed = 20, 60, 15, 3, seed
	return p
}

// The state is what the parameters ask: the nodes, the running Jobs that
// fit (each with its pods on nodes and its admitted Workload), the
// pending ones suspended with their Workloads; the same seed gives the
// same bytes; and it loads, its running jobs admitted from the start.
func TestState(t *testing.T) {
	data, err := JSON(small(1), "")
	require.NoError(t, err)
	again, err := JSON(small(1), "")
	require.NoError(t, err)
	require.Equal(t, data, again)
	other, err := JSON(small(2), "")
	require.NoError(t, err)
	require.NotEqual(t, data, other)

	var list struct {
		Items []struct {
			Kind string `json:"kind"`
			Spec struct {
				Suspend  *bool  `json:"suspend"`
				NodeName string `json:"nodeName"`
			} `json:"spec"`
			Status struct {
				Admission any `json:"admission"`
			} `json:"status"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(data, &list))
	kinds := map[string]int{}
	running, pending, bound, admitted := 0, 0, 0, 0
	for _, it := range list.Items {
		kinds[it.Kind]++
		switch {
		case it.Kind == "Job" && *it.Spec.Suspend:
			pending++
		case it.Kind == "Job":
			running++
		case it.Kind == "Pod" && it.Spec.NodeName != "":
			bound++
		case it.Kind == "Workload" && it.Status.Admission != nil:
			admitted++
		}
	}
	require.Equal(t, 20, kinds["Node"])
	require.Equal(t, 3, kinds["ClusterQueue"])
	require.Equal(t, 15, pending)
	require.Positive(t, running)
	require.LessOrEqual(t, running, 60)
	require.Equal(t, running, admitted)
	require.Equal(t, kinds["Pod"], bound)
	require.Equal(t, running+pending, kinds["Workload"])

	sc, err := scenario.ParseFiles([]scenario.File{{Name: "state.json", Data: data}})
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	admittedAtZero := 0
	for _, w := range res.Workloads {
		if w.Kind == "Workload" && strings.Contains(w.Name, "job-run-") && w.AdmittedAt == "0s" {
			admittedAtZero++
		}
	}
	require.Equal(t, running, admittedAtZero)
}

func TestCheck(t *testing.T) {
	for _, p := range []Params{{}, func() Params { p := Defaults(); p.Load = 0; return p }(), func() Params { p := Defaults(); p.GPUJobs = 2; return p }()} {
		_, err := JSON(p, "")
		require.Error(t, err)
	}
}
