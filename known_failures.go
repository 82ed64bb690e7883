package gangsim

import (
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/queue"
)

// knownFailures (the KnownFailures shortcut) remembers, per pod shape, the
// last cycle of a pod of that shape that found no node and no preemption:
// while nothing in the cluster and no nomination changed since, a pod of
// the same shape nominated nowhere fails the same way, with the same
// message, and is parked without running the plugins again. In a busy cluster every pending pod is retried after
// each change; after the first of a shape, the others cost their queue
// moves and events only. It applies to profiles whose PreFilter, Filter and
// PostFilter plugins are all framework.Stateless (or Signers).
type knownFailures struct {
	ids      map[string]int32 // shape -> id, from 1
	byShape  []*knownFailure  // by shape id (ids are dense, from 1)
	restarts uint32           // counts restarts of ids
}

// knownFailure is a shape's last fruitless cycle.
type knownFailure struct {
	p      *profile
	fit    *fw.FitError // read-only, shared
	wakeOn uint64
	snap   *cluster.Snapshot
	pos    cluster.FeedPos
	nomPos uint64
	objs   int64 // the snapshot's ObjectsVersion
}

// podShape is the KnownFailures shortcut's note on a pod's record: the id
// of the pod's shape, found at its first failure (0 until then), and the
// knownFailures.restarts of the ids it is from. It lives in the record rather than in a
// table of the shortcut's so that a busy cluster's retry reads one record,
// not a record and an entry elsewhere.
type podShape struct {
	id       int32
	restarts uint32
}

// knownNow is what every remembered failure must match to hold now: the
// snapshot's feed, its other objects (budgets, namespaces, device
// objects: a claim made from a template lets a waiting pod through) and
// the nominations as they are.
type knownNow struct {
	pos    cluster.FeedPos
	nomPos uint64
	objs   int64
}

// maxShapes bounds the shapes known; past it, all are forgotten.
const maxShapes = 4096

// shape returns the id of r's shape: everything its cycle's outcome
// depends on but its name; 0 for none. Found on its first failure (most
// pods never fail), kept while it waits.
func (s *Scheduler) shape(r *podRecord) int32 {
	if r.shape.id != 0 {
		return r.shape.id
	}
	shape := r.info.Pod().Shape()
	if shape == "" {
		return 0 // never shortened
	}
	shape = strconv.FormatInt(int64(r.info.Priority()), 10) + "|" + shape
	f := &s.knownFailures
	if f.ids == nil || len(f.ids) >= maxShapes {
		f.ids, f.byShape = map[string]int32{}, nil // ids restart: records of old ones must go
		f.restarts++
	}
	id, ok := f.ids[shape]
	if !ok {
		id = int32(len(f.ids) + 1)
		f.ids[shape] = id
	}
	r.shape = podShape{id: id, restarts: f.restarts}
	return id
}

// knownFailureFor returns the remembered failure that holds for r now, or nil.
func (s *Scheduler) knownFailureFor(p *profile, r *podRecord) *knownFailure {
	if !s.knownFailuresUsable() {
		return nil
	}
	return s.knownFailureAt(p, r, s.knownNow())
}

// knownFailuresUsable reports whether remembered failures may answer cycles.
func (s *Scheduler) knownFailuresUsable() bool {
	return s.uses(KnownFailures) && len(s.explainer.want) == 0
}

func (s *Scheduler) knownNow() knownNow {
	return knownNow{pos: s.snap.FeedPos(), nomPos: s.nominations.feedPos(), objs: s.snap.ObjectsVersion()}
}

// knownFailureAt is knownFailureFor with knownFailuresUsable true and now as it
// is: a busy cluster's retries ask for many pods in a row.
func (s *Scheduler) knownFailureAt(p *profile, r *podRecord, now knownNow) *knownFailure {
	if r.nominated != "" || !p.plainPostFilter() {
		return nil
	}
	if r.shape.id == 0 || r.shape.restarts != s.knownFailures.restarts {
		return nil // a pod's first cycle, or its id is from before the ids restarted
	}
	if int(r.shape.id) >= len(s.knownFailures.byShape) {
		return nil
	}
	f := s.knownFailures.byShape[r.shape.id]
	if f == nil || f.p != p || f.snap != s.snap || f.pos != now.pos || f.nomPos != now.nomPos || f.objs != now.objs {
		return nil
	}
	s.shortcutStats.KnownFailures++
	return f
}

