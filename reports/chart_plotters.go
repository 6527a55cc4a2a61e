package reports

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// phaseBands shades every other phase and draws a thin line at every phase boundary, under
// the data; the chart numbers the phases above the panel.
type phaseBands struct{ phases []phaseSpan }

// Plot implements plot.Plotter.
func (b phaseBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, ph := range b.phases {
		lo, hi, ok := ph.within(p.X.Min, p.X.Max)
		if !ok {
			continue
		}
		x0, x1 := trX(lo), trX(hi)
		if i%2 == 1 {
			band := c.ClipPolygonX([]vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
			if len(band) > 0 {
				c.FillPolygon(bandColor, band)
			}
		}
		if i > 0 && ph.start > p.X.Min && ph.start < p.X.Max {
			c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0xc0}, Width: vg.Points(0.5)}, x0, c.Min.Y, x0, c.Max.Y)
		}
	}
}

// refLine is a horizontal reference (a capacity, an SLO): a dark dashed line across the
// data area, drawn after the data so it stays visible on top, labelled at its right end.
type refLine struct {
	y     float64
	label string
}

// Plot implements plot.Plotter.
func (r refLine) Plot(c draw.Canvas, p *plot.Plot) {
	if r.y < p.Y.Min || r.y > p.Y.Max {
		return
	}
	_, trY := p.Transforms(&c)
	y := trY(r.y)
	// Thinner than the data lines and with long gaps, so a data line at the same height
	// still shows around and between the dashes.
	c.StrokeLine2(draw.LineStyle{Color: inkColor, Width: vg.Points(0.9), Dashes: []vg.Length{vg.Points(4), vg.Points(4)}}, c.Min.X, y, c.Max.X, y)
	sty := annotateStyle
	sty.XAlign = draw.XRight
	sty.YAlign = draw.YBottom
	h := lineHeight(sty)
	at := vg.Point{X: c.Max.X - vg.Points(3), Y: y + vg.Points(2)}
	if at.Y+h > c.Max.Y {
		sty.YAlign = draw.YTop
		at.Y = y - vg.Points(2)
	}
	w := sty.Width(r.label)
	box := vg.Rectangle{Min: vg.Point{X: at.X - w - vg.Points(2), Y: at.Y}, Max: vg.Point{X: at.X + vg.Points(2), Y: at.Y + h}}
	if sty.YAlign == draw.YTop {
		box.Min.Y, box.Max.Y = at.Y-h, at.Y
	}
	c.SetColor(color.White)
	c.Fill(box.Path())
	c.FillText(sty, at, r.label)
}

// barSeries is one bar per group, in style st.
type barSeries struct {
	name   string
	st     seriesStyle
	values []float64
}

// groupBars draws grouped bars: one group per x = 0, 1, …, one bar per series side by side,
// each bar labelled with its value, and an optional note (the ratio) above each group. On a
// log axis the bars rise from the bottom of the axis; a zero has no bar but still a label.
type groupBars struct {
	series []barSeries
	format func(float64) string
	notes  []string
	// labelValues is false when the value labels would be wider than the bars.
	labelValues bool
}

const barGroupFraction = 0.8 // of each group's slot taken by its bars

// Plot implements plot.Plotter.
func (g *groupBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(g.series)
	if n == 0 {
		return
	}
	slot := trX(1) - trX(0)
	barW := slot * barGroupFraction / vg.Length(n)
	valSty := annotateStyle
	valSty.XAlign, valSty.YAlign = draw.XCenter, draw.YBottom
	noteSty := markerStyle
	noteSty.XAlign, noteSty.YAlign = draw.XCenter, draw.YBottom
	for gi := range g.series[0].values {
		x := trX(float64(gi))
		top := c.Min.Y
		empty := true
		for _, s := range g.series {
			empty = empty && s.values[gi] == 0
		}
		if empty {
			// Nothing in this group: one word instead of a row of zeros.
			c.FillText(valSty, vg.Point{X: x, Y: c.Min.Y + vg.Points(4)}, "none")
			continue
		}
		for si, s := range g.series {
			v := s.values[gi]
			x0 := x - slot*barGroupFraction/2 + vg.Length(si)*barW
			y := c.Min.Y
			if v > 0 && v >= p.Y.Min {
				y = trY(v)
				rect := vg.Rectangle{Min: vg.Point{X: x0 + barW*0.04, Y: c.Min.Y}, Max: vg.Point{X: x0 + barW*0.96, Y: y}}
				c.SetColor(s.st.color)
				c.Fill(rect.Path())
			}
			if g.labelValues {
				c.FillText(valSty, vg.Point{X: x0 + barW/2, Y: y + vg.Points(1.5)}, g.format(v))
				y += lineHeight(valSty)
			}
			top = max(top, y)
		}
		if gi < len(g.notes) && g.notes[gi] != "" {
			c.FillText(noteSty, vg.Point{X: x, Y: top + vg.Points(2)}, g.notes[gi])
		}
	}
}

// GlyphBoxes implements plot.GlyphBoxer: room above each group for its labels, so the axis
// can end at the tallest bar.
func (g *groupBars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	if len(g.series) == 0 {
		return nil
	}
	for gi := range g.series[0].values {
		top := math.Inf(-1)
		for _, s := range g.series {
			top = max(top, s.values[gi])
		}
		if top < p.Y.Min || top <= 0 {
			top = p.Y.Min
		}
		h := vg.Points(2)
		if g.labelValues {
			h += lineHeight(annotateStyle) + vg.Points(1.5)
		}
		if gi < len(g.notes) && g.notes[gi] != "" {
			h += lineHeight(markerStyle) + vg.Points(2)
		}
		w := vg.Points(10)
		out = append(out, plot.GlyphBox{X: p.X.Norm(float64(gi)), Y: p.Y.Norm(top),
			Rectangle: vg.Rectangle{Min: vg.Point{X: -w / 2, Y: 0}, Max: vg.Point{X: w / 2, Y: h}}})
	}
	return out
}

// barThumb is a legend thumbnail of a filled bar.
type barThumb struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (b barThumb) Thumbnail(c *draw.Canvas) {
	r := vg.Rectangle{Min: vg.Point{X: c.Min.X + vg.Points(5), Y: c.Min.Y}, Max: vg.Point{X: c.Max.X - vg.Points(5), Y: c.Max.Y}}
	c.SetColor(b.color)
	c.Fill(r.Path())
}
