package model

import (
	"cmp"
	"math"
	"slices"
)

// addrList is one sorted address list of a ServiceEndpoints port: the pod states in address
// order (compareEndpointAddress), with the running byte sum. It is a list of sorted chunks of
// at most addrChunkMax entries, each with its own byte sum, so an insert or a removal costs a
// binary search over the chunks, one within a chunk and a memmove of at most addrChunkMax
// pointers: O(log n) plus a constant, where one sorted slice would move O(n) pointers on
// every change of a large Service.
type addrList struct {
	chunks []*addrChunk
	n      int
	bytes  ByEncoding
	// unchanged is the place of the first insert or removal since mark: the entries before
	// it are the ones mark saw, in order (see markUnchanged).
	unchanged addrPlace
}

// addrPlace is an entry's place in a list: its chunk and its index there.
type addrPlace struct{ chunk, item int32 }

// before reports whether place p comes before q.
func (p addrPlace) before(q addrPlace) bool {
	return p.chunk < q.chunk || p.chunk == q.chunk && p.item < q.item
}

// addrPlaceEnd is past every entry of a list: nothing changed since mark.
var addrPlaceEnd = addrPlace{chunk: math.MaxInt32}

// markUnchanged records that the list's entries are, until the next insert or removal, the
// ones a truncated object kept: its later syncs compare only the entries after the first
// change (unchangedPrefix) with what the object kept, where they compared all of them.
func (l *addrList) markUnchanged() { l.unchanged = addrPlaceEnd }

// changedAt records an insert or a removal at place p.
func (l *addrList) changedAt(chunk, item int) {
	if p := (addrPlace{int32(chunk), int32(item)}); p.before(l.unchanged) {
		l.unchanged = p
	}
}

// unchangedPrefix is the number of leading entries that no insert or removal has touched
// since markUnchanged (the list's length when none has).
func (l *addrList) unchangedPrefix() int { return l.unchangedPrefixUpTo(l.n) }

// unchangedPrefixUpTo is min(unchangedPrefix(), limit), read from the chunks before the
// limit's only: a truncated object keeps at most 1000 addresses of a list that may hold
// 100,000, and walking every chunk to a change near the list's end (or to its end, when
// nothing changed) at each sync cost O(n) a sync.
func (l *addrList) unchangedPrefixUpTo(limit int) int {
	n := 0
	for ci, c := range l.chunks {
		if n >= limit {
			return limit
		}
		if ci == int(l.unchanged.chunk) {
			return min(n+min(int(l.unchanged.item), len(c.items)), limit)
		}
		n += len(c.items)
	}
	return min(n, limit)
}

type addrChunk struct {
	items []*endpointsPodState
	keys  []addrKey // keys[i] is items[i]'s sort key: searches read these, not the pod states
	bytes ByEncoding
	// ipHash is Σ proxyIPHash of the entries' IPs (see ServiceEndpoints.ProxyKey).
	ipHash uint64
}

// ipHashAt is proxyIPHash of entry i's IP, from its key when that tells.
func (c *addrChunk) ipHashAt(i int) uint64 {
	if k := c.keys[i]; k != addrKeyOther {
		return proxyIPHashOf(k, "")
	}
	return proxyIPHash(c.items[i].ipOf())
}

// addrKey orders addresses as their IPs do, byte-wise, in one word. An IP of at most
// addrKeyDigits characters, each a digit or a dot (any IPv4 address), is the base-12 number
// of its characters, 0 standing for no character, 1 for '.' and 2 to 11 for '0' to '9': at
// the first character where two IPs differ either both have one, or the shorter IP has none
// and sorts first, so two keys order as their IPs. Any other IP (IPv6) has the key
// addrKeyOther, and a search compares the addresses themselves wherever it is one of the two
// keys, as it does on equal keys. (Two words, the IP's first 16 bytes, made a list 8 bytes
// an address more.)
type addrKey uint64

const (
	addrKeyDigits = 16 // 12^16 < 2^58
	addrKeyOther  = addrKey(1<<64 - 1)
)

func keyOf(ip string) addrKey {
	if len(ip) > addrKeyDigits {
		return addrKeyOther
	}
	var k uint64
	for i := 0; i < len(ip); i++ {
		var d uint64
		switch c := ip[i]; {
		case c >= '0' && c <= '9':
			d = uint64(c-'0') + 2
		case c == '.':
			d = 1
		default:
			return addrKeyOther
		}
		k = k*12 + d
	}
	// The missing characters are zeros: one multiplication, not a step each (an IPv4
	// address is 7 to 15 characters).
	return addrKey(k * addrKeyScale[addrKeyDigits-len(ip)])
}

// addrKeyScale[n] is 12^n.
var addrKeyScale = func() (p [addrKeyDigits + 1]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 12
	}
	return p
}()

