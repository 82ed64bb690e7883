package metrics

import "time"

// rawPoint is a step of a track: value v holds from at until the next
// point.
type rawPoint struct {
	at time.Duration
	v  int64
}

// track is one quantity as a step function of simulated time. cur is its
// value now; flush records it when it changed since the last point, so a
// track has at most one point per instant: the value after the instant's
// last event.
type track struct {
	cur int64
	pts []rawPoint
}

func (t *track) flush(at time.Duration) {
	if n := len(t.pts); n == 0 || t.pts[n-1].v != t.cur {
		t.pts = append(t.pts, rawPoint{at, t.cur})
	}
}

// vecTrack is one track per resource number.
type vecTrack []track

// add adds sign*v to the tracks, growing them as needed.
func (vt *vecTrack) add(v []int64, sign int64) {
	if len(*vt) < len(v) {
		*vt = append(*vt, make([]track, len(v)-len(*vt))...)
	}
	for i, x := range v {
		(*vt)[i].cur += sign * x
	}
}

// get returns the track of resource i (an empty one when never touched).
func (vt vecTrack) get(i int) *track {
	if i < len(vt) {
		return &vt[i]
	}
	return &track{}
}

// flush records the tracks of n resources (grown to n, so that every
// resource has a point from the first flush on).
func (vt *vecTrack) flush(at time.Duration, n int) {
	if len(*vt) < n {
		*vt = append(*vt, make([]track, n-len(*vt))...)
	}
	for i := range *vt {
		(*vt)[i].flush(at)
	}
}

// stepStats summarises a track over [from, end]: its time integral (value
// times seconds), its time average and its peak. Before its first point a
// track is 0. Over a single instant the average is the value then.
type stepStats struct {
	integral float64
	mean     float64
	peak     int64
}

func (t *track) stats(from, end time.Duration) stepStats {
	var st stepStats
	for i, p := range t.pts {
		next := end
		if i+1 < len(t.pts) {
			next = t.pts[i+1].at
		}
		st.peak = max(st.peak, p.v)
		if next > p.at {
			st.integral += float64(p.v) * (next - p.at).Seconds()
		}
	}
	switch span := (end - from).Seconds(); {
	case span > 0:
		st.mean = st.integral / span
	case len(t.pts) > 0:
		st.mean = float64(t.pts[len(t.pts)-1].v) // a report of one instant
	}
	return st
}
