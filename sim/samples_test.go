package sim

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// floatSummary is the nearest-rank summary of the samples' Seconds() sorted as float64: what
// the collector computed before it kept samples compactly.
func floatSummary(ds []Time) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := make([]float64, len(ds))
	for i, d := range ds {
		s[i] = d.Seconds()
	}
	slices.Sort(s)
	rank := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Latency{Count: int64(len(s)), P50Seconds: rank(0.50), P90Seconds: rank(0.90), P99Seconds: rank(0.99), MaxSeconds: s[len(s)-1]}
}

// TestSummarizerMatchesFloatSort checks the compact samples against sorting float seconds,
// with values on both sides of the 4-byte range (negative, around 2³² ns, minutes).
func TestSummarizerMatchesFloatSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() Time {
		switch rng.IntN(6) {
		case 0:
			return -Time(rng.Int64N(1e9))
		case 1:
			return Time(math.MaxUint32) - 2 + Time(rng.IntN(5))
		case 2:
			return Time(rng.Int64N(600e9))
		default:
			return Time(rng.Int64N(3e9))
		}
	}
	for n := range 40 {
		checkSummary(t, rng.IntN(4)+1, func() int { return rng.IntN(n + 1) }, pick)
	}
}

// checkSummary summarizes parts samples sets, each of size() values from pick, and compares
// the result with a sort of their union as float seconds.
func checkSummary(t *testing.T, parts int, size func() int, pick func() Time) {
	t.Helper()
	var all []Time
	sets := make([]samples, parts)
	for i := range sets {
		for range size() {
			d := pick()
			sets[i].add(d)
			all = append(all, d)
		}
	}
	var z summarizer
	if got, want := z.summarize(sets...), floatSummary(all); got != want {
		t.Fatalf("n=%d: summarize = %+v, want %+v", len(all), got, want)
	}
}

// TestBigSamplesHoldEveryValue adds values of every varint length, and the extremes, and
// requires them back in order, counted right, in no more bytes than their varints take.
func TestBigSamplesHoldEveryValue(t *testing.T) {
	want := []Time{math.MaxUint32 + 1, -1, math.MinInt64, math.MaxInt64, 5e9, 40e9, -3}
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		want = append(want, 1<<32+Time(r.Int64N(1<<uint(1+r.IntN(60)))), -1-Time(r.Int64N(1<<uint(1+r.IntN(62)))))
	}
	var b bigSamples
	bytes := 0
	for i, d := range want {
		b = b.add(d)
		bytes += len(binary.AppendUvarint(nil, bigKey(d)))
		if b.len() != i+1 || len(b) != bytes {
			t.Fatalf("after %d values: len %d, %d bytes, want %d bytes", i+1, b.len(), len(b), bytes)
		}
	}
	if got := slices.Collect(b.all()); !slices.Equal(got, want) {
		t.Fatalf("values differ from those added: %v", got[:10])
	}
	for _, c := range []struct {
		d     Time
		bytes int
	}{{math.MaxUint32 + 1, 1}, {38e9, 5}, {39e9, 6}, {73 * 60e9, 6}, {74 * 60e9, 7}, {6 * 24 * 3600e9, 7}, {-1, 10}} {
		if n := len(bigSamples(nil).add(c.d)); n != c.bytes {
			t.Errorf("%v takes %d bytes, want %d", c.d, n, c.bytes)
		}
	}
}

// TestUvarintIsBinaryUvarint checks uvarint against binary.Uvarint at every offset of random
// bytes (continuation bits dense or sparse, so that varints of 1 to more than 10 bytes, and
// overflowing ones, start there) and of every varint length written.
func TestUvarintIsBinaryUvarint(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var b []byte
	for range 4000 {
		c := byte(r.IntN(256))
		if r.IntN(4) == 0 {
			c &^= 0x80
		} else if r.IntN(3) == 0 {
			c |= 0x80
		}
		b = append(b, c)
	}
	for shift := range 64 {
		b = binary.AppendUvarint(b, 1<<shift|r.Uint64N(1<<shift))
	}
	b = binary.AppendUvarint(b, math.MaxUint64)
	fast := 0
	for i := range b {
		k, n := uvarint(b[i:])
		wantK, wantN := binary.Uvarint(b[i:])
		if k != wantK || n != wantN {
			t.Fatalf("offset %d (% x): uvarint %d, %d; binary.Uvarint %d, %d", i, b[i:min(i+11, len(b))], k, n, wantK, wantN)
		}
		if len(b)-i >= 8 && wantN > 0 && wantN <= 8 {
			fast++
		}
	}
	if fast < 3000 {
		t.Fatalf("only %d offsets took the one-load path", fast)
	}
}

