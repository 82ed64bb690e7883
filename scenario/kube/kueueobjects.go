package kube

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Kueue's objects (kueue.x-k8s.io/v1beta2, and v1beta1 with its older
// field names) and its Configuration (config.kueue.x-k8s.io/v1beta2 and
// v1beta1) are read into the kueue package's values and checked there as
// Kueue's webhooks and CRD schemas check them. v1beta1 differs in a
// ClusterQueue's spec.cohort (v1beta2's spec.cohortName), its
// spec.admissionChecks (a list of names, v1beta2's admissionChecksStrategy
// without flavors), and its flavorFungibility values Borrow and Preempt
// (v1beta2's MayStopSearch); its Configuration turns waitForPodsReady and
// fairSharing on with enable: true, where v1beta2 turns them on by being
// there. Nothing runs the objects yet: the pods of Kueue's workloads are
// scheduled as if admitted at once.

// kueueConfigGroup is the API group of Kueue's Configuration.
const kueueConfigGroup = "config.kueue.x-k8s.io"

// kueueVersions are the versions of Kueue's objects read.
var kueueVersions = []string{kueueGroup + "/v1beta2", kueueGroup + "/v1beta1"}

func init() {
	for kind, decoded := range map[string]func() any{
		"ResourceFlavor":        func() any { return new(kueueFlavorObject) },
		"ClusterQueue":          func() any { return new(kueueClusterQueueObject) },
		"LocalQueue":            func() any { return new(kueueLocalQueueObject) },
		"Cohort":                func() any { return new(kueueCohortObject) },
		"WorkloadPriorityClass": func() any { return new(kueuePriorityClassObject) },
		"Topology":              func() any { return new(kueueTopologyObject) },
	} {
		kubeForeignKinds[kueueGroup+" "+kind] = kubeKind{kueueVersions, kind == "LocalQueue", decoded}
	}
	kubeForeignKinds[kueueConfigGroup+" Configuration"] = kubeKind{
		[]string{kueueConfigGroup + "/v1beta2", kueueConfigGroup + "/v1beta1"}, false, func() any { return new(kueueConfigObject) }}
}

type kueueToleration struct {
	Key               string `yaml:"key"`
	Operator          string `yaml:"operator"`
	Value             string `yaml:"value"`
	Effect            string `yaml:"effect"`
	TolerationSeconds *int64 `yaml:"tolerationSeconds"`
}

type kueueFlavorObject struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		NodeLabels   map[string]string `yaml:"nodeLabels"`
		NodeTaints   []kubeTaint       `yaml:"nodeTaints"`
		Tolerations  []kueueToleration `yaml:"tolerations"`
		TopologyName *string           `yaml:"topologyName"`
	} `yaml:"spec"`
}

type kueueResourceQuota struct {
	Name           string  `yaml:"name"`
	NominalQuota   string  `yaml:"nominalQuota"`
	BorrowingLimit *string `yaml:"borrowingLimit"`
	LendingLimit   *string `yaml:"lendingLimit"`
}

type kueueResourceGroup struct {
	CoveredResources []string `yaml:"coveredResources"`
	Flavors          []struct {
		Name      string               `yaml:"name"`
		Resources []kueueResourceQuota `yaml:"resources"`
	} `yaml:"flavors"`
}

type kueueFairSharing struct {
	Weight *string `yaml:"weight"`
}

