package kube

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A kind the importer does not read is skipped with a warning. What that
// costs the figures differs: a JobSet, a RayCluster or a Volcano Job makes
// pods that the simulation then lacks (a planner must know how many), a
// Service or a Role never changes where a pod goes. The importer sorts the
// kinds it skips into three classes (SkipClass) and, for the kinds that
// make pods, counts the pods an object would make as far as the object
// itself says (replicas, parallelism, sizes).
//
// podMakers is the one place that lists the kinds that make pods. Only an
// object the importer skips is looked up in it: a kind that becomes read
// (kubeKinds, kubeForeignKinds) is no longer skipped and so drops out of
// the count without a change here; its entry should then be deleted.

// SkipClass says what a skipped kind means for the simulation's figures.
type SkipClass int

// The classes of skipped kinds, in the order the warnings list them.
const (
	// SkipMakesPods: its objects make pods (a workload of another
	// project's controller) that the simulation leaves out.
	SkipMakesPods SkipClass = iota
	// SkipOther: a kind the simulator does not read that may matter to
	// scheduling (a quota of another scheduler, an autoscaler, a volume).
	SkipOther
	// SkipInert: a kind that never affects scheduling (a Service, a
	// ConfigMap, RBAC), listed together in one line.
	SkipInert
)

// Skip is one skipped object: its kind as the warnings name it, the
// warning's detail, the object ("file: Kind ns/name"), its class and,
// for a kind that makes pods, how many it would make (PodsKnown false
// when the object alone does not say).
type Skip struct {
	Kind      string
	Detail    string
	Object    string
	Class     SkipClass
	Pods      int
	PodsKnown bool
}

// SkipRecorder is a Warnings that also takes the skipped objects with
// their class and pods; Import gives it each skipped object instead of a
// plain warning.
type SkipRecorder interface {
	Warnings
	Skipped(Skip)
}

// podMaker is a kind that makes pods: the name its warnings give it (with
// its group when a kind the importer reads has the same name) and how
// many pods an object makes, from its spec.
type podMaker struct {
	name string
	pods func(spec *yaml.Node) (int, bool)
}

// podMakers are the kinds that make pods, by "group Kind" (the core
// group is "").
var podMakers = map[string]podMaker{
	" ReplicationController":                {"ReplicationController", func(s *yaml.Node) (int, bool) { return intOr(s, 1, "replicas") }},
	"batch CronJob":                         {"CronJob", func(*yaml.Node) (int, bool) { return 0, false }}, // pods on a schedule
	"kubeflow.org TFJob":                    {"TFJob", replicaSpecs("tfReplicaSpecs")},
	"kubeflow.org XGBoostJob":               {"XGBoostJob", replicaSpecs("xgbReplicaSpecs")},
	"kubeflow.org PaddleJob":                {"PaddleJob", replicaSpecs("paddleReplicaSpecs")},
	"kubeflow.org JAXJob":                   {"JAXJob", replicaSpecs("jaxReplicaSpecs")},
	"kubeflow.org MXJob":                    {"MXJob", replicaSpecs("mxReplicaSpecs")},
	"kubeflow.org Notebook":                 {"Notebook", func(*yaml.Node) (int, bool) { return 1, true }},
	"ray.io RayService":                     {"RayService", func(s *yaml.Node) (int, bool) { return rayClusterPods(schema.MapValue(s, "rayClusterConfig")) }},
	"sparkoperator.k8s.io SparkApplication": {"SparkApplication", sparkPods},
	"argoproj.io Workflow":                  {"Workflow", func(*yaml.Node) (int, bool) { return 0, false }},
	"argoproj.io Rollout":                   {"Rollout", func(s *yaml.Node) (int, bool) { return intOr(s, 1, "replicas") }},
	"serving.kserve.io InferenceService":    {"InferenceService", func(*yaml.Node) (int, bool) { return 0, false }},
	"serving.knative.dev Service":           {"Service (serving.knative.dev)", func(*yaml.Node) (int, bool) { return 0, false }},
}

