package controllers

import (
	"errors"
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// ErrNameTooLong is a pod name a controller would make past Kubernetes'
// limit of 253 characters.
var ErrNameTooLong = errors.New("the name is longer than 253 characters")

// ErrPodLimit is the pod a controller would make past WithPodLimit's
// bound.
var ErrPodLimit = errors.New("the controllers would make more pods than their limit")

// errRefused ends a controller's sync whose pod admission refused.
var errRefused = errors.New("controllers: pod creation refused")

// PodError is a controller's failure to make or delete one of its pods,
// at a simulated time: the Scheduler refused the pod (a field at fault,
// a name taken), or the name or the limit of pods (ErrNameTooLong,
// ErrPodLimit) forbade it.
type PodError struct {
	Kind, Namespace, Name string // the workload
	Pod                   string // the pod, as cluster.PodKey.Display shows its key, or its name
	At                    time.Duration
	Err                   error
}

// Error names the workload, its pod and the time: "ReplicaSet
// default/web (pod web-3): at 10m0s: ...".
func (e *PodError) Error() string {
	return fmt.Sprintf("%s %s (pod %s): at %v: %v", e.Kind, e.Namespace+"/"+e.Name, e.Pod, e.At, e.Err)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *PodError) Unwrap() error { return e.Err }

// podError is the controller's PodError about its pod at the current time.
func (m *Manager) podError(c *controller, pod string, err error) error {
	return &PodError{Kind: c.w.Kind, Namespace: c.w.Namespace, Name: c.w.Name, Pod: pod, At: m.s.Now(), Err: err}
}

// adopt counts a pod as the controller's, active.
func (m *Manager) adopt(c *controller, key cluster.PodKey, index int, node string) *ownedPod {
	cp := &ownedPod{ctl: c, key: key, index: index, node: node}
	m.pods[key] = cp
	c.pods = append(c.pods, cp)
	c.active++
	if index >= 0 {
		c.activeAt[index]++
		c.madeAt[index]++
	}
	if node != "" {
		c.onNode[node]++
		c.madeOn[node]++
	}
	return cp
}

// end counts an active pod as ended.
func (m *Manager) end(cp *ownedPod, state podState) {
	c := cp.ctl
	if was, is := cp.state.going(), state.going(); was != is {
		if is {
			c.going++
		} else {
			c.going--
		}
	}
	if cp.state != podActive {
		cp.state = state
		return
	}
	cp.state = state
	c.active--
	if cp.index >= 0 {
		c.activeAt[cp.index]--
	}
	if cp.node != "" {
		c.onNode[cp.node]--
	}
}

// remove deletes a controller's pod, as its controller, or Kubernetes'
// pod garbage collector, does.
func (m *Manager) remove(cp *ownedPod, state podState) error {
	m.end(cp, state)
	cp.byUs = true
	// a pod gone already was deleted by another (Kueue deletes a whole
	// group at once): the event of its going is yet to be read, and finds
	// it ended
	if err := m.s.DeletePod(cp.key); err != nil && !errors.Is(err, gangsim.ErrUnknownPod) {
		return m.podError(cp.ctl, cp.key.Display(), err)
	}
	return nil
}

// make adds the controller's pod named name, with its index and node, made
// for the n-th time under that name.
func (m *Manager) make(c *controller, name string, index int, node string, n int) error {
	patch := c.patch()
	p := patched(c.w.pod(name, index, node), c.role(index), patch)
	if c.kid != nil {
		m.decorate(c, &p, index)
	}
	cp, err := m.add(c, p, index, node, c.w.runTime(p.Key(), n))
	if cp != nil {
		cp.patch = patch
	}
	return err
}

// add adds the controller's pod p, with its index and node, to run for d
// once bound; the pod it owns is nil when it was not made.
func (m *Manager) add(c *controller, p cluster.Pod, index int, node string, d time.Duration) (*ownedPod, error) {
	name, key := p.Name, p.Key()
	if len(name) > 253 {
		return nil, m.podError(c, name, ErrNameTooLong)
	}
	if m.makes++; m.makes > m.limit {
		return nil, m.podError(c, name, ErrPodLimit)
	}
	if d > 0 && !c.w.service() {
		m.finite[key] = true
	}
	if !m.listed[key] {
		m.listed[key] = true
		m.made = append(m.made, key)
	}
	cp := m.adopt(c, key, index, node)
	if m.claims != nil {
		if err := m.claims.Prepare(&p); err != nil {
			m.end(cp, podEnded)
			return nil, m.podError(c, name, err)
		}
	}
	if m.hook != nil {
		if err := m.hook(&p); err != nil {
			m.end(cp, podEnded)
			return nil, m.podError(c, name, err)
		}
	}
	if err := m.s.AddPod(p, d); err != nil { // its maps are the controller's, read-only
		m.end(cp, podEnded)
		if errors.Is(err, gangsim.ErrRejected) {
			// the API server refused it (a quota): not created; the
			// controller tries again when one of its pods changes
			c.refused = true
			return nil, errRefused
		}
		return nil, m.podError(c, name, err)
	}
	return cp, nil
}

// freeName returns the first name, from name(*k) on, that no pod has,
// had or has reserved, and moves *k past it.
func (m *Manager) freeName(namespace string, k *int, name func(int) string) string {
	for ; ; *k++ {
		n := name(*k)
		key := cluster.MakePodKey(namespace, n)
		if _, known := m.s.Pod(key); !known && !m.reserved(key) {
			*k++
			return n
		}
	}
}
