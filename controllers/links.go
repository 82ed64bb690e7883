package controllers

// Workloads that wait for one another, or end one another, as a
// controller of one kind drives the objects it made: a RayJob's submitter
// Job is made once its RayCluster is ready (Workload.After), and the
// cluster is deleted when the Job finishes (Workload.Stops). The links are
// resolved once, in NewManager, by kind and name in the workload's
// namespace; a link to a workload the Manager does not run is no link.

// WorkloadRef names a workload by its kind, name and namespace. A link
// (Workload.After, Stops) names a workload of the linking workload's
// namespace, and its Namespace is not read; for the Manager's methods
// (Suspend, Active...) "" is the default namespace.
type WorkloadRef struct {
	Kind, Name string
	Namespace  string
}

// links are a controller's links to other controllers.
type links struct {
	after   *controller   // the workload it waits for; nil for none
	waiters []*controller // the workloads waiting for it
	stops   *controller   // the workload it stops when it finishes
	started bool          // its wait is over
	stopped bool          // another workload stopped it: it makes no pod
}

// linkWorkloads resolves the workloads' After and Stops.
func (m *Manager) linkWorkloads() {
	type key struct{ ns, kind, name string }
	byKey := make(map[key]*controller, len(m.ctls))
	for _, c := range m.ctls {
		byKey[key{c.w.Namespace, c.w.Kind, c.w.Name}] = c
	}
	for _, c := range m.ctls {
		if r := c.w.After; r != nil {
			if t := byKey[key{c.w.Namespace, r.Kind, r.Name}]; t != nil && t != c {
				c.after = t
				t.waiters = append(t.waiters, c)
			}
		}
		if r := c.w.Stops; r != nil {
			if t := byKey[key{c.w.Namespace, r.Kind, r.Name}]; t != nil && t != c {
				c.stops = t
			}
		}
	}
}

// waitedOn reports whether a bound pod of the controller lets something
// be made: a workload waits for it, or a member of its set follows the
// pod's member.
func (c *controller) waitedOn(cp *ownedPod) bool {
	return len(c.waiters) > 0 || cp.index >= 0 && cp.index < len(c.set.led) && c.set.led[cp.index]
}

// held reports whether the controller may not act: it was stopped, or
// what it waits for is not ready yet. Once ready, it waits no more (a
// submitter is made once).
func (m *Manager) held(c *controller) bool {
	switch {
	case c.stopped:
		return true
	case c.after == nil || c.started:
		return false
	case !m.setReady(c.after):
		return true
	}
	c.started = true
	return false
}

// wakeWaiters asks for the sync of the workloads waiting for c.
func (m *Manager) wakeWaiters(c *controller) {
	for _, w := range c.waiters {
		if !w.started {
			m.markDirty(w)
		}
	}
}

// finishedLinks stops the workload a finished controller stops: its pods
// are deleted, and it makes no more.
func (m *Manager) finishedLinks(c *controller) error {
	t := c.stops
	if t == nil || t.stopped {
		return nil
	}
	t.stopped = true
	m.finished(t)
	for _, cp := range t.pods {
		if cp.state != podActive {
			continue
		}
		if t.set != nil && t.set.cur[cp.index] == cp {
			t.set.cur[cp.index] = nil
		}
		if err := m.remove(cp, podEnded); err != nil {
			return err
		}
	}
	return nil
}
