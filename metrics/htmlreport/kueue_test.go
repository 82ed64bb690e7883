package htmlreport_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/htmlreport"
)

// withKueue adds n ClusterQueues, each with a LocalQueue and a workload
// made at i minutes and admitted 5 minutes later; the earlier queues are
// the busier.
func withKueue(t *testing.T, n int) *metrics.Report {
	rep := report(t, small)
	m := time.Minute
	objs := &kueue.Objects{ResourceFlavors: []kueue.ResourceFlavor{{Name: "f"}}}
	var events []kueue.Event
	var wls []metrics.KueueWorkload
	for i := range n {
		cq, ns := fmt.Sprintf("cq-%02d", i), fmt.Sprintf("ns-%02d", i)
		objs.ClusterQueues = append(objs.ClusterQueues, kueue.ClusterQueue{Name: cq, ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []cluster.ResourceName{cluster.ResourceCPU},
			Flavors:          []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{Name: cluster.ResourceCPU, NominalQuota: 1000}}}}}}})
		objs.LocalQueues = append(objs.LocalQueues, kueue.LocalQueue{Namespace: ns, Name: "lq", ClusterQueue: cq})
		wl := ns + "/w"
		wls = append(wls, metrics.KueueWorkload{Workload: wl, LocalQueue: "lq", WaitForNodes: time.Second})
		events = append(events, kueue.Event{At: time.Duration(i) * m, Kind: kueue.Created, Workload: wl},
			kueue.Event{At: time.Duration(i+5) * m, Kind: kueue.QuotaReserved, Workload: wl, ClusterQueue: cq, Admission: &kueue.Admission{
				ClusterQueue: cq, PodSets: []kueue.PodSetAssignment{{Name: "main", Count: 1, Flavors: map[cluster.ResourceName]string{cluster.ResourceCPU: "f"},
					Usage: cluster.ResourceList{cluster.ResourceCPU: 1000}}}}})
	}
	rep.AddKueue(objs, events, wls)
	return rep
}

func TestKueueSection(t *testing.T) {
	page := write(t, htmlreport.Input{Report: report(t, small)})
	assert.NotContains(t, page, `id="kueue"`, "no Kueue: no section")
	assert.NotContains(t, page, `href="#kueue"`)

	page = write(t, htmlreport.Input{Report: withKueue(t, 2)})
	assert.Contains(t, page, `<a href="#kueue">Kueue</a>`)
	assert.Contains(t, page, "Kueue made 2 workloads in 2 ClusterQueues and 2 LocalQueues: 2 admitted, 0 pending at the end, 0 evictions.")
	section := page[strings.Index(page, `<section id="kueue">`):strings.Index(page, `<section id="figures">`)]
	assert.Contains(t, section, `id="fig-kueue-quota"`, "the Kueue figures are in its section")
	assert.Contains(t, section, `id="fig-kueue-pending"`)
	assert.NotContains(t, page[strings.Index(page, `<section id="figures">`):], `id="fig-kueue-`)
	// cq-01: made at 1m, admitted at 6m
	assert.Contains(t, section, `<tr><td class="code">cq-01</td><td class="num">1</td><td class="num">1</td><td class="num">5m0s</td>`)
	assert.Contains(t, section, `<tr><td class="code">ns-01/lq</td><td class="code">cq-01</td>`)
	assert.NotContains(t, section, "busiest")
}

func TestKueueSectionManyQueues(t *testing.T) {
	page := write(t, htmlreport.Input{Report: withKueue(t, 33)})
	assert.Contains(t, page, "The tables and figures show the 30 busiest of 33 ClusterQueues and the 30 busiest of 33 LocalQueues")
	assert.Contains(t, page, ">cq-29<")
	for _, q := range []string{"cq-30", "cq-31", "cq-32"} {
		assert.NotContains(t, page, q, "the least busy queues are left out")
	}
}
