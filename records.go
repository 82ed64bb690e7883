package gangsim

import "github.com/gangsim/gangsim/cluster"

// Records refer to each other by ID, not by pointer: queue entries, group
// members, nominations, members waiting for their group and timers name
// pods by podID; pods name their group, and composites their leaves, by
// groupID. A million pod records are then a few thousand allocations
// instead of a million, links are 4 bytes instead of 8, and a fork copies
// the tables with every link in them still right. ID 0 names nothing.
type (
	podID   int32
	groupID int32
)

// recordChunk is the number of records a chunk of a table holds. Chunks
// never move, so a pointer taken from a table stays valid while records
// are added.
const recordChunk = 256

// table holds records in the order they were added, named by IDs of type
// ID; records are never removed (a deleted pod keeps its record and its
// key; groups are never deleted).
type table[T any, ID ~int32] struct {
	chunks [][]T
	n      int // IDs handed out, counting the unused 0
}

type (
	podTable   = table[podRecord, podID]
	groupTable = table[groupRecord, groupID]
)

// add stores r and returns where, and its ID.
func (t *table[T, ID]) add(r T) (*T, ID) {
	if t.n == 0 {
		t.n = 1 // ID 0 names nothing
	}
	if t.n/recordChunk == len(t.chunks) {
		t.chunks = append(t.chunks, make([]T, recordChunk))
	}
	id := t.n
	t.n++
	slot := &t.chunks[id/recordChunk][id%recordChunk]
	*slot = r
	return slot, ID(id)
}

// dropLast takes back the record added last, for an addition that fails
// after it.
func (t *table[T, ID]) dropLast() {
	t.n--
	var zero T
	t.chunks[t.n/recordChunk][t.n%recordChunk] = zero
}

// at returns the record of id, or nil for 0.
func (t *table[T, ID]) at(id ID) *T {
	if id == 0 {
		return nil
	}
	u := uint32(id) // IDs are positive: unsigned, the division is a shift
	return &t.chunks[u/recordChunk][u%recordChunk]
}

// clone copies every record (shallowly: what records point to outside
// the tables is shared or copied by the caller).
func (t *table[T, ID]) clone() table[T, ID] {
	c := table[T, ID]{chunks: make([][]T, len(t.chunks)), n: t.n}
	for i, ch := range t.chunks {
		c.chunks[i] = append([]T(nil), ch...)
	}
	return c
}

// record returns the record of the pod key names, or nil.
func (s *Scheduler) record(key cluster.PodKey) *podRecord {
	return s.records.at(s.pods[key])
}

// group returns the record of the PodGroup key names, or nil.
func (s *Scheduler) group(key string) *groupRecord {
	return s.groupRecords.at(s.groups[key])
}

// groupOf returns the record of r's PodGroup, or nil when it has none
// (yet).
func (s *Scheduler) groupOf(r *podRecord) *groupRecord {
	return s.groupRecords.at(r.group)
}
