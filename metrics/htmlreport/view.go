package htmlreport

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
)

// view is what the template reads: every value already in words.
type view struct {
	Title, Name  string
	Span, Nodes  string
	Instant      string // the note of a report of one instant; "" otherwise
	Notices      []string
	CSP          string
	Script       template.JS
	FontFaces    template.CSS
	FontFamilies string // "|"-separated, for the ready script
	// BodyFont is the page's font stack: the figures' font first, so that
	// page and figures are set in one typeface
	BodyFont      template.CSS
	Answers       []Answer
	Warnings      []string
	Resources     []resourceRow
	Counts        []countRow
	Figures       []figureView
	ByPriority    []waitRow
	ByWorkload    []waitRow
	Causes        []causeRow
	Pending       []pendingRow
	PendingMore   int
	Preemptions   string
	PreemptByPrio []preemptRow
	Reasons       []reasonRow
	DomainHeader  []string
	Domains       []domainRow
	Devices       []deviceRow
	DeviceFrag    []deviceFragRow
	Autoscaling   string // the decisions in words
	NodeGroups    []nodeGroupRow
	WaitSplit     []waitRow
	// Kueue's section: what it did in words, its figures, its tables
	Kueue         string
	KueueFigures  []figureView
	ClusterQueues []queueRow
	QueueQuota    []quotaRow
	Admission     []admissionRow
	LocalQueues   []admissionRow
	KueueMore     string // the queues left out, in words
	Preempt       *preemptMatrix
}

type queueRow struct {
	Name, Cohort, Workloads, Admitted, Pending, PendingPeak, PendingAtEnd, Holding, HoldingPeak, Evictions string
}

type quotaRow struct {
	Queue, Flavor, Resource, Unit, Nominal, Used, UsedPeak, Borrowed, BorrowedPeak, Share string
}

type admissionRow struct {
	waitRow
	ClusterQueue                                        string
	Workloads, QuotaMean, QuotaMax, NodesMean, NodesMax string
	Evictions                                           string
}

type nodeGroupRow struct {
	Name, Range, Price, Added, Removed, Most, AtEnd, Hours, Cost string
}

type resourceRow struct {
	Resource, Unit                                string
	Capacity, Allocated, Peak, Utilisation, Hours string
	Fragmented, FragmentedPeak                    string
}

type countRow struct{ Label, Value string }

type figureView struct {
	ID, Caption string
	SVG         template.HTML
}

type waitRow struct {
	Label, Count, Mean, P50, P90, P99, Max, Pending string
}

type causeRow struct {
	Workload, Pods, Explanation, Example string
}

type pendingRow struct {
	Pod, Priority, Workload, Group, Since, Reason, Explanation string
}

type preemptRow struct{ Priority, Preemptions, Victims string }

type reasonRow struct{ Reason, Attempts, Pods string }

type domainRow struct {
	Domain string
	Cells  []string
}

type deviceRow struct {
	Group, Devices, Allocated, Peak, Capacity, CapacityPeak, Utilisation string
}

type deviceFragRow struct {
	Class, TaskTypes, Mean, Peak, Fragmented, FragmentedPeak string
}

var fontFamily = regexp.MustCompile(`font-family:"([^"]+)"`)

// systemFonts are the page's fonts after the figures' own.
const systemFonts = `system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif`

