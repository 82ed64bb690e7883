package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/kueue"
)

// Result is the outcome of a scenario run: every pod's final state, the
// evictions in the order they happened, every PodGroup's conditions, and
// counts.
type Result struct {
	Pods      []PodResult      `json:"pods"`
	Evictions []EvictionResult `json:"evictions"`
	PodGroups []GroupResult    `json:"podGroups"`
	Stats     StatsResult      `json:"stats"`
	// Explanations answers the file's explain list, in its order.
	Explanations []ExplanationResult `json:"explanations,omitempty"`
	// Warnings repeat the scenario's warnings: what the inputs hold that
	// the simulator does not model.
	Warnings []string `json:"warnings,omitempty"`
	// Stopped says why the run stopped before the simulation settled: it
	// reached a safety cap (Config.MaxCycles, gangsim.ErrNoProgress), and
	// the result is what the simulation held then. Empty for a run that
	// went to its end.
	Stopped string `json:"stopped,omitempty"`
	// Jobs are the Jobs of the inputs, in input order, as their
	// controller left them.
	Jobs []JobResult `json:"jobs,omitempty"`
	// Workloads are the workloads of the inputs that run others (JobSets,
	// MPIJobs, PyTorchJobs; a TrainJob's JobSet), then those that keep
	// lists of pods (LeaderWorkerSets, RayClusters, Volcano Jobs), each in
	// input order, as their controllers left them.
	Workloads []WorkloadResult `json:"workloads,omitempty"`
	// NodeGroups say what each node group did, in input order; absent
	// without node groups.
	NodeGroups []NodeGroupResult `json:"nodeGroups,omitempty"`
	// Autoscaler lists the autoscaler's decisions in order: scale-ups,
	// nodes ready, unneeded and removed; absent without node groups.
	Autoscaler []AutoscalerEventResult `json:"autoscalerEvents,omitempty"`
	// Autoscaling is what the autoscaler did, in its own types, for
	// metrics and what-if; nil without node groups. Not written out.
	Autoscaling *Autoscaling `json:"-"`
	// KueueEvents are Kueue's decisions in order: each workload's
	// attempts that failed (when Kueue's message changed), admissions,
	// evictions, quota released, requeues and ends; absent without Kueue.
	KueueEvents []KueueEventResult `json:"kueueEvents,omitempty"`
	// Kueue is what Kueue did, in its own types, for metrics and what-if;
	// nil without Kueue. Not written out.
	Kueue *KueueRecord `json:"-"`
}

// KueueRecord is Kueue's record of a run: its objects, every event of
// its Admitter in order, and the end of the run.
type KueueRecord struct {
	Objects *kueue.Objects
	Events  []kueue.Event
	End     time.Duration
	// Workloads are the workloads given to Kueue, jobs' first in input
	// order, then plain pods' as made: what metrics reads beyond the
	// events.
	Workloads []KueueWorkload
}

// KueueWorkload is one of Kueue's workloads: its namespace/name, the
// LocalQueue it names (in its namespace), and its wait for nodes, from
// its first admission until its admitted pods were all bound (negative
// when they never were).
type KueueWorkload struct {
	Workload     string
	LocalQueue   string
	WaitForNodes time.Duration
}