type kueueClusterQueueObject struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		ResourceGroups    []kueueResourceGroup  `yaml:"resourceGroups"`
		CohortName        string                `yaml:"cohortName"` // v1beta2
		Cohort            string                `yaml:"cohort"`     // v1beta1
		QueueingStrategy  string                `yaml:"queueingStrategy"`
		NamespaceSelector *schema.LabelSelector `yaml:"namespaceSelector"`
		FlavorFungibility *struct {
			WhenCanBorrow  string `yaml:"whenCanBorrow"`
			WhenCanPreempt string `yaml:"whenCanPreempt"`
			Preference     string `yaml:"preference"`
		} `yaml:"flavorFungibility"`
		Preemption *struct {
			ReclaimWithinCohort string `yaml:"reclaimWithinCohort"`
			WithinClusterQueue  string `yaml:"withinClusterQueue"`
			BorrowWithinCohort  *struct {
				Policy               string `yaml:"policy"`
				MaxPriorityThreshold *int32 `yaml:"maxPriorityThreshold"`
			} `yaml:"borrowWithinCohort"`
		} `yaml:"preemption"`
		AdmissionChecks         []string `yaml:"admissionChecks"` // v1beta1
		AdmissionChecksStrategy *struct {
			AdmissionChecks []struct {
				Name      string   `yaml:"name"`
				OnFlavors []string `yaml:"onFlavors"`
			} `yaml:"admissionChecks"`
		} `yaml:"admissionChecksStrategy"`
		StopPolicy     string            `yaml:"stopPolicy"`
		FairSharing    *kueueFairSharing `yaml:"fairSharing"`
		AdmissionScope *struct {
			AdmissionMode string `yaml:"admissionMode"`
		} `yaml:"admissionScope"`
		ConcurrentAdmissionPolicy unmodelled `yaml:"concurrentAdmissionPolicy"`
	} `yaml:"spec"`
	Status openFields `yaml:"status"`
}

type kueueLocalQueueObject struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		ClusterQueue string            `yaml:"clusterQueue"`
		StopPolicy   string            `yaml:"stopPolicy"`
		FairSharing  *kueueFairSharing `yaml:"fairSharing"`
	} `yaml:"spec"`
	Status struct {
		openFields
		FairSharing *struct {
			openFields
			AdmissionFairSharingStatus *struct {
				openFields
				ConsumedResources map[string]string `yaml:"consumedResources"`
			} `yaml:"admissionFairSharingStatus"`
		} `yaml:"fairSharing"`
	} `yaml:"status"`
}

type kueueCohortObject struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		ParentName     string               `yaml:"parentName"`
		ResourceGroups []kueueResourceGroup `yaml:"resourceGroups"`
		FairSharing    *kueueFairSharing    `yaml:"fairSharing"`
	} `yaml:"spec"`
	Status openFields `yaml:"status"`
}

type kueuePriorityClassObject struct {
	kubeHead    `yaml:",inline"`
	Value       int32  `yaml:"value"`
	Description string `yaml:"description"`
}

type kueueTopologyObject struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		Levels []struct {
			NodeLabel string `yaml:"nodeLabel"`
		} `yaml:"levels"`
	} `yaml:"spec"`
	Status openFields `yaml:"status"`
}