func newView(in Input) (*view, error) {
	rep := in.Report
	if rep == nil {
		return nil, fmt.Errorf("htmlreport: no report")
	}
	name := rep.Name
	if name == "" {
		name = "run"
	}
	v := &view{Title: in.Title, Name: name, CSP: csp(), Script: template.JS(readyScript)}
	for _, a := range in.Answers {
		a.Question = capitalize(a.Question)
		v.Answers = append(v.Answers, a)
	}
	if v.Title == "" {
		v.Title = "Capacity report: " + name
	}
	v.Span = fmt.Sprintf("simulated %v to %v (%s)", metrics.Round(rep.Start), metrics.Round(rep.End), hours(rep.End-rep.Start))
	v.Nodes = fmt.Sprintf("%d nodes at the end", rep.Nodes)
	if rep.Start == rep.End {
		v.Instant = fmt.Sprintf("The run is one instant (%v): nothing ended or arrived after it, as for a cluster read as it stands. "+
			"Every value is the one at that instant, and the figures mark it.", metrics.Round(rep.End))
	}
	v.Notices = rep.Notices
	v.Warnings = append(append(v.Warnings, rep.Warnings...), in.Warnings...)
	figs, faces, err := figures(rep)
	if err != nil {
		return nil, err
	}
	if rep.Start == rep.End {
		for i := range figs {
			figs[i].Caption = strings.ReplaceAll(figs[i].Caption, "over simulated time", "at the run's one instant")
		}
	}
	for _, f := range figs {
		if strings.HasPrefix(f.ID, "fig-kueue-") {
			v.KueueFigures = append(v.KueueFigures, f)
		} else {
			v.Figures = append(v.Figures, f)
		}
	}
	v.FontFaces, v.FontFamilies, v.BodyFont = fontsOf(faces)
	v.summary(rep)
	v.waits(rep)
	v.pending(rep)
	v.preemptions(rep)
	v.domains(rep)
	v.devices(rep)
	v.autoscaling(rep)
	v.kueue(rep)
	return v, nil
}

// fontsOf returns the @font-face rules of the figures' fonts, their
// families ("|"-separated, for the ready script), and the page's font
// stack: the figures' font first, so that page and figures are set in
// one typeface.
func fontsOf(faces []string) (template.CSS, string, template.CSS) {
	var families []string
	for _, f := range faces {
		if m := fontFamily.FindStringSubmatch(f); m != nil {
			families = append(families, m[1])
		}
	}
	body := template.CSS(systemFonts)
	if len(families) > 0 && !strings.ContainsAny(families[0], `"\;{}<>`) {
		body = template.CSS(`"` + families[0] + `", ` + systemFonts)
	}
	return template.CSS(strings.Join(faces, "\n")), strings.Join(families, "|"), body
}

// csp is the page's Content Security Policy: nothing from outside, the
// inline styles, the embedded fonts and the ready script alone.
func csp() string {
	return "default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data:; script-src '" + scriptHash + "'"
}

func (v *view) summary(rep *metrics.Report) {
	for _, r := range rep.Resources {
		v.Resources = append(v.Resources, resourceRow{Resource: string(r.Resource), Unit: r.Unit, Capacity: num(r.Capacity),
			Allocated: num(r.Allocated), Peak: num(r.AllocatedPeak), Utilisation: pct(r.Utilization), Hours: num(r.AllocatedHours),
			Fragmented: num(r.Fragmented), FragmentedPeak: num(r.FragmentedPeak)})
	}
	p, g := rep.Pods, rep.Groups
	for _, c := range []struct {
		label string
		n     int
	}{
		{"pods arrived", p.Arrived}, {"arrived already running", p.ArrivedRunning}, {"placed", p.Placed},
		{"never placed", p.Unplaced}, {"pending at the end", p.PendingAtEnd}, {"succeeded", p.Succeeded},
		{"evictions", p.Evicted}, {"PodGroups arrived", g.Arrived}, {"PodGroups placed", g.Placed},
		{"PodGroups never placed", g.Unplaced},
	} {
		v.Counts = append(v.Counts, countRow{c.label, fmt.Sprint(c.n)})
	}
}

func (v *view) waits(rep *metrics.Report) {
	v.ByPriority = append(v.ByPriority, waitRow{Label: "all pods"}.with(rep.Pods.Wait))
	for _, w := range rep.Pods.WaitByPriority {
		v.ByPriority = append(v.ByPriority, waitRow{Label: fmt.Sprintf("priority %d", w.Priority)}.with(w.Wait))
	}
	v.ByPriority = append(v.ByPriority, waitRow{Label: "PodGroups (time to schedule)"}.with(rep.Groups.TimeToSchedule))
	for _, w := range rep.WorstWaits() {
		v.ByWorkload = append(v.ByWorkload, waitRow{Label: w.Workload, Pending: fmt.Sprint(w.Pending)}.with(w.Wait))
	}
}

