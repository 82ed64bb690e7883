package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"time"
)

// The -as workloads output: the Workload objects of Kueue's test itself,
// for a scenario format that gives Kubernetes objects an arrival time
// (doc.go, "Pods or Workloads").

// creationBase is the creationTimestamp of the first instant of a run:
// a workload created at k ms is stamped creationBase + k ms.
var creationBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// durationAnnotation gives a pod of a Kubernetes object its run time.
const durationAnnotation = "gangsim.io/duration"

type kubeWorkload struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   kubeMeta         `json:"metadata"`
	Spec       kubeWorkloadSpec `json:"spec"`
}

type kubeMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	CreationTimestamp string            `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels"`
}

type kubeWorkloadSpec struct {
	QueueName string       `json:"queueName"`
	Priority  int64        `json:"priority"`
	PodSets   []kubePodSet `json:"podSets"`
}

type kubePodSet struct {
	Name     string `json:"name"`
	Count    int    `json:"count"`
	Template struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			RestartPolicy string          `json:"restartPolicy"`
			Containers    []kubeContainer `json:"containers"`
		} `json:"spec"`
	} `json:"template"`
}

type kubeContainer struct {
	Name      string `json:"name"`
	Resources struct {
		Requests map[string]string `json:"requests"`
	} `json:"resources"`
}

// writeWorkloads writes Kueue's Workloads as a v1 List, one a line, in
// order of creation: one pod set "main" of one pod, container "c"
// requesting the cpu, spec.priority, the queue, the class label, as
// Kueue's generator makes them; the run time as gangsim's annotation.
func (p *plan) writeWorkloads(w io.Writer) error {
	b := bufio.NewWriter(w)
	b.WriteString(`{"apiVersion": "v1", "kind": "List", "items": [`)
	for i, wl := range p.workloads {
		if i > 0 {
			b.WriteString(",")
		}
		o := kubeWorkload{APIVersion: "kueue.x-k8s.io/v1beta2", Kind: "Workload",
			Metadata: kubeMeta{
				Name:              wl.name,
				Namespace:         wl.namespace,
				CreationTimestamp: creationBase.Add(time.Duration(wl.at) * time.Millisecond).Format(time.RFC3339Nano),
				Labels:            map[string]string{classLabel: wl.t.ClassName},
			},
			Spec: kubeWorkloadSpec{QueueName: wl.namespace, Priority: wl.t.Priority},
		}
		ps := kubePodSet{Name: "main", Count: 1}
		ps.Template.Metadata.Annotations = map[string]string{durationAnnotation: ms(wl.t.RuntimeMs)}
		ps.Template.Spec.RestartPolicy = "Never"
		c := kubeContainer{Name: "c"}
		c.Resources.Requests = map[string]string{"cpu": string(wl.t.Request)}
		ps.Template.Spec.Containers = []kubeContainer{c}
		o.Spec.PodSets = []kubePodSet{ps}
		line, err := json.Marshal(o)
		if err != nil {
			return err
		}
		b.WriteString("\n")
		b.Write(line)
	}
	b.WriteString("\n]}\n")
	return b.Flush()
}

// writeCluster writes the scenario file of -as workloads: the scheduler's
// config and the nodes (the Workloads carry their priorities).
func (p *plan) writeCluster(w io.Writer) error {
	line, err := json.Marshal(node{Name: "node", Count: p.nodes, Allocatable: map[string]string{
		"cpu":  strconv.FormatInt(p.nodeCPU/1000, 10),
		"pods": strconv.FormatInt(p.nodePods, 10),
	}})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "{\n\"config\": {\"terminationGracePeriod\": \"0s\"},\n\"nodes\": [\n"+string(line)+"\n]\n}\n")
	return err
}
