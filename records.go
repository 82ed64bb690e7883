package gangsim

import "github.com/gangsim/gangsim/cluster"

// podID names a pod's record in the scheduler's record table; 0 names no
// pod. Records refer to pods by ID, not by pointer (queue entries, group
// members, nominations, members waiting for their group): a million pod
// records are then a few thousand arrays instead of a million objects for
// the garbage collector to trace, and a fork copies the table with every
// link in it still right.
type podID int32

// recordChunk is the number of records a chunk of the table holds. Chunks
// never move, so a *podRecord taken from the table stays valid while
// records are added.
const recordChunk = 256

// podTable holds the pod records, in arrival order; records are never
// removed (a deleted pod keeps its record and its key).
type podTable struct {
	chunks []*[recordChunk]podRecord
	n      int // IDs handed out, counting the unused 0
}

// add stores r and returns its ID.
func (t *podTable) add(r podRecord) *podRecord {
	if t.n == 0 {
		t.n = 1 // ID 0 names no pod
	}
	if t.n/recordChunk == len(t.chunks) {
		t.chunks = append(t.chunks, new([recordChunk]podRecord))
	}
	id := podID(t.n)
	t.n++
	r.id = id
	slot := &t.chunks[id/recordChunk][id%recordChunk]
	*slot = r
	return slot
}

// at returns the record of id, or nil for 0.
func (t *podTable) at(id podID) *podRecord {
	if id == 0 {
		return nil
	}
	return &t.chunks[id/recordChunk][id%recordChunk]
}

// clone copies every record.
func (t *podTable) clone() podTable {
	c := podTable{chunks: make([]*[recordChunk]podRecord, len(t.chunks)), n: t.n}
	for i, ch := range t.chunks {
		cp := *ch
		c.chunks[i] = &cp
	}
	return c
}

// idOf is r's ID, or 0 for nil.
func idOf(r *podRecord) podID {
	if r == nil {
		return 0
	}
	return r.id
}

// record returns the record of the pod key names, or nil.
func (s *Scheduler) record(key cluster.PodKey) *podRecord {
	return s.records.at(s.pods[key])
}
