package metrics

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"time"
)

// The JSON form of a Report: times and durations in seconds (numbers),
// resources in their units, series as [seconds, value] pairs.

type jsonReport struct {
	Name          string           `json:"name"`
	StartSeconds  float64          `json:"startSeconds"`
	EndSeconds    float64          `json:"endSeconds"`
	Nodes         int              `json:"nodes"`
	Resources     []jsonResource   `json:"resources"`
	Domains       []jsonDomain     `json:"domains"`
	Devices       []jsonDevices    `json:"devices,omitempty"`
	DeviceFrag    []jsonDeviceFrag `json:"deviceFragmentation,omitempty"`
	Pods          jsonPods         `json:"pods"`
	Groups        jsonGroups       `json:"groups"`
	Preemptions   jsonPreemptions  `json:"preemptions"`
	Unschedulable []jsonReason     `json:"unschedulable"`
	Series        []jsonSeries     `json:"series,omitempty"`
	Waits         []jsonWait       `json:"waits,omitempty"`
	Pending       []jsonPending    `json:"pending,omitempty"`
	PendingPods   []string         `json:"pendingPods,omitempty"`
	Warnings      []string         `json:"warnings,omitempty"`
	Notices       []string         `json:"notices,omitempty"`
	Skipped       []jsonSkipped    `json:"skipped,omitempty"`
	Autoscaling   *jsonAutoscaling `json:"autoscaling,omitempty"`
	Kueue         *jsonKueue       `json:"kueue,omitempty"`
}

type jsonSkipped struct {
	Kind      string `json:"kind"`
	Objects   int    `json:"objects"`
	Pods      int    `json:"pods"`
	Uncounted int    `json:"uncountedObjects"`
	First     string `json:"first"`
}

type jsonPending struct {
	Pod          string  `json:"pod"`
	Priority     int32   `json:"priority"`
	Workload     string  `json:"workload"`
	Group        string  `json:"group,omitempty"`
	SinceSeconds float64 `json:"sinceSeconds"`
	Reason       string  `json:"reason"`
	Explanation  string  `json:"explanation"`
}

type jsonWait struct {
	Pod            string  `json:"pod"`
	Priority       int32   `json:"priority"`
	ArrivedSeconds float64 `json:"arrivedSeconds"`
	WaitSeconds    float64 `json:"waitSeconds"`
}

type jsonResource struct {
	Resource       string  `json:"resource"`
	Unit           string  `json:"unit"`
	Capacity       float64 `json:"capacity"`
	Allocated      float64 `json:"allocated"`
	AllocatedPeak  float64 `json:"allocatedPeak"`
	AllocatedHours float64 `json:"allocatedHours"`
	Utilization    float64 `json:"utilization"`
	Fragmented     float64 `json:"fragmented"`
	FragmentedPeak float64 `json:"fragmentedPeak"`
}

type jsonDomain struct {
	Key           string  `json:"key"`
	Value         string  `json:"value"`
	Resource      string  `json:"resource"`
	Unit          string  `json:"unit"`
	Capacity      float64 `json:"capacity"`
	Allocated     float64 `json:"allocated"`
	AllocatedPeak float64 `json:"allocatedPeak"`
	Utilization   float64 `json:"utilization"`
}

type jsonDevices struct {
	By            string  `json:"by"`
	Name          string  `json:"name"`
	Devices       float64 `json:"devices"`
	DevicesPeak   float64 `json:"devicesPeak"`
	Allocated     float64 `json:"allocated"`
	AllocatedPeak float64 `json:"allocatedPeak"`
	Capacity      float64 `json:"capacityAllocated"`
	CapacityPeak  float64 `json:"capacityAllocatedPeak"`
	Utilization   float64 `json:"utilization"`
}

type jsonDeviceFrag struct {
	Class          string  `json:"class"`
	TaskTypes      int     `json:"taskTypes"`
	Percent        float64 `json:"fragmentationPercent"`
	PercentPeak    float64 `json:"fragmentationPercentPeak"`
	Fragmented     float64 `json:"fragmented"`
	FragmentedPeak float64 `json:"fragmentedPeak"`
}

type jsonPods struct {
	Arrived        int                `json:"arrived"`
	ArrivedRunning int                `json:"arrivedRunning"`
	Placed         int                `json:"placed"`
	Unplaced       int                `json:"unplaced"`
	PendingAtEnd   int                `json:"pendingAtEnd"`
	Succeeded      int                `json:"succeeded"`
	Evicted        int                `json:"evicted"`
	Rejected       int                `json:"rejected,omitempty"`
	Wait           jsonDurations      `json:"wait"`
	WaitByPriority []jsonPrioWait     `json:"waitByPriority"`
	WaitByWorkload []jsonWorkloadWait `json:"waitByWorkload,omitempty"`
}

