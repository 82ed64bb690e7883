package kube

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
)

// DurationAnnotation gives a pod made from a Kubernetes object its run
// time: on a Pod's metadata, or on the pod template of a Job, Deployment,
// ReplicaSet, StatefulSet or DaemonSet (whose controller copies it to
// every pod it makes, as Kubernetes copies a template's annotations). Once
// bound, the pod runs that long, then succeeds; a Job counts it as a
// completion, the other controllers replace it. Its value is a positive
// duration as Go writes them: "30m", "1h30m", "90s".
const DurationAnnotation = "gangsim.io/duration"

// runTimeOf reads the run-time annotation of the annotations of the
// metadata at the field path field ("metadata", "spec.template.metadata");
// "" when it has none. A value that is not a positive duration is an
// error naming the annotation.
func runTimeOf(o *Object, annotations map[string]string, field string) (string, error) {
	value, ok := annotations[DurationAnnotation]
	if !ok {
		return "", nil
	}
	if _, err := parseRunTime(value); err != nil {
		path := field + ".annotations[" + DurationAnnotation + "]"
		return "", o.failLine(keyLine(o, field+".annotations", DurationAnnotation), path, err)
	}
	return value, nil
}

// parseRunTime reads the annotation's value: a positive duration of at
// most gangsim.MaxSimulatedTime (a hundred years).
func parseRunTime(text string) (time.Duration, error) {
	d, err := time.ParseDuration(text)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration like 30m or 1h30m", text)
	case d <= 0:
		return 0, fmt.Errorf("%q is not a positive duration", text)
	case d > gangsim.MaxSimulatedTime:
		return 0, fmt.Errorf("%q is beyond the largest simulated time, %v (a hundred years)", text, gangsim.MaxSimulatedTime)
	}
	return d, nil
}