// KueueEventResult is one of Kueue's events: when, what (Pending,
// QuotaReserved, Evicted, QuotaReleased, Requeued, Finished), to which
// workload, in which ClusterQueue, with Kueue's reason and message; for
// an eviction by preemption, the preemptor and the preemption's reason
// (InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing).
type KueueEventResult struct {
	At           string `json:"at"`
	Kind         string `json:"kind"`
	Workload     string `json:"workload"`
	ClusterQueue string `json:"clusterQueue,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Message      string `json:"message,omitempty"`
	By           string `json:"by,omitempty"`
	Preemption   string `json:"preemption,omitempty"`
	// Reserved is, for an admission, when Kueue's cache counted its
	// quota: before At when its status write waited for the API client's
	// rate limit.
	Reserved string `json:"reserved,omitempty"`
}

// Autoscaling is the record of a run's autoscaler: the groups it ran
// (as the scenario gave them), their summaries, its decisions, and every
// pod's wait split into waiting for a node and waiting for room, all up
// to End, the end of the run.
type Autoscaling struct {
	Groups    []autoscaler.NodeGroup
	Summaries []autoscaler.GroupSummary
	Events    []autoscaler.Event
	Waits     []autoscaler.PodWait
	End       time.Duration
}

// NodeGroupResult is a node group over the run: the nodes it added and
// removed, the most it had at once (ready or on the way), the node-hours
// it was billed (from each node's request to its removal or the end) and
// their cost (node-hours times the group's price per hour).
type NodeGroupResult struct {
	Name         string  `json:"name"`
	NodesAdded   int     `json:"nodesAdded"`
	NodesRemoved int     `json:"nodesRemoved"`
	MaxNodes     int     `json:"maxNodes"`
	NodeHours    float64 `json:"nodeHours"`
	Cost         float64 `json:"cost"`
}

// AutoscalerEventResult is one decision of the autoscaler: its simulated
// time ("1m30s"), its kind (ScaleUp, NodeReady, NodeUnneeded, NodeNeeded,
// ScaleDown, NoScaleUp, ScaleUpTimeout), the group, the nodes and pods
// concerned (pods as the result lists them) and why.
type AutoscalerEventResult struct {
	At     string   `json:"at"`
	Kind   string   `json:"kind"`
	Group  string   `json:"group,omitempty"`
	Nodes  []string `json:"nodes,omitempty"`
	Pods   []string `json:"pods,omitempty"`
	Reason string   `json:"reason,omitempty"`
}

// JobResult is a Job at the end of the run: its status (Running,
// Complete, Failed or Suspended, as kubectl shows it), why it failed
// (BackoffLimitExceeded, DeadlineExceeded), its pods that succeeded
// (completions; an Indexed Job's indexes done), failed and still active,
// and when it completed or failed.
type JobResult struct {
	Name       string `json:"name"`
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
	Succeeded  int    `json:"succeeded"`
	Failed     int    `json:"failed"`
	Active     int    `json:"active"`
	FinishedAt string `json:"finishedAt,omitempty"`
}

// WorkloadResult is where a workload that runs others, or keeps a list of
// pods, stands at the end of the run: its status (Running; Completed for
// a JobSet or a Volcano Job, Succeeded for an MPIJob or a PyTorchJob;
// Failed, Suspended; a Volcano Job's Aborted or Terminated), why it
// finished, how many times its controller restarted its pods (all of
// them, or a group), and, for a list of pods, how many are still active.
type WorkloadResult struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
	Restarts   int    `json:"restarts,omitempty"`
	Active     int    `json:"active,omitempty"`
	FinishedAt string `json:"finishedAt,omitempty"`

	// A Kueue Workload (Kind "Workload") has these too: the object it was
	// made for, its LocalQueue and priority; the ClusterQueue, the time
	// and pod sets of its last admission; when pending, Kueue's message
	// (Reason is the condition's reason); how often it was evicted; and
	// its waits: for quota, from its creation to its first admission (to
	// the end of the run when never admitted), and for nodes, from that
	// admission until its admitted pods were all bound.
	Owner        string                 `json:"owner,omitempty"`
	Queue        string                 `json:"queue,omitempty"`
	Priority     *int32                 `json:"priority,omitempty"`
	ClusterQueue string                 `json:"clusterQueue,omitempty"`
	Admitted     *bool                  `json:"admitted,omitempty"`
	CreatedAt    string                 `json:"createdAt,omitempty"`
	AdmittedAt   string                 `json:"admittedAt,omitempty"`
	PodSets      []WorkloadPodSetResult `json:"podSets,omitempty"`
	Message      string                 `json:"message,omitempty"`
	Evictions    int                    `json:"evictions,omitempty"`
	WaitForQuota string                 `json:"waitForQuota,omitempty"`
	WaitForNodes string                 `json:"waitForNodes,omitempty"`
}

// WorkloadPodSetResult is a pod set of a Kueue Workload: its pods, the
// count admitted (its full count while pending), and the flavor of each
// resource it was admitted with, and its topology domains.
type WorkloadPodSetResult struct {
	Name    string            `json:"name"`
	Count   int32             `json:"count"`
	Flavors map[string]string `json:"flavors,omitempty"`
	// Topology is where Kueue's topology-aware scheduling put its pods:
	// each domain's level labels and pods ("kubernetes.io/hostname=n1:2
	// ..."); "" when its flavor has no topology.
	Topology string `json:"topology,omitempty"`
}

// ExplanationResult explains one pod's last attempt: which filters
// rejected how many nodes and why, and how every feasible node scored.
type ExplanationResult struct {
	Pod      string            `json:"pod"`
	At       string            `json:"at"`
	Node     string            `json:"node"`
	Filtered []FilteredResult  `json:"filtered"`
	Scored   bool              `json:"scored"`
	Nodes    []NodeScoreResult `json:"nodes"`
}

// FilteredResult is one filter plugin's rejections.
type FilteredResult struct {
	Plugin  string         `json:"plugin"`
	Nodes   int            `json:"nodes"`
	Reasons []ReasonResult `json:"reasons"`
}

// ReasonResult is a reason and how many nodes gave it.
type ReasonResult struct {
	Reason string `json:"reason"`
	Nodes  int    `json:"nodes"`
}

// NodeScoreResult is one feasible node's total and each plugin's part.
type NodeScoreResult struct {
	Node    string              `json:"node"`
	Total   int64               `json:"total"`
	Plugins []PluginScoreResult `json:"plugins"`
}

// PluginScoreResult is one plugin's raw and normalised score and weight.
type PluginScoreResult struct {
	Plugin     string `json:"plugin"`
	Raw        int64  `json:"raw"`
	Normalized int64  `json:"normalized"`
	Weight     int64  `json:"weight"`
}

// PodResult is a pod's final state. Reason is set for pending pods, and
// for pods admission refused to create (phase Rejected), in the API
// server's words.
type PodResult struct {
	Name   string        `json:"name"`
	Node   string        `json:"node"`
	Phase  gangsim.Phase `json:"phase"`
	Reason string        `json:"reason,omitempty"`
	// Claims are, for a pod on a node, the devices of each of its claims
	// by its name in the pod ("driver/pool/device", sorted, a device
	// repeated for each of its allocations).
	Claims map[string][]string `json:"claims,omitempty"`
}

// EvictionResult is one eviction. By names the preemptor as the result
// lists it (a pod, or a group; "ns/name" outside the default namespace)
// and ByKind says what it is (Pod, PodGroup or CompositePodGroup); At is
// the simulated time ("1m30s").
type EvictionResult struct {
	Pod    string `json:"pod"`
	Node   string `json:"node"`
	By     string `json:"by"`
	ByKind string `json:"byKind"`
	At     string `json:"at"`
}

// GroupResult is a PodGroup with its status conditions.
type GroupResult struct {
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions"`
}

