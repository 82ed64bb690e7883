package whatif

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// What-if questions on the cluster autoscaler: variants of a node group's
// limits, delay and price, and of the autoscaler's flags, and a search
// for the smallest max of a group that keeps a wait quantile under a
// bound (SmallestGroupMax).

// GroupSetting sets one field of a node group: max, min,
// provisioningDelay (a time) or pricePerHour, as the scenario file names
// them. Spelled group:NAME:FIELD=VALUE.
type GroupSetting struct {
	Group, Field, Value string
}

// groupFields are the fields GroupSetting sets.
var groupFields = []string{"max", "min", "provisioningDelay", "pricePerHour"}

// Apply implements Change.
func (c GroupSetting) Apply(sc *scenario.Scenario) error {
	i := slices.IndexFunc(sc.NodeGroups, func(g autoscaler.NodeGroup) bool { return g.Name == c.Group })
	if i < 0 {
		return changeError("node group %q is not one of the scenario's", c.Group)
	}
	groups := slices.Clone(sc.NodeGroups) // the base's are shared
	g := &groups[i]
	switch c.Field {
	case "max", "min":
		n, err := strconv.Atoi(c.Value)
		if err != nil || n < 0 || n > maxCount {
			return changeError("node group %q: %s %q is not in 0..%d", c.Group, c.Field, c.Value, maxCount)
		}
		if c.Field == "max" {
			g.Max = n
		} else {
			g.Min = n
		}
		if g.Max < max(1, g.Min) {
			return changeError("node group %q: max %d must be at least 1 and at least min (%d)", c.Group, g.Max, g.Min)
		}
	case "provisioningDelay":
		d, err := time.ParseDuration(c.Value)
		if err != nil || d < 0 {
			return changeError("node group %q: provisioningDelay %q is not a time (4m, 90s)", c.Group, c.Value)
		}
		g.ProvisioningDelay = autoscaler.Delay{Fixed: d, Text: c.Value}
	case "pricePerHour":
		p, err := strconv.ParseFloat(c.Value, 64)
		if err != nil || !(p >= 0) || p > 1e12 {
			return changeError("node group %q: pricePerHour %q is not a price", c.Group, c.Value)
		}
		g.PricePerHour = p
	default:
		return changeError("node group field %q is not one of %s", c.Field, strings.Join(groupFields, ", "))
	}
	sc.NodeGroups = groups
	return nil
}

// String implements Change.
func (c GroupSetting) String() string {
	return fmt.Sprintf("group:%s:%s=%s", c.Group, c.Field, c.Value)
}

// AutoscalerSetting sets one of the autoscaler's flags, named as the
// scenario file's autoscaler section names them: scanInterval,
// scaleDownUnneededTime, scaleDownDelayAfterAdd,
// scaleDownDelayAfterDelete, scaleDownDelayAfterFailure,
// maxNodeProvisionTime (times); scaleDownUtilizationThreshold,
// scaleDownGpuUtilizationThreshold (in (0, 1]); expander; maxNodesTotal;
// scaleDownEnabled (true or false). Spelled autoscaler:FIELD=VALUE.
type AutoscalerSetting struct {
	Field, Value string
}

