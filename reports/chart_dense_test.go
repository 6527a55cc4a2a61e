package reports

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Per column, the decimated line keeps the extremes and the first and last point, in order,
// and only points of the line: what a pixel column of the drawn line covers is unchanged.
func TestDecimateLineKeepsEachColumnsExtremes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{10, 4 * lineColumns, 4*lineColumns + 1, 50_000, 200_000} {
		xys := make(plotter.XYs, n)
		for i := range xys {
			xys[i] = plotter.XY{X: float64(i) * 0.7, Y: rng.ExpFloat64() * 1e6}
			if rng.IntN(10) == 0 {
				xys[i].Y = 0 // quiet seconds between bursts
			}
		}
		got := decimateLine(xys)
		if n <= 4*lineColumns {
			if len(got) != n {
				t.Errorf("n=%d: %d points kept, want all", n, len(got))
			}
			continue
		}
		if len(got) > 4*lineColumns {
			t.Errorf("n=%d: %d points kept, want at most %d", n, len(got), 4*lineColumns)
		}
		if got[0] != xys[0] || got[len(got)-1] != xys[n-1] {
			t.Errorf("n=%d: first or last point lost", n)
		}
		type ext struct{ lo, hi, first, last float64 }
		columns := func(line plotter.XYs) map[int]ext {
			lo, hi := xys[0].X, xys[n-1].X
			m := map[int]ext{}
			for i, p := range line {
				if i > 0 && p.X < line[i-1].X {
					t.Fatalf("n=%d: points out of x order at %d", n, i)
				}
				c := min(int((p.X-lo)/(hi-lo)*float64(lineColumns)), lineColumns-1)
				e, ok := m[c]
				if !ok {
					e = ext{lo: math.Inf(1), hi: math.Inf(-1), first: p.Y}
				}
				e.lo, e.hi, e.last = min(e.lo, p.Y), max(e.hi, p.Y), p.Y
				m[c] = e
			}
			return m
		}
		want, have := columns(xys), columns(got)
		if len(want) != len(have) {
			t.Fatalf("n=%d: %d columns, want %d", n, len(have), len(want))
		}
		for c, w := range want {
			if have[c] != w {
				t.Fatalf("n=%d column %d: %+v, want %+v", n, c, have[c], w)
			}
		}
	}
}

func TestDecimateLineLeavesOddLinesAlone(t *testing.T) {
	xys := make(plotter.XYs, 5*lineColumns)
	for i := range xys {
		xys[i] = plotter.XY{X: float64(i), Y: float64(i % 7)}
	}
	xys[100].Y = math.NaN()
	if got := decimateLine(xys); len(got) != len(xys) {
		t.Errorf("a line with a NaN was thinned to %d points", len(got))
	}
	same := make(plotter.XYs, 5*lineColumns) // every point at x = 0
	if got := decimateLine(same); len(got) != len(same) {
		t.Errorf("a line of one x was thinned to %d points", len(got))
	}
}

// A line stroked in pieces (denseLine) covers the pixels the one stroke of plotter.Line
// covers: the pieces overlap by a segment and carry the dash pattern on. A solid line is
// drawn the same to the pixel. A dashed one's dash ends may move by a pixel or two: the
// image backend rounds the path to 1/64 pixel before dashing it, so one long stroke's
// dash phase drifts from the exact lengths the pieces start from. Restarting the pattern
// at each piece instead moves a fifth of a dense dashed line's pixels.
func TestDenseLineDrawsTheSameLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	xys := make(plotter.XYs, 40*lineChunk)
	y := 50.0
	for i := range xys {
		y = max(1, y+rng.NormFloat64()*3)
		xys[i] = plotter.XY{X: float64(i), Y: y}
	}
	for _, tc := range []struct {
		name   string
		dashes []vg.Length
		step   plotter.StepKind
		// most is the largest share of the inked pixels that may differ.
		most float64
	}{
		{"solid", nil, plotter.NoStep, 0},
		{"solid steps", nil, plotter.PostStep, 0},
		{"dashed", []vg.Length{vg.Points(6), vg.Points(3)}, plotter.NoStep, 0.08},
		{"dashed steps", []vg.Length{vg.Points(6), vg.Points(3)}, plotter.PostStep, 0.08},
	} {
		render := func(dense bool) *image.RGBA {
			p := plot.New()
			l, err := plotter.NewLine(xys)
			if err != nil {
				t.Fatal(err)
			}
			l.Width, l.Dashes, l.StepStyle = vg.Points(1.5), tc.dashes, tc.step
			if dense {
				p.Add(denseLine{l})
			} else {
				p.Add(l)
			}
			img := vgimg.NewWith(vgimg.UseWH(chartWidth, chartHeight), vgimg.UseDPI(pngDPI))
			p.Draw(draw.New(img))
			return img.Image().(*image.RGBA)
		}
		one, pieces := render(false), render(true)
		var inked, differ int
		for i := 0; i < len(one.Pix); i += 4 {
			if one.Pix[i] < 250 || pieces.Pix[i] < 250 {
				inked++
			}
			if d := int(one.Pix[i]) - int(pieces.Pix[i]); d > 64 || d < -64 {
				differ++
			}
		}
		if inked == 0 || float64(differ) > tc.most*float64(inked) {
			t.Errorf("%s: %d of %d inked pixels differ by more than a quarter, want at most %.0f%%",
				tc.name, differ, inked, 100*tc.most)
		}
	}
}