// kueueConfigObject is Kueue's Configuration: what the model reads, and
// the rest, which runs the process, skipped.
type kueueConfigObject struct {
	APIVersion                   skipped    `yaml:"apiVersion"`
	Kind                         skipped    `yaml:"kind"`
	Namespace                    skipped    `yaml:"namespace"`
	ManageJobsWithoutQueueName   bool       `yaml:"manageJobsWithoutQueueName"`
	ManagedJobsNamespaceSelector unmodelled `yaml:"managedJobsNamespaceSelector"`
	WaitForPodsReady             *struct {
		Enable            *bool   `yaml:"enable"` // v1beta1
		Timeout           *string `yaml:"timeout"`
		BlockAdmission    *bool   `yaml:"blockAdmission"`
		RecoveryTimeout   *string `yaml:"recoveryTimeout"`
		RequeuingStrategy *struct {
			Timestamp          string `yaml:"timestamp"`
			BackoffLimitCount  *int32 `yaml:"backoffLimitCount"`
			BackoffBaseSeconds *int32 `yaml:"backoffBaseSeconds"`
			BackoffMaxSeconds  *int32 `yaml:"backoffMaxSeconds"`
		} `yaml:"requeuingStrategy"`
	} `yaml:"waitForPodsReady"`
	FairSharing *struct {
		Enable               *bool    `yaml:"enable"` // v1beta1
		PreemptionStrategies []string `yaml:"preemptionStrategies"`
	} `yaml:"fairSharing"`
	AdmissionFairSharing *struct {
		UsageHalfLifeTime     string             `yaml:"usageHalfLifeTime"`
		UsageSamplingInterval string             `yaml:"usageSamplingInterval"`
		ResourceWeights       map[string]float64 `yaml:"resourceWeights"`
	} `yaml:"admissionFairSharing"`
	FeatureGates           map[string]bool `yaml:"featureGates"`
	Webhook                skipped         `yaml:"webhook"`
	LeaderElection         skipped         `yaml:"leaderElection"`
	Metrics                skipped         `yaml:"metrics"`
	Health                 skipped         `yaml:"health"`
	PprofBindAddress       skipped         `yaml:"pprofBindAddress"`
	Controller             skipped         `yaml:"controller"`
	TLS                    skipped         `yaml:"tls"`
	InternalCertManagement skipped         `yaml:"internalCertManagement"`
	ClientConnection       *struct {
		QPS   *float32 `yaml:"qps"`
		Burst *int32   `yaml:"burst"`
	} `yaml:"clientConnection"`
	Integrations            skipped    `yaml:"integrations"`
	MultiKueue              skipped    `yaml:"multiKueue"`
	Resources               unmodelled `yaml:"resources"`
	ObjectRetentionPolicies skipped    `yaml:"objectRetentionPolicies"`
	VisibilityServer        skipped    `yaml:"visibilityServer"`
	QueueVisibility         skipped    `yaml:"queueVisibility"` // v1beta1
}

// kueueObjects are the Kueue objects of an input file, made on first use.
func kueueObjects(f *schema.File) *kueue.Objects {
	if f.Kueue == nil {
		f.Kueue = &kueue.Objects{}
	}
	return f.Kueue
}

// kueueFail turns a kueue.FieldError into the importer's error, naming
// the file, the object and the field.
func kueueFail(o *Object, err error) error {
	var fe *kueue.FieldError
	if errors.As(err, &fe) {
		return o.failf(nil, fe.Field, "%s", fe.Detail)
	}
	return o.fail(nil, "", err)
}

// v1beta1Only refuses a field v1beta2 renamed or removed.
func v1beta1Only(o *Object, set bool, field, instead string) error {
	if set && strings.HasSuffix(o.apiVersion, "/v1beta2") {
		return o.failf(nil, field, "field not declared in %s: %s", o.apiVersion, instead)
	}
	return nil
}

// kueueQuantity reads a quantity of a resource (a sign allowed, so that a
// negative quota is Kueue's error, not a parse error).
func kueueQuantity(o *Object, field string, name cluster.ResourceName, text string) (int64, error) {
	v, err := signedQuantity(text, func(s string) (int64, error) { return cluster.ParseResourceQuantity(name, s) })
	if err != nil {
		return 0, o.fail(nil, field, err)
	}
	return v, nil
}

// signedQuantity parses a quantity that may be negative with parse, which
// refuses a sign: one minus sign, then the number, as Kubernetes writes
// quantities ("-2", never "--2", "-+2" or "- 2"); an error quotes the
// text as given.
func signedQuantity(text string, parse func(string) (int64, error)) (int64, error) {
	rest, neg := strings.CutPrefix(text, "-")
	if !neg {
		return parse(text)
	}
	if rest == "" || !(rest[0] >= '0' && rest[0] <= '9' || rest[0] == '.') {
		return 0, &cluster.FieldError{Sentinel: cluster.ErrQuantity, Detail: fmt.Sprintf("%q is not a valid quantity: no number after the sign", text)}
	}
	v, err := parse(rest)
	if err != nil {
		var fe *cluster.FieldError
		if errors.As(err, &fe) {
			quoted := *fe
			quoted.Detail = strings.Replace(fe.Detail, strconv.Quote(rest), strconv.Quote(text), 1)
			return 0, &quoted
		}
		return 0, err
	}
	return -v, nil
}

