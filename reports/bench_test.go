package reports

import (
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"epsim/sim"
)

// benchResults is a large run for the renderers: an hour of 1 s buckets and 200,000 writes.
func benchResults() *sim.Results {
	res := fixtureResults()
	res.Series = res.Series[:0]
	for s := int64(0); s < 3600; s++ {
		res.Series = append(res.Series, sim.Bucket{Second: s,
			Endpoints:      sim.BucketMode{Writes: 3, FanoutBytes: 3 * 7_000_000_000, EtcdBytes: 4_200_000},
			EndpointSlices: sim.BucketMode{Writes: 30, FanoutBytes: 30 * 84_000_000, EtcdBytes: 500_000}})
	}
	w := res.Writes[0]
	res.Writes = make([]sim.WriteRecord, 200_000)
	for i := range res.Writes {
		res.Writes[i] = w
		res.Writes[i].At = sim.Time(time.Duration(i) * 18 * time.Millisecond)
	}
	return res
}

func BenchmarkWriteTable(b *testing.B) {
	s := NewSummary(fixtureResults(), nil)
	b.ReportAllocs()
	for b.Loop() {
		WriteTable(io.Discard, s)
	}
}

func BenchmarkWriteSummaryJSON(b *testing.B) {
	s := NewSummary(fixtureResults(), nil)
	b.ReportAllocs()
	for b.Loop() {
		WriteSummaryJSON(io.Discard, s)
	}
}

func BenchmarkWriteTimeseriesCSV(b *testing.B) {
	res := benchResults()
	b.ReportAllocs()
	for b.Loop() {
		WriteTimeseriesCSV(io.Discard, res.Series, 0)
	}
}

func BenchmarkWriteWritesJSONL(b *testing.B) {
	res := benchResults()
	b.ReportAllocs()
	for b.Loop() {
		WriteWritesJSONL(io.Discard, res.Writes)
	}
}

func BenchmarkCharts(b *testing.B) {
	res := benchResults()
	s := NewSummary(res, nil)
	for _, format := range ChartFormats {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				charts, err := Charts(s, res.Series, res.Layout)
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range charts {
					if err := c.Render(io.Discard, format); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkEgressChartDay draws the egress chart of a day of spiky seconds (bursts of
// writes between quiet ones), the chart that took 17 s to draw for cluster-day.
func BenchmarkEgressChartDay(b *testing.B) {
	res := spikyResults(86_400)
	s := NewSummary(res, nil)
	dense := DenseSeries(res.Series)
	b.ReportAllocs()
	for b.Loop() {
		c, err := EgressChart(s, dense)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Render(io.Discard, "png"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLatencyChartDay draws the propagation latency chart of a day of seconds, a
// long run's: a line and band per column, or, before, some 58,000 points thinned to a
// scatter.
func BenchmarkLatencyChartDay(b *testing.B) {
	res := spikyLatencyResults(86_400)
	s := NewSummary(res, nil)
	s.SLOSeconds = 1e-4 // a log axis, as in cluster-day
	dense := DenseSeries(res.Series)
	b.ReportAllocs()
	for b.Loop() {
		c, err := LatencyChart(s, dense)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Render(io.Discard, "png"); err != nil {
			b.Fatal(err)
		}
	}
}

// spikyResults is the fixture run with seconds seconds of spiky traffic: bursts of writes,
// a third of the seconds quiet, Endpoints about ten times EndpointSlices.
func spikyResults(seconds int) *sim.Results {
	res := fixtureResults()
	rng := rand.New(rand.NewPCG(7, 8))
	res.Series = make([]sim.Bucket, seconds)
	for s := range res.Series {
		bk := &res.Series[s]
		bk.Second = int64(s)
		if rng.IntN(3) > 0 {
			bk.Endpoints = sim.BucketMode{Writes: 1, FanoutBytes: int64(rng.ExpFloat64() * 2e9)}
			bk.EndpointSlices = sim.BucketMode{Writes: 5, FanoutBytes: int64(rng.ExpFloat64() * 2e8)}
		}
	}
	return res
}