func (r waitRow) with(d metrics.Durations) waitRow {
	r.Count = fmt.Sprint(d.Count)
	r.Mean, r.P50, r.P90, r.P99, r.Max = dur(d.Mean), dur(d.P50), dur(d.P90), dur(d.P99), dur(d.Max)
	return r
}

func (v *view) pending(rep *metrics.Report) {
	for _, c := range rep.PendingCauses() {
		v.Causes = append(v.Causes, causeRow{Workload: c.Workload, Pods: fmt.Sprint(c.Pods), Explanation: c.Explanation, Example: c.Example})
	}
	for i, p := range rep.Pending {
		if i == maxPendingRows {
			v.PendingMore = len(rep.Pending) - maxPendingRows
			break
		}
		v.Pending = append(v.Pending, pendingRow{Pod: p.Pod, Priority: fmt.Sprint(p.Priority), Workload: p.Workload, Group: p.Group,
			Since: dur(p.Since), Reason: p.Reason, Explanation: p.Explanation})
	}
}

func (v *view) preemptions(rep *metrics.Report) {
	pr := rep.Preemptions
	v.Preemptions = fmt.Sprintf("%s evicted %s (%d breaking a PodDisruptionBudget).",
		count(pr.Preemptions, "preemption", "preemptions"), count(pr.Victims, "pod", "pods"), pr.BudgetViolations)
	for _, c := range pr.ByPriority {
		v.PreemptByPrio = append(v.PreemptByPrio, preemptRow{fmt.Sprint(c.Priority), fmt.Sprint(c.Preemptions), fmt.Sprint(c.Victims)})
	}
	for _, r := range rep.Unschedulable {
		v.Reasons = append(v.Reasons, reasonRow{r.Reason, fmt.Sprint(r.Attempts), fmt.Sprint(r.Pods)})
	}
}

// domains lays out each domain's utilisation of each resource but pods,
// one row per domain.
func (v *view) domains(rep *metrics.Report) {
	var names []cluster.ResourceName
	for _, r := range rep.Resources {
		if r.Resource != cluster.ResourcePods && !strings.HasPrefix(string(r.Resource), metrics.DRAPrefix) { // devices have no domains
			names = append(names, r.Resource)
			v.DomainHeader = append(v.DomainHeader, string(r.Resource))
		}
	}
	for _, d := range rep.Domains {
		label := d.Key + "=" + d.Value
		if n := len(v.Domains); n == 0 || v.Domains[n-1].Domain != label {
			cells := make([]string, len(names))
			for i := range cells {
				cells[i] = "–"
			}
			v.Domains = append(v.Domains, domainRow{Domain: label, Cells: cells})
		}
		for i, name := range names {
			if name == d.Resource {
				v.Domains[len(v.Domains)-1].Cells[i] = pct(d.Utilization)
			}
		}
	}
}

func (v *view) devices(rep *metrics.Report) {
	for _, d := range rep.Devices {
		v.Devices = append(v.Devices, deviceRow{Group: d.By + "=" + d.Name, Devices: num(d.Devices), Allocated: num(d.Allocated),
			Peak: num(d.AllocatedPeak), Capacity: num(d.Capacity), CapacityPeak: num(d.CapacityPeak), Utilisation: pct(d.Utilization)})
	}
	for _, f := range rep.DeviceFragmentation {
		v.DeviceFrag = append(v.DeviceFrag, deviceFragRow{Class: f.Class, TaskTypes: fmt.Sprint(f.TaskTypes),
			Mean: fmt.Sprintf("%.1f%%", f.Percent), Peak: fmt.Sprintf("%.1f%%", f.PercentPeak), Fragmented: num(f.Fragmented), FragmentedPeak: num(f.FragmentedPeak)})
	}
}