func (k *kubeImport) kueueFlavor(o *Object, v *kueueFlavorObject, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	rf := kueue.ResourceFlavor{Name: o.name, NodeLabels: v.Spec.NodeLabels}
	for _, t := range v.Spec.NodeTaints {
		rf.NodeTaints = append(rf.NodeTaints, cluster.Taint{Key: t.Key, Value: t.Value, Effect: cluster.TaintEffect(t.Effect)})
	}
	for _, t := range v.Spec.Tolerations {
		rf.Tolerations = append(rf.Tolerations, kueue.Toleration{Toleration: cluster.Toleration{Key: t.Key,
			Operator: cluster.TolerationOperator(t.Operator), Value: t.Value, Effect: cluster.TaintEffect(t.Effect)}, TolerationSeconds: t.TolerationSeconds})
	}
	if v.Spec.TopologyName != nil {
		rf.TopologyName = *v.Spec.TopologyName
	}
	if err := rf.Validate(); err != nil {
		return kueueFail(o, err)
	}
	kueueObjects(f).ResourceFlavors = append(kueueObjects(f).ResourceFlavors, rf)
	return nil
}

// kueueGroups reads resource groups, quantities in the model's units.
func kueueGroups(o *Object, in []kueueResourceGroup) ([]kueue.ResourceGroup, error) {
	var out []kueue.ResourceGroup
	for i, g := range in {
		rg := kueue.ResourceGroup{}
		for _, r := range g.CoveredResources {
			rg.CoveredResources = append(rg.CoveredResources, cluster.ResourceName(r))
		}
		for j, fq := range g.Flavors {
			fl := kueue.FlavorQuotas{Name: fq.Name}
			for n, r := range fq.Resources {
				field := fmt.Sprintf("spec.resourceGroups[%d].flavors[%d].resources[%d]", i, j, n)
				name := cluster.ResourceName(r.Name)
				nominal, err := kueueQuantity(o, field+".nominalQuota", name, cmpOr(r.NominalQuota, "0"))
				if err != nil {
					return nil, err
				}
				q := kueue.ResourceQuota{Name: name, NominalQuota: nominal}
				for _, l := range []struct {
					text *string
					to   **int64
					sub  string
				}{{r.BorrowingLimit, &q.BorrowingLimit, ".borrowingLimit"}, {r.LendingLimit, &q.LendingLimit, ".lendingLimit"}} {
					if l.text == nil {
						continue
					}
					v, err := kueueQuantity(o, field+l.sub, name, *l.text)
					if err != nil {
						return nil, err
					}
					*l.to = &v
				}
				fl.Resources = append(fl.Resources, q)
			}
			rg.Flavors = append(rg.Flavors, fl)
		}
		out = append(out, rg)
	}
	return out, nil
}

// kueueWeight reads a fair-sharing weight in billionths.
func kueueWeight(o *Object, fs *kueueFairSharing) (*kueue.FairSharing, error) {
	if fs == nil {
		return nil, nil
	}
	out := &kueue.FairSharing{}
	if fs.Weight != nil {
		w, err := signedQuantity(*fs.Weight, func(s string) (int64, error) { return cluster.ParseQuantity(s, 1e9) })
		if err != nil {
			return nil, o.fail(nil, "spec.fairSharing.weight", err)
		}
		out.Weight = &w
	}
	return out, nil
}

