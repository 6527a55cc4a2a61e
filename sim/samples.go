package sim

import (
	"cmp"
	"encoding/binary"
	"iter"
	"math"
	"math/bits"
	"slices"
)

// samples is a multiset of durations, kept exactly in 4 bytes each when they fit: a run
// records one per write and per programmed change, millions of them, and summarises them
// only at phase ends. Values in [0, 2³²) ns (up to 4.29 s) go to small, any other to big,
// as varints (bigSamples).
type samples struct {
	small []uint32
	big   bigSamples
}

// add adds d to the multiset.
func (s *samples) add(d Time) {
	if d >= 0 && d <= math.MaxUint32 {
		s.small = appendGrowingByAQuarter(s.small, uint32(d))
	} else {
		s.big = s.big.add(d)
	}
}

// appendGrowingByAQuarter appends v to list, growing a full list by a quarter and four
// elements where append doubles it, for the many short lists a run keeps long: two latency
// logs a Service, most of a few dozen samples, until its end (doubling left them a third
// empty at the end of many-services, 1.9 MB, when its heap is largest), and the pods of each
// node. It allocates about as often.
func appendGrowingByAQuarter[T any](list []T, v T) []T {
	if len(list) == cap(list) {
		grown := make([]T, len(list), len(list)+len(list)/4+4)
		copy(grown, list)
		list = grown
	}
	return append(list, v)
}

// bigSamples holds the samples outside [0, 2³²) ns as varints (binary.AppendUvarint) of
// bigKey: 5 bytes up to 38 s, 6 up to 73 minutes, 7 up to 6 days, where an int64 took 8.
// Most are of writes that queued for seconds: many-services keeps some 250,000 (2.3 MB as
// int64s) at its peak.
type bigSamples []byte

// bigKey maps a sample outside [0, 2³²) to an unsigned value, small for the common ones:
// d - 2³² for d ≥ 2³² (below 2⁶³ - 2³²), d's two's complement for a negative d (2⁶³ and
// over, 10 bytes as a varint: no run should have one).
func bigKey(d Time) uint64 {
	if d < 0 {
		return uint64(d)
	}
	return uint64(d) - 1<<32
}

// bigSample is the sample of key k (bigKey's inverse).
func bigSample(k uint64) Time {
	if k >= 1<<63 {
		return Time(k)
	}
	return Time(k + 1<<32)
}

// add appends d, growing a list with less room than the longest varint by a quarter and 16
// bytes where append would double it (as appendGrowingByAQuarter).
func (b bigSamples) add(d Time) bigSamples {
	if cap(b)-len(b) < binary.MaxVarintLen64 {
		grown := make(bigSamples, len(b), len(b)+len(b)/4+16)
		copy(grown, b)
		b = grown
	}
	return binary.AppendUvarint(b, bigKey(d))
}

// len returns the number of samples: a varint's last byte is the one below 0x80. They are
// counted eight bytes at a time (the summaries of a run whose writes queue for seconds count
// millions).
func (b bigSamples) len() int {
	n := 0
	for ; len(b) >= 8; b = b[8:] {
		n += bits.OnesCount64(^binary.LittleEndian.Uint64(b) & varintEnds)
	}
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// varintEnds has the top bit of each byte of a word: a varint's byte without it is its last.
const varintEnds = 0x8080808080808080

// uvarint is binary.Uvarint for the varints of bigSamples: with eight bytes left, it finds
// the varint's last byte in one load and gathers its 7-bit groups without a loop (a big
// sample takes 5 bytes, and decoding them byte by byte was 1.4% of many-services); nearer the
// end, and for a varint longer than 8 bytes, it is binary.Uvarint.
func uvarint(b []byte) (uint64, int) {
	if len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		if ends := ^w & varintEnds; ends != 0 {
			n := bits.TrailingZeros64(ends)/8 + 1
			w &= math.MaxUint64 >> (64 - 8*n)
			// Byte k's seven bits move k places down, to bits 7k to 7k+6; its top bit
			// (moved to 7k+7) is masked off.
			x := w&0x7f | w>>1&(0x7f<<7) | w>>2&(0x7f<<14) | w>>3&(0x7f<<21) |
				w>>4&(0x7f<<28) | w>>5&(0x7f<<35) | w>>6&(0x7f<<42) | w>>7&(0x7f<<49)
			return x, n
		}
	}
	return binary.Uvarint(b)
}