// autoscaling lays out the node groups and the waits' split; nothing
// without node groups.
func (v *view) autoscaling(rep *metrics.Report) {
	a := rep.Autoscaling
	if a == nil {
		return
	}
	v.Autoscaling = fmt.Sprintf("The cluster autoscaler made %s and %s; %s found pending pods no group could help. The node groups cost %s for %s node-hours.",
		count(a.ScaleUps, "scale-up", "scale-ups"), count(a.ScaleDowns, "scale-down", "scale-downs"), count(a.NoScaleUps, "scan", "scans"),
		num(a.Cost), num(a.NodeHours))
	if a.Timeouts > 0 {
		v.Autoscaling += fmt.Sprintf(" %s not ready within the provisioning time.", count(a.Timeouts, "request was", "requests were"))
	}
	for _, g := range a.Groups {
		v.NodeGroups = append(v.NodeGroups, nodeGroupRow{Name: g.Name, Range: fmt.Sprintf("%d..%d", g.Min, g.Max), Price: fmt.Sprintf("%.2f", g.PricePerHour),
			Added: fmt.Sprint(g.NodesAdded), Removed: fmt.Sprint(g.NodesRemoved), Most: fmt.Sprint(g.MaxNodes), AtEnd: fmt.Sprint(g.NodesAtEnd),
			Hours: num(g.NodeHours), Cost: num(g.Cost)})
	}
	v.WaitSplit = []waitRow{waitRow{Label: "waiting for a node"}.with(a.WaitForNode), waitRow{Label: "waiting for room"}.with(a.WaitForRoom)}
}

// kueue lays out Kueue's section; nothing without Kueue.
func (v *view) kueue(rep *metrics.Report) {
	k := rep.Kueue
	if k == nil {
		return
	}
	v.Kueue = fmt.Sprintf("Kueue made %s in %s and %s: %d admitted, %d pending at the end, %s.",
		count(k.Workloads, "workload", "workloads"), count(len(k.ClusterQueues), "ClusterQueue", "ClusterQueues"),
		count(len(k.LocalQueues), "LocalQueue", "LocalQueues"), k.Admitted, k.PendingAtEnd, count(k.Evictions, "eviction", "evictions"))
	if k.NoQueue > 0 {
		v.Kueue += fmt.Sprintf(" %s a LocalQueue or ClusterQueue that does not exist, and %s in no queue's numbers.",
			count(k.NoQueue, "workload names", "workloads name"), map[bool]string{true: "is", false: "are"}[k.NoQueue == 1])
	}
	cqs, lqs := metrics.ShownQueues(k.ClusterQueues), metrics.ShownQueues(k.LocalQueues)
	var more []string
	if len(cqs) < len(k.ClusterQueues) {
		more = append(more, fmt.Sprintf("the %d busiest of %d ClusterQueues", len(cqs), len(k.ClusterQueues)))
	}
	if len(lqs) < len(k.LocalQueues) {
		more = append(more, fmt.Sprintf("the %d busiest of %d LocalQueues", len(lqs), len(k.LocalQueues)))
	}
	if len(more) > 0 {
		v.KueueMore = "The tables and figures show " + strings.Join(more, " and ") +
			" (by their time-averaged workloads, pending and admitted); report.json and timeseries.csv have them all."
	}
	for _, q := range cqs {
		v.ClusterQueues = append(v.ClusterQueues, queueRow{Name: q.Name, Cohort: q.Cohort, Workloads: fmt.Sprint(q.Workloads),
			Admitted: fmt.Sprint(q.Admitted), Pending: num(q.Pending), PendingPeak: fmt.Sprint(q.PendingPeak),
			PendingAtEnd: fmt.Sprintf("%d (%d inadmissible)", q.PendingAtEnd, q.InadmissibleAtEnd), Holding: num(q.Holding),
			HoldingPeak: fmt.Sprint(q.HoldingPeak), Evictions: q.EvictionsText()})
		for _, u := range q.Quota {
			v.QueueQuota = append(v.QueueQuota, quotaRow{Queue: q.Name, Flavor: u.Flavor, Resource: string(u.Resource), Unit: u.Unit,
				Nominal: num(u.Nominal), Used: num(u.Used), UsedPeak: num(u.UsedPeak), Borrowed: num(u.Borrowed),
				BorrowedPeak: num(u.BorrowedPeak), Share: pct(u.Utilization)})
		}
	}
	row := func(label string, q metrics.KueueQueueSummary) admissionRow {
		return admissionRow{waitRow: waitRow{Label: label}.with(q.TimeToAdmission), ClusterQueue: q.ClusterQueue, Workloads: fmt.Sprint(q.Workloads),
			QuotaMean: dur(q.WaitForQuota.Mean), QuotaMax: dur(q.WaitForQuota.Max), NodesMean: dur(q.WaitForNodes.Mean),
			NodesMax: dur(q.WaitForNodes.Max), Evictions: q.EvictionsText()}
	}
	v.Admission = append(v.Admission, row("all workloads", metrics.KueueQueueSummary{Workloads: k.Workloads, TimeToAdmission: k.TimeToAdmission,
		WaitForQuota: k.WaitForQuota, WaitForNodes: k.WaitForNodes}))
	for _, q := range cqs {
		v.Admission = append(v.Admission, row(q.Name, q))
	}
	for _, q := range lqs {
		v.LocalQueues = append(v.LocalQueues, row(q.Name, q))
	}
	v.Preempt = preemptions(k)
}

