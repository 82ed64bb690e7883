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
// (Weng et al.'s measure, in percent of the free capacity). A group with
// no device and a class never fragmented have no panel but a note. ok is
// false when no panel is left.
func Devices(rep *metrics.Report) (f Figure, ok bool) {
	f = Figure{Name: "devices", Width: width, PanelHeight: panelHeight}
	for _, d := range rep.Devices {
		group := d.By + "=" + d.Name
		if d.DevicesPeak == 0 {
			f.Notes = append(f.Notes, group+": no device on the nodes at any time (no panel).")
			continue
		}
		p := timePlot(rep, "")
		axisLabel(p, group, "devices", f.PanelHeight)
		top, lines := 0.0, 0
		for i, m := range []string{"allocated devices", "allocated device capacity", "devices"} {
			pts := steps(rep, find(rep, group+" "+m))
			if addLine(p, deviceLegends[m], pts, i, i) {
				lines++
			}
			top = max(top, maxY(pts))
		}
		roomForLegend(p, top, lines, f.PanelHeight)
		f.Panels = append(f.Panels, p)
	}
	for _, fr := range rep.DeviceFragmentation {
		group := "class=" + fr.Class
		if fr.PercentPeak == 0 {
			f.Notes = append(f.Notes, group+": no device capacity fragmented at any time (no panel).")
			continue
		}
		p := timePlot(rep, "")
		axisLabel(p, group+" fragmentation", "%", f.PanelHeight)
		label := fmt.Sprintf("free capacity %d task types cannot use (mean %.1f%%)", fr.TaskTypes, fr.Percent)
		addLine(p, label, steps(rep, find(rep, group+" device fragmentation")), 3, 0)
		percentAxis(p)
		roomAbovePercent(p, 1, f.PanelHeight)
		f.Panels = append(f.Panels, p)
	}
	if len(f.Panels) == 0 {
		return f, false
	}
	f.setTitle("Devices " + overTime(rep) + ": " + name(rep))
	return f, true
}