// all yields the samples in the order added.
func (b bigSamples) all() iter.Seq[Time] {
	return func(yield func(Time) bool) {
		for len(b) > 0 {
			k, n := uvarint(b)
			if n <= 0 || !yield(bigSample(k)) {
				return
			}
			b = b[n:]
		}
	}
}

// len returns the number of samples.
func (s *samples) len() int { return len(s.small) + s.big.len() }

// sampleRuns is a multiset of samples kept as runs, a value and how many times it was added
// in a row, in chunks of sampleChunk runs: kube-proxy's network programming latencies, which
// a large run takes millions of. A sync programs every change it checked out at one time,
// and a change's trigger time is a whole second (a Ready condition's lastTransitionTime), so
// the changes a sync programs for one trigger second share their latency, and mostly come
// in a row: many-services adds 509k samples in 135k runs, cluster-day 1.3M in 275k. A run
// costs 5 bytes, or 9 over 4.29 s, where each sample cost 4 or 8 (8 for most of a large
// run's, which queue for seconds), and chunks are not copied as they grow.
type sampleRuns struct {
	// parts are the chunks, the last one filling: every part but the last has sampleChunk
	// small or sampleChunk big runs.
	parts []runChunk
}

// runChunk holds runs of samples: small[i] added smallN[i] times, big[i] bigN[i] times.
type runChunk struct {
	small  []uint32
	smallN []uint8
	big    []Time
	bigN   []uint8
}

// sampleChunk is the number of runs of a chunk (40 KB small, 72 KB big).
const sampleChunk = 1 << 13

// add adds d to the multiset.
func (r *sampleRuns) add(d Time) {
	small := d >= 0 && d <= math.MaxUint32
	if len(r.parts) == 0 {
		r.parts = append(r.parts, runChunk{}) // grows by append: most runs take few samples
	}
	last := &r.parts[len(r.parts)-1]
	// A value equal to the last run's of its kind adds to that run (the multiset has no
	// order), up to 255 in a run.
	if n := len(last.small); small && n > 0 && last.small[n-1] == uint32(d) && last.smallN[n-1] < math.MaxUint8 {
		last.smallN[n-1]++
		return
	}
	if n := len(last.big); !small && n > 0 && last.big[n-1] == d && last.bigN[n-1] < math.MaxUint8 {
		last.bigN[n-1]++
		return
	}
	if n := len(last.big); small {
		n = len(last.small)
		if n >= sampleChunk {
			r.parts = append(r.parts, runChunk{small: make([]uint32, 0, sampleChunk), smallN: make([]uint8, 0, sampleChunk)})
		}
	} else if n >= sampleChunk {
		r.parts = append(r.parts, runChunk{big: make([]Time, 0, sampleChunk), bigN: make([]uint8, 0, sampleChunk)})
	}
	last = &r.parts[len(r.parts)-1]
	switch {
	case len(r.parts) == 1:
	case small && last.small == nil:
		last.small, last.smallN = make([]uint32, 0, sampleChunk), make([]uint8, 0, sampleChunk)
	case !small && last.big == nil:
		last.big, last.bigN = make([]Time, 0, sampleChunk), make([]uint8, 0, sampleChunk)
	}
	if small {
		last.small, last.smallN = append(last.small, uint32(d)), append(last.smallN, 1)
	} else {
		last.big, last.bigN = append(last.big, d), append(last.bigN, 1)
	}
}

// keyRun is a run with its value as a sampleKey, for summarizeRuns.
type keyRun struct {
	key uint64
	n   int
}

