package whatif

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario"
)

// Fair-sharing variants: Kueue's fair sharing on or off, with its
// preemption strategies (KueueFairSharing), and a ClusterQueue's or a
// Cohort's fair-sharing weight (KueueWeight). With them, "classic
// preemption against fair sharing" is
//
//	-variant fairsharing:off -variant fairsharing:on
//
// and a ClusterQueue setting applied to every ClusterQueue (NAME "*")
// makes "StrictFIFO against BestEffortFIFO"
//
//	-variant clusterqueue:*:queueingStrategy=StrictFIFO -variant clusterqueue:*:queueingStrategy=BestEffortFIFO

// The fair-sharing preemption strategies, as Kueue's Configuration names
// them.
const (
	LessThanOrEqualToFinalShare = "LessThanOrEqualToFinalShare"
	LessThanInitialShare        = "LessThanInitialShare"
)

// fairStrategySets are the lists of strategies Kueue's configuration
// validation accepts (validStrategySets): either one alone, or both in
// this order.
var fairStrategySets = [][]string{
	{LessThanOrEqualToFinalShare},
	{LessThanInitialShare},
	{LessThanOrEqualToFinalShare, LessThanInitialShare},
}

// allQueues is the ClusterQueue name that stands for every ClusterQueue
// (no Kubernetes name can be "*").
const allQueues = "*"

// FieldFairSharingWeight is the fair-sharing weight's field, as Kueue's
// API spells its path.
const FieldFairSharingWeight = "fairSharing.weight"

// KueueFairSharing turns Kueue's fair sharing (the Configuration's
// fairSharing) on or off. On with no Strategies keeps the scenario's
// strategies when fair sharing is on already, else takes Kueue's
// default pair (LessThanOrEqualToFinalShare, then LessThanInitialShare).
// Spelled fairsharing:on, fairsharing:off, or fairsharing:S[/S] with the
// strategies, which turns it on.
type KueueFairSharing struct {
	On         bool
	Strategies []string
}

// Apply implements Change.
func (c KueueFairSharing) Apply(sc *scenario.Scenario) error {
	objs, err := kueueOf(sc)
	if err != nil {
		return err
	}
	conf := defaultConfiguration()
	if objs.Configuration != nil {
		conf = *objs.Configuration
	}
	switch {
	case !c.On:
		conf.FairSharing = nil
	case len(c.Strategies) > 0:
		conf.FairSharing = &kueue.FairSharingConfig{PreemptionStrategies: slices.Clone(c.Strategies)}
	case conf.FairSharing == nil:
		conf.FairSharing = &kueue.FairSharingConfig{PreemptionStrategies: []string{LessThanOrEqualToFinalShare, LessThanInitialShare}}
	}
	objs.Configuration = &conf
	if err := validateKueue(objs, "Configuration: fairSharing"); err != nil {
		return err
	}
	sc.Kueue = objs
	return nil
}

// defaultConfiguration is the Configuration a scenario without one runs
// with, as Kueue v1beta2 defaults it: waitForPodsReady on, 30 minutes.
func defaultConfiguration() kueue.Configuration {
	return kueue.Configuration{WaitForPodsReady: &kueue.WaitForPodsReady{Timeout: int64(kueue.DefaultPodsReady().Timeout)}}
}

// String implements Change.
func (c KueueFairSharing) String() string {
	switch {
	case !c.On:
		return "fairsharing:off"
	case len(c.Strategies) > 0:
		return "fairsharing:" + strings.Join(c.Strategies, "/")
	}
	return "fairsharing:on"
}

// parseFairSharing reads fairsharing:on, fairsharing:off and
// fairsharing:S[/S], refusing a list of strategies Kueue's configuration
// validation refuses.
func parseFairSharing(args []string) (Change, error) {
	want := fmt.Errorf("want fairsharing:on, fairsharing:off or fairsharing:STRATEGIES (%s)", strategySetsText())
	if len(args) != 1 || args[0] == "" {
		return nil, want
	}
	switch args[0] {
	case "on":
		return KueueFairSharing{On: true}, nil
	case "off":
		return KueueFairSharing{}, nil
	}
	s := strings.Split(args[0], "/")
	for _, name := range s {
		if name != LessThanOrEqualToFinalShare && name != LessThanInitialShare {
			return nil, fmt.Errorf("preemption strategy %q is not %s or %s", name, LessThanOrEqualToFinalShare, LessThanInitialShare)
		}
	}
	if !slices.ContainsFunc(fairStrategySets, func(set []string) bool { return slices.Equal(set, s) }) {
		return nil, fmt.Errorf("Kueue would refuse the Configuration: fairSharing.preemptionStrategies %s: supported values: %s", args[0], strategySetsText())
	}
	return KueueFairSharing{On: true, Strategies: s}, nil
}

