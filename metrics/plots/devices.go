package plots

import (
	"fmt"

	"github.com/gangsim/gangsim/metrics"
)

// deviceLegends explain the devices figure's lines.
var deviceLegends = map[string]string{
	"devices":                   "devices (on the nodes)",
	"allocated devices":         "allocated devices (held by a claim, whole or in part)",
	"allocated device capacity": "allocated capacity (the claims' part of each device)",
}

// Devices returns the devices figure: one panel per device class and per
// model, with the devices, the allocated devices and the allocated
// capacity over time; then one panel per class with its fragmentation
// (Weng et al.'s measure, in percent of the free capacity). ok is false
// when the report has no devices.
func Devices(rep *metrics.Report) (f Figure, ok bool) {
	f = Figure{Name: "devices", Width: width, PanelHeight: panelHeight}
	for _, d := range rep.Devices {
		group := d.By + "=" + d.Name
		p := timePlot(rep, group+" (devices)")
		top := 0.0
		for i, m := range []string{"allocated devices", "allocated device capacity", "devices"} {
			pts := steps(rep, find(rep, group+" "+m))
			addLine(p, deviceLegends[m], pts, i, i)
			top = max(top, maxY(pts))
		}
		roomForLegend(p, top)
		f.Panels = append(f.Panels, p)
	}
	for _, fr := range rep.DeviceFragmentation {
		group := "class=" + fr.Class
		p := timePlot(rep, group+" fragmentation (%)")
		label := fmt.Sprintf("free capacity %d task types cannot use (mean %.1f%%)", fr.TaskTypes, fr.Percent)
		addLine(p, label, steps(rep, find(rep, group+" device fragmentation")), 3, 0)
		percentAxis(p)
		p.Y.Max = 135 // the legend's room above 100%
		f.Panels = append(f.Panels, p)
	}
	if len(f.Panels) == 0 {
		return f, false
	}
	f.Panels[0].Title.Text = "Devices " + overTime(rep) + ": " + name(rep)
	return f, true
}
