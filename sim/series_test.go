package sim

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Issue 12: 10,000 watcher groups of a million made fanoutBytes wrap around to
// -1,541,910,593,226,372,616 and the ratio -7.121, with exit 0. A sum past int64 now stops
// the run with an error naming the figure.
func TestOverflowNamesTheFigure(t *testing.T) {
	e, err := newEngine(testConfig(3, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := e.stats
	r := c.mode(ModeEndpoints)
	r.FanoutBytes = math.MaxInt64 - 10
	c.add(&r.FanoutBytes, 11, "fanoutBytes", ModeEndpoints)
	if !errors.Is(c.err, ErrOverflow) || !strings.Contains(c.err.Error(), `fanoutBytes of endpoints in phase "create"`) {
		t.Fatalf("err = %v", c.err)
	}
	if r.FanoutBytes != math.MaxInt64-10 {
		t.Errorf("the figure wrapped: %d", r.FanoutBytes)
	}
	// The product of watchers and event bytes is checked too: 1e10 watchers × 1e9 bytes.
	if got := mulChecked(1e10, 1e9); got != -1 {
		t.Errorf("mulChecked overflowed silently: %d", got)
	}
	c.err = nil
	c.add(&r.WatchEvents, mulChecked(1e10, 1e9), "watchEvents", ModeEndpoints)
	if !errors.Is(c.err, ErrOverflow) {
		t.Errorf("an overflowed product was added: err %v", c.err)
	}
}

// Issue 12: a 1 bit/s egress or a 998 h wait gave one bucket per second of the span (10 GB
// for 20 pods). The series coarsens instead: at most MaxSeriesBuckets buckets, every figure's
// sum kept, and the span covered.
func TestSeriesCoarsensPastMaxBuckets(t *testing.T) {
	e, err := newEngine(testConfig(3, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := e.stats
	const day = 24 * 3600
	c.egress(ModeEndpoints, 0, Time(2)*1e9, 1000, 10)
	c.egress(ModeEndpointSlices, Time(5)*1e9, Time(998*3600)*1e9, 3_000_000, 7)
	_, b := c.bucket(Time(40*day) * 1e9)
	b[modeIndex(ModeEndpoints)].writes++
	series := c.seriesBuckets()
	if len(series) > MaxSeriesBuckets {
		t.Fatalf("%d buckets", len(series))
	}
	var f, r [2]int64
	var writes int64
	for i, b := range series {
		if b.Second != int64(i)*c.width || b.Seconds() != c.width {
			t.Fatalf("bucket %d: second %d width %d, want %d %d", i, b.Second, b.Seconds(), int64(i)*c.width, c.width)
		}
		f[0] += b.Endpoints.FanoutBytes
		f[1] += b.EndpointSlices.FanoutBytes
		r[0] += b.Endpoints.ResentBytes
		r[1] += b.EndpointSlices.ResentBytes
		writes += b.Endpoints.Writes
	}
	if f != [2]int64{1000, 3_000_000} || r != [2]int64{10, 7} || writes != 1 {
		t.Errorf("sums fanout %v resent %v writes %d, want [1000 3000000] [10 7] 1", f, r, writes)
	}
	last := series[len(series)-1]
	if last.Second+last.Seconds() <= 40*day {
		t.Errorf("the series ends at %d s, before the write at %d s", last.Second+last.Seconds(), 40*day)
	}
}

// The series is live for the whole run, so it keeps less than a chunk spare as it grows
// second by second and after it coarsens, and it holds the buckets in order.
func TestSeriesKeepsLittleSpare(t *testing.T) {
	e, err := newEngine(testConfig(3, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := e.stats
	coarsened := false
	for sec := range int64(MaxSeriesBuckets + 20_000) {
		_, b := c.bucket(Time(sec) * 1e9)
		b[modeIndex(ModeEndpoints)].writes++
		coarsened = coarsened || c.width > 1
		capacity := 0
		for _, chunk := range c.series.chunks {
			capacity += cap(chunk)
		}
		if spare := capacity - c.series.len(); spare >= listChunk {
			t.Fatalf("at second %d: %d buckets of capacity %d", sec, c.series.len(), capacity)
		}
	}
	if !coarsened {
		t.Fatal("the series never coarsened")
	}
	var writes int64
	for i, b := range c.seriesBuckets() {
		if b.Second != int64(i)*c.width {
			t.Fatalf("bucket %d starts at %d s, want %d", i, b.Second, int64(i)*c.width)
		}
		writes += b.Endpoints.Writes
	}
	if writes != MaxSeriesBuckets+20_000 {
		t.Errorf("%d writes in the series, want %d", writes, MaxSeriesBuckets+20_000)
	}
}

// Bytes re-sent to closed watchers are kept apart from the buckets (few have any): each must
// still land in the bucket of its second, by mode, and count in the phase's peak egress.
func TestResentBytesKeepTheirBucket(t *testing.T) {
	e, err := newEngine(testConfig(3, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := e.stats
	c.egress(ModeEndpoints, Time(3)*1e9, Time(3)*1e9, 100, 5_000)
	c.egress(ModeEndpointSlices, Time(3)*1e9, Time(3)*1e9, 200, 0)
	c.egress(ModeEndpointSlices, Time(7)*1e9, Time(9)*1e9, 0, 4_000) // two seconds: 2,000 each
	series := c.seriesBuckets()
	want := map[int][2]int64{3: {5_000, 0}, 7: {0, 2_000}, 8: {0, 2_000}}
	for i, b := range series {
		if got := [2]int64{b.Endpoints.ResentBytes, b.EndpointSlices.ResentBytes}; got != want[i] {
			t.Errorf("second %d: resent %v, want %v", i, got, want[i])
		}
	}
	if got := series[3].Endpoints.FanoutBytes + series[3].EndpointSlices.FanoutBytes; got != 300 {
		t.Errorf("second 3: fan-out %d, want 300", got)
	}
	c.phaseEnded(0, 0, Time(10)*1e9)
	if got := c.phases[0].Mode(ModeEndpoints).PeakEgressBytesPerSec; got != 5_100 {
		t.Errorf("peak egress of Endpoints %d B/s, want 5,100 (fan-out and re-sent bytes of second 3)", got)
	}
	if got := c.phases[0].Mode(ModeEndpointSlices).PeakEgressBytesPerSec; got != 2_000 {
		t.Errorf("peak egress of EndpointSlices %d B/s, want 2,000", got)
	}
}