func (k *kubeImport) kueueClusterQueue(o *Object, v *kueueClusterQueueObject, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	s := &v.Spec
	if err := v1beta1Only(o, s.Cohort != "", "spec.cohort", "v1beta2 names it spec.cohortName"); err != nil {
		return err
	}
	if err := v1beta1Only(o, len(s.AdmissionChecks) > 0, "spec.admissionChecks", "v1beta2 gives spec.admissionChecksStrategy.admissionChecks"); err != nil {
		return err
	}
	if !strings.HasSuffix(o.apiVersion, "/v1beta2") && s.CohortName != "" {
		return o.failf(nil, "spec.cohortName", "field not declared in %s: v1beta1 names it spec.cohort", o.apiVersion)
	}
	groups, err := kueueGroups(o, s.ResourceGroups)
	if err != nil {
		return err
	}
	q := kueue.ClusterQueue{Name: o.name, ResourceGroups: groups, CohortName: cmpOr(s.CohortName, s.Cohort),
		QueueingStrategy: kueue.BestEffortFIFO, StopPolicy: kueue.StopNone,
		FlavorFungibility: kueue.FlavorFungibility{WhenCanBorrow: kueue.MayStopSearch, WhenCanPreempt: kueue.TryNextFlavor},
		Preemption:        kueue.Preemption{ReclaimWithinCohort: kueue.PreemptNever, WithinClusterQueue: kueue.PreemptNever, BorrowWithinCohort: kueue.PreemptNever}}
	if s.QueueingStrategy != "" {
		q.QueueingStrategy = kueue.QueueingStrategy(s.QueueingStrategy)
	}
	if s.StopPolicy != "" {
		q.StopPolicy = kueue.StopPolicy(s.StopPolicy)
	}
	q.NamespaceSelector = s.NamespaceSelector.Convert()
	if ff := s.FlavorFungibility; ff != nil {
		v1 := !strings.HasSuffix(o.apiVersion, "/v1beta2")
		for _, p := range []struct {
			text, old, field string
			to               *kueue.FlavorFungibilityPolicy
		}{{ff.WhenCanBorrow, "Borrow", "whenCanBorrow", &q.FlavorFungibility.WhenCanBorrow}, {ff.WhenCanPreempt, "Preempt", "whenCanPreempt", &q.FlavorFungibility.WhenCanPreempt}} {
			switch {
			case p.text == "":
			case p.text == p.old && v1:
				*p.to = kueue.MayStopSearch // as Kueue converts v1beta1
			default:
				*p.to = kueue.FlavorFungibilityPolicy(p.text)
			}
		}
		q.FlavorFungibility.Preference = ff.Preference
	}
	if p := s.Preemption; p != nil {
		if p.ReclaimWithinCohort != "" {
			q.Preemption.ReclaimWithinCohort = kueue.PreemptionPolicy(p.ReclaimWithinCohort)
		}
		if p.WithinClusterQueue != "" {
			q.Preemption.WithinClusterQueue = kueue.PreemptionPolicy(p.WithinClusterQueue)
		}
		if b := p.BorrowWithinCohort; b != nil {
			if b.Policy != "" {
				q.Preemption.BorrowWithinCohort = kueue.PreemptionPolicy(b.Policy)
			}
			q.Preemption.MaxPriorityThreshold = b.MaxPriorityThreshold
		}
	}
	for _, name := range s.AdmissionChecks {
		q.AdmissionChecks = append(q.AdmissionChecks, kueue.AdmissionCheckRule{Name: name})
	}
	if st := s.AdmissionChecksStrategy; st != nil {
		for _, c := range st.AdmissionChecks {
			q.AdmissionChecks = append(q.AdmissionChecks, kueue.AdmissionCheckRule{Name: c.Name, OnFlavors: c.OnFlavors})
		}
	}
	if q.FairSharing, err = kueueWeight(o, s.FairSharing); err != nil {
		return err
	}
	if as := s.AdmissionScope; as != nil {
		if as.AdmissionMode == "" {
			return o.failf(nil, "spec.admissionScope.admissionMode", "Required value: admissionScope needs an admissionMode")
		}
		q.AdmissionMode = kueue.AdmissionMode(as.AdmissionMode)
	}
	if err := q.Validate(); err != nil {
		return kueueFail(o, err)
	}
	if len(q.AdmissionChecks) > 0 {
		k.ws.Add(o.kind, "spec.admissionChecksStrategy", "admission checks are not modelled: read and checked, taken as passed", o.file+": "+o.ref())
	}
	kueueObjects(f).ClusterQueues = append(kueueObjects(f).ClusterQueues, q)
	return nil
}

