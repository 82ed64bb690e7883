package memo

import (
	"math"
	"unsafe"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/internal/prefetch"
)

// column, the memo's dense scan, answers the pods the tree answers (no
// live filter or score, every node a candidate, no nomination) by
// reading the scan's range from a signature's remembered answers packed
// four bytes a node: each node's fixed score, or a mark for a node the
// remembered filters reject, and each normaliser's raw score. A scan of
// the entries reads a 64-byte entry a node; the column reads a cache line
// for sixteen nodes, in order, which the processor fetches ahead.
//
// Both the tree and the column first bring the entries of the nodes
// changed since their last use up to date; the tree then copies each into
// its leaf and pulls the leaf's ancestors, and descends, where the column
// reads the range. On a cluster of a thousand nodes whose pods come in a
// score of shapes, each shape's table has a score of nodes changed at its
// next use and a range of about four hundred nodes: the column costs a
// third less (columnPays). The outcome is the scan's
// (TestMemoIndexesMatchScan checks the three against each other).
type column struct {
	snap  *cluster.Snapshot
	pos   cluster.FeedPos
	nNorm int
	// fixed is each node's remembered fixed score (entry.fixed), or
	// rejected when the remembered filters reject the node
	fixed []int32
	// norm is, per normaliser, each node's remembered raw score; 0 for a
	// rejected node
	norm [maxNormalizers][]int32
	// feasible counts the nodes not rejected; varied, per normaliser, the
	// nodes whose raw score is not 0: with none, the normaliser gives
	// every node the same score, and the scan does not read its column
	feasible int
	varied   [maxNormalizers]int
}

// rejected marks a node the remembered filters reject in column.fixed:
// no narrow score is that low.
const rejected = math.MinInt32

// The costs columnPays weighs, in nodes the column reads (about 1.5 ns one
// at a time on the machine BENCHMARKS.md was measured on; a third of that
// in blocks, so that the weights lean towards the tree):
// copying a changed node's entry into the tree's leaf and pulling its
// ancestors (about 40 ns), and the tree's descent for a pod on a thousand
// nodes (about 450 ns).
const (
	treeUpdateCost = 27
	descentCost    = 300
)

// columnPays reports whether the column should answer the pod rather than
// the tree. Each brings the entries of the nodes changed since its last use
// up to date; the tree also their leaves, and then descends, where the
// column reads the nodes of the scan's range, about want of every share of
// feasible nodes. The two are weighed as if both were up to date to the
// same point (the more recent's): the index not in use lags behind, and
// weighing its lag would keep a table on whichever index it took first.
// Switching pays that lag once.
func columnPays(snap *cluster.Snapshot, t *table, want int) bool {
	n := snap.Len()
	feasible := n
	if c := &t.col; c.usable(snap) {
		feasible = c.feasible
	} else if tr := t.tree; tr != nil && tr.snap == snap && tr.n == n {
		feasible = int(tr.nodes[0].cnt)
	}
	return columnCheaper(n, want, feasible, min(t.col.pending(snap), treePending(snap, t)))
}

// columnCheaper reports whether, on n nodes of which feasible pass a
// signature's filters, a scan for want feasible nodes reads fewer nodes
// of the column than the tree's work is worth in such reads, for the
// nodes changed since the last use.
func columnCheaper(n, want, feasible, changed int) bool {
	read := n
	if feasible > 0 {
		read = min(n, (want*n+feasible-1)/feasible)
	}
	return read <= changed*treeUpdateCost+descentCost
}

// usable reports whether the column holds the snapshot's nodes (it may lag
// behind their changes).
func (c *column) usable(snap *cluster.Snapshot) bool {
	return c.snap == snap && len(c.fixed) == snap.Len()
}

// pending is how many nodes bringing the column up to date refreshes: the
// changes since its last use, or every node.
func (c *column) pending(snap *cluster.Snapshot) int {
	if c.usable(snap) {
		if changed, ok := snap.NodesChangedSince(c.pos); ok {
			return len(changed)
		}
	}
	return snap.Len()
}

// columnOf brings t's column up to date with p's snapshot: the entries of
// the nodes changed since its last use are refreshed and copied in. It
// returns false when a score does not fit the column (the table is then
// wide, and scanned).
func (m *Memo) columnOf(p *Pod, t *table) bool {
	snap, c := p.Snap, &t.col
	var changed []int32
	ok := c.usable(snap) && c.nNorm == m.plan.nNorm
	if ok {
		changed, ok = snap.NodesChangedSince(c.pos)
	}
	if !ok {
		c.snap = snap
		c.reset(snap.Len(), m.plan.nNorm)
		for i := range snap.Len() {
			m.refreshEntry(p, t, i)
			if !c.set(&t.nodes[i], i) {
				return false
			}
		}
		c.pos = snap.FeedPos()
		return true
	}
	for k := range min(ahead, len(changed)) {
		prefetch.Object(unsafe.Pointer(&t.nodes[changed[k]]), unsafe.Sizeof(entry{}))
	}
	for k, i := range changed {
		if k+ahead < len(changed) {
			prefetch.Object(unsafe.Pointer(&t.nodes[changed[k+ahead]]), unsafe.Sizeof(entry{}))
		}
		m.refreshEntry(p, t, int(i))
		if !c.set(&t.nodes[i], int(i)) {
			return false
		}
	}
	c.pos = snap.FeedPos()
	return true
}

