package reports

import (
	"image"
	"math"
	"math/rand/v2"
	"reflect"
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

// TestRateColumns checks the columns the egress chart draws a long run in, on series worked
// out by hand: a column's mean is the bytes sent in it over its seconds (quiet seconds and
// missing buckets count as 0), its low and high the least and greatest bucket.
func TestRateColumns(t *testing.T) {
	steps := func(width float64, first float64, ys ...float64) plotter.XYs {
		xys := make(plotter.XYs, len(ys))
		for i, y := range ys {
			xys[i] = plotter.XY{X: first + float64(i)*width, Y: y}
		}
		return xys
	}
	for _, tc := range []struct {
		name          string
		xys           plotter.XYs
		width, column float64
		want          []rateColumn
	}{
		{"quiet seconds count as 0", steps(1, 0, 10, 0, 0, 30, 0, 5, 5, 5, 5, 5), 1, 5,
			[]rateColumn{{0, 5, 8, 0, 30}, {5, 10, 5, 5, 5}}},
		// The last column holds one bucket and ends where the series ends: its mean is that
		// bucket, not that bucket spread over a whole column.
		{"a column of one bucket", steps(1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 70), 1, 5,
			[]rateColumn{{0, 5, 3, 1, 5}, {5, 10, 8, 6, 10}, {10, 11, 70, 70, 70}}},
		{"a series starting in a column", steps(1, 3, 4, 8, 6), 1, 5,
			[]rateColumn{{3, 5, 6, 4, 8}, {5, 6, 6, 6, 6}}},
		{"a missing bucket is a quiet one", plotter.XYs{{X: 0, Y: 9}, {X: 1, Y: 9}, {X: 3, Y: 9}}, 1, 4,
			[]rateColumn{{0, 4, 6.75, 0, 9}}},
		// Buckets of 2 s (a long run): each weighs its 2 s.
		{"wide buckets", steps(2, 0, 1, 3, 5, 7, 100), 2, 4,
			[]rateColumn{{0, 4, 2, 1, 3}, {4, 8, 6, 5, 7}, {8, 10, 100, 100, 100}}},
		// A column that splits a bucket (rateColumnWidth never picks one) weighs the part of
		// the bucket in it.
		{"a split bucket", steps(2, 0, 4, 8), 2, 3,
			[]rateColumn{{0, 3, (4*2 + 8*1) / 3.0, 4, 8}, {3, 4, 8, 8, 8}}},
		{"one bucket", steps(1, 7, 42), 1, 20, []rateColumn{{7, 8, 42, 42, 42}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := rateColumns(tc.xys, tc.width, tc.column)
			if !ok {
				t.Fatal("not averaged")
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d columns %+v, want %+v", len(got), got, tc.want)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.start != w.start || g.end != w.end || g.low != w.low || g.high != w.high || math.Abs(g.mean-w.mean) > 1e-12*math.Abs(w.mean) {
					t.Errorf("column %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// Averaging keeps every byte: each column's mean times its length, summed, is what all the
// buckets sent, on a day of spiky seconds in the columns the egress chart picks.
func TestRateColumnsKeepTheBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, width := range []float64{1, 2} {
		xys := make(plotter.XYs, 43_200)
		sent := 0.0
		for i := range xys {
			xys[i] = plotter.XY{X: float64(i) * width}
			if rng.IntN(3) > 0 {
				xys[i].Y = math.Round(rng.ExpFloat64() * 2e9)
			}
			sent += xys[i].Y * width
		}
		column := rateColumnWidth(float64(len(xys))*width, width)
		cols, ok := rateColumns(xys, width, column)
		if !ok || column <= width {
			t.Fatalf("width %g: column %g, ok %v", width, column, ok)
		}
		got := 0.0
		for i, c := range cols {
			got += c.mean * (c.end - c.start)
			if c.low > c.mean || c.mean > c.high {
				t.Errorf("width %g column %d: mean %g outside its low %g and high %g", width, i, c.mean, c.low, c.high)
			}
			if i > 0 && c.start != cols[i-1].end {
				t.Fatalf("width %g column %d starts at %g, the last ended at %g", width, i, c.start, cols[i-1].end)
			}
		}
		if math.Abs(got-sent) > 1e-9*sent {
			t.Errorf("width %g: columns hold %g bytes, the buckets %g", width, got, sent)
		}
	}
}

// As decimateLine does, rateColumns leaves alone what it cannot average (the chart then
// draws every bucket): NaN or infinite coordinates, points out of order, no points.
func TestRateColumnsLeavesOddSeriesAlone(t *testing.T) {
	good := plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 2}, {X: 2, Y: 3}}
	for _, tc := range []struct {
		name          string
		xys           plotter.XYs
		width, column float64
	}{
		{"NaN rate", plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: math.NaN()}}, 1, 5},
		{"infinite rate", plotter.XYs{{X: 0, Y: math.Inf(1)}}, 1, 5},
		{"NaN time", plotter.XYs{{X: math.NaN(), Y: 1}}, 1, 5},
		{"infinite time", plotter.XYs{{X: 0, Y: 1}, {X: math.Inf(1), Y: 1}}, 1, 5},
		{"out of order", plotter.XYs{{X: 2, Y: 1}, {X: 1, Y: 1}}, 1, 5},
		{"empty", nil, 1, 5},
		{"no width", good, 0, 5},
		{"no column", good, 1, 0},
		{"NaN column", good, 1, math.NaN()},
		{"infinite column", good, 1, math.Inf(1)},
	} {
		if cols, ok := rateColumns(tc.xys, tc.width, tc.column); ok || cols != nil {
			t.Errorf("%s: averaged into %+v", tc.name, cols)
		}
	}
}

// rateColumnWidth averages nothing in a short run, and otherwise picks the narrowest round
// width, a whole number of buckets, that gives at most rateColumnsTarget columns.
func TestRateColumnWidth(t *testing.T) {
	for _, tc := range []struct{ span, width, want float64 }{
		{180, 1, 1}, // quick: every second drawn, as before
		{rateColumnsTarget, 1, 1},
		{rateColumnsTarget + 1, 1, 2},
		{700, 1, 5},
		{5849, 1, 20},     // zone-outage
		{88_000, 2, 300},  // cluster-day, in 2 s buckets
		{1000, 2, 10},     // 5 s would split a 2 s bucket
		{1e9, 1, 3125000}, // past the longest round width
		{100, 0, 0},
	} {
		if got := rateColumnWidth(tc.span, tc.width); got != tc.want {
			t.Errorf("rateColumnWidth(%g, %g) = %g, want %g", tc.span, tc.width, got, tc.want)
		}
	}
}

// TestMaxColumns checks the columns the latency chart draws a long run in, on series worked
// out by hand: a column's high is its greatest bucket and its low its least; a second
// without writes has no point and counts for nothing, and a column with none is left out.
func TestMaxColumns(t *testing.T) {
	at := func(width float64, pts ...float64) plotter.XYs { // pairs of bucket index and value
		xys := make(plotter.XYs, 0, len(pts)/2)
		for i := 0; i < len(pts); i += 2 {
			xys = append(xys, plotter.XY{X: pts[i] * width, Y: pts[i+1]})
		}
		return xys
	}
	for _, tc := range []struct {
		name          string
		xys           plotter.XYs
		width, column float64
		want          []maxColumn
	}{
		{"full columns", at(1, 0, 3, 1, 0.5, 2, 7, 3, 2, 4, 1, 5, 9, 6, 4, 7, 8, 8, 6, 9, 5), 1, 5,
			[]maxColumn{{0, 5, 0.5, 7}, {5, 10, 4, 9}}},
		// Seconds without writes are not latencies of 0: the low is the least latency there is.
		{"gaps within a column", at(1, 0, 3, 4, 2), 1, 5, []maxColumn{{0, 5, 2, 3}}},
		// A column of one point is that point, however little of the column it fills.
		{"a column with one point", at(1, 2, 0.25, 7, 4, 8, 6), 1, 5,
			[]maxColumn{{2, 5, 0.25, 0.25}, {5, 9, 4, 6}}},
		// Columns 1 and 2 ([5, 15)) have no writes: they are left out, not drawn as 0.
		{"columns without writes", at(1, 1, 3, 4, 5, 16, 2, 17, 1, 22, 8), 1, 5,
			[]maxColumn{{1, 5, 3, 5}, {15, 20, 1, 2}, {20, 23, 8, 8}}},
		// On a linear axis a zero latency (nobody watching) is a latency like another.
		{"zero latency", at(1, 0, 0, 1, 2), 1, 5, []maxColumn{{0, 2, 0, 2}}},
		{"one point", at(1, 7, 42), 1, 20, []maxColumn{{7, 8, 42, 42}}},
		// Buckets of 2 s (a long run): a column is drawn whole, however few of its buckets
		// have writes ([8, 12) for the bucket [10, 12)).
		{"wide buckets", at(2, 0, 1, 1, 3, 3, 5, 5, 100), 2, 4,
			[]maxColumn{{0, 4, 1, 3}, {4, 8, 5, 5}, {8, 12, 100, 100}}},
		// A column that splits a bucket (rateColumnWidth never picks one) holds the bucket.
		{"a split bucket", at(2, 0, 4, 1, 8), 2, 3, []maxColumn{{0, 3, 4, 8}, {3, 4, 8, 8}}},
		// Two points in one bucket's time (not from DenseSeries) fall in their column.
		{"points sharing a column", plotter.XYs{{X: 0, Y: 1}, {X: 0.5, Y: 3}, {X: 6, Y: 2}}, 1, 5,
			[]maxColumn{{0, 5, 1, 3}, {5, 7, 2, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := maxColumns(tc.xys, tc.width, tc.column)
			if !ok {
				t.Fatal("not gathered into columns")
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d columns %+v, want %+v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("column %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// On a day of latencies with quiet stretches, in the columns the chart picks: the highest
// column is the run's largest latency, every point lies within its column's low and high,
// and the columns are in order, never overlap, and each holds a point.
func TestMaxColumnsHoldEveryPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, width := range []float64{1, 2} {
		var xys plotter.XYs
		largest := math.Inf(-1)
		for i := range 43_200 {
			if (i/600)%5 == 3 || rng.IntN(3) == 0 {
				continue // a quiet stretch of 600 buckets in 3,000, and quiet buckets
			}
			y := math.Round(rng.ExpFloat64()*1e3) / 1e3
			xys = append(xys, plotter.XY{X: float64(i) * width, Y: y})
			largest = max(largest, y)
		}
		column := rateColumnWidth(43_200*width, width)
		cols, ok := maxColumns(xys, width, column)
		if !ok || column <= width {
			t.Fatalf("width %g: column %g, ok %v", width, column, ok)
		}
		high := math.Inf(-1)
		gaps := 0
		for i, c := range cols {
			high = max(high, c.high)
			if c.low > c.high || !(c.end > c.start) {
				t.Errorf("width %g column %d: %+v", width, i, c)
			}
			if i > 0 && c.start < cols[i-1].end {
				t.Fatalf("width %g column %d starts at %g, before the last ended at %g", width, i, c.start, cols[i-1].end)
			}
			if i > 0 && c.start > cols[i-1].end {
				gaps++
			}
		}
		if high != largest {
			t.Errorf("width %g: highest column %g, largest latency %g", width, high, largest)
		}
		if want := 43_200 / 3_000; gaps != want {
			t.Errorf("width %g: %d gaps between columns, want one per quiet stretch, %d", width, gaps, want)
		}
		j := 0
		for _, p := range xys {
			for j < len(cols) && cols[j].end <= p.X {
				j++
			}
			if j == len(cols) || p.X < cols[j].start || p.Y < cols[j].low || p.Y > cols[j].high {
				t.Fatalf("width %g: point %v not within its column", width, p)
			}
		}
	}
}

// As rateColumns does, maxColumns leaves alone what it cannot gather (the chart then draws
// every point, as it did): NaN or infinite coordinates, points out of order, no points.
func TestMaxColumnsLeavesOddSeriesAlone(t *testing.T) {
	good := plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 2}, {X: 2, Y: 3}}
	for _, tc := range []struct {
		name          string
		xys           plotter.XYs
		width, column float64
	}{
		{"NaN latency", plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: math.NaN()}}, 1, 5},
		{"infinite latency", plotter.XYs{{X: 0, Y: math.Inf(1)}}, 1, 5},
		{"negative infinite latency", plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: math.Inf(-1)}}, 1, 5},
		{"NaN time", plotter.XYs{{X: math.NaN(), Y: 1}}, 1, 5},
		{"infinite time", plotter.XYs{{X: 0, Y: 1}, {X: math.Inf(1), Y: 1}}, 1, 5},
		{"out of order", plotter.XYs{{X: 2, Y: 1}, {X: 1, Y: 1}}, 1, 5},
		{"empty", nil, 1, 5},
		{"no width", good, 0, 5},
		{"infinite width", good, math.Inf(1), 5},
		{"no column", good, 1, 0},
		{"NaN column", good, 1, math.NaN()},
		{"infinite column", good, 1, math.Inf(1)},
	} {
		if cols, ok := maxColumns(tc.xys, tc.width, tc.column); ok || cols != nil {
			t.Errorf("%s: gathered into %+v", tc.name, cols)
		}
	}
}

// columnRuns breaks the columns only where one is missing: where a column ends before the
// next starts.
func TestColumnRuns(t *testing.T) {
	cols := []maxColumn{{start: 2, end: 5}, {start: 5, end: 10}, {start: 15, end: 20}, {start: 25, end: 30}, {start: 30, end: 33}}
	got := columnRuns(cols)
	want := [][]maxColumn{cols[0:2], cols[2:3], cols[3:5]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runs %+v, want %+v", got, want)
	}
	if got := columnRuns(cols[:1]); !reflect.DeepEqual(got, [][]maxColumn{cols[:1]}) {
		t.Errorf("one column: runs %+v", got)
	}
	if got := columnRuns(nil); got != nil {
		t.Errorf("no columns: runs %+v", got)
	}
}

// A time that lands, by a float division, in the column before the one it starts (3×0.7 s
// divided by 0.7 is 2.9999…) is not put in that column, which it does not overlap.
func TestMaxColumnsColumnEdge(t *testing.T) {
	column := 0.7
	x := 3 * column // at run time, 2.0999999999999996
	if int(x/column) != 2 {
		t.Fatalf("%g / 0.7 = %g: not the case checked", x, x/0.7)
	}
	cols, ok := maxColumns(plotter.XYs{{X: x, Y: 5}}, 0.5, column)
	if !ok || len(cols) != 1 || cols[0].start != x || !(cols[0].end > x) || cols[0].high != 5 {
		t.Errorf("%v at %g: columns %+v", ok, x, cols)
	}
}
