package main

import (
	"fmt"
	"io"
)

// published are the figures Kueue v0.19.2 publishes for its configurations
// in their rangespec.yaml: the averages its calibration runs measured
// (written in the file's comments) and the bounds its checker enforces.
type published struct {
	wallMs, maxWallMs int64
	usage, minUsage   float64 // percent, ClusterQueue class "cq"
	tta, maxTTA       map[string]int64
	runs              string
	classes           []string
}

var figures = map[string]published{
	"baseline": {
		wallMs: 351_116, maxWallMs: 425_000,
		usage: 55.9, minUsage: 50,
		tta:     map[string]int64{"large": 16_501, "medium": 76_768, "small": 215_468},
		maxTTA:  map[string]int64{"large": 23_000, "medium": 90_000, "small": 260_000},
		runs:    "5 calibration runs",
		classes: []string{"large", "medium", "small"},
	},
	"large-scale": {
		wallMs: 1_179_411, maxWallMs: 1_416_000,
		usage: 38.64, minUsage: 31.6,
		tta:     map[string]int64{"large": 105_604, "medium": 256_413, "small": 700_379},
		maxTTA:  map[string]int64{"large": 128_000, "medium": 308_000, "small": 841_000},
		runs:    "19 periodic runs",
		classes: []string{"large", "medium", "small"},
	},
	"tas": {
		wallMs: 401_472, maxWallMs: 482_000,
		usage: 62.41, minUsage: 57.0,
		tta: map[string]int64{
			"large-balanced-rack": 37_862, "large-preferred-rack": 39_573, "large-required-rack": 39_625,
			"medium-balanced-rack": 106_303, "medium-preferred-rack": 106_324, "medium-required-rack": 107_071,
			"small-balanced-rack": 237_846, "small-preferred-rack": 246_090, "small-required-rack": 246_755},
		maxTTA: map[string]int64{
			"large-balanced-rack": 46_000, "large-preferred-rack": 48_000, "large-required-rack": 48_000,
			"medium-balanced-rack": 128_000, "medium-preferred-rack": 128_000, "medium-required-rack": 129_000,
			"small-balanced-rack": 286_000, "small-preferred-rack": 296_000, "small-required-rack": 297_000},
		runs: "10 CI runs",
		classes: []string{"large-balanced-rack", "large-preferred-rack", "large-required-rack",
			"medium-balanced-rack", "medium-preferred-rack", "medium-required-rack",
			"small-balanced-rack", "small-preferred-rack", "small-required-rack"},
	},
}

// writeCompare prints Kueue's published figures of a built-in
// configuration as a Markdown table, with gangsim's figures beside them
// when m is given (measure computes them from a run), an empty column
// when not.
func writeCompare(w io.Writer, name string, m *measured) error {
	f, ok := figures[name]
	if !ok {
		return fmt.Errorf("%w: -compare: Kueue publishes figures for baseline, large-scale and tas only, not %q", errUsage, name)
	}
	fmt.Fprintf(w, "Kueue v0.19.2, %s (averages of %s; the checker's bound)\n\n", name, f.runs)
	fmt.Fprintln(w, "| measure | Kueue average | Kueue's bound | gangsim |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	wall, usage, tta := "", "", map[string]string{}
	if m != nil {
		wall = seconds(m.wall.Milliseconds())
		if u, ok := m.usage["cq"]; ok {
			usage = fmt.Sprintf("%.1f %%", u)
		}
		for c, v := range m.tta {
			tta[c] = seconds(v)
		}
	}
	fmt.Fprintf(w, "| wall time of the run | %s | at most %s | %s |\n", seconds(f.wallMs), seconds(f.maxWallMs), wall)
	fmt.Fprintf(w, "| ClusterQueue usage, class cq | %.1f %% | at least %.1f %% | %s |\n", f.usage, f.minUsage, usage)
	for _, c := range f.classes {
		fmt.Fprintf(w, "| mean time to admission, %s | %s | at most %s | %s |\n", c, seconds(f.tta[c]), seconds(f.maxTTA[c]), tta[c])
	}
	return nil
}

// seconds writes milliseconds as seconds with one decimal: 16501 is 16.5 s.
func seconds(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) }