func strategySetsText() string {
	out := make([]string, len(fairStrategySets))
	for i, s := range fairStrategySets {
		out[i] = strings.Join(s, "/")
	}
	return strings.Join(out, ", ")
}

// KueueWeight sets the fair-sharing weight of a ClusterQueue (of every
// ClusterQueue with Name "*"), or of a Cohort when Cohort is set (of
// every Cohort with "*"). Value is a
// quantity ("2", "0.5", "500m"; "0" makes the queue borrow only what no
// other queue wants), checked as Kueue's webhooks check it. The weight
// counts only with fair sharing on, so the change is refused when it is
// off (put fairsharing:on before it). Spelled
// clusterqueue:NAME:fairSharing.weight=VALUE and
// cohort:NAME:fairSharing.weight=VALUE.
type KueueWeight struct {
	Cohort      bool
	Name, Value string
}

// Apply implements Change.
func (c KueueWeight) Apply(sc *scenario.Scenario) error {
	objs, err := kueueOf(sc)
	if err != nil {
		return err
	}
	kind := c.kind()
	at := fmt.Sprintf("%s %s: %s", kind, c.Name, FieldFairSharingWeight)
	if objs.Configuration == nil || objs.Configuration.FairSharing == nil {
		return changeError("%s: the weight counts only with fair sharing on, and the scenario's Configuration has it off (put fairsharing:on before this change)", at)
	}
	w, err := parseWeight(c.Value)
	if err != nil {
		return changeError("%s: %v", at, err)
	}
	found := false
	set := func(name string, fs **kueue.FairSharing) {
		if c.Name == allQueues || name == c.Name {
			*fs, found = &kueue.FairSharing{Weight: &w}, true
		}
	}
	if c.Cohort {
		for i := range objs.Cohorts {
			set(objs.Cohorts[i].Name, &objs.Cohorts[i].FairSharing)
		}
	} else {
		for i := range objs.ClusterQueues {
			set(objs.ClusterQueues[i].Name, &objs.ClusterQueues[i].FairSharing)
		}
	}
	if !found {
		return changeError("%s %q is not one of the scenario's", kind, c.Name)
	}
	if err := validateKueue(objs, at); err != nil {
		return err
	}
	sc.Kueue = objs
	return nil
}

func (c KueueWeight) kind() string {
	if c.Cohort {
		return "Cohort"
	}
	return "ClusterQueue"
}

// String implements Change.
func (c KueueWeight) String() string {
	kind := "clusterqueue"
	if c.Cohort {
		kind = "cohort"
	}
	return fmt.Sprintf("%s:%s:%s=%s", kind, c.Name, FieldFairSharingWeight, c.Value)
}

// parseWeight reads a weight in billionths, as the scenario's importer
// does: a negative one is kept, for the validation to refuse in Kueue's
// words.
func parseWeight(text string) (int64, error) {
	neg := strings.HasPrefix(text, "-")
	w, err := cluster.ParseQuantity(strings.TrimPrefix(text, "-"), 1e9)
	if err != nil {
		return 0, fmt.Errorf("%q is not a quantity (2, 0.5, 500m)", text)
	}
	if neg {
		w = -w
	}
	return w, nil
}

// parseCohortChange reads cohort:NAME:fairSharing.weight=VALUE.
func parseCohortChange(args []string) (Change, error) {
	want := fmt.Errorf("want cohort:NAME:%s=VALUE", FieldFairSharingWeight)
	if len(args) != 2 || args[0] == "" {
		return nil, want
	}
	field, value, ok := strings.Cut(args[1], "=")
	if !ok || value == "" || field != FieldFairSharingWeight {
		return nil, want
	}
	return KueueWeight{Cohort: true, Name: args[0], Value: value}, nil
}
