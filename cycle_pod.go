package gangsim

import (
	"fmt"

	"github.com/gangsim/gangsim/queue"
)

// schedulePod runs one pod-by-pod cycle: one snapshot, filter and score,
// then bind (assume and finish binding in the cache at the same instant)
// or park the pod as unschedulable with the reason.
func (s *Scheduler) schedulePod(it *queue.Item[entry]) (CycleResult, error) {
	r := it.Value.pod
	res := CycleResult{At: s.now, Item: it.Key}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return res, err
	}
	idx, fitErr := s.podAlgo.ScheduleNominated(s.snap, r.info, nil, s.nominations.index(r))
	if fitErr != nil {
		r.reason = fitErr.Error()
		res.Status = NewStatus(Unschedulable, r.reason)
		res.Evicted = s.postFilterPod(r, fitErr)
		if len(res.Evicted) > 0 {
			res.Nominated = []Binding{{Pod: r.info.Key(), Node: r.nominated}}
		}
		return res, s.queue.Park(it.Key, s.now, s.version)
	}
	node := s.snap.Node(idx).Name()
	if err := s.bind(r, node); err != nil {
		return res, err
	}
	res.Bound = []Binding{{Pod: r.info.Key(), Node: node}}
	return res, s.queue.Done(it.Key)
}

// bind assumes the pod on node and completes its binding at once.
func (s *Scheduler) bind(r *podRecord, node string) error {
	key := r.info.Key()
	if err := s.cache.AssumePod(r.info, node); err != nil {
		return fmt.Errorf("binding pod %s: %w", key, err)
	}
	if err := s.cache.FinishBinding(key, s.now); err != nil {
		return fmt.Errorf("binding pod %s: %w", key, err)
	}
	s.markBound(r, node)
	s.stats.Scheduled++
	return nil
}
