package reports

import (
	"math"
	"testing"
	"time"

	"epsim/sim"
)

// timeFormatCases are the edges of both formats: each unit's bounds, trailing zeros,
// minutes and hours, the fast path's bounds and the extremes.
var timeFormatCases = []int64{
	0, 1, -1, 999, 1000, 1001, 1500, 999_999, 1_000_000, 1_234_500, 999_999_999,
	1e9, 1e9 + 1, 59_999_999_999, 60e9, 61_500_000_000, 3599e9, 3600e9, 3600e9 + 5e9,
	90061_000_000_007, 1e15 - 1, 1e15, 1e15 + 1, -1e15, -1e15 + 1, 123_456_789_012_345,
	100, 10_000, 100_000_000, 100e9, 7_200_000_000_100, math.MaxInt64, math.MinInt64,
	math.MinInt64 + 1, -61_500_000_000,
}

// TestAppendDuration checks appendDuration against time.Duration.String.
func TestAppendDuration(t *testing.T) {
	for _, ns := range timeFormatCases {
		want := time.Duration(ns).String()
		if got := string(appendDuration([]byte("x"), sim.Time(ns))); got != "x"+want {
			t.Errorf("appendDuration(%d) = %q, want %q", ns, got, "x"+want)
		}
	}
}

// TestAppendJSONSeconds checks appendJSONSeconds against appendJSONFloat, inside the fast
// path's bounds and out of them.
func TestAppendJSONSeconds(t *testing.T) {
	for _, ns := range timeFormatCases {
		want := string(appendJSONFloat([]byte("x"), sim.Time(ns).Seconds()))
		if got := string(appendJSONSeconds([]byte("x"), sim.Time(ns))); got != want {
			t.Errorf("appendJSONSeconds(%d) = %q, want %q", ns, got, want)
		}
	}
}

// FuzzTimeFormats checks both formatters against the ones they stand in for on any time.
func FuzzTimeFormats(f *testing.F) {
	for _, ns := range timeFormatCases {
		f.Add(ns)
	}
	f.Fuzz(func(t *testing.T, ns int64) {
		if got, want := string(appendDuration(nil, sim.Time(ns))), time.Duration(ns).String(); got != want {
			t.Errorf("appendDuration(%d) = %q, want %q", ns, got, want)
		}
		if got, want := string(appendJSONSeconds(nil, sim.Time(ns))), string(appendJSONFloat(nil, sim.Time(ns).Seconds())); got != want {
			t.Errorf("appendJSONSeconds(%d) = %q, want %q", ns, got, want)
		}
		// Fuzzing draws mostly small and huge values: scale to the fast path's range too.
		mid := sim.Time(ns % secondsFastMax)
		if got, want := string(appendJSONSeconds(nil, mid)), string(appendJSONFloat(nil, mid.Seconds())); got != want {
			t.Errorf("appendJSONSeconds(%d) = %q, want %q", int64(mid), got, want)
		}
	})
}
