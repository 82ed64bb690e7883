package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/scenario"
)

// The intervals of the progress line: on a terminal one line rewritten
// often; elsewhere (a log, a pipe) a line each time, less often.
const (
	TerminalEvery = 2 * time.Second
	LogEvery      = 5 * time.Second
)

// Progress shows on standard error how long work is getting on: how many
// simulations are done of how many, and the simulated time the running
// ones have reached (of the slowest, with several), beside the time the
// inputs end at. On a terminal it rewrites one line every TerminalEvery;
// elsewhere it writes a line every LogEvery, so that a log shows a long
// run is alive. Work shorter than the first interval prints nothing.
//
// The engine has no clock: simulated time comes from an observer of each
// simulation's events (Watch), and the wall clock ticks here, in the
// command layer, on a goroutine of its own that only reads. A nil
// *Progress (NewProgress with quiet) does nothing.
type Progress struct {
	w        io.Writer
	terminal bool
	ticks    func() (<-chan time.Time, func()) // a ticker's channel and its stop
	now      func() time.Time
	shownTo  chan struct{} // tests: told of each line shown

	mu          sync.Mutex
	start       time.Time
	horizon     time.Duration
	done, total int
	running     map[int]*atomic.Int64 // each running simulation's time
	next        int
	shown       bool // a line is on the terminal, to be cleared
	printed     bool
	stop        chan struct{}
	stopped     chan struct{}
}

// NewProgress returns the progress display for w (standard error): nil,
// which shows nothing, when quiet.
func NewProgress(w io.Writer, quiet bool) *Progress {
	if quiet {
		return nil
	}
	terminal := isTerminal(w)
	every := LogEvery
	if terminal {
		every = TerminalEvery
	}
	return newProgress(w, terminal, func() (<-chan time.Time, func()) {
		t := time.NewTicker(every)
		return t.C, t.Stop
	}, time.Now)
}

func newProgress(w io.Writer, terminal bool, ticks func() (<-chan time.Time, func()), now func() time.Time) *Progress {
	return &Progress{w: w, terminal: terminal, ticks: ticks, now: now, running: map[int]*atomic.Int64{}}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// Start starts showing progress of total simulations (more may be added
// through Done) of inputs that end at horizon (InputsEnd), until Stop.
func (p *Progress) Start(total int, horizon time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.start, p.total, p.horizon = p.now(), total, horizon
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
	ticks, stopTicker := p.ticks()
	go func() {
		defer close(p.stopped)
		defer stopTicker()
		for {
			select {
			case <-ticks:
				p.show()
				if p.shownTo != nil {
					p.shownTo <- struct{}{}
				}
			case <-p.stop:
				return
			}
		}
	}()
}

// Stop stops the display: a terminal's line is cleared, and a log that
// was shown progress gets a last line.
func (p *Progress) Stop() {
	if p == nil || p.stop == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.stop = nil
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.shown:
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	case p.printed:
		fmt.Fprintln(p.w, p.line())
	}
}

// Watch follows one simulation (whatif.Options.Watch): observe reads the
// simulated time off its events, end says it is over.
func (p *Progress) Watch() (observe gangsim.Observer, end func()) {
	if p == nil {
		return nil, nil
	}
	clock := new(atomic.Int64)
	p.mu.Lock()
	id := p.next
	p.next++
	p.running[id] = clock
	p.mu.Unlock()
	return func(e gangsim.Event) { clock.Store(int64(e.At)) }, func() {
		p.mu.Lock()
		delete(p.running, id)
		p.mu.Unlock()
	}
}

// Done counts finished simulations of those asked for (a what-if
// search's progress). The package does not import whatif: the scenario
// command, which runs one simulation, then links no what-if, report or
// plot code (the plots' fonts alone were a few milliseconds of its start).
func (p *Progress) Done(done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done, p.total = done, max(total, p.total)
	p.mu.Unlock()
}

// show writes the progress line.
func (p *Progress) show() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K"+p.line())
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, p.line())
	p.printed = true
}

// line renders the progress: "progress: 12s: 3 of 9 simulations done; 2
// running, the slowest at 6h12m0s simulated (the inputs end at 23h59m0s)".
func (p *Progress) line() string {
	var parts []string
	// a search asks for runs batch by batch and counts them as they end:
	// the running ones are asked for too
	if total := max(p.total, p.done+len(p.running)); total > 1 {
		parts = append(parts, fmt.Sprintf("%d of %d simulations done", p.done, total))
	}
	if len(p.running) > 0 {
		parts = append(parts, p.simulated())
	}
	if len(parts) == 0 {
		parts = append(parts, "done")
	}
	return fmt.Sprintf("progress: %v: %s", p.now().Sub(p.start).Round(time.Second), strings.Join(parts, "; "))
}

// simulated says how far the running simulations are.
func (p *Progress) simulated() string {
	slowest := time.Duration(-1)
	for _, clock := range p.running { // the least of them: map order does not matter
		if at := time.Duration(clock.Load()); slowest < 0 || at < slowest {
			slowest = at
		}
	}
	text := fmt.Sprintf("simulated time %v", slowest.Round(time.Second))
	if n := len(p.running); n > 1 {
		text = fmt.Sprintf("%d running, the slowest at %v simulated", n, slowest.Round(time.Second))
	}
	if p.horizon > 0 {
		text += fmt.Sprintf(" (the inputs end at %v)", p.horizon.Round(time.Second))
	}
	return text
}

// InputsEnd is the time of a scenario's last pod arrival or event: a
// run's simulated time goes past it only while the last pods run.
func InputsEnd(sc *scenario.Scenario) time.Duration {
	var end time.Duration
	for i := range sc.Pods {
		end = max(end, sc.Pods[i].At)
	}
	for i := range sc.Events {
		end = max(end, sc.Events[i].At)
	}
	return end
}