type jsonWorkloadWait struct {
	Workload string        `json:"workload"`
	Wait     jsonDurations `json:"wait"`
	Pending  int           `json:"pending"`
}

type jsonPrioWait struct {
	Priority int32         `json:"priority"`
	Wait     jsonDurations `json:"wait"`
}

type jsonGroups struct {
	Arrived        int           `json:"arrived"`
	Placed         int           `json:"placed"`
	Unplaced       int           `json:"unplaced"`
	TimeToSchedule jsonDurations `json:"timeToSchedule"`
}

type jsonDurations struct {
	Count       int     `json:"count"`
	MeanSeconds float64 `json:"meanSeconds"`
	P50Seconds  float64 `json:"p50Seconds"`
	P90Seconds  float64 `json:"p90Seconds"`
	P99Seconds  float64 `json:"p99Seconds"`
	MaxSeconds  float64 `json:"maxSeconds"`
}

type jsonPreemptions struct {
	Preemptions      int             `json:"preemptions"`
	Victims          int             `json:"victims"`
	BudgetViolations int             `json:"budgetViolations"`
	ByPriority       []jsonPrioCount `json:"byPriority"`
}

type jsonPrioCount struct {
	Priority    int32 `json:"priority"`
	Preemptions int   `json:"preemptions"`
	Victims     int   `json:"victims"`
}

type jsonReason struct {
	Reason   string `json:"reason"`
	Attempts int    `json:"attempts"`
	Pods     int    `json:"pods"`
}

type jsonSeries struct {
	Name     string       `json:"name"`
	Metric   string       `json:"metric"`
	Domain   string       `json:"domain,omitempty"`
	Resource string       `json:"resource,omitempty"`
	Unit     string       `json:"unit"`
	Points   [][2]float64 `json:"points"`
}

