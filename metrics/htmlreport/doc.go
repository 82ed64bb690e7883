// Package htmlreport writes a metrics.Report as one self-contained HTML
// page: a header (the run's name, its simulated span, its nodes), the
// answers to the questions asked of the run, the loader's warnings, the
// summary tables, every figure of package metrics/plots inline as SVG,
// the waits by priority and by workload, why pods are pending at the end
// (by cause, then pod by pod), the unschedulable reasons, and the
// utilisation of each topology domain and device group; with Kueue, its
// queues, quotas, figures, times to admission and the matrix of
// preemptions between ClusterQueues. WriteComparison writes the page of
// variants side by side (their table and figures) in the same style.
//
// The page needs nothing beyond itself: no network, no external style
// sheet, script or font. The figures' text is drawn in the font
// gonum/plot measured it with, embedded once in the page's style as font
// data, and the page's own text is set in it too, so that page and
// figures read as one and look the same on any machine; its Content Security
// Policy forbids loading anything else. A small inline script marks the
// page once every figure and font is ready (the html element's
// data-plots attribute), which is how a headless browser test knows it
// rendered. Text is escaped with html/template.
//
// Determinism: the same Input gives the same bytes.
package htmlreport