// TestLatencyLogPhases checks that a log's phase part holds the samples added since the
// phase changed, and nothing for another phase.
func TestLatencyLogPhases(t *testing.T) {
	var l latencyLog
	if s := l.ofPhase(0); s.len() != 0 {
		t.Fatalf("empty log: phase 0 has %d samples", s.len())
	}
	l.add(1, 0)
	l.add(5e9, 0)
	l.add(2, 2)
	l.add(-3, 2)
	l.add(4, 2)
	var z summarizer
	if got := z.summarize(l.ofPhase(2)); got != floatSummary([]Time{2, -3, 4}) {
		t.Errorf("phase 2 = %+v", got)
	}
	for _, i := range []int{0, 1, 3} {
		if s := l.ofPhase(i); s.len() != 0 {
			t.Errorf("phase %d has %d samples, want 0 (only the last phase's are marked)", i, s.len())
		}
	}
	if got := z.summarize(l.all()); got != floatSummary([]Time{1, 5e9, 2, -3, 4}) {
		t.Errorf("all = %+v", got)
	}
}

// TestSampleRunsHoldEverySample adds a few chunks' worth of runs, big values among them,
// long runs (over 255, which split), repeats that are not in a row and single values, and
// requires the runs to summarise as the same samples one by one do and as sorting them as
// float seconds does, every chunk but the last full.
func TestSampleRunsHoldEverySample(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var r sampleRuns
	var one samples
	var all []Time
	add := func(d Time) {
		r.add(d)
		one.add(d)
		all = append(all, d)
	}
	for i := range 3 * sampleChunk {
		d := Time(rng.Int64N(3e9))
		switch i % 5 {
		case 0:
			d = Time(math.MaxUint32) + Time(rng.Int64N(1e9)) // kept in big
		case 1:
			d = -Time(rng.Int64N(1e6)) // big too
		case 2:
			d = Time(rng.IntN(4)) // few distinct values, not in a row
		}
		for range 1 + rng.IntN(3) + (i%97/96)*600 { // a run of 600 every 97
			add(d)
		}
	}
	runs, count := 0, 0
	for i, p := range r.parts {
		if len(p.small) != len(p.smallN) || len(p.big) != len(p.bigN) {
			t.Fatalf("chunk %d: %d small values with %d counts, %d big with %d", i, len(p.small), len(p.smallN), len(p.big), len(p.bigN))
		}
		if i < len(r.parts)-1 && len(p.small) != sampleChunk && len(p.big) != sampleChunk {
			t.Errorf("chunk %d of %d holds %d small and %d big runs, want %d of either", i, len(r.parts), len(p.small), len(p.big), sampleChunk)
		}
		runs += len(p.small) + len(p.big)
		for _, k := range p.smallN {
			count += int(k)
		}
		for _, k := range p.bigN {
			count += int(k)
		}
	}
	if count != len(all) || len(r.parts) < 2 {
		t.Errorf("%d chunks hold %d samples, want at least 2 holding %d", len(r.parts), count, len(all))
	}
	if runs >= len(all)/2 {
		t.Errorf("%d samples in %d runs: repeats in a row were not merged", len(all), runs)
	}
	var z summarizer
	got, want := z.summarizeRuns(r.parts...), floatSummary(all)
	if got != want {
		t.Errorf("runs summarise to %+v, sorted floats to %+v", got, want)
	}
	if b := z.summarize(one); got != b {
		t.Errorf("runs summarise to %+v, one multiset to %+v", got, b)
	}
}

// TestSummarizeRunsMatchesFloatSort checks summarizeRuns against sorting float seconds on
// small multisets with many repeats, split over several chunk lists, and on none at all.
func TestSummarizeRunsMatchesFloatSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var z summarizer
	if got := z.summarizeRuns(); got != (Latency{}) {
		t.Fatalf("no runs = %+v, want zero", got)
	}
	for n := range 60 {
		lists := make([]sampleRuns, 1+rng.IntN(3))
		var all []Time
		var parts []runChunk
		for range n {
			d := Time(rng.IntN(5)) * 1e9 // 0 to 4 s: the last one over 4.29 s is big
			if rng.IntN(4) == 0 {
				d = -d
			}
			lists[rng.IntN(len(lists))].add(d)
			all = append(all, d)
		}
		for _, l := range lists {
			parts = append(parts, l.parts...)
		}
		if got, want := z.summarizeRuns(parts...), floatSummary(all); got != want {
			t.Fatalf("n=%d: summarizeRuns = %+v, want %+v", n, got, want)
		}
	}
}

