// Package schedulinggates is the SchedulingGates plugin: a pod whose
// spec.schedulingGates is not empty stays out of the queue until a
// controller removes its last gate.
package schedulinggates

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Name is the plugin's name in profiles.
const Name = "SchedulingGates"

// SchedulingGates holds a pod with scheduling gates out of the queue.
type SchedulingGates struct{}

var (
	_ fw.PreEnqueuePlugin = SchedulingGates{}
	_ fw.Stateless        = SchedulingGates{}
)

// New returns the plugin; it takes no arguments.
func New(any, fw.Handle) (fw.Plugin, error) { return SchedulingGates{}, nil }

// Name returns Name.
func (SchedulingGates) Name() string { return Name }

// Stateless declares that PreEnqueue reads the pod alone.
func (SchedulingGates) Stateless() {}

// PreEnqueue lets a pod without gates through, and holds any other with
// kube-scheduler's message.
func (SchedulingGates) PreEnqueue(pod *cluster.PodInfo) *fw.Status {
	gates := pod.Pod().SchedulingGates
	if len(gates) == 0 {
		return nil
	}
	return fw.NewStatus(fw.UnschedulableAndUnresolvable, Message(gates)).WithPlugin(Name)
}

// Message is the reason of a pod held by its scheduling gates, in
// kube-scheduler's words ("waiting for scheduling gates: [a b]").
func Message(gates []string) string {
	return fmt.Sprintf("waiting for scheduling gates: %v", gates)
}