// summarizeRuns returns the nearest-rank percentiles of the union of parts, in seconds: what
// summarize returns for the same samples one by one. Up to selectCopyMax runs are copied and
// sorted by value, and the ranks found by counting along them; more are narrowed down as
// selectRanks does (runRank), so that summaries at the end of a large run, when the heap is
// largest, copy at most that many.
func (z *summarizer) summarizeRuns(parts ...runChunk) Latency {
	n, runs := 0, 0
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for k, c := range runKeys(parts) {
		n += c
		runs++
		lo, hi = min(lo, k), max(hi, k)
	}
	if n == 0 {
		return Latency{}
	}
	ranks := percentileRanks(n)
	var keys [4]uint64
	if runs <= selectCopyMax {
		sorted := z.copyRuns(parts, lo, hi, runs)
		// The ranks descend (maximum first): take them from the last, the lowest, up.
		r, below := len(ranks)-1, 0
		for _, run := range sorted {
			below += run.n
			for ; r >= 0 && ranks[r] < below; r-- {
				keys[r] = run.key
			}
		}
	} else {
		for r, rank := range ranks {
			keys[r] = z.runRank(parts, lo, hi, rank)
		}
	}
	var vals [4]float64
	for r, k := range keys {
		vals[r] = keySample(k).Seconds()
	}
	return Latency{Count: int64(n), P50Seconds: vals[3], P90Seconds: vals[2], P99Seconds: vals[1], MaxSeconds: vals[0]}
}

// runRank returns the key of rank k among the samples of parts with keys in [lo, hi]: a
// weighted histogram pass finds the bucket of keys that holds the rank, until the bucket is
// one key wide or has few enough runs to copy and sort.
func (z *summarizer) runRank(parts []runChunk, lo, hi uint64, k int) uint64 {
	if z.count == nil {
		z.first, z.count = make([]int, 1<<histogramBits), make([]int, 1<<histogramBits)
		z.collect = make([]bool, 1<<histogramBits)
	}
	weights, runs := z.count, z.first
	for lo < hi {
		shift := uint(max(bits.Len64(hi-lo)-histogramBits, 0))
		clear(weights)
		clear(runs)
		for key, c := range runKeys(parts) {
			if key >= lo && key <= hi {
				b := (key - lo) >> shift
				weights[b] += c
				runs[b]++
			}
		}
		b, within := bucketOf(weights, k)
		lo, hi = bucketRange(lo, hi, b, shift)
		k = within
		if lo < hi && runs[b] <= selectCopyMax {
			below := 0
			for _, run := range z.copyRuns(parts, lo, hi, runs[b]) {
				if below += run.n; k < below {
					return run.key
				}
			}
		}
	}
	return lo
}

// copyRuns returns the n runs of parts with keys in [lo, hi], sorted by key, in z.runs.
func (z *summarizer) copyRuns(parts []runChunk, lo, hi uint64, n int) []keyRun {
	runs := slices.Grow(z.runs[:0], n)
	for k, c := range runKeys(parts) {
		if k >= lo && k <= hi {
			runs = append(runs, keyRun{k, c})
		}
	}
	slices.SortFunc(runs, func(a, b keyRun) int { return cmp.Compare(a.key, b.key) })
	z.runs = runs
	return runs
}

// runKeys yields the key and the length of every run of parts.
func runKeys(parts []runChunk) iter.Seq2[uint64, int] {
	return func(yield func(uint64, int) bool) {
		for _, p := range parts {
			for i, v := range p.small {
				if !yield(sampleKey(Time(v)), int(p.smallN[i])) {
					return
				}
			}
			for i, v := range p.big {
				if !yield(sampleKey(v), int(p.bigN[i])) {
					return
				}
			}
		}
	}
}

// latencyLog is one Service's propagation samples in one mode, over the whole run, with the
// start of the current phase's part: the phase's summary is made from every Service's part.
// It keeps samples' two lists but for the big values' header, made on the first big value:
// most Services have none, and a run keeps two logs a Service (a log is 48 bytes, not 64).
type latencyLog struct {
	small []uint32
	big   *bigSamples
	// phase is the phase of the last sample (meaningless while there is none); smallFrom
	// and bigFrom are where that phase's samples start (bigFrom in bytes).
	phase              int32
	smallFrom, bigFrom int32
}

// all returns every sample of the log.
func (l *latencyLog) all() samples {
	s := samples{small: l.small}
	if l.big != nil {
		s.big = *l.big
	}
	return s
}

// add adds d as a sample of phase.
func (l *latencyLog) add(d Time, phase int) {
	s := l.all()
	if l.phase != int32(phase) || len(s.small)+len(s.big) == 0 {
		l.phase = int32(phase)
		l.smallFrom, l.bigFrom = int32(len(s.small)), int32(len(s.big))
	}
	s.add(d)
	l.small = s.small
	if s.big != nil {
		if l.big == nil {
			l.big = new(bigSamples)
		}
		*l.big = s.big
	}
}