// compareAt is compareStates(entry i, ps) for ps with key k. It reads the entry's pod state
// only when the keys do not tell: a cache miss per step of a search in a large Service.
func (c *addrChunk) compareAt(i int, k addrKey, ps *endpointsPodState) int {
	if ki := c.keys[i]; ki != k && ki != addrKeyOther && k != addrKeyOther {
		return cmp.Compare(ki, k)
	}
	return compareStates(c.items[i], ps)
}

// search is the position of address a (key k) in c: the first entry not before it. No two
// entries of a list are equal (an address names its pod), so an entry that is there is at
// that position; a removal checks it by pointer rather than by comparing it again.
func (c *addrChunk) search(k addrKey, ps *endpointsPodState) int {
	lo, hi := 0, len(c.keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.compareAt(m, k, ps) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// addrChunkMax bounds a chunk; a full chunk is split in two halves. (BenchmarkEndpoints-
// ReadinessFlip, 10,000 pods, best of 5: 512 entries cost 1.0 µs a flip, 5.8 µs truncated;
// 128 cost 0.87 and 3.0 µs; 64, 0.90 and 2.7 µs; 32, 1.2 and 2.9 µs.)
const addrChunkMax = 128

func (l *addrList) len() int { return l.n }

// chunkFor returns the index of the chunk address a (key k) belongs in: the first whose last
// entry is not before it (the last chunk when it sorts after everything).
func (l *addrList) chunkFor(k addrKey, ps *endpointsPodState) int {
	lo, hi := 0, len(l.chunks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := l.chunks[m]
		if c.compareAt(len(c.keys)-1, k, ps) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return min(lo, len(l.chunks)-1)
}

// insert adds ps in order and returns its IP's proxyIPHash. An empty list takes its chunk
// from buf's spares, if any (buf may be nil).
func (l *addrList) insert(ps *endpointsPodState, buf *EndpointsBuffers) uint64 {
	l.n++
	endpointsBytesAdd(&l.bytes, ps.bytes.full())
	ip := ps.ipOf()
	k := keyOf(ip)
	h := proxyIPHashOf(k, ip)
	if len(l.chunks) == 0 {
		c := buf.takeChunk()
		if c == nil {
			c = new(addrChunk)
		}
		c.items, c.keys, c.bytes = append(c.items, ps), append(c.keys, k), ps.bytes.full()
		c.ipHash = h
		l.chunks = append(l.chunks, c)
		l.changedAt(0, 0)
		return h
	}
	ci := l.chunkFor(k, ps)
	c := l.chunks[ci]
	i := c.search(k, ps)
	l.changedAt(ci, i)
	c.makeRoom()
	c.items = slices.Insert(c.items, i, ps)
	c.keys = slices.Insert(c.keys, i, k)
	endpointsBytesAdd(&c.bytes, ps.bytes.full())
	c.ipHash += h
	if len(c.items) <= addrChunkMax {
		return h
	}
	half := len(c.items) / 2
	next := &addrChunk{items: slices.Clone(c.items[half:]), keys: slices.Clone(c.keys[half:])}
	clear(c.items[half:])
	c.items = c.items[:half:half]
	c.keys = c.keys[:half:half]
	for i, q := range next.items {
		endpointsBytesAdd(&next.bytes, q.bytes.full())
		next.ipHash += next.ipHashAt(i)
	}
	endpointsBytesSub(&c.bytes, next.bytes)
	c.ipHash -= next.ipHash
	l.chunks = slices.Insert(l.chunks, ci+1, next)
	// The entries from the split on moved to the next chunk, in order. (The change was in
	// chunk ci, so none after it is marked.)
	if u := l.unchanged; u.chunk == int32(ci) && int(u.item) > half {
		l.unchanged = addrPlace{int32(ci + 1), u.item - int32(half)}
	}
	return h
}

// makeRoom grows c's arrays, when either is full, by a quarter of its length and at least
// addrChunkGrowth entries (each array then fills its allocator size class). A chunk grows by
// inserts, one address at a time: by doubling, a Service of 10 pods kept arrays for 16, 384
// bytes where 13 take 288 (for each of 50,000 Services of 10 pods, their lists are 5 MB).
// Growing by less copies more, within addrChunkMax entries: a few more copies per insert.
func (c *addrChunk) makeRoom() {
	n := len(c.items)
	if n < cap(c.items) && n < cap(c.keys) {
		return
	}
	want := n + max(addrChunkGrowth, n/4)
	items := slices.Grow([]*endpointsPodState(nil), want)
	keys := slices.Grow([]addrKey(nil), want)
	c.items, c.keys = append(items, c.items...), append(keys, c.keys...)
}

// addrChunkGrowth is the least a chunk's arrays grow by.
const addrChunkGrowth = 4

// remove takes ps out and returns its IP's proxyIPHash. A chunk it empties goes to buf's
// spares (buf may be nil).
func (l *addrList) remove(ps *endpointsPodState, buf *EndpointsBuffers) uint64 {
	if len(l.chunks) == 0 {
		panic("model: ServiceEndpoints address list lost a pod's address")
	}
	ip := ps.ipOf()
	k := keyOf(ip)
	ci := l.chunkFor(k, ps)
	c := l.chunks[ci]
	i := c.search(k, ps)
	if i == len(c.items) || c.items[i] != ps {
		panic("model: ServiceEndpoints address list lost a pod's address")
	}
	l.changedAt(ci, i)
	h := proxyIPHashOf(k, ip)
	c.ipHash -= h
	c.items = slices.Delete(c.items, i, i+1)
	c.keys = slices.Delete(c.keys, i, i+1)
	endpointsBytesSub(&c.bytes, ps.bytes.full())
	l.n--
	endpointsBytesSub(&l.bytes, ps.bytes.full())
	if len(c.items) == 0 {
		l.chunks = slices.Delete(l.chunks, ci, ci+1)
		buf.putChunk(c)
	}
	return h
}

// keepFirst returns kept made the first k entries (all of them when k < 0), a truncated
// object's kept addresses, and marks the list unchanged (markUnchanged). When kept is what
// the list's last mark kept (fromMark), the entries no change has touched since are already
// there and only those after them are copied: a truncated Service is re-PUT at each of its
// syncs, and copying its kept addresses each time read all of them.
func (l *addrList) keepFirst(kept []*endpointsPodState, fromMark bool, k int) []*endpointsPodState {
	if k < 0 || k > l.n {
		k = l.n
	}
	same := 0
	if fromMark {
		same = l.unchangedPrefixUpTo(min(len(kept), k))
	}
	kept = kept[:same]
	at := 0 // the position of the chunk's first entry
	for _, c := range l.chunks {
		if at >= k {
			break
		}
		if lo, hi := max(same-at, 0), min(len(c.items), k-at); lo < hi {
			kept = append(kept, c.items[lo:hi]...)
		}
		at += len(c.items)
	}
	l.markUnchanged()
	return kept
}

// firstSameAs reports whether the first k entries (all of them when k < 0) have the addresses
// of kept (sameAddress), in order, and are as many. The first known entries are taken as
// kept's without a look (an unchanged prefix, see keepFirst).
func (l *addrList) firstSameAs(k int, kept []*endpointsPodState, known int) bool {
	if k < 0 || k > l.n {
		k = l.n
	}
	if k != len(kept) {
		return false
	}
	at := 0 // the position of the chunk's first entry
	for _, c := range l.chunks {
		if at >= k {
			break
		}
		lo, hi := max(known-at, 0), min(len(c.items), k-at)
		for i := lo; i < hi; i++ {
			if !sameAddress(c.items[i], kept[at+i]) {
				return false
			}
		}
		at += len(c.items)
	}
	return true
}

// each calls f for the first k entries in order (all of them when k < 0).
func (l *addrList) each(k int, f func(i int, ps *endpointsPodState)) {
	if k < 0 || k > l.n {
		k = l.n
	}
	i := 0
	for _, c := range l.chunks {
		for _, ps := range c.items {
			if i == k {
				return
			}
			f(i, ps)
			i++
		}
	}
}

// prefixIPHash is Σ proxyIPHash of the first k entries' IPs (all of them when k < 0): whole
// chunks by their sums, then part of one, from its nearer end (as prefixBytes).
func (l *addrList) prefixIPHash(k int) uint64 {
	if k < 0 || k > l.n {
		k = l.n
	}
	var sum uint64
	for _, c := range l.chunks {
		if k >= len(c.items) {
			sum += c.ipHash
			k -= len(c.items)
			continue
		}
		if k <= len(c.items)/2 {
			for i := range k {
				sum += c.ipHashAt(i)
			}
			break
		}
		sum += c.ipHash
		for i := k; i < len(c.items); i++ {
			sum -= c.ipHashAt(i)
		}
		break
	}
	return sum
}

// prefixBytes is Σ bytes of the first k entries: whole chunks by their sums, then part of one,
// summed from its nearer end (its sum less the entries after k when k is past the middle).
func (l *addrList) prefixBytes(k int) ByEncoding {
	var sum ByEncoding
	for _, c := range l.chunks {
		if k >= len(c.items) {
			endpointsBytesAdd(&sum, c.bytes)
			k -= len(c.items)
			continue
		}
		if k <= len(c.items)/2 {
			for _, ps := range c.items[:k] {
				endpointsBytesAdd(&sum, ps.bytes.full())
			}
			break
		}
		endpointsBytesAdd(&sum, c.bytes)
		for _, ps := range c.items[k:] {
			endpointsBytesSub(&sum, ps.bytes.full())
		}
		break
	}
	return sum
}
