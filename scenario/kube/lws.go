package kube

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A LeaderWorkerSet (leaderworkerset.x-k8s.io/v1) runs replicas groups of
// size pods. Its controller makes a StatefulSet <lws> whose pods are the
// leaders <lws>-<group>; for each leader, a StatefulSet <lws>-<group>
// whose pods are the workers <lws>-<group>-<index>, index 1 to size-1.
// The pods carry the labels LWS's controller and pod webhook give them
// (name, group-index, worker-index, group-key, template-revision-hash,
// and the subgroup ones). The leaders use leaderTemplate (else
// workerTemplate), the workers workerTemplate.
//
// Workers are made with their leader (startupPolicy LeaderCreated), or
// once it is bound (LeaderReady; the simulator's bound pod is running and
// ready). Exclusive placement (the annotation
// leaderworkerset.sigs.k8s.io/exclusive-topology: <node label>) gives the
// leader a required affinity to its group's key and an anti-affinity to
// every other group's, in that label's domains, and the workers are made
// once the leader is bound, with a node selector of its domain; a
// subgroup's annotation gives each pod of a subgroup the affinities of its
// subgroup's key. restartPolicy RecreateGroupOnPodRestart (the default)
// deletes and makes again the whole group when one of its pods goes;
// None replaces a worker alone, but a leader that goes takes its workers
// with it (it owns their StatefulSet). With Volcano as LWS's scheduler provider
// (the templates name schedulerName: volcano), each group is a PodGroup
// <lws>-<group>-<revision> of minMember size (1 with LeaderReady).

// The labels and annotation keys of LeaderWorkerSet.
const (
	lwsPrefix           = "leaderworkerset.sigs.k8s.io/"
	lwsNameLabel        = lwsPrefix + "name"
	lwsGroupIndexLabel  = lwsPrefix + "group-index"
	lwsWorkerIndexLabel = lwsPrefix + "worker-index"
	lwsGroupKeyLabel    = lwsPrefix + "group-key"
	lwsRevisionLabel    = lwsPrefix + "template-revision-hash"
	lwsSubIndexLabel    = lwsPrefix + "subgroup-index"
	lwsSubKeyLabel      = lwsPrefix + "subgroup-key"
	lwsExclusive        = lwsPrefix + "exclusive-topology"
	lwsSubExclusive     = lwsPrefix + "subgroup-exclusive-topology"
)