// captions say what each figure shows, by figure name.
var captions = map[string]string{
	"kueue-quota":     "Each ClusterQueue's quota used over simulated time (the requests of the workloads holding quota), per flavor and resource, as a share of its nominal quota; the shaded part above 100% is borrowed from the cohort.",
	"kueue-admission": "Each ClusterQueue's times to admission, from a workload's creation to its first admission, over the workloads admitted (their count after the name): the box spans the middle half, the thick line across it is the median, the thin line runs from the 10th to the 90th percentile and the cross marks the longest. The time axis is logarithmic; under a second is drawn at a second.",
	"kueue-pending":   "Each ClusterQueue's workloads over simulated time: pending and not yet refused, pending after Kueue said why it could not admit them (inadmissible), and admitted (holding quota, evicted ones until their quota is released).",
	"nodegroups":      "Each node group's nodes over simulated time: those ready, and those requested by a scale-up and not ready yet, under the group's max.",
	"allocation":      "Allocation of each resource over simulated time: the requests of the pods on nodes, the nodes' allocatable, and the free amount on used nodes that no pending pod can use (fragmented).",
	"devices":         "Devices by class and by model over simulated time: devices on the nodes, devices a claim holds, and the part of them the claims take; then each class's fragmentation.",
	"pending":         "Pods and PodGroups waiting to be placed, over simulated time.",
	"waits":           "For each priority, the share of its scheduled pods that waited at most a given time from arrival to first binding (log time axis).",
}

func caption(name string) string {
	if c, ok := captions[name]; ok {
		return c
	}
	if strings.HasPrefix(name, "domains-") {
		return "Each domain's mean allocation of each resource but pods, as a share of the domain's capacity."
	}
	return ""
}

// count renders a count with its noun: "1 pod", "2 pods".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// capitalize writes a sentence's first letter in upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// num renders an amount: whole numbers without decimals, else one.
func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

func dur(d time.Duration) string { return metrics.Round(d).String() }

// hours renders a span for the header: "32.6 hours", "no time".
func hours(d time.Duration) string {
	switch {
	case d <= 0:
		return "no time"
	case d < time.Hour:
		return metrics.Round(d).String()
	}
	return fmt.Sprintf("%.1f hours", d.Hours())
}