// Apply implements Change.
func (c AutoscalerSetting) Apply(sc *scenario.Scenario) error {
	if len(sc.NodeGroups) == 0 {
		return changeError("the scenario has no node groups for the autoscaler to scale")
	}
	cfg := sc.Autoscaler // a copy; its Priorities map is only read
	times := map[string]*time.Duration{
		"scanInterval": &cfg.ScanInterval, "scaleDownUnneededTime": &cfg.ScaleDownUnneededTime,
		"scaleDownDelayAfterAdd": &cfg.ScaleDownDelayAfterAdd, "scaleDownDelayAfterDelete": &cfg.ScaleDownDelayAfterDelete,
		"scaleDownDelayAfterFailure": &cfg.ScaleDownDelayAfterFailure, "maxNodeProvisionTime": &cfg.MaxNodeProvisionTime,
	}
	shares := map[string]*float64{
		"scaleDownUtilizationThreshold": &cfg.ScaleDownUtilizationThreshold, "scaleDownGpuUtilizationThreshold": &cfg.ScaleDownGPUUtilizationThreshold,
	}
	bad := func(what string) error { return changeError("autoscaler %s %q is not %s", c.Field, c.Value, what) }
	switch {
	case times[c.Field] != nil:
		d, err := time.ParseDuration(c.Value)
		if err != nil || d <= 0 {
			return bad("a positive time (30m, 90s)")
		}
		*times[c.Field] = d
	case shares[c.Field] != nil:
		v, err := strconv.ParseFloat(c.Value, 64)
		if err != nil || !(v > 0 && v <= 1) {
			return bad("in (0, 1]")
		}
		*shares[c.Field] = v
	case c.Field == "expander":
		if !slices.Contains(scenario.Expanders, c.Value) {
			return bad("one of " + strings.Join(scenario.Expanders, ", "))
		}
		if c.Value == "priority" && len(cfg.Priorities) == 0 {
			return changeError("the priority expander needs the scenario's autoscaler.priorities")
		}
		cfg.Expander = c.Value
	case c.Field == "maxNodesTotal":
		n, err := strconv.Atoi(c.Value)
		if err != nil || n < 1 || n > maxCount {
			return bad(fmt.Sprintf("in 1..%d", maxCount))
		}
		cfg.MaxNodesTotal = n
	case c.Field == "scaleDownEnabled":
		on, err := strconv.ParseBool(c.Value)
		if err != nil {
			return bad("true or false")
		}
		cfg.ScaleDownDisabled = !on
	default:
		return changeError("autoscaler field %q is not one the variants set (times: scanInterval, scaleDownUnneededTime, "+
			"scaleDownDelayAfterAdd, scaleDownDelayAfterDelete, scaleDownDelayAfterFailure, maxNodeProvisionTime; "+
			"scaleDownUtilizationThreshold, scaleDownGpuUtilizationThreshold, expander, maxNodesTotal, scaleDownEnabled)", c.Field)
	}
	sc.Autoscaler = cfg
	return nil
}

// String implements Change.
func (c AutoscalerSetting) String() string { return fmt.Sprintf("autoscaler:%s=%s", c.Field, c.Value) }

// parseAutoscalerChange reads group:NAME:FIELD=VALUE and
// autoscaler:FIELD=VALUE.
func parseAutoscalerChange(kind string, args []string) (Change, error) {
	if kind == "group" {
		if len(args) != 2 || args[0] == "" {
			return nil, fmt.Errorf("want group:NAME:FIELD=VALUE (fields: %s)", strings.Join(groupFields, ", "))
		}
		field, value, ok := strings.Cut(args[1], "=")
		if !ok || field == "" || value == "" {
			return nil, fmt.Errorf("want group:NAME:FIELD=VALUE (fields: %s)", strings.Join(groupFields, ", "))
		}
		if !slices.Contains(groupFields, field) {
			return nil, fmt.Errorf("node group field %q is not one of %s", field, strings.Join(groupFields, ", "))
		}
		return GroupSetting{Group: args[0], Field: field, Value: value}, nil
	}
	field, value, ok := strings.Cut(strings.Join(args, ":"), "=")
	if !ok || field == "" || value == "" {
		return nil, fmt.Errorf("want autoscaler:FIELD=VALUE (scaleDownUnneededTime=30m, expander=price)")
	}
	return AutoscalerSetting{Field: field, Value: value}, nil
}

// AutoscalingSummary is the part of a run's autoscaling a comparison
// shows: node-hours, cost, nodes added, and the waits split (seconds).
type AutoscalingSummary struct {
	NodeHours   float64 `json:"nodeHours"`
	Cost        float64 `json:"cost"`
	NodesAdded  int     `json:"nodesAdded"`
	WaitForNode Seconds `json:"waitForNodeSeconds"`
	WaitForRoom Seconds `json:"waitForRoomSeconds"`
}

// summarizeAutoscaling takes a report's autoscaling numbers; nil without
// node groups.
func summarizeAutoscaling(rep *metrics.Report) *AutoscalingSummary {
	a := rep.Autoscaling
	if a == nil {
		return nil
	}
	s := &AutoscalingSummary{NodeHours: a.NodeHours, Cost: a.Cost, WaitForNode: seconds(a.WaitForNode), WaitForRoom: seconds(a.WaitForRoom)}
	for _, g := range a.Groups {
		s.NodesAdded += g.NodesAdded
	}
	return s
}

