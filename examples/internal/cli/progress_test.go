package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
)

// fakeClock is a wall clock and a ticker driven by the test: tick moves
// the clock, delivers a tick and returns once the display has shown it.
type fakeClock struct {
	now   time.Time
	c     chan time.Time
	shown chan struct{}
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Unix(0, 0), c: make(chan time.Time), shown: make(chan struct{})}
}

func (f *fakeClock) ticks() (<-chan time.Time, func()) { return f.c, func() {} }

func (f *fakeClock) tick(d time.Duration) {
	f.now = f.now.Add(d)
	f.c <- f.now
	<-f.shown
}

// progress returns a display on the fake clock.
func (f *fakeClock) progress(w *bytes.Buffer, terminal bool) *Progress {
	p := newProgress(w, terminal, f.ticks, func() time.Time { return f.now })
	p.shownTo = f.shown
	return p
}

// Elsewhere than on a terminal, a line each tick, and a last line at the
// end; the simulated time comes from the running simulations' events.
func TestProgressInALog(t *testing.T) {
	var b bytes.Buffer
	clock := newFakeClock()
	p := clock.progress(&b, false)
	p.Start(1, 24*time.Hour)
	observe, end := p.Watch()
	observe(gangsim.Event{At: 3 * time.Hour})
	clock.tick(5 * time.Second)
	observe(gangsim.Event{At: 7*time.Hour + 30*time.Minute})
	clock.tick(5 * time.Second)
	end()
	p.Done(1, 1)
	p.Stop()
	assert.Equal(t, "progress: 5s: simulated time 3h0m0s (the inputs end at 24h0m0s)\n"+
		"progress: 10s: simulated time 7h30m0s (the inputs end at 24h0m0s)\n"+
		"progress: 10s: done\n", b.String())
}

// A search: runs done of runs asked for, and the slowest running one.
func TestProgressOfASearch(t *testing.T) {
	var b bytes.Buffer
	clock := newFakeClock()
	p := clock.progress(&b, false)
	p.Start(0, 0)
	fast, endFast := p.Watch()
	slow, _ := p.Watch()
	fast(gangsim.Event{At: 9 * time.Hour})
	slow(gangsim.Event{At: 2 * time.Hour})
	endFast()
	p.Done(1, 3)
	third, _ := p.Watch()
	third(gangsim.Event{At: time.Hour})
	clock.tick(5 * time.Second)
	fourth, _ := p.Watch() // a batch started before the search counted it
	fourth(gangsim.Event{At: 3 * time.Hour})
	clock.tick(5 * time.Second)
	p.Stop()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "progress: 5s: 1 of 3 simulations done; 2 running, the slowest at 1h0m0s simulated", lines[0])
	assert.Equal(t, "progress: 10s: 1 of 4 simulations done; 3 running, the slowest at 1h0m0s simulated", lines[1])
}

// On a terminal one line, rewritten, and cleared at the end; work that
// ends before the first tick prints nothing anywhere; quiet is nil.
func TestProgressOnATerminal(t *testing.T) {
	var b bytes.Buffer
	clock := newFakeClock()
	p := clock.progress(&b, true)
	p.Start(4, 0)
	p.Done(1, 4)
	clock.tick(2 * time.Second)
	p.Done(2, 4)
	clock.tick(2 * time.Second)
	p.Stop()
	assert.Equal(t, "\r\033[Kprogress: 2s: 1 of 4 simulations done\r\033[Kprogress: 4s: 2 of 4 simulations done\r\033[K", b.String())

	b.Reset()
	for _, terminal := range []bool{false, true} {
		p = clock.progress(&b, terminal)
		p.Start(1, 0)
		observe, end := p.Watch()
		observe(gangsim.Event{At: time.Hour})
		end()
		p.Stop()
	}
	assert.Empty(t, b.String(), "nothing for work shorter than the first interval")

	var quiet *Progress = NewProgress(&b, true)
	assert.Nil(t, quiet)
	quiet.Start(1, 0)
	observe, end := quiet.Watch()
	assert.Nil(t, observe)
	assert.Nil(t, end)
	quiet.Done(1, 3)
	quiet.Stop()
	assert.Empty(t, b.String())
}