// TestSummarizeRunsLarge checks summarizeRuns on more runs than it copies at once, against
// sorting float seconds: values spread evenly, values crowded into one histogram bucket
// beside a few far ones (narrowed more than once), and one value taking most ranks.
func TestSummarizeRunsLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		name string
		pick func(i int) Time
	}{
		{"spread", func(int) Time { return Time(rng.Int64N(20e9)) - 1e9 }},
		{"crowded", func(i int) Time {
			if i%1000 == 0 {
				return Time(rng.Int64N(1e12)) // far: the crowd falls in one first bucket
			}
			return 5e9 + Time(rng.Int64N(1e6))
		}},
		{"one value", func(i int) Time {
			if i%2 == 0 {
				return Time(rng.Int64N(9e9))
			}
			return 7e9
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lists [3]sampleRuns
			var all []Time
			for i := 0; len(all) < 3*selectCopyMax; i++ {
				d := tc.pick(i)
				for range 1 + rng.IntN(2) {
					lists[i%len(lists)].add(d)
					all = append(all, d)
				}
			}
			var parts []runChunk
			runs := 0
			for _, l := range lists {
				parts = append(parts, l.parts...)
				for _, p := range l.parts {
					runs += len(p.small) + len(p.big)
				}
			}
			if runs <= selectCopyMax {
				t.Fatalf("%d runs: the test wants more than %d", runs, selectCopyMax)
			}
			var z summarizer
			if got, want := z.summarizeRuns(parts...), floatSummary(all); got != want {
				t.Errorf("summarizeRuns = %+v, want %+v", got, want)
			}
			if len(z.runs) > selectCopyMax {
				t.Errorf("copied %d runs, want at most %d", len(z.runs), selectCopyMax)
			}
		})
	}
}

// TestNthSmallest checks quickselect against a sort on inputs that defeat naive pivots:
// sorted, reversed, constant, few distinct values, organ pipe, random; every rank.
func TestNthSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name  string
		shape func(i, n int) uint32
	}{
		{"sorted", func(i, n int) uint32 { return uint32(i) }},
		{"reversed", func(i, n int) uint32 { return uint32(n - i) }},
		{"constant", func(i, n int) uint32 { return 7 }},
		{"few", func(i, n int) uint32 { return uint32(rng.IntN(3)) }},
		{"organpipe", func(i, n int) uint32 { return uint32(min(i, n-i)) }},
		{"random", func(i, n int) uint32 { return rng.Uint32() }},
	} {
		name, shape := tc.name, tc.shape
		for _, n := range []int{1, 2, 17, 100, 1000, 4097} {
			in := make([]uint32, n)
			for i := range in {
				in[i] = shape(i, n)
			}
			sorted := slices.Sorted(slices.Values(in))
			for _, k := range []int{0, n / 2, n * 9 / 10, n - 1, rng.IntN(n)} {
				a := slices.Clone(in)
				nthSmallest(a, k)
				if a[k] != sorted[k] {
					t.Fatalf("%s n=%d k=%d: a[k] = %d, want %d", name, n, k, a[k], sorted[k])
				}
				for i := range a {
					if i < k && a[i] > a[k] || i > k && a[i] < a[k] {
						t.Fatalf("%s n=%d k=%d: a[%d] = %d is on the wrong side of %d", name, n, k, i, a[i], a[k])
					}
				}
				if slices.Sort(a); !slices.Equal(a, sorted) {
					t.Fatalf("%s n=%d k=%d: not a permutation of the input", name, n, k)
				}
			}
		}
	}
}

// TestSummarizerMatchesFloatSortLarge is TestSummarizerMatchesFloatSort on unions large
// enough for quickselect, with many equal values.
func TestSummarizerMatchesFloatSortLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func() Time {
		switch rng.IntN(10) {
		case 0:
			return -Time(rng.Int64N(1e9))
		case 1:
			return Time(5e9 + rng.Int64N(600e9))
		case 2, 3:
			return Time(1e6 * rng.Int64N(4)) // equal values
		default:
			return Time(rng.Int64N(4e9))
		}
	}
	for _, n := range []int{50, 1000, 30000} {
		checkSummary(t, 3, func() int { return n }, pick)
	}
}