func (k *kubeImport) kueueLocalQueue(o *Object, v *kueueLocalQueueObject, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	q := kueue.LocalQueue{Namespace: o.namespace, Name: o.name, ClusterQueue: v.Spec.ClusterQueue, StopPolicy: kueue.StopNone}
	if v.Spec.StopPolicy != "" {
		q.StopPolicy = kueue.StopPolicy(v.Spec.StopPolicy)
	}
	var err error
	if q.FairSharing, err = kueueWeight(o, v.Spec.FairSharing); err != nil {
		return err
	}
	if fs := v.Status.FairSharing; fs != nil && fs.AdmissionFairSharingStatus != nil {
		// what admission fair sharing counted so far (a dump's), where
		// the simulation starts from
		used, name, err := parseResourceList(fs.AdmissionFairSharingStatus.ConsumedResources, schema.ResourcesOfNode)
		if err != nil {
			return o.fail(nil, "status.fairSharing.admissionFairSharingStatus.consumedResources["+name+"]", err)
		}
		q.ConsumedResources = resourceList(used)
	}
	if err := q.Validate(); err != nil {
		return kueueFail(o, err)
	}
	kueueObjects(f).LocalQueues = append(kueueObjects(f).LocalQueues, q)
	return nil
}

func (k *kubeImport) kueueCohort(o *Object, v *kueueCohortObject, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	groups, err := kueueGroups(o, v.Spec.ResourceGroups)
	if err != nil {
		return err
	}
	c := kueue.Cohort{Name: o.name, ParentName: v.Spec.ParentName, ResourceGroups: groups}
	if c.FairSharing, err = kueueWeight(o, v.Spec.FairSharing); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return kueueFail(o, err)
	}
	kueueObjects(f).Cohorts = append(kueueObjects(f).Cohorts, c)
	return nil
}

func (k *kubeImport) kueuePriorityClass(o *Object, v *kueuePriorityClassObject, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	c := kueue.WorkloadPriorityClass{Name: o.name, Value: v.Value, Description: v.Description}
	if err := c.Validate(); err != nil {
		return kueueFail(o, err)
	}
	kueueObjects(f).WorkloadPriorityClasses = append(kueueObjects(f).WorkloadPriorityClasses, c)
	return nil
}

func (k *kubeImport) kueueTopology(o *Object, v *kueueTopologyObject, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	t := kueue.Topology{Name: o.name}
	for _, l := range v.Spec.Levels {
		t.Levels = append(t.Levels, l.NodeLabel)
	}
	if err := t.Validate(); err != nil {
		return kueueFail(o, err)
	}
	kueueObjects(f).Topologies = append(kueueObjects(f).Topologies, t)
	return nil
}

// kueueDuration reads a Configuration's duration as metav1.Duration does.
func kueueDuration(o *Object, field, text string) (int64, error) {
	d, err := time.ParseDuration(text)
	if err != nil {
		return 0, o.failf(nil, field, "%q is not a duration: %v", text, err)
	}
	return int64(d), nil
}

// kueueDefaultPodsReadyTimeout is Kueue v0.19's waitForPodsReady timeout
// when none is given (30 minutes; v1beta1's was 5).
const kueueDefaultPodsReadyTimeout = 30 * time.Minute

