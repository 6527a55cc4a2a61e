package reports

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// siPrefixes are the SI prefixes the tick labels use, from 10^0 up.
var siPrefixes = []string{"", "k", "M", "G", "T", "P", "E"}

// formatSI formats v with an SI prefix and unit, with at most three significant digits and
// never a trailing zero: "0 B", "250 GB", "1.5 TB", "20k", "2.5 GB/s", "100 KB/s" (kilobytes
// as FormatBytes writes them, KB; a count's kilo is k). unit "s" formats
// seconds, with "ms" and "µs" below one second.
func formatSI(v float64, unit string) string {
	sep := " "
	if unit == "" {
		sep = ""
	}
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "0" + sep + unit
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	if unit == "s" && v < 1 {
		for _, p := range []struct {
			scale  float64
			prefix string
		}{{1e3, "m"}, {1e6, "µ"}, {1e9, "n"}} {
			if w := v * p.scale; w >= 0.9995 || p.prefix == "n" {
				return sign + trimNumber(w) + " " + p.prefix + "s"
			}
		}
	}
	k := 0
	for v >= 999.5 && k < len(siPrefixes)-1 && unit != "s" {
		v /= 1000
		k++
	}
	prefix := siPrefixes[k]
	if prefix == "k" && strings.HasPrefix(unit, "B") {
		prefix = "K" // bytes read "KB" everywhere, as FormatBytes writes them
	}
	return sign + trimNumber(v) + sep + prefix + unit
}

// trimNumber formats v with three significant digits (all the digits of a whole number up
// to 999) and no trailing zeros or point.
func trimNumber(v float64) string {
	s := strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(math.Abs(v))))), 64)
	if v >= 100 || v <= -100 {
		s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// niceStep returns the step of 1, 2 or 5 × 10^k that splits span into at most want parts.
func niceStep(span float64, want int) float64 {
	if span <= 0 || want < 1 {
		return 1
	}
	raw := span / float64(want)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// linearTop returns the top of a linear axis from 0 for data up to dataMax: the first
// 1-2-5 tick step above dataMax, so the axis ends one step-fraction after the data and the
// line never runs along the top edge.
func linearTop(dataMax float64) float64 {
	if dataMax <= 0 {
		return 1
	}
	step := niceStep(dataMax, 5)
	top := math.Ceil(dataMax*1.02/step) * step
	return top
}

// logBounds returns the range of a log axis for positive data from lo to hi: from the
// 1-2-5 value at or below lo to the one above hi (at most 2.5× hi), so the data is never
// on the top edge. lo is raised to hi/floorSpan so one tiny value does not flatten the rest.
func logBounds(lo, hi, floorSpan float64) (float64, float64) {
	if hi <= 0 {
		return 1, 10
	}
	lo = max(lo, hi/floorSpan)
	if lo <= 0 || lo > hi {
		lo = hi
	}
	down := func(v float64) float64 {
		mag := math.Pow(10, math.Floor(math.Log10(v)))
		for _, m := range []float64{5, 2, 1} {
			if m*mag <= v*(1+1e-9) {
				return m * mag
			}
		}
		return mag
	}
	up := func(v float64) float64 {
		mag := math.Pow(10, math.Floor(math.Log10(v)))
		for _, m := range []float64{1, 2, 5, 10} {
			if m*mag > v*(1+1e-9) {
				return m * mag
			}
		}
		return 10 * mag
	}
	return down(lo), up(hi * 1.02)
}

// useLog says whether data from lo to hi (both positive) spans enough decades (30× or more)
// that a linear axis would flatten the small values.
func useLog(lo, hi float64) bool { return lo > 0 && hi/lo >= 30 }

// siTicks labels an axis in SI units: 1-2-5 steps on a linear axis, powers of ten (and 2×
// and 5× when the axis spans fewer than three decades) on a log axis.
type siTicks struct {
	unit string
	log  bool
}

// Ticks implements plot.Ticker.
func (t siTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if t.log {
		ticks = logTicks(lo, hi)
	} else {
		ticks = linearTicks(lo, hi)
	}
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = formatSI(ticks[i].Value, t.unit)
		}
	}
	return ticks
}

// linearTicks returns labelled 1-2-5 ticks from lo to hi (about five) with unlabelled minor
// ticks between them.
func linearTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: "x"}}
	}
	step := niceStep(hi-lo, 5)
	minor := step / 2
	var ticks []plot.Tick
	for i := math.Ceil(lo/minor - 1e-9); i*minor <= hi*(1+1e-12)+1e-12; i++ {
		v := i * minor
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		t := plot.Tick{Value: v}
		if math.Mod(math.Abs(i), 2) == 0 {
			t.Label = "x"
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// logTicks returns ticks for a log axis: every power of ten labelled, and 2× and 5× labelled
// too when the axis spans fewer than two and a half decades (otherwise it may show one label
// or none).
func logTicks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || min > max {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	dense := math.Log10(max/min) < 2.5
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		decade := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := decade * float64(m)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (dense && (m == 2 || m == 5)) {
				t.Label = "x" // relabelled by the caller
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// timeSteps are the tick steps of a time axis, in seconds.
var timeSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 3 * 3600, 6 * 3600, 12 * 3600, 86400}

// timeTicks labels an axis of virtual seconds with round clock steps ("30s", "5m", "1h").
type timeTicks struct{}

// Ticks implements plot.Ticker.
func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi < lo {
		return nil
	}
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if (hi-lo)/s <= 8 {
			step = s
			break
		}
	}
	if days := (hi - lo) / 86400 / 8; days > 1 {
		// Longer than 8 days (a hostile timeseries.csv can name second 1e11): whole days
		// in a 1-2-5 sequence, never more than about 8 ticks.
		m := math.Pow(10, math.Floor(math.Log10(days)))
		for _, f := range []float64{1, 2, 5, 10} {
			if f*m >= days {
				step = f * m * 86400
				break
			}
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9 && len(ticks) <= 20; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: formatClock(v)})
	}
	return ticks
}

// countFormat formats a count for a tick or bar label: exact with thousands separators up to
// 9,999, SI above ("20k", "1.5M").
func countFormat(v float64) string {
	if math.Abs(v) < 10000 {
		return formatCount(int64(math.Round(v)))
	}
	return formatSI(v, "")
}