// TestSummarizerMatchesFloatSortMostlyBig: a run whose writes queue for seconds has most of
// its samples past the 4-byte range, and every rank may fall among them.
func TestSummarizerMatchesFloatSortMostlyBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func() Time {
		switch rng.IntN(20) {
		case 0:
			return -Time(rng.Int64N(1e9))
		case 1:
			return Time(rng.Int64N(4e9))
		case 2, 3, 4:
			return Time(5e9 + 1e8*rng.Int64N(3)) // equal values
		default:
			return Time(5e9 + rng.Int64N(600e9))
		}
	}
	for _, n := range []int{1, 20, 1000, 30000} {
		checkSummary(t, 2, func() int { return n }, pick)
	}
}

// TestSelectRanksMatchesFloatSort checks the histogram selection (summarize's path for
// unions over selectCopyMax values) on its own, at every size, on shapes that make it narrow
// a range more than once: outliers across the whole int64 range that put most values in one
// bucket of the first pass, one value repeated, values one apart, and a dense cluster of
// more than selectCopyMax values in one bucket.
func TestSelectRanksMatchesFloatSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	shapes := []struct {
		name string
		pick func() Time
	}{
		{"outliers", func() Time {
			switch rng.IntN(50) {
			case 0:
				return Time(math.MaxInt64 - rng.Int64N(1e6))
			case 1:
				return Time(math.MinInt64 + rng.Int64N(1e6))
			default:
				return Time(rng.Int64N(1e6))
			}
		}},
		{"constant", func() Time { return 42 }},
		{"consecutive", func() Time { return Time(5e9 + rng.Int64N(3)) }},
		{"cluster", func() Time {
			if rng.IntN(10) == 0 {
				return Time(rng.Int64N(1e12))
			}
			return Time(7e9 + rng.Int64N(1e5))
		}},
		{"mixed", func() Time {
			switch rng.IntN(4) {
			case 0:
				return -Time(rng.Int64N(1e9))
			case 1:
				return Time(rng.Int64N(4e9))
			default:
				return Time(4e9 + rng.Int64N(600e9))
			}
		}},
	}
	for _, sh := range shapes {
		for _, n := range []int{1, 2, 3, 100, 5000, 3 * selectCopyMax} {
			var all []Time
			parts := make([]samples, 3)
			for i := range n {
				d := sh.pick()
				parts[i%3].add(d)
				all = append(all, d)
			}
			var z summarizer
			if got, want := z.selectRanks(parts, n), floatSummary(all); got != want {
				t.Fatalf("%s n=%d: selectRanks = %+v, want %+v", sh.name, n, got, want)
			}
			if n > selectCopyMax {
				if got, want := z.summarize(parts...), floatSummary(all); got != want {
					t.Fatalf("%s n=%d: summarize = %+v, want %+v", sh.name, n, got, want)
				}
			}
		}
	}
}

// TestSamplesGrowByAQuarter adds values of both kinds to samples and checks that each list
// keeps every value in order and never holds more than a quarter and four elements of room
// beyond it (append's doubling left a third of a log empty).
func TestSamplesGrowByAQuarter(t *testing.T) {
	var s samples
	var small []uint32
	var big []Time
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		d := Time(r.Int64N(1 << 33)) // one in two over 4.29 s
		s.add(d)
		if d <= math.MaxUint32 {
			small = append(small, uint32(d))
		} else {
			big = append(big, d)
		}
		if !slices.Equal(s.small, small) || !slices.Equal(slices.Collect(s.big.all()), big) || s.big.len() != len(big) {
			t.Fatalf("after %d values the lists differ from the values added", i+1)
		}
		if l := len(s.small); cap(s.small) > l+l/4+4 {
			t.Fatalf("after %d values the small list holds %d in room for %d", i+1, l, cap(s.small))
		}
		// The big list grows by a quarter and 16 bytes when it has room for less than a
		// varint of 10 bytes.
		if l := len(s.big); cap(s.big) > l+l/4+16+binary.MaxVarintLen64 {
			t.Fatalf("after %d values the big list holds %d bytes in room for %d", i+1, l, cap(s.big))
		}
	}
}
