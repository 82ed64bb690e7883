package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/whatif"
)

// progress shows finished simulations on standard error, on one line
// rewritten in place, only when standard error is a terminal: piped or
// redirected output stays clean.
type progress struct {
	w       io.Writer
	enabled bool
	shown   bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return &progress{w: w}
	}
	info, err := f.Stat()
	return &progress{w: w, enabled: err == nil && info.Mode()&os.ModeCharDevice != 0}
}

// report is a whatif.Options.Progress callback.
func (p *progress) report(pr whatif.Progress) {
	if !p.enabled {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%d/%d simulations done (last: %s, %v)", pr.Done, pr.Total, pr.Name, metrics.Round(pr.Elapsed))
	p.shown = true
}

// done ends the progress line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