// reset empties the column for n nodes, in its arrays when they have the
// room: every node rejected, no raw score.
func (c *column) reset(n, nNorm int) {
	c.nNorm, c.feasible, c.varied = nNorm, 0, [maxNormalizers]int{}
	c.fixed = resized(c.fixed, n, rejected)
	for j := range maxNormalizers {
		if j < nNorm {
			c.norm[j] = resized(c.norm[j], n, 0)
		}
	}
}

// resized returns a slice of n values v, in s's array when it has the
// room.
func resized(s []int32, n int, v int32) []int32 {
	if cap(s) < n {
		s = make([]int32, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = v
	}
	return s
}

// set copies node i's entry into the column and reports false when a
// score does not fit it.
func (c *column) set(e *entry, i int) bool {
	v := int32(rejected)
	if e.status == nil {
		if !narrow(e.fixed) {
			return false
		}
		v = int32(e.fixed)
	}
	if c.fixed[i] != rejected {
		c.feasible--
	}
	if v != rejected {
		c.feasible++
	}
	c.fixed[i] = v
	for j := range c.nNorm {
		var w int32
		if v != rejected {
			if !narrow(e.norm[j]) {
				return false
			}
			w = int32(e.norm[j])
		}
		if c.norm[j][i] != 0 {
			c.varied[j]--
		}
		if w != 0 {
			c.varied[j]++
		}
		c.norm[j][i] = w
	}
	return true
}

// columnScan is what a scan of the column found: how many nodes it read
// and how many of them were feasible, the lowest index of the best fixed
// score among those, and each normaliser's lowest and highest raw score
// among them (read only when some node's is not 0).
type columnScan struct {
	processed, found int
	best             int
	lo, hi           [maxNormalizers]int32
}

// block is how many rows segment reads without testing the count.
const block = 8

// segment reads the column's nodes from..to-1 in order until s has found
// want feasible ones, and returns where it stopped (to when it read them
// all) and the first node of the segment's best fixed score (-1: none).
func (c *column) segment(from, to, want int, s *columnScan) (stop, best int, bestV int32) {
	fixed := c.fixed[:to]
	found, best, bestV := s.found, -1, int32(rejected)
	varied := c.varied[0] > 0 || c.varied[1] > 0
	i := from
	if !varied {
		// blocks of rows that cannot hold the want-th feasible node, read
		// eight at a time: a block's best and lowest rows by comparisons
		// without branches, and the block read again only for its first
		// best row or when it holds a rejected one (BenchmarkColumnScan:
		// 400 to 190 ns for 420 rows)
		for i+block <= to && want-found > block {
			b := (*[block]int32)(fixed[i : i+block])
			top := max(max(b[0], b[1]), max(b[2], b[3]), max(max(b[4], b[5]), max(b[6], b[7])))
			found += block
			if min(min(b[0], b[1]), min(b[2], b[3]), min(min(b[4], b[5]), min(b[6], b[7]))) == rejected {
				for _, v := range b { // rejected rows are few
					if v == rejected {
						found--
					}
				}
			}
			if top > bestV { // the first row of the block's best
				k := 0
				for b[k] != top {
					k++
				}
				best, bestV = i+k, top
			}
			i += block
		}
	}
	for ; i < to; i++ {
		v := fixed[i]
		if v == rejected {
			continue
		}
		if v > bestV {
			best, bestV = i, v
		}
		if varied {
			for j := range c.nNorm {
				w := c.norm[j][i]
				s.lo[j], s.hi[j] = min(s.lo[j], w), max(s.hi[j], w)
			}
		}
		if found++; found == want {
			break
		}
	}
	s.found = found
	return i, best, bestV
}

// scan reads the column from start in rotation, as the entries' scan
// visits the nodes, until it has want feasible nodes or has read every
// node.
func (c *column) scan(start, want int) columnScan {
	n := len(c.fixed)
	s := columnScan{best: -1}
	for j := range c.nNorm {
		s.lo[j], s.hi[j] = math.MaxInt32, math.MinInt32
	}
	stop, best, bestV := c.segment(start, n, want, &s)
	if stop < n {
		s.processed, s.best = stop+1-start, best
		return s
	}
	// the scan goes round: the nodes before start come second in the
	// scan but first in index order, so their best wins a tie
	stop, second, secondV := c.segment(0, start, want, &s)
	s.processed, s.best = n-start+min(stop+1, start), second
	if second < 0 || best >= 0 && bestV > secondV {
		s.best = best
	}
	return s
}

// scheduleByColumn answers a whole-cluster pod by the column: the node
// the scan and scoring would pick, with p.Next moved as the scan would
// move it. It reports false when the column cannot answer: a score that
// does not fit it, no feasible node (the FitError needs every
// rejection), or normalised scores that vary over the range.
func (m *Memo) scheduleByColumn(p *Pod, t *table) (int, bool) {
	if !m.columnOf(p, t) {
		t.wide = true // for good: scanned from now on
		return -1, false
	}
	c := &t.col
	if c.feasible == 0 {
		return -1, false
	}
	n := len(c.fixed)
	start := *p.Next % n
	s := c.scan(start, m.want(p))
	if s.found > 1 {
		for j := range c.nNorm {
			if c.varied[j] > 0 && s.lo[j] != s.hi[j] {
				return -1, false // the normalised scores differ node by node: scan
			}
		}
	}
	*p.Next = (start + s.processed) % n
	return s.best, true
}