// inertKinds are the kinds that never affect scheduling, by "group Kind"
// or by a whole group ("group *").
var inertKinds = map[string]bool{
	" Service": true, " ConfigMap": true, " Secret": true, " ServiceAccount": true, " Endpoints": true, " Event": true,
	" PodTemplate": true, " ComponentStatus": true,
	"rbac.authorization.k8s.io *":    true,
	"networking.k8s.io *":            true, // Ingress, IngressClass, NetworkPolicy
	"gateway.networking.k8s.io *":    true,
	"discovery.k8s.io *":             true,
	"events.k8s.io *":                true,
	"coordination.k8s.io *":          true,
	"apiextensions.k8s.io *":         true,
	"apiregistration.k8s.io *":       true,
	"admissionregistration.k8s.io *": true,
	"certificates.k8s.io *":          true,
	"cert-manager.io *":              true,
	"monitoring.coreos.com *":        true,
	"policy PodSecurityPolicy":       true,
}

// skip is what the importer does with an object of a kind it does not
// read: a warning, sorted into its class, with the pods it would make.
func skip(o *Object) Skip {
	group := apiGroup(o.apiVersion)
	s := Skip{Kind: o.kind, Detail: skippedKindDetail(o.apiVersion, o.kind), Object: o.file + ": " + o.ref(), Class: SkipOther}
	switch {
	case podMakers[group+" "+o.kind].pods != nil:
		m := podMakers[group+" "+o.kind]
		s.Kind, s.Class = m.name, SkipMakesPods
		s.Pods, s.PodsKnown = m.pods(schema.MapValue(o.node, "spec"))
		s.Pods = max(s.Pods, 0)
		s.Detail = "makes pods that the simulation leaves out: kind not read, objects skipped"
	case inertKinds[group+" "+o.kind] || inertKinds[group+" *"]:
		s.Class = SkipInert
	}
	return s
}

// addSkip gives ws a skipped object: with its class and pods when ws
// takes them, else as a plain warning.
func addSkip(ws Warnings, s Skip) {
	if r, ok := ws.(SkipRecorder); ok {
		r.Skipped(s)
		return
	}
	ws.Add(s.Kind, "", s.Detail, s.Object)
}

// intAt is the whole number at path under n; ok is false when it is
// absent, and known false when it is not a whole number.
func intAt(n *yaml.Node, path ...string) (v int, ok, known bool) {
	for _, k := range path {
		n = schema.MapValue(n, k)
	}
	if n == nil || n.Tag == "!!null" {
		return 0, false, true
	}
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		return 0, true, false
	}
	return v, true, true
}

// intOr is the whole number at path, def when absent; a def below 0
// means an absent value is unknown.
func intOr(n *yaml.Node, def int, path ...string) (int, bool) {
	v, ok, known := intAt(n, path...)
	switch {
	case !known:
		return 0, false
	case !ok:
		return def, def >= 0
	}
	return v, true
}

// items calls f on each item of the sequence at key; the counts add up,
// and one unknown makes the sum unknown (the known part still counts).
func items(n *yaml.Node, key string, f func(*yaml.Node) (int, bool)) (int, bool) {
	seq := schema.MapValue(n, key)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return 0, seq == nil
	}
	total, known := 0, true
	for _, it := range seq.Content {
		v, k := f(it)
		total += v
		known = known && k
	}
	return total, known
}

// replicaSpecs: the Kubeflow operators' jobs, the replicas (1 by default)
// of every replica type under key.
func replicaSpecs(key string) func(*yaml.Node) (int, bool) {
	return func(spec *yaml.Node) (int, bool) {
		m := schema.MapValue(spec, key)
		if m == nil || m.Kind != yaml.MappingNode {
			return 0, false
		}
		total, known := 0, true
		for i := 1; i < len(m.Content); i += 2 {
			v, k := intOr(m.Content[i], 1, "replicas")
			total += v
			known = known && k
		}
		return total, known
	}
}

// times multiplies two counts, known when both are.
func times(a int, ak bool, b int, bk bool) (int, bool) { return a * b, ak && bk }

// rayClusterPods: the head, and each worker group's replicas (KubeRay's
// default 0, raised to minReplicas) times numOfHosts (1 by default).
func rayClusterPods(spec *yaml.Node) (int, bool) {
	if spec == nil {
		return 0, false
	}
	workers, known := items(spec, "workerGroupSpecs", func(g *yaml.Node) (int, bool) {
		r, rk := intOr(g, 0, "replicas")
		mn, mk := intOr(g, 0, "minReplicas")
		h, hk := intOr(g, 1, "numOfHosts")
		return times(max(r, mn), rk && mk, h, hk)
	})
	return 1 + workers, known
}

// sparkPods: the driver and the executors' instances (1 by default).
func sparkPods(spec *yaml.Node) (int, bool) {
	e, ek := intOr(spec, 1, "executor", "instances")
	return 1 + e, ek
}
