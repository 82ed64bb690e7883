package metrics

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// maxReasons is how many unschedulable reasons the table lists.
const maxReasons = 8

// WriteTable writes the report's summaries as aligned plain-text tables
// for a terminal: resources, pods and waits, groups, the workloads that
// waited longest, why pods are pending at the end, preemptions, the most
// frequent unschedulable reasons, and utilisation by domain.
func (rep *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	name := rep.Name
	if name == "" {
		name = "run"
	}
	p("%s: simulated %v to %v, %d nodes at the end\n\n", name, Round(rep.Start), Round(rep.End), rep.Nodes)
	for _, n := range rep.Notices {
		p("NOTE: %s\n\n", n)
	}
	rep.resourceTable(p)
	rep.deviceTable(p)
	rep.podTable(p)
	rep.autoscalingTable(p)
	rep.kueueTable(p)
	rep.workloadTable(p)
	rep.pendingTable(p)
	rep.preemptionTable(p)
	rep.reasonTable(p)
	rep.domainTable(p)
	return tw.Flush()
}

type printer func(format string, args ...any)

func (rep *Report) resourceTable(p printer) {
	p("RESOURCE\tCAPACITY\tALLOCATED\tPEAK\tUTILISATION\tFRAGMENTED\tPEAK FRAGMENTED\n")
	for _, r := range rep.Resources {
		p("%s (%s)\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Resource, r.Unit, num(r.Capacity), num(r.Allocated), num(r.AllocatedPeak),
			pct(r.Utilization), num(r.Fragmented), num(r.FragmentedPeak))
	}
	p("(capacity, allocated and fragmented are time averages; utilisation is allocated over capacity")
	if slices.ContainsFunc(rep.Resources, func(r ResourceSummary) bool { return strings.HasPrefix(string(r.Resource), DRAPrefix) }) {
		p("; %s rows are GPUs served through DRA, counted from their devices, fragmented as DEVICE FRAGMENTATION has it", DRAPrefix)
	}
	p(")\n\n")
}

// deviceTable lists the device groups and the classes' fragmentation;
// nothing without devices.
func (rep *Report) deviceTable(p printer) {
	if len(rep.Devices) == 0 {
		return
	}
	p("DEVICES\tDEVICES\tALLOCATED\tPEAK\tCAPACITY ALLOCATED\tPEAK\tUTILISATION\n")
	for _, d := range rep.Devices {
		p("%s=%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.By, d.Name, num(d.Devices), num(d.Allocated), num(d.AllocatedPeak),
			num(d.Capacity), num(d.CapacityPeak), pct(d.Utilization))
	}
	p("(time averages, in devices; capacity allocated counts a shared device's taken part)\n\n")
	if len(rep.DeviceFragmentation) == 0 {
		return
	}
	p("DEVICE FRAGMENTATION\tTASK TYPES\tMEAN\tPEAK\tFRAGMENTED\tPEAK FRAGMENTED\n")
	for _, f := range rep.DeviceFragmentation {
		p("class=%s\t%d\t%.1f%%\t%.1f%%\t%s\t%s\n", f.Class, f.TaskTypes, f.Percent, f.PercentPeak, num(f.Fragmented), num(f.FragmentedPeak))
	}
	p("(free device capacity the pods' task types, weighed by popularity, cannot use: Weng et al., ATC '23)\n\n")
}

// rejectedNote adds the pods admission refused to the pods' line, when
// there are any.
func rejectedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d refused at admission (never created)", n)
}

func (rep *Report) podTable(p printer) {
	ps := rep.Pods
	p("PODS\t%d arrived, %d placed, %d never placed, %d pending at the end, %d succeeded, %d evictions%s\n",
		ps.Arrived, ps.Placed, ps.Unplaced, ps.PendingAtEnd, ps.Succeeded, ps.Evicted, rejectedNote(ps.Rejected))
	g := rep.Groups
	p("GROUPS\t%d arrived, %d placed, %d never placed\n\n", g.Arrived, g.Placed, g.Unplaced)
	p("WAIT\tCOUNT\tMEAN\tP50\tP90\tP99\tMAX\n")
	row := func(label string, d Durations) {
		p("%s\t%d\t%v\t%v\t%v\t%v\t%v\n", label, d.Count, Round(d.Mean), Round(d.P50), Round(d.P90), Round(d.P99), Round(d.Max))
	}
	row("pods", ps.Wait)
	for _, w := range ps.WaitByPriority {
		row(fmt.Sprintf("  priority %d", w.Priority), w.Wait)
	}
	row("groups (time to schedule)", g.TimeToSchedule)
	p("\n")
}

