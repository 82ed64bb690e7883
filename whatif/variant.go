package whatif

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/scenario"
)

// Base is the spelling of the variant with no change.
const Base = "base"

// Variant is a named list of changes to a scenario.
type Variant struct {
	Name    string
	Changes []Change
}

// Apply returns a copy of base with the variant's changes, named
// "NAME [VARIANT]". base is not modified, and the copy shares with it
// everything no change replaced, so variants of one scenario are cheap
// and may run at once.
func (v Variant) Apply(base *scenario.Scenario) (*scenario.Scenario, error) {
	sc := *base // Scenario is a struct of values and slices: changes replace, never modify
	if v.Name != "" && v.Name != Base {
		sc.Name = fmt.Sprintf("%s [%s]", base.Name, v.Name)
	}
	for _, c := range v.Changes {
		if err := c.Apply(&sc); err != nil {
			return nil, fmt.Errorf("variant %q: %w", v.Name, err)
		}
	}
	return &sc, nil
}

// ErrVariant is wrapped by every error of ParseVariant.
var ErrVariant = errors.New("whatif: invalid variant")

// maxCount bounds the counts of a variant (nodes or domains added or
// removed), so that a typo cannot exhaust memory.
const maxCount = 100_000

// MaxLimit is the largest Criteria.Limit a search takes (the counts of a
// variant have the same bound).
const MaxLimit = maxCount

// ParseVariant reads a variant: "base" (no change), or changes separated
// by commas, each one of
//
//	add:NODE:N            N nodes like NODE
//	add-domain:KEY=VALUE:N  N topology domains like KEY=VALUE (racks, zones)
//	remove:NODE:N         N nodes of NODE's kind (see RemoveNodesLike)
//	strategy:TYPE         NodeResourcesFit scoring: LeastAllocated or MostAllocated
//	strategy:RequestedToCapacityRatio:U=S/U=S...
//	                      the same with a shape: utilization percent = score 0..10
//	weight:PLUGIN:W       a scoring plugin's weight, 1 or more (an int32)
//	group:NAME:FIELD=V    a node group's max, min, provisioningDelay or pricePerHour
//	autoscaler:FIELD=V    an autoscaler flag as the scenario file names it
//	                      (scaleDownUnneededTime=30m, expander=price, ...)
//	quota:CQ:FLAVOR:RESOURCE:FIELD=V
//	                      a ClusterQueue's nominalQuota, borrowingLimit or
//	                      lendingLimit of a flavor's resource: a quantity,
//	                      +Q or -Q to change it by Q, none to remove a limit
//	cohort-quota:COHORT:FLAVOR:RESOURCE:FIELD=V
//	                      the same of a Cohort's own quota
//	clusterqueue:CQ:FIELD=V
//	                      a ClusterQueue's queueingStrategy, or its preemption's
//	                      withinClusterQueue, reclaimWithinCohort or
//	                      borrowWithinCohort policy; CQ * sets every ClusterQueue
//	clusterqueue:CQ:fairSharing.weight=W
//	cohort:COHORT:fairSharing.weight=W
//	                      a ClusterQueue's (* for all) or a Cohort's fair-sharing
//	                      weight, a quantity (2, 0.5); fair sharing must be on
//	fairsharing:on        Kueue's fair sharing on (the Configuration's fairSharing),
//	                      with Kueue's default preemption strategies
//	fairsharing:off       off: classic preemption
//	fairsharing:S[/S]     on, with these preemption strategies:
//	                      LessThanOrEqualToFinalShare, LessThanInitialShare, or both
//
// The variant is named by its spelling. Errors name the change at fault.
func ParseVariant(spec string) (Variant, error) {
	spec = strings.TrimSpace(spec)
	if spec == Base {
		return Variant{Name: Base}, nil
	}
	if spec == "" {
		return Variant{}, fmt.Errorf("%w: empty (write %q for no change)", ErrVariant, Base)
	}
	var changes []Change
	for i, part := range strings.Split(spec, ",") {
		c, err := parseChange(strings.TrimSpace(part))
		if err != nil {
			return Variant{}, fmt.Errorf("%w %q: change %d (%q): %v", ErrVariant, spec, i+1, part, err)
		}
		changes = append(changes, c)
	}
	return Variant{Name: spell(changes), Changes: changes}, nil
}

