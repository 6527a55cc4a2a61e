package sim

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// samples is a multiset of durations, kept exactly in 4 bytes each when they fit: a run
// records one per write and per programmed change, millions of them, and summarises them
// only at phase ends. Values in [0, 2³²) ns (up to 4.29 s) go to small, any other to big.
type samples struct {
	small []uint32
	big   []Time
}

// add adds d to the multiset.
func (s *samples) add(d Time) {
	if d >= 0 && d <= math.MaxUint32 {
		s.small = append(s.small, uint32(d))
	} else {
		s.big = append(s.big, d)
	}
}

// len returns the number of samples.
func (s *samples) len() int { return len(s.small) + len(s.big) }

// sampleChunks is a samples multiset that grows by chunks of sampleChunk values, for the
// few that take a sample per programmed change (millions): appending to one slice copies it
// each time it grows by a quarter, five times its final size in all.
type sampleChunks struct {
	// parts are the chunks, the last one filling: every part but the last has sampleChunk
	// small or sampleChunk big values.
	parts []samples
}

// sampleChunk is the number of values of a chunk (32 KB small, 64 KB big).
const sampleChunk = 1 << 13

// add adds d to the multiset.
func (c *sampleChunks) add(d Time) {
	small := d >= 0 && d <= math.MaxUint32
	if len(c.parts) == 0 {
		c.parts = append(c.parts, samples{}) // grows by append: most runs take few samples
	}
	last := &c.parts[len(c.parts)-1]
	if n := len(last.big); small {
		n = len(last.small)
		if n >= sampleChunk {
			c.parts = append(c.parts, samples{small: make([]uint32, 0, sampleChunk)})
		}
	} else if n >= sampleChunk {
		c.parts = append(c.parts, samples{big: make([]Time, 0, sampleChunk)})
	}
	last = &c.parts[len(c.parts)-1]
	switch {
	case len(c.parts) == 1:
	case small && last.small == nil:
		last.small = make([]uint32, 0, sampleChunk)
	case !small && last.big == nil:
		last.big = make([]Time, 0, sampleChunk)
	}
	last.add(d)
}

// latencyLog is one Service's propagation samples in one mode, over the whole run, with the
// start of the current phase's part: the phase's summary is made from every Service's part.
type latencyLog struct {
	samples
	// phase is the phase of the last sample (meaningless while there is none); smallFrom
	// and bigFrom are where that phase's samples start.
	phase              int32
	smallFrom, bigFrom int32
}

// add adds d as a sample of phase.
func (l *latencyLog) add(d Time, phase int) {
	if l.phase != int32(phase) || l.len() == 0 {
		l.phase = int32(phase)
		l.smallFrom, l.bigFrom = int32(len(l.small)), int32(len(l.big))
	}
	l.samples.add(d)
}

// ofPhase returns the samples of phase i (empty unless i is the phase of the last sample).
func (l *latencyLog) ofPhase(i int) samples {
	if l.len() == 0 || l.phase != int32(i) {
		return samples{}
	}
	return samples{small: l.small[l.smallFrom:], big: l.big[l.bigFrom:]}
}

// summarizer computes latency percentiles from samples, reusing its buffers across calls
// (keep one only as long as a batch of calls: the buffers grow to the largest union).
type summarizer struct {
	small []uint32
	big   []Time
}

// summarize returns the nearest-rank percentiles of the union of parts, in seconds. It gives
// what sorting every sample's Seconds() would: Seconds is monotonic, so the rank picks the
// same sample. It selects the ranks instead of sorting the union: phases of large runs
// summarise millions of samples, and sorting them was 2% of a run of 50,000 Services. The big
// values are selected too: a run whose writes queue for seconds has many (sorting them was
// 1.5% of many-services).
func (z *summarizer) summarize(parts ...samples) Latency {
	var small, big int
	for _, p := range parts {
		small += len(p.small)
		big += len(p.big)
	}
	z.small, z.big = slices.Grow(z.small[:0], small), slices.Grow(z.big[:0], big)
	for _, p := range parts {
		z.small = append(z.small, p.small...)
		z.big = append(z.big, p.big...)
	}
	n := len(z.small) + len(z.big)
	if n == 0 {
		return Latency{}
	}
	// Negative big values rank before every small one, the others after: put them first.
	neg := 0
	for i, v := range z.big {
		if v < 0 {
			z.big[neg], z.big[i] = v, z.big[neg]
			neg++
		}
	}
	negative, over := z.big[:neg], z.big[neg:]
	rank := func(q float64) int {
		return max(0, min(int(math.Ceil(q*float64(n)))-1, n-1))
	}
	// From the highest rank down, each selected among the values below the last one of its
	// part.
	ranks := [4]int{n - 1, rank(0.99), rank(0.90), rank(0.50)}
	var vals [4]float64
	smallHi, negHi, overHi := len(z.small), len(negative), len(over)
	for r, i := range ranks {
		var v Time
		switch {
		case i < neg:
			nthSmallest(negative[:negHi], i)
			v, negHi = negative[i], i+1
		case i < neg+len(z.small):
			k := i - neg
			nthSmallest(z.small[:smallHi], k)
			v, smallHi = Time(z.small[k]), k+1
		default:
			k := i - neg - len(z.small)
			nthSmallest(over[:overHi], k)
			v, overHi = over[k], k+1
		}
		vals[r] = v.Seconds()
	}
	return Latency{Count: int64(n), P50Seconds: vals[3], P90Seconds: vals[2], P99Seconds: vals[1], MaxSeconds: vals[0]}
}

// nthSmallest reorders a so that a[k] holds the value a sorted would hold there, with no
// greater value before it and no smaller one after it (quickselect with Hoare's partition
// around the middle element; a range that has not shrunk to 16 values after 2·log2(len(a))
// rounds is sorted instead).
func nthSmallest[T cmp.Ordered](a []T, k int) {
	lo, hi := 0, len(a) // [lo, hi) holds position k
	for rounds := 2 * bits.Len(uint(len(a))); hi-lo > 16; rounds-- {
		if rounds == 0 {
			slices.Sort(a[lo:hi])
			return
		}
		pivot := a[lo+(hi-1-lo)/2]
		i, j := lo-1, hi
		for {
			for i++; a[i] < pivot; i++ {
			}
			for j--; a[j] > pivot; j-- {
			}
			if i >= j {
				break
			}
			a[i], a[j] = a[j], a[i]
		}
		// a[lo..j] <= pivot <= a[j+1..hi-1], and lo <= j < hi-1.
		if k <= j {
			hi = j + 1
		} else {
			lo = j + 1
		}
	}
	slices.Sort(a[lo:hi])
}