// JSON renders the report as indented JSON with a final newline; with
// full false the time series and the pods' waits are left out (the
// summaries stay). The same report always gives the same bytes.
func (rep *Report) JSON(full bool) ([]byte, error) {
	out, err := json.MarshalIndent(rep.jsonForm(full), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// MarshalJSON renders the summaries (without the series) as compact JSON,
// so that a Report inside another value marshals sensibly.
func (rep *Report) MarshalJSON() ([]byte, error) { return json.Marshal(rep.jsonForm(false)) }

func (rep *Report) jsonForm(full bool) jsonReport {
	j := jsonReport{Name: rep.Name, StartSeconds: rep.Start.Seconds(), EndSeconds: rep.End.Seconds(), Nodes: rep.Nodes,
		Resources: []jsonResource{}, Domains: []jsonDomain{}, Unschedulable: []jsonReason{}}
	for _, r := range rep.Resources {
		j.Resources = append(j.Resources, r.json())
	}
	for _, d := range rep.Domains {
		j.Domains = append(j.Domains, jsonDomain{Key: d.Key, Value: d.Value, Resource: string(d.Resource), Unit: d.Unit,
			Capacity: d.Capacity, Allocated: d.Allocated, AllocatedPeak: d.AllocatedPeak, Utilization: d.Utilization})
	}
	for _, d := range rep.Devices {
		j.Devices = append(j.Devices, jsonDevices(d))
	}
	for _, f := range rep.DeviceFragmentation {
		j.DeviceFrag = append(j.DeviceFrag, jsonDeviceFrag(f))
	}
	j.Pods = jsonPods{Arrived: rep.Pods.Arrived, ArrivedRunning: rep.Pods.ArrivedRunning, Placed: rep.Pods.Placed,
		Unplaced: rep.Pods.Unplaced, PendingAtEnd: rep.Pods.PendingAtEnd, Succeeded: rep.Pods.Succeeded,
		Evicted: rep.Pods.Evicted, Rejected: rep.Pods.Rejected, Wait: rep.Pods.Wait.json(), WaitByPriority: []jsonPrioWait{}}
	for _, w := range rep.Pods.WaitByPriority {
		j.Pods.WaitByPriority = append(j.Pods.WaitByPriority, jsonPrioWait{Priority: w.Priority, Wait: w.Wait.json()})
	}
	for _, w := range rep.Pods.WaitByWorkload {
		j.Pods.WaitByWorkload = append(j.Pods.WaitByWorkload, jsonWorkloadWait{Workload: w.Workload, Wait: w.Wait.json(), Pending: w.Pending})
	}
	j.Warnings = rep.Warnings
	j.Notices = rep.Notices
	for _, sk := range rep.Skipped {
		j.Skipped = append(j.Skipped, jsonSkipped(sk))
	}
	j.Autoscaling = rep.Autoscaling.json()
	j.Kueue = rep.Kueue.json()
	g := rep.Groups
	j.Groups = jsonGroups{Arrived: g.Arrived, Placed: g.Placed, Unplaced: g.Unplaced, TimeToSchedule: g.TimeToSchedule.json()}
	p := rep.Preemptions
	j.Preemptions = jsonPreemptions{Preemptions: p.Preemptions, Victims: p.Victims, BudgetViolations: p.BudgetViolations, ByPriority: []jsonPrioCount{}}
	for _, c := range p.ByPriority {
		j.Preemptions.ByPriority = append(j.Preemptions.ByPriority, jsonPrioCount(c))
	}
	for _, r := range rep.Unschedulable {
		j.Unschedulable = append(j.Unschedulable, jsonReason(r))
	}
	if full {
		j.PendingPods = rep.PendingPods
		for _, p := range rep.Pending {
			j.Pending = append(j.Pending, jsonPending{Pod: p.Pod, Priority: p.Priority, Workload: p.Workload, Group: p.Group,
				SinceSeconds: p.Since.Seconds(), Reason: p.Reason, Explanation: p.Explanation})
		}
		for _, w := range rep.Waits {
			j.Waits = append(j.Waits, jsonWait{Pod: w.Pod, Priority: w.Priority, ArrivedSeconds: w.Arrived.Seconds(), WaitSeconds: w.Wait.Seconds()})
		}
		for _, s := range rep.Series {
			js := jsonSeries{Name: s.Name, Metric: s.Metric, Domain: s.Domain, Resource: string(s.Resource), Unit: s.Unit, Points: make([][2]float64, len(s.Points))}
			for i, pt := range s.Points {
				js.Points[i] = [2]float64{pt.At.Seconds(), pt.Value}
			}
			j.Series = append(j.Series, js)
		}
	}
	return j
}

func (r ResourceSummary) json() jsonResource {
	return jsonResource{Resource: string(r.Resource), Unit: r.Unit, Capacity: r.Capacity, Allocated: r.Allocated,
		AllocatedPeak: r.AllocatedPeak, AllocatedHours: r.AllocatedHours, Utilization: r.Utilization,
		Fragmented: r.Fragmented, FragmentedPeak: r.FragmentedPeak}
}

func (d Durations) json() jsonDurations {
	return jsonDurations{Count: d.Count, MeanSeconds: d.Mean.Seconds(), P50Seconds: d.P50.Seconds(),
		P90Seconds: d.P90.Seconds(), P99Seconds: d.P99.Seconds(), MaxSeconds: d.Max.Seconds()}
}

// WriteCSV writes the series as one table: a time_seconds column and one
// column per series ("allocated cpu (cores)"), one row per instant at
// which any series changed, each value holding until the next row. A
// series is 0 before its first point.
func (rep *Report) WriteCSV(w io.Writer) error {
	return writeCSV(w, rep.seriesRows)
}

func (rep *Report) seriesRows(write func([]string) error) error {
	header := []string{"time_seconds"}
	var times []time.Duration
	for _, s := range rep.Series {
		header = append(header, s.Name+" ("+s.Unit+")")
		for _, p := range s.Points {
			times = append(times, p.At)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	if err := write(header); err != nil {
		return err
	}
	next := make([]int, len(rep.Series)) // each series' next point
	row := make([]string, len(header))
	for _, t := range times {
		row[0] = formatFloat(t.Seconds())
		for i, s := range rep.Series {
			for next[i] < len(s.Points) && s.Points[next[i]].At <= t {
				next[i]++
			}
			v := 0.0
			if next[i] > 0 {
				v = s.Points[next[i]-1].Value
			}
			row[i+1] = formatFloat(v)
		}
		if err := write(row); err != nil {
			return err
		}
	}
	return nil
}

// WriteWaitsCSV writes every scheduled pod's wait, one a row: pod,
// priority, arrived_seconds, wait_seconds, in the order the pods were
// first bound.
func (rep *Report) WriteWaitsCSV(w io.Writer) error {
	return writeCSV(w, func(write func([]string) error) error {
		if err := write([]string{"pod", "priority", "arrived_seconds", "wait_seconds"}); err != nil {
			return err
		}
		for _, pw := range rep.Waits {
			row := []string{pw.Pod, strconv.Itoa(int(pw.Priority)), formatFloat(pw.Arrived.Seconds()), formatFloat(pw.Wait.Seconds())}
			if err := write(row); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeCSV writes the rows rows gives through a buffered CSV writer.
func writeCSV(w io.Writer, rows func(write func([]string) error) error) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	if err := rows(cw.Write); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