// thinScatter keeps one point per cell (a column of the x range by a row of the y axis's
// scale), the first, and every cell that had a point: the glyphs cover the same pixels.
func TestThinScatterKeepsOnePointPerCell(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, scale := range []plot.Normalizer{plot.LinearScale{}, plot.LogScale{}} {
		y := plot.Axis{Min: 0.001, Max: 100, Scale: scale}
		xys := make(plotter.XYs, 86_400)
		for i := range xys {
			xys[i] = plotter.XY{X: float64(i), Y: math.Exp(rng.NormFloat64()) * 0.5}
		}
		xys[10].Y = 1e6 // above the axis
		cell := func(p plotter.XY) [2]int {
			col := min(int(p.X/xys[len(xys)-1].X*float64(lineColumns)), lineColumns-1)
			row := min(max(int(y.Scale.Normalize(y.Min, y.Max, p.Y)*scatterRows), -1), scatterRows)
			return [2]int{col, row}
		}
		got := thinScatter(xys, &y)
		if _, linear := scale.(plot.LinearScale); linear && len(got) >= len(xys)/2 {
			t.Errorf("%T: %d of %d points kept", scale, len(got), len(xys))
		}
		first := map[[2]int]plotter.XY{}
		for _, p := range xys {
			if _, ok := first[cell(p)]; !ok {
				first[cell(p)] = p
			}
		}
		kept := map[[2]int]bool{}
		for _, p := range got {
			c := cell(p)
			if kept[c] || first[c] != p {
				t.Fatalf("%T: kept %v, not the first point of its cell %v (%v)", scale, p, c, first[c])
			}
			kept[c] = true
		}
		if len(kept) != len(first) {
			t.Errorf("%T: %d cells kept, want all %d", scale, len(kept), len(first))
		}
	}
	few := plotter.XYs{{X: 1, Y: 1}, {X: 1, Y: 1}}
	if got := thinScatter(few, &plot.Axis{Min: 0, Max: 2, Scale: plot.LinearScale{}}); len(got) != 2 {
		t.Errorf("a scatter of 2 points was thinned to %d", len(got))
	}
}

// TestBandColumns: a band of many more samples than columns is thinned to one a column,
// whose bottom and top are the least lower and greatest upper of the samples holding in
// that column, from the first sample's x; a band of few samples is left as it is.
func TestBandColumns(t *testing.T) {
	const n = 20 * lineColumns
	lower, upper := make(plotter.XYs, n), make(plotter.XYs, n)
	for i := range n {
		x := float64(i) * 0.5
		lower[i] = plotter.XY{X: x, Y: float64(i % 7)}
		upper[i] = plotter.XY{X: x, Y: float64(10 + i%13)}
	}
	// One long hold, over several columns, and a spike inside one column.
	upper[n/2].Y = 99
	end := float64(n) * 0.5
	lo, up := bandColumns(lower, upper, end)
	if len(up) != lineColumns || len(lo) != len(up) {
		t.Fatalf("%d and %d samples, want one a column (%d)", len(lo), len(up), lineColumns)
	}
	if lo[0].X != lower[0].X || up[0].X != upper[0].X {
		t.Errorf("starts at %v, want the first sample's %v", up[0].X, upper[0].X)
	}
	width := end / float64(lineColumns)
	for c := range up {
		from, to := float64(c)*width, float64(c+1)*width
		least, most := math.Inf(1), math.Inf(-1)
		for i := range upper {
			next := end
			if i+1 < n {
				next = upper[i+1].X
			}
			if upper[i].X < to && next > from {
				least, most = min(least, lower[i].Y), max(most, upper[i].Y)
			}
		}
		if lo[c].Y != least || up[c].Y != most {
			t.Fatalf("column %d: band %v–%v, the samples holding there span %v–%v", c, lo[c].Y, up[c].Y, least, most)
		}
	}
	small := upper[:100]
	if _, got := bandColumns(lower[:100], small, 50); len(got) != 100 {
		t.Errorf("a band of 100 samples thinned to %d", len(got))
	}
}