func parseChange(s string) (Change, error) {
	kind, rest, _ := strings.Cut(s, ":")
	args := strings.Split(rest, ":")
	switch kind {
	case "add", "remove":
		if len(args) != 2 || args[0] == "" {
			return nil, fmt.Errorf("want %s:NODE:COUNT", kind)
		}
		n, err := count(args[1])
		if err != nil {
			return nil, err
		}
		if kind == "add" {
			return AddNodesLike{Node: args[0], Count: n}, nil
		}
		return RemoveNodesLike{Node: args[0], Count: n}, nil
	case "add-domain":
		key, value, ok := strings.Cut(args[0], "=")
		if len(args) != 2 || !ok || key == "" {
			return nil, errors.New("want add-domain:KEY=VALUE:COUNT")
		}
		n, err := count(args[1])
		if err != nil {
			return nil, err
		}
		return AddDomainsLike{Key: key, Value: value, Count: n}, nil
	case "strategy":
		return parseStrategy(args)
	case "weight":
		if len(args) != 2 || args[0] == "" {
			return nil, errors.New("want weight:PLUGIN:WEIGHT")
		}
		w, err := strconv.ParseInt(args[1], 10, 32)
		if err != nil || w < 1 {
			return nil, fmt.Errorf("weight %q is not a whole number from 1 to %d", args[1], math.MaxInt32)
		}
		return PluginWeight{Plugin: args[0], Weight: int32(w)}, nil
	case "group", "autoscaler":
		return parseAutoscalerChange(kind, args)
	case "quota", "cohort-quota", "clusterqueue", "cohort", "fairsharing":
		return parseKueueChange(kind, args)
	}
	return nil, fmt.Errorf("unknown change %q (known: add, add-domain, remove, strategy, weight, group, autoscaler, quota, cohort-quota, clusterqueue, cohort, fairsharing)", kind)
}

func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxCount {
		return 0, fmt.Errorf("count %q is not in 0..%d", s, maxCount)
	}
	return n, nil
}

// parseStrategy reads strategy:TYPE, or
// strategy:RequestedToCapacityRatio:U=S/U=S... with the shape's points,
// checked as the plugin checks them.
func parseStrategy(args []string) (Change, error) {
	t := noderesources.ScoringType(args[0])
	switch {
	case t == noderesources.LeastAllocated || t == noderesources.MostAllocated:
		if len(args) != 1 {
			return nil, fmt.Errorf("%s takes no shape", t)
		}
		return ScoringStrategy{Type: t}, nil
	case t != noderesources.RequestedToCapacityRatio:
		return nil, fmt.Errorf("%q is not %s, %s or %s", args[0], noderesources.LeastAllocated, noderesources.MostAllocated, noderesources.RequestedToCapacityRatio)
	case len(args) != 2 || args[1] == "":
		return nil, fmt.Errorf("want strategy:%s:UTILIZATION=SCORE/UTILIZATION=SCORE... (e.g. 0=0/100=10)", t)
	}
	var shape []noderesources.UtilizationShapePoint
	for _, point := range strings.Split(args[1], "/") {
		u, s, ok := strings.Cut(point, "=")
		ui, err1 := strconv.ParseInt(u, 10, 32)
		si, err2 := strconv.ParseInt(s, 10, 32)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("shape point %q is not UTILIZATION=SCORE", point)
		}
		shape = append(shape, noderesources.UtilizationShapePoint{Utilization: int32(ui), Score: int32(si)})
	}
	st := noderesources.ScoringStrategy{Type: t, RequestedToCapacityRatio: &noderesources.RequestedToCapacityRatioParam{Shape: shape}}
	if err := (&noderesources.FitArgs{ScoringStrategy: &st}).Validate(); err != nil {
		return nil, err
	}
	return ScoringStrategy{Type: t, Shape: shape}, nil
}