// autoscalingRows adds the comparison's autoscaling rows when a variant
// has node groups.
func autoscalingRows(c *Comparison, row func(string, func(Summary) string)) {
	if !slices.ContainsFunc(c.Variants, func(v VariantResult) bool { return v.Summary.Autoscaling != nil }) {
		return
	}
	cell := func(f func(*AutoscalingSummary) string) func(Summary) string {
		return func(s Summary) string {
			if s.Autoscaling == nil {
				return "-"
			}
			return f(s.Autoscaling)
		}
	}
	row("cost (node-hours)", cell(func(a *AutoscalingSummary) string { return fmt.Sprintf("%.2f (%.1f)", a.Cost, a.NodeHours) }))
	row("nodes added", cell(func(a *AutoscalingSummary) string { return fmt.Sprint(a.NodesAdded) }))
	row("wait for a node p90 / max", cell(func(a *AutoscalingSummary) string { return durs(a.WaitForNode.P90, a.WaitForNode.Max) }))
	row("wait for room p90 / max", cell(func(a *AutoscalingSummary) string { return durs(a.WaitForRoom.P90, a.WaitForRoom.Max) }))
}

// groupMaxKey names the count of SmallestGroupMax in JSON.
const groupMaxKey = "groupMax"

// SmallestGroupMax finds the smallest max of the node group group that
// lets the run meet the criteria (say, the p90 wait under 10 minutes with
// Criteria.Quantile), trying maxes from the group's min (at least 1) up
// to Criteria.Limit (default: twice the group's max, at least 64). A
// smaller max caps what the autoscaler may add, so it is the cheapest
// answer when a larger max only adds nodes; every run's cost is listed
// beside it, and the answer's Summary has its cost and waits split.
func SmallestGroupMax(sc *scenario.Scenario, group string, c Criteria, opts Options) (*Answer, error) {
	if err := c.checkQuantile(); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(sc.NodeGroups, func(g autoscaler.NodeGroup) bool { return g.Name == group })
	if i < 0 {
		return nil, changeError("node group %q is not one of the scenario's", group)
	}
	lo := max(1, sc.NodeGroups[i].Min)
	top := min(orDefault(c.Limit, max(64, 2*sc.NodeGroups[i].Max)), MaxLimit) // a group's max is at most MaxLimit
	if top < lo {
		return nil, changeError("node group %q: the limit %d is under its smallest max, %d", group, top, lo)
	}
	change := func(k int) Change { return GroupSetting{Group: group, Field: "max", Value: strconv.Itoa(lo + k)} }
	s := newSearch(sc, top-lo, c, opts, change)
	s.answer.Question = fmt.Sprintf("smallest max of node group %s so that every pod is placed%s", group, quantileClause(c))
	s.answer.CountKey = groupMaxKey
	first, found, err := s.first(func(r SearchRun) bool { return r.OK })
	var a *Answer
	switch {
	case err != nil:
		return nil, err
	case found:
		a, err = s.found(first)
	default:
		a, err = s.notFound(fmt.Sprintf("with max %d, the run still falls short%s", top, s.shortfall(top-lo)))
	}
	if err != nil {
		return nil, err
	}
	a.Limit = top
	if a.Found {
		a.Count += lo
		if cheaper := cheaperRun(a); cheaper != nil {
			a.Cautions = append(a.Cautions, fmt.Sprintf("max %d also met the criteria for less (%.2f against %.2f): the cost need not grow with the max",
				cheaper.Count+lo, cheaper.Cost, a.Summary.Autoscaling.Cost))
		}
	}
	for j := range a.Runs {
		a.Runs[j].Count += lo
	}
	return a, nil
}

// quantileClause says the wait bound of criteria with a quantile or a
// workload.
func quantileClause(c Criteria) string {
	if c.MaxWait <= 0 || (c.Quantile == 0 || c.Quantile == 1) && c.Workload == "" {
		return waitClause(c)
	}
	return fmt.Sprintf(" and %s is at most %v", c.waitWords(), c.MaxWait)
}

// waitWords names the wait the criteria bound: "the p90 wait of train".
func (c Criteria) waitWords() string {
	w := "the longest wait"
	if c.Quantile > 0 && c.Quantile < 1 {
		w = fmt.Sprintf("the p%v wait", 100*c.Quantile)
	}
	if c.Workload != "" {
		w += " of " + c.Workload
	}
	return w
}

// cheaperRun returns the cheapest run that met the criteria for less
// than the answer's, or nil (counts before the answer's shift).
func cheaperRun(a *Answer) *SearchRun {
	if a.Summary.Autoscaling == nil {
		return nil
	}
	var best *SearchRun
	for i := range a.Runs {
		r := &a.Runs[i]
		if r.OK && r.Cost < a.Summary.Autoscaling.Cost && (best == nil || r.Cost < best.Cost) {
			best = r
		}
	}
	return best
}