// ofPhase returns the samples of phase i (empty unless i is the phase of the last sample).
func (l *latencyLog) ofPhase(i int) samples {
	s := l.all()
	if len(s.small)+len(s.big) == 0 || l.phase != int32(i) {
		return samples{}
	}
	return samples{small: s.small[l.smallFrom:], big: s.big[l.bigFrom:]}
}

// summarizer computes latency percentiles from samples, reusing its buffers across calls
// (keep one only as long as a batch of calls: the buffers grow to the largest union a call
// copies, at most selectCopyMax values, and the histograms).
type summarizer struct {
	small []uint32
	big   []Time
	// first, count, collect and keys are selectRanks' (unions of more than selectCopyMax
	// values): the first and the last histogram, the buckets to copy and the copies.
	first, count []int
	collect      []bool
	keys         []uint64
	// runs is summarizeRuns' copy of the runs.
	runs []keyRun
}

// selectCopyMax is the largest union summarize copies to select its ranks in place; a larger
// one is selected by histogram passes over the parts (selectRanks), which copy only the
// values of the buckets the ranks fall in: the summaries of a large run's millions of
// samples made a copy of them all at every phase end and at the end of the run, tens of MB
// of garbage at the time the heap is largest.
const selectCopyMax = 1 << 15

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
		big += p.big.len()
	}
	if n := small + big; n > selectCopyMax {
		return z.selectRanks(parts, n)
	}
	z.small, z.big = slices.Grow(z.small[:0], small), slices.Grow(z.big[:0], big)
	for _, p := range parts {
		z.small = append(z.small, p.small...)
		z.big = slices.AppendSeq(z.big, p.big.all())
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
	// From the highest rank down, each selected among the values below the last one of its
	// part.
	ranks := percentileRanks(n)
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

// percentileRanks returns the 0-based nearest ranks of the maximum, p99, p90 and p50 of n
// values, in that order.
func percentileRanks(n int) [4]int {
	rank := func(q float64) int {
		return max(0, min(int(math.Ceil(q*float64(n)))-1, n-1))
	}
	return [4]int{n - 1, rank(0.99), rank(0.90), rank(0.50)}
}

// sampleKey maps a sample to an unsigned key of the same order (the sign bit flipped), so
// that negative values rank first; keySample maps it back.
func sampleKey(v Time) uint64 { return uint64(v) ^ 1<<63 }

func keySample(k uint64) Time { return Time(k ^ 1<<63) }

// sampleKeys yields the key of every value of parts.
func sampleKeys(parts []samples) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for _, p := range parts {
			for _, v := range p.small {
				if !yield(sampleKey(Time(v))) {
					return
				}
			}
			for v := range p.big.all() {
				if !yield(sampleKey(v)) {
					return
				}
			}
		}
	}
}

// histogramBits is the number of key bits a histogram pass of selectRanks splits on. At 12,
// four of many-services' ranks fell in buckets of more than selectCopyMax samples and were
// narrowed by passes over all of them; at 16, one is (57 M fewer instructions of the run's
// 656 M of summaries; the counts take 1 MB while a summary is made).
const histogramBits = 16

