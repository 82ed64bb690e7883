package plots

import (
	"bytes"
	"errors"
	"strings"
)

// The frame of an SVG gonum/plot's vgsvg writes: a prolog, the <svg>
// start tag, and with fonts embedded a <defs> holding one @font-face rule
// for each font the text uses.
const (
	svgStart     = "<svg "
	fontDefsOpen = "<defs>\n\t<style>\n"
	fontDefsEnd  = "\t</style>\n</defs>\n"
	fontFaceOpen = "\t\t@font-face{"
)

// InlineSVG renders the figure as an <svg> element for an HTML page:
// without the XML prolog, and without its fonts, which it returns as CSS
// @font-face rules (the font data inline) for the page to hold once for
// all its figures; text inside an inline <svg> uses the page's fonts.
// The element keeps its width, height and viewBox; a page's style may
// scale it (width: 100%; height: auto).
func (f Figure) InlineSVG() (svg []byte, fontFaces []string, err error) {
	var b bytes.Buffer
	if err := f.WriteTo(&b, SVG); err != nil {
		return nil, nil, err
	}
	out := b.Bytes()
	start := bytes.Index(out, []byte(svgStart))
	if start < 0 {
		return nil, nil, errors.New("plots: the SVG writer's output has no <svg> element")
	}
	open := bytes.Index(out, []byte(fontDefsOpen))
	end := bytes.Index(out, []byte(fontDefsEnd))
	if open < 0 && end < 0 { // no text, no fonts
		return out[start:], nil, nil
	}
	if open < start || end < open {
		return nil, nil, errors.New("plots: the SVG writer's fonts are not where they were (a changed gonum/plot?)")
	}
	for _, rule := range strings.Split(string(out[open+len(fontDefsOpen):end]), fontFaceOpen) {
		if rule = strings.TrimSpace(rule); rule != "" {
			fontFaces = append(fontFaces, "@font-face{"+rule)
		}
	}
	svg = append(svg, out[start:open]...)
	svg = append(svg, out[end+len(fontDefsEnd):]...)
	return svg, fontFaces, nil
}