type kubeLeaderWorkerSet struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		Replicas             *int32 `yaml:"replicas"`
		LeaderWorkerTemplate struct {
			LeaderTemplate *kubePodTemplate `yaml:"leaderTemplate"`
			WorkerTemplate kubePodTemplate  `yaml:"workerTemplate"`
			Size           *int32           `yaml:"size"`
			RestartPolicy  string           `yaml:"restartPolicy"`
			SubGroupPolicy *struct {
				Type         string `yaml:"subGroupPolicyType"`
				SubGroupSize *int32 `yaml:"subGroupSize"`
			} `yaml:"subGroupPolicy"`
			VolumeClaimTemplates                 unmodelled `yaml:"volumeClaimTemplates"` // as a StatefulSet's
			PersistentVolumeClaimRetentionPolicy skipped    `yaml:"persistentVolumeClaimRetentionPolicy"`
		} `yaml:"leaderWorkerTemplate"`
		RolloutStrategy unmodelled `yaml:"rolloutStrategy"`
		StartupPolicy   string     `yaml:"startupPolicy"`
		NetworkConfig   skipped    `yaml:"networkConfig"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

// lwsFields translate a LeaderWorkerSet's PodGroup fields.
var lwsFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "minCount": "spec.leaderWorkerTemplate.size", "": "spec"}

// lwsPlan is what the spec asks, checked as LWS's webhook checks it.
type lwsPlan struct {
	replicas, size int
	restart        controllers.SetAction
	leaderReady    bool
	exclusive      string // the exclusive topology's node label
	subSize        int    // 0: no subgroups
	leaderExcluded bool
	subExclusive   string
}

func (k *kubeImport) lwsPlan(o *Object, v *kubeLeaderWorkerSet) (lwsPlan, error) {
	spec := &v.Spec
	lt := &spec.LeaderWorkerTemplate
	p := lwsPlan{replicas: 1, size: 1, restart: controllers.ActionRestartGroup}
	if r := spec.Replicas; r != nil {
		if *r < 0 || *r > 1000000 {
			return p, o.failf(nil, "spec.replicas", "%d is not in 0..1000000", *r)
		}
		p.replicas = int(*r)
	}
	if s := lt.Size; s != nil {
		if *s < 1 {
			return p, o.failf(nil, "spec.leaderWorkerTemplate.size", "%d is below 1", *s)
		}
		p.size = int(*s)
	}
	if int64(p.replicas)*int64(p.size) > math.MaxInt32 {
		return p, o.failf(nil, "spec.replicas", "%d groups of %d pods: the product must not exceed %d", p.replicas, p.size, math.MaxInt32)
	}
	first := o.file + ": " + o.ref()
	switch lt.RestartPolicy {
	case "", "RecreateGroupOnPodRestart":
	case "RecreateGroupAfterStart":
		k.ws.Add(o.kind, "spec.leaderWorkerTemplate.restartPolicy",
			"RecreateGroupAfterStart is approximated as RecreateGroupOnPodRestart: the group is made again even while one of its pods is pending", first)
	case "None", "Default": // the webhook turns the deprecated Default into None
		p.restart = controllers.ActionRestartPod
	default:
		return p, o.failf(nil, "spec.leaderWorkerTemplate.restartPolicy", "%q is not RecreateGroupOnPodRestart, RecreateGroupAfterStart or None", lt.RestartPolicy)
	}
	switch spec.StartupPolicy {
	case "", "LeaderCreated":
	case "LeaderReady":
		p.leaderReady = true
	default:
		return p, o.failf(nil, "spec.startupPolicy", "%q is not LeaderCreated or LeaderReady", spec.StartupPolicy)
	}
	ann := v.Metadata.Annotations
	p.exclusive = ann[lwsExclusive]
	p.subExclusive = ann[lwsSubExclusive]
	for _, key := range []string{lwsExclusive, lwsSubExclusive} {
		if value, ok := ann[key]; ok && !cluster.IsQualifiedName(value) {
			return p, o.failf(nil, "metadata.annotations["+key+"]", "%q is not a node label key", value)
		}
	}
	if sg := lt.SubGroupPolicy; sg != nil {
		field := "spec.leaderWorkerTemplate.subGroupPolicy"
		switch sg.Type {
		case "", "LeaderWorker":
		case "LeaderExcluded":
			p.leaderExcluded = true
		default:
			return p, o.failf(nil, field+".subGroupPolicyType", "%q is not LeaderWorker or LeaderExcluded", sg.Type)
		}
		if sg.SubGroupSize == nil {
			return p, o.failf(nil, field+".subGroupSize", "required")
		}
		n := int(*sg.SubGroupSize)
		switch {
		case n < 1:
			return p, o.failf(nil, field+".subGroupSize", "%d is below 1", n)
		case n > p.size:
			return p, o.failf(nil, field+".subGroupSize", "%d is larger than size %d", n, p.size)
		case p.size%n != 0 && (p.size-1)%n != 0:
			return p, o.failf(nil, field+".subGroupSize", "size %d or size - 1 must be divisible by %d", p.size, n)
		case p.leaderExcluded && (p.size-1)%n != 0:
			return p, o.failf(nil, field+".subGroupSize", "size - 1 (%d) must be divisible by %d with LeaderExcluded", p.size-1, n)
		}
		p.subSize = n
	} else if p.subExclusive != "" {
		return p, o.failf(nil, "metadata.annotations["+lwsSubExclusive+"]", "needs spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize")
	}
	return p, nil
}

// leaderWorkerSet converts a LeaderWorkerSet: the controller of its
// groups, and the pods made at time 0.
func (k *kubeImport) leaderWorkerSet(o *Object, v *kubeLeaderWorkerSet, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	p, err := k.lwsPlan(o, v)
	if err != nil {
		return err
	}
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	lt := &v.Spec.LeaderWorkerTemplate
	leaderT, leaderPath := &lt.WorkerTemplate, "spec.leaderWorkerTemplate.workerTemplate"
	if lt.LeaderTemplate != nil {
		leaderT, leaderPath = lt.LeaderTemplate, "spec.leaderWorkerTemplate.leaderTemplate"
	}
	rev := templateHash(o)
	first := o.file + ": " + o.ref()
	set := &controllers.PodSet{OnFailure: p.restart}
	var templates []schema.Pod
	var pods []lwsPod // the pods made at time 0
	if err := k.room(o, "spec.replicas", p.replicas*p.size); err != nil {
		return err
	}
	volcano := false
	for g := range p.replicas {
		gi := strconv.Itoa(g)
		leaderName := o.name + "-" + gi
		key := lwsKey(o.namespace, leaderName)
		group := map[string]string{lwsNameLabel: o.name, lwsGroupIndexLabel: gi, lwsGroupKeyLabel: key, lwsRevisionLabel: rev}
		leaderLabels := withLabels(group, map[string]string{lwsWorkerIndexLabel: "0"})
		leaderOwner := &cluster.Owner{Kind: "StatefulSet", Name: o.name,
			Selector: &cluster.LabelSelector{MatchLabels: map[string]string{lwsNameLabel: o.name, lwsWorkerIndexLabel: "0"}}}
		lead, err := k.setTemplate(o, created, leaderT, leaderPath, leaderLabels, leaderOwner)
		if err != nil {
			return err
		}
		workerOwner := &cluster.Owner{Kind: "StatefulSet", Name: leaderName,
			Selector: &cluster.LabelSelector{MatchLabels: map[string]string{lwsNameLabel: o.name, lwsGroupIndexLabel: gi, lwsGroupKeyLabel: key}}}
		work, err := k.setTemplate(o, created, &lt.WorkerTemplate, "spec.leaderWorkerTemplate.workerTemplate", group, workerOwner)
		if err != nil {
			return err
		}
		if byVolcano(&lead) || byVolcano(&work) {
			lead.SchedulerName, work.SchedulerName, volcano = "", "", true
			pg := fmt.Sprintf("%s-%s-%s", o.name, gi, rev)
			lead.PodGroup, work.PodGroup = pg, pg
			minMember := int32(p.size)
			if p.leaderReady {
				minMember = 1
			}
			setGang(f, o, pg, minMember, lwsFields, &lead)
		}
		if p.exclusive != "" {
			lead.Affinity = exclusiveAffinity(lead.Affinity, lwsGroupKeyLabel, key, p.exclusive, false)
		}
		ti := len(templates)
		templates = append(templates, lead, work)
		leader := len(set.Members)
		leaderMember := controllers.Member{Name: leaderName, Template: ti, Group: g, After: -1, Lead: true}
		var leaderOwn map[string]string
		if p.subSize > 0 && !p.leaderExcluded {
			sub := lwsKey(leaderName, "0")
			leaderOwn = map[string]string{lwsSubIndexLabel: "0", lwsSubKeyLabel: sub}
			leaderMember.Labels = leaderOwn
			if p.subExclusive != "" {
				templates[ti].Affinity = exclusiveAffinity(templates[ti].Affinity, lwsSubKeyLabel, sub, p.subExclusive, false)
			}
		}
		set.Members = append(set.Members, leaderMember)
		pods = append(pods, lwsPod{ti, leaderName, leaderOwn})
		for w := 1; w < p.size; w++ {
			name := leaderName + "-" + strconv.Itoa(w)
			own := map[string]string{lwsWorkerIndexLabel: strconv.Itoa(w)}
			mb := controllers.Member{Name: name, Template: ti + 1, Labels: own, Group: g, After: -1}
			if p.subSize > 0 {
				si := lwsSubGroupIndex(p.size, p.subSize, w)
				own[lwsSubIndexLabel], own[lwsSubKeyLabel] = si, lwsKey(leaderName, si)
				if p.subExclusive != "" {
					// each subgroup's affinities name its own key: a template of its own
					t := templates[ti+1]
					t.Affinity = exclusiveAffinity(t.Affinity, lwsSubKeyLabel, own[lwsSubKeyLabel], p.subExclusive, false)
					mb.Template = len(templates)
					templates = append(templates, t)
				}
			}
			if p.leaderReady || p.exclusive != "" {
				mb.After, mb.Follow = leader, p.exclusive
			} else {
				pods = append(pods, lwsPod{mb.Template, name, own})
			}
			set.Members = append(set.Members, mb)
		}
	}
	if len(templates) == 0 { // no group: the controller has nothing to keep
		return nil
	}
	// Kueue names the pod sets of a group's workload "leader" and
	// "worker" when the set has a leader template, else "main" for all
	set.Roles = make([]string, len(templates))
	for _, mb := range set.Members {
		switch {
		case lt.LeaderTemplate == nil:
			set.Roles[mb.Template] = "main"
		case mb.Lead:
			set.Roles[mb.Template] = "leader"
		default:
			set.Roles[mb.Template] = "worker"
		}
	}
	k.lwsWarnings(o, p, volcano, first)
	c := setController(o, controllers.KindLeaderWorkerSet, o.name, templates)
	c.Set = set
	f.Controllers = append(f.Controllers, c)
	for _, pod := range pods {
		k.addSetPod(f, o, &templates[pod.template], pod.name, pod.own)
	}
	return nil
}

// lwsPod is a pod of a LeaderWorkerSet made at time 0.
type lwsPod struct {
	template int
	name     string
	own      map[string]string
}

// lwsWarnings say what the set's mapping approximates.
func (k *kubeImport) lwsWarnings(o *Object, p lwsPlan, volcano bool, first string) {
	if volcano {
		k.ws.Add(o.kind, "spec.leaderWorkerTemplate.workerTemplate.spec.schedulerName",
			"volcano: each group is a gang, a PodGroup <lws>-<group>-<revision> of minMember size (1 with LeaderReady) as LWS's Volcano provider makes it, "+
				"scheduled by the simulator; the real cluster needs LWS configured with Volcano as its scheduler provider, and Volcano's scheduler", first)
	}
	if p.exclusive != "" {
		k.ws.Add(o.kind, "metadata.annotations["+lwsExclusive+"]",
			"exclusive placement: each leader has a required affinity to its group and anti-affinity to the others in one "+p.exclusive+
				" domain; its workers are made once it is bound, pinned to its domain, as LWS does", first)
	}
}

// lwsKey is LWS's unique key of a group (of namespace and leader name)
// or of a subgroup (of the leader's name and the subgroup index).
func lwsKey(a, b string) string {
	sum := sha1.Sum([]byte(a + "/" + b))
	return hex.EncodeToString(sum[:])
}

// lwsSubGroupIndex is the subgroup of worker w, as LWS's webhook counts
// it: the leader is the extra pod of the first subgroup when size - 1 is
// a multiple of the subgroup size and size is not.
func lwsSubGroupIndex(size, sub, w int) string {
	if (size-1)%sub == 0 && size%sub != 0 {
		return strconv.Itoa((w - 1) / sub)
	}
	return strconv.Itoa(w / sub)
}