func (k *kubeImport) kueueConfig(o *Object, v *kueueConfigObject, f *schema.File) error {
	v1 := strings.HasSuffix(o.apiVersion, "/v1beta1")
	c := &kueue.Configuration{ManageJobsWithoutQueueName: v.ManageJobsWithoutQueueName, FeatureGates: v.FeatureGates}
	if cc := v.ClientConnection; cc != nil {
		if cc.QPS != nil && !(*cc.QPS > 0) {
			return o.failf(nil, "clientConnection.qps", "Invalid value: %v: must be greater than 0", *cc.QPS)
		}
		if cc.QPS != nil && math.IsInf(float64(*cc.QPS), 1) {
			// a JSON number in Kueue's configuration, never infinite
			return o.failf(nil, "clientConnection.qps", "Invalid value: %v: must be a finite number", *cc.QPS)
		}
		if cc.Burst != nil && *cc.Burst < 1 {
			return o.failf(nil, "clientConnection.burst", "Invalid value: %d: must be at least 1", *cc.Burst)
		}
		c.ClientQPS, c.ClientBurst = cc.QPS, cc.Burst
	}
	w := v.WaitForPodsReady
	if w != nil {
		if err := v1beta1Only(o, w.Enable != nil, "waitForPodsReady.enable", "in v1beta2, waitForPodsReady is on when given"); err != nil {
			return err
		}
	}
	// v1beta2 (Kueue v0.19) turns waitForPodsReady on whether given or
	// not: 30 minutes, admission not blocked; v1beta1 only when enabled:
	// 5 minutes, admission blocked
	// Kueue's DisableWaitForPodsReady gate turns it off whatever is given
	if (!v1 || w != nil && w.Enable != nil && *w.Enable) && !v.FeatureGates["DisableWaitForPodsReady"] {
		wr := &kueue.WaitForPodsReady{Timeout: int64(kueueDefaultPodsReadyTimeout), BlockAdmission: v1}
		if v1 {
			wr.Timeout = int64(5 * time.Minute)
		}
		if w != nil {
			if w.BlockAdmission != nil {
				wr.BlockAdmission = *w.BlockAdmission
			}
			if w.Timeout != nil {
				d, err := kueueDuration(o, "waitForPodsReady.timeout", *w.Timeout)
				if err != nil {
					return err
				}
				wr.Timeout = d
			}
			if w.RecoveryTimeout != nil {
				d, err := kueueDuration(o, "waitForPodsReady.recoveryTimeout", *w.RecoveryTimeout)
				if err != nil {
					return err
				}
				wr.RecoveryTimeout = &d
			}
			if r := w.RequeuingStrategy; r != nil {
				wr.Timestamp, wr.BackoffLimitCount, wr.BackoffBaseSeconds, wr.BackoffMaxSeconds = r.Timestamp, r.BackoffLimitCount, r.BackoffBaseSeconds, r.BackoffMaxSeconds
			}
		}
		c.WaitForPodsReady = wr
	}
	if fs := v.FairSharing; fs != nil {
		if err := v1beta1Only(o, fs.Enable != nil, "fairSharing.enable", "in v1beta2, fairSharing is on when given"); err != nil {
			return err
		}
		if !v1 || fs.Enable != nil && *fs.Enable {
			c.FairSharing = &kueue.FairSharingConfig{PreemptionStrategies: fs.PreemptionStrategies}
		}
	}
	if a := v.AdmissionFairSharing; a != nil {
		// Kueue's defaults: no half-life (no history), a sample every 5
		// minutes
		af := &kueue.AdmissionFairSharing{UsageSamplingInterval: int64(5 * time.Minute)}
		var err error
		if a.UsageHalfLifeTime != "" {
			if af.UsageHalfLifeTime, err = kueueDuration(o, "admissionFairSharing.usageHalfLifeTime", a.UsageHalfLifeTime); err != nil {
				return err
			}
		}
		if a.UsageSamplingInterval != "" {
			if af.UsageSamplingInterval, err = kueueDuration(o, "admissionFairSharing.usageSamplingInterval", a.UsageSamplingInterval); err != nil {
				return err
			}
			if af.UsageSamplingInterval == 0 {
				af.UsageSamplingInterval = int64(5 * time.Minute) // Kueue defaults a zero too
			}
		}
		for r, w := range a.ResourceWeights {
			if af.ResourceWeights == nil {
				af.ResourceWeights = map[cluster.ResourceName]float64{}
			}
			af.ResourceWeights[cluster.ResourceName(r)] = w
		}
		c.AdmissionFairSharing = af
	}
	if err := c.Validate(); err != nil {
		return kueueFail(o, err)
	}
	ko := kueueObjects(f)
	if ko.Configuration != nil {
		return o.failf(nil, "kind", "a second Kueue Configuration: Kueue reads one")
	}
	ko.Configuration = c
	return nil
}

// kueueRead notes that the inputs hold a Kueue object: Kueue runs.
func (k *kubeImport) kueueRead(o *Object, err error) error {
	if err != nil {
		return err
	}
	k.kueueOn = true
	return nil
}
