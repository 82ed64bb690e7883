package metrics

import (
	"regexp"
	"strings"

	"github.com/gangsim/gangsim"
)

// preemptions counts preemptions by the preemptor's priority and victims
// by their own. A preemption is one preemptor's evictions in one cycle;
// its priority is known when the cycle ends: the cycle's pod's, or for a
// group's cycle, that of the group's pods the cycle found unschedulable
// (a hierarchy has one priority).
type preemptions struct {
	byPriority map[int32]*PriorityCount
	violations int
	// the cycle running: its preemptors and the priority of its pods
	cycle      int
	preemptors map[gangsim.Ref]bool
	cyclePrio  *int32
}

func (pr *preemptions) count(prio int32) *PriorityCount {
	if pr.byPriority == nil {
		pr.byPriority = map[int32]*PriorityCount{}
	}
	c := pr.byPriority[prio]
	if c == nil {
		c = &PriorityCount{Priority: prio}
		pr.byPriority[prio] = c
	}
	return c
}

// inCycle starts following cycle n when it is new.
func (pr *preemptions) inCycle(n int) {
	if pr.cycle != n {
		pr.cycle, pr.preemptors, pr.cyclePrio = n, nil, nil
	}
}

func (pr *preemptions) evict(e gangsim.Event) {
	pr.count(e.Pod.Priority()).Victims++
	if e.BudgetViolation {
		pr.violations++
	}
	pr.inCycle(e.Cycle)
	if pr.preemptors == nil {
		pr.preemptors = map[gangsim.Ref]bool{}
	}
	pr.preemptors[e.By] = true
}

// seen notes the priority of a pod a cycle attempted.
func (pr *preemptions) seen(e gangsim.Event) {
	if e.Cycle == 0 {
		return
	}
	pr.inCycle(e.Cycle)
	p := e.Pod.Priority()
	pr.cyclePrio = &p
}

// endCycle attributes the cycle's preemptions to its priority.
func (pr *preemptions) endCycle(e gangsim.Event) {
	pr.inCycle(e.Cycle)
	if len(pr.preemptors) == 0 {
		return
	}
	var prio int32
	switch {
	case e.Pod != nil:
		prio = e.Pod.Priority()
	case pr.cyclePrio != nil:
		prio = *pr.cyclePrio
	}
	pr.count(prio).Preemptions += len(pr.preemptors)
	pr.preemptors = nil
}

// reasonCount counts one unschedulable reason.
type reasonCount struct {
	attempts int
	pods     int
}

// unschedulable counts a failed attempt's reasons, each once per pod for
// the distinct count.
func (r *Recorder) unschedulable(e gangsim.Event) {
	r.preempt.seen(e)
	p := r.pods[e.Pod.Key()]
	if p != nil {
		p.reason = e.Reason
	}
	reasons, ok := r.reasonCache[e.Reason]
	if !ok {
		reasons = Reasons(e.Reason)
		r.reasonCache[e.Reason] = reasons
	}
	for _, reason := range reasons {
		c := r.reasons[reason]
		if c == nil {
			c = &reasonCount{}
			r.reasons[reason] = c
		}
		c.attempts++
		if p != nil && !p.unsched[reason] {
			if p.unsched == nil {
				p.unsched = map[string]bool{}
			}
			p.unsched[reason] = true
			c.pods++
		}
	}
}

var (
	fitMessage       = regexp.MustCompile(`^0/\d+ nodes are available: (.*)\.$`)
	placementMessage = regexp.MustCompile(`^0/\d+ placements are available, first placement status: `)
	leadCount        = regexp.MustCompile(`^\d+ `)
	digits           = regexp.MustCompile(`\d+`)
	quoted           = regexp.MustCompile(`"[^"]*"`)
	groupName        = regexp.MustCompile(`(group) [^ :"]+:`)
)

// Reasons splits an unschedulable message into the reasons it counts
// under: kube-scheduler's "0/5 nodes are available: 2 node(s) had
// untolerated taint(s), 3 Insufficient cpu." gives one reason per part
// without its node count ("Insufficient cpu"); a group's "0/2 placements
// are available, first placement status: X" reads "no placement: X"; and
// any message is one reason with its numbers written N and its quoted
// names, and group names before a colon, written "…", so that the same
// cause on different pods and groups counts once.
func Reasons(msg string) []string {
	if m := fitMessage.FindStringSubmatch(msg); m != nil {
		parts := strings.Split(m[1], ", ")
		for i, p := range parts {
			parts[i] = leadCount.ReplaceAllString(p, "")
		}
		return parts
	}
	if msg == "" {
		return nil
	}
	msg = placementMessage.ReplaceAllString(msg, "no placement: ")
	msg = groupName.ReplaceAllString(quoted.ReplaceAllString(msg, `"…"`), "$1 …:")
	return []string{digits.ReplaceAllString(msg, "N")}
}