// selectRanks is summarize for a union of n values too large to copy: each rank is found by
// narrowing a range of keys that holds it. A pass over the parts counts the values of the
// range in 2^histogramBits buckets of equal width; the bucket where the rank falls is the
// next range, until it is one key wide or holds few enough values to copy and select in
// place. A pass finds the keys' range, the first histogram serves all four ranks, and one
// more pass copies the buckets of those it leaves with few values: three passes in all. A
// rank whose bucket holds more narrows on its own, 16 bits a pass (at most three more, as
// the first histogram leaves at most 48 bits), and copies its last range.
func (z *summarizer) selectRanks(parts []samples, n int) Latency {
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for k := range sampleKeys(parts) {
		lo, hi = min(lo, k), max(hi, k)
	}
	if z.count == nil {
		z.first, z.count = make([]int, 1<<histogramBits), make([]int, 1<<histogramBits)
		z.collect = make([]bool, 1<<histogramBits)
	}
	shift := z.histogram(parts, lo, hi)
	first := z.first
	copy(first, z.count)
	var keys [4]uint64 // each rank's key
	var bucket, within [4]int
	var collected []int // the ranks whose buckets are copied
	for r, rank := range percentileRanks(n) {
		b, k := bucketOf(first, rank)
		blo, bhi := bucketRange(lo, hi, b, shift)
		switch {
		case blo == bhi:
			keys[r] = blo
		case first[b] <= selectCopyMax:
			bucket[r], within[r] = b, k
			z.collect[b] = true
			collected = append(collected, r)
		default:
			keys[r] = z.narrow(parts, blo, bhi, k)
		}
	}
	if len(collected) > 0 {
		// Whole buckets are copied, so a rank's position among the copies is the count of
		// the copied buckets before its own plus its rank within it.
		copies := z.keys[:0]
		for k := range sampleKeys(parts) {
			if z.collect[(k-lo)>>shift] {
				copies = append(copies, k)
			}
		}
		z.keys = copies
		var at [4]int
		for _, r := range collected {
			at[r] = within[r]
			for b := range bucket[r] {
				if z.collect[b] {
					at[r] += first[b]
				}
			}
		}
		// From the highest position down, each selected among the copies below the last
		// (the ranks descend, and so do their positions).
		end := len(copies)
		for _, r := range collected {
			nthSmallest(copies[:end], at[r])
			keys[r] = copies[at[r]]
			end = at[r] + 1
		}
		for _, r := range collected {
			z.collect[bucket[r]] = false
		}
	}
	var vals [4]float64
	for r, k := range keys {
		vals[r] = keySample(k).Seconds()
	}
	return Latency{Count: int64(n), P50Seconds: vals[3], P90Seconds: vals[2], P99Seconds: vals[1], MaxSeconds: vals[0]}
}

// bucketOf returns the bucket of count where rank falls, and the rank within it.
func bucketOf(count []int, rank int) (b, within int) {
	for ; rank >= count[b]; b++ {
		rank -= count[b]
	}
	return b, rank
}

// bucketRange returns the keys bucket b of a histogram of [lo, hi] with that shift holds.
func bucketRange(lo, hi uint64, b int, shift uint) (blo, bhi uint64) {
	blo = lo + uint64(b)<<shift
	if w := uint64(1)<<shift - 1; blo <= math.MaxUint64-w {
		hi = min(hi, blo+w) // else the bucket ends past hi
	}
	return blo, hi
}

// narrow returns the key of rank k among the parts' values with keys in [lo, hi], a range
// with more than selectCopyMax of them: histogram passes narrow it until it is one key wide
// or holds few enough values to copy.
func (z *summarizer) narrow(parts []samples, lo, hi uint64, k int) uint64 {
	for {
		shift := z.histogram(parts, lo, hi)
		b, within := bucketOf(z.count, k)
		in := z.count[b]
		lo, hi = bucketRange(lo, hi, b, shift)
		k = within
		if lo == hi {
			return lo
		}
		if in <= selectCopyMax {
			return z.selectInRange(parts, lo, hi, k)
		}
	}
}

// histogram counts the parts' values with keys in [lo, hi] into z.count by bucket, bucket b
// holding keys lo + b<<shift to lo + (b+1)<<shift - 1, and returns shift: the smallest that
// puts hi in the last bucket or before.
func (z *summarizer) histogram(parts []samples, lo, hi uint64) (shift uint) {
	shift = uint(max(bits.Len64(hi-lo)-histogramBits, 0))
	clear(z.count)
	count := z.count[:1<<histogramBits]
	for k := range sampleKeys(parts) {
		if k >= lo && k <= hi {
			count[(k-lo)>>shift]++
		}
	}
	return shift
}

// selectInRange returns the key of rank r among the parts' values with keys in [lo, hi],
// copying only those.
func (z *summarizer) selectInRange(parts []samples, lo, hi uint64, r int) uint64 {
	keys := z.keys[:0]
	for k := range sampleKeys(parts) {
		if k >= lo && k <= hi {
			keys = append(keys, k)
		}
	}
	z.keys = keys
	nthSmallest(keys, r)
	return keys[r]
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
