package podgroup

import (
	"iter"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// MemberState is where a member pod is, from its group's point of view.
type MemberState uint8

// The member states.
const (
	Unscheduled MemberState = iota // known, waiting to be placed
	Assumed                        // placed by a cycle, binding not complete
	Bound                          // running on a node
)

// Membership tracks a group's known pods and their states: kube-scheduler's
// PodGroupState (allPods, unscheduledPods, assumedPods, assignedPods). The
// zero value is empty and usable.
type Membership struct {
	states map[cluster.PodKey]MemberState
	counts [3]int
}

// Set records key in state (adding it if it is new).
func (m *Membership) Set(key cluster.PodKey, state MemberState) {
	if m.states == nil {
		m.states = map[cluster.PodKey]MemberState{}
	}
	if old, ok := m.states[key]; ok {
		m.counts[old]--
	}
	m.states[key] = state
	m.counts[state]++
}

// Remove forgets key (the pod was deleted or finished).
func (m *Membership) Remove(key cluster.PodKey) {
	if old, ok := m.states[key]; ok {
		m.counts[old]--
		delete(m.states, key)
	}
}

// State returns key's state and whether it is a member.
func (m *Membership) State(key cluster.PodKey) (MemberState, bool) {
	s, ok := m.states[key]
	return s, ok
}

// Known is AllPodsCount: every member, scheduled or not.
func (m *Membership) Known() int { return len(m.states) }

// Scheduled is ScheduledPodsCount: assumed plus bound members.
func (m *Membership) Scheduled() int { return m.counts[Assumed] + m.counts[Bound] }

// Count returns how many members are in state.
func (m *Membership) Count(state MemberState) int { return m.counts[state] }

// Members yields the members in key order with their states.
func (m *Membership) Members() iter.Seq2[cluster.PodKey, MemberState] {
	return func(yield func(cluster.PodKey, MemberState) bool) {
		for _, k := range slices.Sorted(maps.Keys(m.states)) {
			if !yield(k, m.states[k]) {
				return
			}
		}
	}
}
