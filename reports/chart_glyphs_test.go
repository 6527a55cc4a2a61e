package reports

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// allBoxesLine and allBoxesScatter give every point's glyph box, as gonum's plotters do.
type allBoxesLine struct{ denseLine }

func (l allBoxesLine) GlyphBoxes(p *plot.Plot) []plot.GlyphBox { return l.Line.GlyphBoxes(p) }

type allBoxesScatter struct{ *plotter.Scatter }

// TestPadGlyphBoxesPadAsEveryBox draws random lines and scatters (ties at the extremes,
// values a hair apart, flat runs, points outside the axes) once with every point's glyph
// box and once with padGlyphBoxes': the images must be the same, byte for byte.
func TestPadGlyphBoxesPadAsEveryBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	value := func(lo, hi float64) float64 {
		switch rng.IntN(6) {
		case 0:
			return lo // ties at the extremes
		case 1:
			return hi
		case 2:
			return lo + 1e-13*rng.Float64() // a hair from the least: the same place on the canvas
		case 3:
			return hi * (1 - 1e-13)
		}
		return lo + rng.Float64()*(hi-lo)
	}
	draw := func(p *plot.Plot) []byte {
		var b bytes.Buffer
		w, err := p.WriterTo(4*vg.Inch, 3*vg.Inch, "svg")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	reduced := 0
	for trial := range 300 {
		n := 5 + rng.IntN(200)
		xys := make(plotter.XYs, n)
		hiX, hiY := 1+rng.Float64()*1e4, 1+rng.Float64()*100
		for i := range xys {
			xys[i] = plotter.XY{X: value(0, hiX), Y: value(-hiY, hiY)}
		}
		width, radius := vg.Length(rng.IntN(4)), vg.Length(1+rng.IntN(5))
		axes := func(p *plot.Plot) {
			switch trial % 3 {
			case 0: // some points outside the axes
				p.X.Min, p.X.Max = hiX/10, hiX*0.9
				p.Y.Min, p.Y.Max = -hiY/2, hiY/2
			case 1: // the least and greatest X both inside and outside the axes
				p.Y.Min, p.Y.Max = -hiY/2, hiY/2
			}
		}
		build := func(padded bool) *plot.Plot {
			p := plot.New()
			l, err := plotter.NewLine(xys)
			if err != nil {
				t.Fatal(err)
			}
			l.Width = width
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				t.Fatal(err)
			}
			sc.Radius = radius
			if padded {
				p.Add(denseLine{l}, paddedScatter{sc})
				if k := len(denseLine{l}.GlyphBoxes(p)); k < n && width > 0 {
					reduced++
				}
			} else {
				p.Add(allBoxesLine{denseLine{l}}, allBoxesScatter{sc})
			}
			axes(p)
			return p
		}
		if want, got := draw(build(false)), draw(build(true)); !bytes.Equal(want, got) {
			t.Fatalf("trial %d (%d points, line width %v, radius %v): the chart drawn with padGlyphBoxes differs from the one with every box", trial, n, width, radius)
		}
	}
	if reduced < 100 {
		t.Errorf("padGlyphBoxes dropped boxes in %d of 300 charts: the test did not exercise it", reduced)
	}
}