// rememberKnownFailure records a cycle of r that found no node and left no
// nomination, evicted nobody.
func (s *Scheduler) rememberKnownFailure(p *profile, r *podRecord, fit *fw.FitError, wakeOn uint64) {
	if !s.uses(KnownFailures) || len(s.explainer.want) > 0 || !p.plainPostFilter() {
		return
	}
	if r.shape.id != 0 && r.shape.restarts != s.knownFailures.restarts {
		r.shape = podShape{}
	}
	key := s.shape(r)
	if key == 0 {
		return
	}
	if n := int(key) + 1; n > len(s.knownFailures.byShape) {
		s.knownFailures.byShape = append(s.knownFailures.byShape, make([]*knownFailure, n-len(s.knownFailures.byShape))...)
	}
	fit.Summarize() // read by every pod that fails alike
	s.knownFailures.byShape[key] = &knownFailure{p: p, fit: fit, wakeOn: wakeOn, snap: s.snap, pos: s.snap.FeedPos(), nomPos: s.nominations.feedPos(), objs: s.snap.ObjectsVersion()}
}

// plainPostFilter reports whether a cycle of the profile depends on
// nothing but the cluster, the pod and the nominations: each of its
// PreFilter, Filter and PostFilter plugins declares itself
// framework.Stateless or is a framework.Signer (whose answers depend on
// the node and the pod alone). A plugin that declares neither may keep
// state between calls.
func (p *profile) plainPostFilter() bool { return p.pure }

// isPure is plainPostFilter's answer, worked out once.
func (p *profile) isPure() bool {
	plugins := p.pods.Plugins()
	return allStateless(p.postFilter) && allStateless(plugins.PreFilter) && allStateless(plugins.Filter)
}

// allStateless reports whether every plugin of a list is Stateless or a
// Signer.
func allStateless[P fw.Plugin](list []P) bool {
	for _, pl := range list {
		switch any(pl).(type) {
		case fw.Stateless, fw.Signer:
		default:
			return false
		}
	}
	return true
}

// retryKnownFailures runs the cycles at the head of activeQ, at most max,
// of pods that fail as a pod of their shape just failed (see knownFailures),
// one after another; it returns how many it ran. Each is the cycle
// scheduleOne would run, with the same events and the same outcome: what
// it leaves out is the search for the head of activeQ at each pop, and
// the rest of a cycle's general path. A busy cluster's cycles are nearly
// all such retries.
func (s *Scheduler) retryKnownFailures(max int) (int, error) {
	if s.cfg.CheckInvariants || !s.knownFailuresUsable() || len(s.knownFailures.byShape) == 0 || max <= 0 {
		return 0, nil // with invariants checked, every cycle takes the general path, which checks them
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return 0, err
	}
	s.retry.now = s.knownNow() // what nothing in these cycles changes
	n := s.queue.ParkKnownFailures(s.now, s.clusterEventVersion, max, s.retryKnown, s.retriedKnown)
	s.shortcutStats.InRow += n
	return n, nil
}

// retryKnown begins the cycle of it's pod if it fails as a known failure
// (else it changes nothing): scheduleOne's and schedulePod's work for
// that case up to parking, which ParkKnownFailures does.
func (s *Scheduler) retryKnown(it *queue.Item[entry]) (uint64, bool) {
	r := s.records.at(it.Value.pod)
	if r == nil {
		return 0, false
	}
	f := s.knownFailureAt(s.profileOf(r), r, s.retry.now)
	if f == nil {
		return 0, false
	}
	s.beginCycle()
	s.failAsKnown(r, f)
	if s.wants(EventCycle) {
		s.retry.pod, s.retry.reason = r.info, f.fit.Error() // a FitError's message is never empty
	}
	return f.wakeOn, true
}

// failAsKnown ends r's attempt as the known failure f ended its pod's:
// the same status, reason and rejections, shared.
// Its message is made once, when first read.
func (s *Scheduler) failAsKnown(r *podRecord, f *knownFailure) { s.failFit(r, f.fit) }

// retriedKnown ends the cycle retryKnown began, once the pod is parked.
func (s *Scheduler) retriedKnown(*queue.Item[entry]) {
	if s.wants(EventCycle) {
		s.emitCycle(s.retry.pod, Ref{}, s.retry.reason)
		s.retry.pod = nil
	} else {
		s.stats.count(EventCycle, false)
	}
	s.inCycle = 0
}
