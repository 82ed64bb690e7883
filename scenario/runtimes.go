package scenario

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// RunTime is how long pods run once bound: a fixed time, or a
// distribution drawn pod by pod. The zero RunTime gives no run time: the
// pods run until they are deleted or evicted.
type RunTime struct {
	dist runTimeDist
	text string
	// Seed varies the draws of a distribution. Each pod draws from its
	// own stream, seeded by Seed and the pod's namespace and name (and,
	// for a pod a StatefulSet makes again, how many times it made it), so
	// that a pod's run time depends neither on the order pods are made in
	// nor on the other pods.
	Seed uint64
}

// FixedRunTime is the RunTime of d for every pod (0: none).
func FixedRunTime(d time.Duration) RunTime {
	if d <= 0 {
		return RunTime{}
	}
	return RunTime{dist: runTimeDist{fixed: d}, text: d.String()}
}

// ParseRunTime reads a RunTime as a workload's duration is written in a
// scenario file (docs/scenario-format.md, "Workload templates"): a time
// ("30m"), or a YAML mapping with exactly one of fixed, exponential (the
// mean) and logNormal ({median, sigma}), and an optional max capping the
// draws: "{exponential: 20m, max: 2h}". "0s" and "" give no run time.
func ParseRunTime(text string) (RunTime, error) {
	if strings.TrimSpace(text) == "" {
		return RunTime{}, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) != 1 {
		return RunTime{}, fmt.Errorf("scenario: run time %q: not a time like 30m or a mapping like {exponential: 20m}", text)
	}
	b := newBuilder("", nil)
	dist, err := b.decodeRunTime(doc.Content[0], "duration")
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return RunTime{}, fmt.Errorf("scenario: run time %q: %s: %s", text, fe.Path, detail(fe.Err))
		}
		return RunTime{}, fmt.Errorf("scenario: run time %q: %w", text, err)
	}
	if dist == (runTimeDist{}) {
		return RunTime{}, nil
	}
	return RunTime{dist: dist, text: strings.TrimSpace(text)}, nil
}

// IsZero reports whether rt gives no run time.
func (rt RunTime) IsZero() bool { return rt.dist == runTimeDist{} }

// String returns the run time as ParseRunTime reads it.
func (rt RunTime) String() string { return rt.text }

// draw returns the run time of the pod key, made for the n-th time (0
// first).
func (rt RunTime) draw(key string, n int) time.Duration {
	if rt.dist.mean == 0 && rt.dist.median == 0 {
		return rt.dist.fixed
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return rt.dist.draw(rand.New(rand.NewPCG(rt.Seed, h.Sum64()+uint64(n))))
}

// WithDefaultDuration gives the pods made from Kubernetes objects that
// carry no gangsim.io/duration annotation (kube.DurationAnnotation) a run
// time: those of Pod objects, and those their controllers make. A
// scenario file's pods keep their own duration. Without it, such pods run
// until they are deleted or evicted.
func WithDefaultDuration(rt RunTime) Option {
	return func(o *options) { o.runTime = rt }
}
