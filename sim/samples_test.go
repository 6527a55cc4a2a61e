package sim

import (
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
	if got := z.summarize(l.samples); got != floatSummary([]Time{1, 5e9, 2, -3, 4}) {
		t.Errorf("all = %+v", got)
	}
}

// TestSampleChunksHoldEverySample adds a few chunks' worth of samples, big ones among them,
// and requires the chunks to summarise as one multiset of the same samples does, every
// chunk but the last full.
func TestSampleChunksHoldEverySample(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var c sampleChunks
	var one samples
	n := 4*sampleChunk + 77
	for i := range n {
		d := Time(rng.Int64N(3e9))
		if i%3 == 0 {
			d = Time(math.MaxUint32) + Time(i) // kept in big
		}
		c.add(d)
		one.add(d)
	}
	got, count := 0, 0
	for i, p := range c.parts {
		if i < len(c.parts)-1 && len(p.small) != sampleChunk && len(p.big) != sampleChunk {
			t.Errorf("chunk %d of %d holds %d small and %d big values, want %d of either", i, len(c.parts), len(p.small), len(p.big), sampleChunk)
		}
		got += p.len()
		count++
	}
	// A chunk holds at most sampleChunk values of each kind.
	if got != n || count < 3 {
		t.Errorf("%d chunks hold %d samples, want at least 3 holding %d", count, got, n)
	}
	var z summarizer
	if a, b := z.summarize(c.parts...), z.summarize(one); a != b {
		t.Errorf("chunks summarise to %+v, one multiset to %+v", a, b)
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