// workloadTable lists the workloads that waited longest (WorstWaits).
func (rep *Report) workloadTable(p printer) {
	worst := rep.WorstWaits()
	if len(worst) == 0 {
		return
	}
	p("WAIT BY WORKLOAD\tSCHEDULED\tMEAN\tP50\tP90\tP99\tMAX\tPENDING\n")
	for i, w := range worst {
		if i == maxReasons {
			p("(%d more workloads in the JSON report)\n", len(worst)-maxReasons)
			break
		}
		d := w.Wait
		p("%s\t%d\t%v\t%v\t%v\t%v\t%v\t%d\n", w.Workload, d.Count, Round(d.Mean), Round(d.P50), Round(d.P90), Round(d.P99), Round(d.Max), w.Pending)
	}
	p("\n")
}

// pendingTable says why pods are pending at the end, by workload and
// explanation; nothing when none is.
func (rep *Report) pendingTable(p printer) {
	causes := rep.PendingCauses()
	if len(causes) == 0 {
		return
	}
	p("PENDING AT THE END\tPODS\tWHY (e.g.)\n")
	for i, c := range causes {
		if i == maxReasons {
			p("(%d more in the JSON report)\n", len(causes)-maxReasons)
			break
		}
		p("%s\t%d\t%s (%s)\n", c.Workload, c.Pods, c.Explanation, c.Example)
	}
	p("\n")
}

func (rep *Report) preemptionTable(p printer) {
	pr := rep.Preemptions
	p("PREEMPTIONS\t%d, evicting %d pods (%d breaking a budget)\n", pr.Preemptions, pr.Victims, pr.BudgetViolations)
	if len(pr.ByPriority) > 0 {
		p("PRIORITY\tPREEMPTIONS\tVICTIMS\n")
		for _, c := range pr.ByPriority {
			p("%d\t%d\t%d\n", c.Priority, c.Preemptions, c.Victims)
		}
	}
	p("\n")
}

func (rep *Report) reasonTable(p printer) {
	if len(rep.Unschedulable) == 0 {
		return
	}
	p("UNSCHEDULABLE REASON\tATTEMPTS\tPODS\n")
	for i, r := range rep.Unschedulable {
		if i == maxReasons {
			p("(%d more reasons in the JSON report)\n", len(rep.Unschedulable)-maxReasons)
			break
		}
		p("%s\t%d\t%d\n", r.Reason, r.Attempts, r.Pods)
	}
	p("\n")
}

// domainTable lists each domain's utilisation of each resource but pods.
func (rep *Report) domainTable(p printer) {
	if len(rep.Domains) == 0 {
		return
	}
	var names []cluster.ResourceName
	for _, r := range rep.Resources {
		if r.Resource != cluster.ResourcePods {
			names = append(names, r.Resource)
		}
	}
	header := []string{"UTILISATION BY DOMAIN"}
	for _, n := range names {
		header = append(header, string(n))
	}
	p("%s\n", strings.Join(header, "\t"))
	for i := 0; i < len(rep.Domains); {
		d := rep.Domains[i]
		cells := make([]string, len(names))
		for j := range cells {
			cells[j] = "-"
		}
		for ; i < len(rep.Domains) && rep.Domains[i].Key == d.Key && rep.Domains[i].Value == d.Value; i++ {
			if k := slices.Index(names, rep.Domains[i].Resource); k >= 0 {
				cells[k] = pct(rep.Domains[i].Utilization)
			}
		}
		p("%s=%s\t%s\n", d.Key, d.Value, strings.Join(cells, "\t"))
	}
}

// Round rounds a duration to whole seconds, for display.
func Round(d time.Duration) time.Duration { return d.Round(time.Second) }

func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
