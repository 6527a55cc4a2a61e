package main

import (
	"bytes"
	"testing"

	"epsim/reports"
)

// TestRenderChartsAsOneAfterAnother renders a run's charts side by side and holds each file
// to what rendering them one after another gives.
func TestRenderChartsAsOneAfterAnother(t *testing.T) {
	charts := quickCharts(t)
	if len(charts) < 2 {
		t.Fatalf("%d charts: too few to draw side by side", len(charts))
	}
	drawn := renderCharts(charts)
	for i, c := range charts {
		for j, format := range reports.ChartFormats {
			var want bytes.Buffer
			if err := c.Render(&want, format); err != nil {
				t.Fatal(err)
			}
			if got := drawn[i][j]; got.err != nil || !bytes.Equal(got.data, want.Bytes()) {
				t.Errorf("%s.%s: side by side %d bytes (error %v), one after another %d", c.Name, format, len(got.data), got.err, want.Len())
			}
		}
	}
}

// TestRenderChartsRaisesAPanic draws a chart that panics (a nil one) among others: the
// panic comes out of renderCharts, in the caller's goroutine, where env.main turns a crash
// into exit 3.
func TestRenderChartsRaisesAPanic(t *testing.T) {
	charts := quickCharts(t)
	defer func() {
		if recover() == nil {
			t.Error("a chart that panics did not make renderCharts panic")
		}
	}()
	renderCharts(append([]*reports.Chart{nil, nil}, charts...))
}

// quickCharts returns the charts of a run of the shipped quick scenario.
func quickCharts(t *testing.T) []*reports.Chart {
	t.Helper()
	summary, series, layout, err := readRunDir(runQuickOut(t))
	if err != nil {
		t.Fatal(err)
	}
	charts, err := reports.Charts(summary, series, layout)
	if err != nil {
		t.Fatal(err)
	}
	return charts
}
