// Package plots draws a metrics.Report with gonum.org/v1/plot, as PNG and
// SVG: allocation of each resource over time (allocated, capacity and
// fragmented, in the resource's unit), pending pods and groups over time,
// the distribution of pod waits by priority, each topology domain's
// mean allocation, and with Kueue each ClusterQueue's quota used and
// workloads over time and the distribution of its times to admission.
// GroupedBars draws a comparison: a row per group (a queue), a bar per
// series (a variant). Every axis is labelled with its unit and every figure
// has a legend, above the data it names. Text is set in Liberation Sans,
// the HTML report's own font; a panel that would show nothing is left out
// and said in Figure.Notes.
//
// It is a package of its own so that programs that only compute metrics
// (a what-if search, a sweep worker) do not link the plotting and font
// code.
//
// Determinism: the same report gives the same images, byte for byte.
// Concurrency: figures are values built per call; separate calls may run
// at once.
package plots