// Condition is a status condition.
type Condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// StatsResult counts what happened over the run.
type StatsResult struct {
	Scheduled     int    `json:"scheduled"`
	Pending       int    `json:"pending"`
	Evictions     int    `json:"evictions"`
	PDBViolations int    `json:"pdbViolations"`
	Cycles        int    `json:"cycles"`
	SimulatedTime string `json:"simulatedTime"`
	// Rejected counts the pods admission refused to create (a
	// LimitRange's bounds, a ResourceQuota); absent when none was.
	Rejected int `json:"rejected,omitempty"`
	// JobsComplete and JobsFailed count the Jobs that completed and
	// failed (Result.Jobs).
	JobsComplete int `json:"jobsComplete,omitempty"`
	JobsFailed   int `json:"jobsFailed,omitempty"`
}

// JSON renders the result as indented JSON with a final newline; the same
// result always gives the same bytes.
func (r *Result) JSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJSON writes what JSON returns, a pod at a time: a million pods'
// result is written without holding its text, twice over, in memory.
func (r *Result) WriteJSON(w io.Writer) error {
	if r.Pods == nil { // null, not a list: nothing to stream
		out, err := json.MarshalIndent(r, "", "  ")
		if err == nil {
			_, err = w.Write(append(out, '\n'))
		}
		return err
	}
	rest := *r
	rest.Pods = []PodResult{}
	tail, err := json.MarshalIndent(&rest, "", "  ")
	if err != nil {
		return err
	}
	const head = "{\n  \"pods\": []"
	if !bytes.HasPrefix(tail, []byte(head)) {
		return fmt.Errorf("scenario: result JSON starts %q", tail[:min(len(tail), len(head))])
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"pods\": [")
	var buf []byte
	for i := range r.Pods {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		var err error
		if buf, err = appendPodJSON(buf[:0], &r.Pods[i]); err != nil {
			return err
		}
		bw.Write(buf)
	}
	if len(r.Pods) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	bw.Write(tail[len(head):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// appendPodJSON appends what json.MarshalIndent(pod, "    ", "  ") makes,
// written field by field: a pod is a few short strings, and the encoder's
// reflection and indentation pass were most of the time to write a result.
// TestPodJSONMatchesEncoder holds the two to the same bytes.
func appendPodJSON(b []byte, pod *PodResult) ([]byte, error) {
	if len(pod.Claims) > 0 { // rare: the encoder writes the map
		out, err := json.MarshalIndent(pod, "    ", "  ")
		return append(b, out...), err
	}
	var err error
	field := func(name, value string, last bool) {
		b = append(b, "\n      \""...)
		b = append(b, name...)
		b = append(b, "\": "...)
		if b, err = appendJSONString(b, value, err); !last {
			b = append(b, ',')
		}
	}
	b = append(b, '{')
	field("name", pod.Name, false)
	field("node", pod.Node, false)
	field("phase", string(pod.Phase), pod.Reason == "")
	if pod.Reason != "" {
		field("reason", pod.Reason, true)
	}
	return append(b, "\n    }"...), err
}

// appendJSONString appends s quoted as encoding/json quotes it: plain
// printable ASCII is copied, anything else goes through the encoder (its
// escapes of HTML characters, control characters and invalid UTF-8).
func appendJSONString(b []byte, s string, err error) ([]byte, error) {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, qerr := json.Marshal(s)
			if err == nil {
				err = qerr
			}
			return append(b, q...), err
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), err
}

// recorder keeps what a Result needs from the event stream beyond the
// scheduler's final state and counts: the evictions in order and the
// refusals. It reads only those two kinds, so the scheduler builds no
// other event for it (a busy cluster's failed cycles cost their events'
// reasons only when someone reads them). Pods'
// states are read from the scheduler at the end, which keeps every pod's
// record: a million pods cost no second map.
type recorder struct {
	evictions []EvictionResult
	rejected  map[cluster.PodKey]string // the last refusal of each pod admission refused
}

func newRecorder() *recorder { return &recorder{} }

func (r *recorder) observe(e gangsim.Event) {
	switch e.Kind {
	case gangsim.EventPodEvicted:
		r.evictions = append(r.evictions, EvictionResult{Pod: e.Pod.Key().Display(), Node: e.Node, By: e.By.Display(), ByKind: e.By.Kind.String(), At: e.At.String()})
	case gangsim.EventPodRejected:
		if r.rejected == nil {
			r.rejected = map[cluster.PodKey]string{}
		}
		r.rejected[e.Pod.Key()] = e.Reason
	}
}

// result assembles the Result: pods in input order, then those the
// controllers made in the order they made them; groups in input order
// with their conditions as the scheduler holds them.
func (r *recorder) result(sc *Scenario, s *gangsim.Scheduler, m *controllers.Manager, kr *kueueRun) *Result {
	res := &Result{Pods: []PodResult{}, Evictions: r.evictions, PodGroups: []GroupResult{}}
	if res.Evictions == nil {
		res.Evictions = []EvictionResult{}
	}
	var made []cluster.PodKey
	if m != nil {
		made = m.Made()
	}
	res.Pods = make([]PodResult, 0, len(sc.Pods)+len(made))
	for i := range sc.Pods {
		p := &sc.Pods[i].Pod
		st, ok := s.SharedPod(p) // the scheduler was given p itself (AddSharedPod)
		if !ok && kr.skips(p.Key()) {
			continue // never made: a pod of a job Kueue held, made again (or not) by its controller
		}
		res.Pods = append(res.Pods, r.podResult(s, m, p, st, ok, &res.Stats))
	}
	if m != nil {
		for _, key := range made {
			if sc.podNames[key] {
				continue // a pod of the inputs made again (a StatefulSet's): listed with them
			}
			p, _ := m.Pod(key)
			st, ok := s.Pod(key)
			res.Pods = append(res.Pods, r.podResult(s, m, &p, st, ok, &res.Stats))
		}
		res.Jobs = jobResults(m.Jobs())
		for _, p := range m.Parents() {
			w := WorkloadResult{Kind: p.Kind, Name: cluster.MakePodKey(p.Namespace, p.Name).Display(), Status: string(p.State),
				Reason: p.Reason, Restarts: p.Restarts}
			if p.Finished() {
				w.FinishedAt = p.FinishedAt.String()
			}
			res.Workloads = append(res.Workloads, w)
		}
		for _, st := range m.Sets() {
			res.Workloads = append(res.Workloads, WorkloadResult{Kind: st.Kind, Name: cluster.MakePodKey(st.Namespace, st.Name).Display(),
				Status: string(st.Phase), Restarts: st.Restarts, Active: st.Active})
		}
		for _, j := range res.Jobs {
			switch controllers.JobState(j.Status) {
			case controllers.JobComplete:
				res.Stats.JobsComplete++
			case controllers.JobFailed:
				res.Stats.JobsFailed++
			}
		}
	}
	res.Workloads = append(res.Workloads, kr.results(s.Now())...)
	if kr != nil {
		res.Kueue = &KueueRecord{Objects: sc.Kueue, Events: kr.log, End: s.Now()}
		for _, u := range append(slices.Clone(kr.jobOrder), kr.podOrder...) {
			if !u.added {
				continue
			}
			wait := time.Duration(-1)
			if u.allBound >= 0 && u.firstAdmitted >= 0 {
				wait = u.allBound - u.firstAdmitted
			}
			res.Kueue.Workloads = append(res.Kueue.Workloads, KueueWorkload{Workload: u.w.Key(), LocalQueue: u.w.Queue, WaitForNodes: wait})
		}
		res.KueueEvents = []KueueEventResult{}
		for _, e := range kr.log {
			if e.Kind == kueue.Created {
				continue
			}
			r := KueueEventResult{At: e.At.String(), Kind: string(e.Kind), Workload: cluster.PodKey(e.Workload).Display(),
				ClusterQueue: e.ClusterQueue, Reason: e.Reason, Message: e.Message, By: cluster.PodKey(e.By).Display(), Preemption: e.Preemption}
			if e.Kind == kueue.QuotaReserved && e.Reserved < e.At {
				r.Reserved = e.Reserved.String()
			}
			res.KueueEvents = append(res.KueueEvents, r)
		}
	}
	for _, g := range sc.PodGroups {
		gs, _ := s.PodGroup(g.Key())
		gres := GroupResult{Name: cluster.PodKey(gs.Key).Display(), Conditions: []Condition{}}
		for _, c := range gs.Conditions {
			gres.Conditions = append(gres.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason})
		}
		res.PodGroups = append(res.PodGroups, gres)
	}
	st := s.Stats()
	res.Stats.Scheduled, res.Stats.Evictions, res.Stats.Cycles = st.Scheduled, st.Evictions, st.Cycles
	res.Stats.PDBViolations = st.PDBViolations
	res.Stats.SimulatedTime = s.Now().String()
	for _, key := range sc.Explain {
		res.Explanations = append(res.Explanations, explanation(s, key))
	}
	for _, w := range sc.Warnings {
		res.Warnings = append(res.Warnings, w.String())
	}
	return res
}

// podResult is a pod's final state, from its status in the scheduler
// (st, when known); a Job's pod its controller counted as failed is
// Failed, and a pod admission refused to create is Rejected.
func (r *recorder) podResult(s *gangsim.Scheduler, m *controllers.Manager, p *cluster.Pod, st gangsim.PodStatus, ok bool, stats *StatsResult) PodResult {
	if !ok {
		key := p.Key()
		if reason, refused := r.rejected[key]; refused {
			stats.Rejected++
			return PodResult{Name: key.Display(), Phase: gangsim.PhaseRejected, Reason: reason}
		}
	}
	pr := PodResult{Name: st.Key.Display(), Node: st.Node, Phase: st.Phase}
	switch {
	case pr.Phase == gangsim.PhasePending:
		stats.Pending++
		pr.Reason = st.Reason
	case pr.Phase == gangsim.PhaseDeleted && m != nil && m.Failed(st.Key):
		pr.Phase = PhaseFailed
	}
	if st.Node != "" && len(p.ResourceClaims) > 0 {
		withStatus := *p // the claims the controller made, as the pod's status names them
		withStatus.ResourceClaimStatuses = st.ResourceClaimStatuses
		pr.Claims = claimDevices(s, &withStatus, st.Node)
	}
	return pr
}

// jobResults are the Jobs as their controllers left them, for the
// result.
func jobResults(jobs []controllers.JobStatus) []JobResult {
	var out []JobResult
	for _, j := range jobs {
		r := JobResult{Name: cluster.MakePodKey(j.Namespace, j.Name).Display(), Status: string(j.State), Reason: j.Reason,
			Succeeded: j.Succeeded, Failed: j.Failed, Active: j.Active}
		if j.Finished() {
			r.FinishedAt = j.FinishedAt.String()
		}
		out = append(out, r)
	}
	return out
}

// explanation converts a pod's explanation for the result.
func explanation(s *gangsim.Scheduler, key cluster.PodKey) ExplanationResult {
	ex, ok := s.Explanation(key)
	out := ExplanationResult{Pod: key.Display(), Filtered: []FilteredResult{}, Nodes: []NodeScoreResult{}}
	if !ok {
		return out
	}
	out.At, out.Node, out.Scored = ex.At.String(), ex.Node, ex.Scored
	for _, f := range ex.Filtered {
		fr := FilteredResult{Plugin: f.Plugin, Nodes: f.Nodes}
		for _, r := range f.Reasons {
			fr.Reasons = append(fr.Reasons, ReasonResult{Reason: r.Reason, Nodes: r.Nodes})
		}
		out.Filtered = append(out.Filtered, fr)
	}
	for _, n := range ex.Nodes {
		nr := NodeScoreResult{Node: n.Node, Total: n.Total, Plugins: []PluginScoreResult{}}
		for _, p := range n.Plugins {
			nr.Plugins = append(nr.Plugins, PluginScoreResult{Plugin: p.Plugin, Raw: p.Raw, Normalized: p.Normalized, Weight: p.Weight})
		}
		out.Nodes = append(out.Nodes, nr)
	}
	return out
}

// claimDevices lists the devices of a pod's claims on its node.
func claimDevices(s *gangsim.Scheduler, p *cluster.Pod, node string) map[string][]string {
	ni, ok := s.Node(node)
	if !ok {
		return nil
	}
	out := map[string][]string{}
	for i, e := range p.ResourceClaims {
		alloc, _, ok := ni.Claim(p.ClaimKey(i))
		if !ok {
			continue
		}
		devs := make([]string, 0, len(alloc.Devices))
		for _, d := range alloc.Devices {
			devs = append(devs, d.DeviceID().String())
		}
		slices.Sort(devs)
		out[e.Name] = devs
	}
	return out
}
