package sim

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"epsim/model"
)

// alphanums is the alphabet of names.SimpleNameGenerator and of ReplicaSet template hashes
// (upstream: apiserver storage/names/generate.go, apimachinery util/rand).
const alphanums = "bcdfghjklmnpqrstvwxz2456789"

// nameGenerator makes API-server-style random name suffixes from the run's name stream.
type nameGenerator struct {
	rng *rand.Rand
	// src is rng's source. A UID's hex digit, rng.IntN(16), is the low four bits of the
	// source's next number (IntN of a power of two masks Uint64): drawn from the source,
	// the 32 digits of a UID take no call through rng's Source interface each.
	src *namePCG
	buf []byte // scratch for podNameAndUID
}

// newNameGenerator returns a generator drawing from rand.New(rand.NewPCG(seed1, seed2)), as
// newStream's streams: the same draws, from namePCG.
func newNameGenerator(seed1, seed2 uint64) *nameGenerator {
	src := &namePCG{hi: seed1, lo: seed2}
	return &nameGenerator{rng: rand.New(src), src: src}
}

// namePCG is math/rand/v2's PCG source, the same numbers from the same seeds (a 128-bit
// linear congruential state, each number its DXSM output), written out so that a UID's 32
// draws step the state in registers (appendUID), not in memory through a call each.
type namePCG struct{ hi, lo uint64 }

// Uint64 returns the next number, as rand.PCG's Uint64.
func (p *namePCG) Uint64() uint64 {
	p.hi, p.lo = pcgStep(p.hi, p.lo)
	return pcgOutput(p.hi, p.lo)
}

// pcgStep returns the state after hi, lo: state × multiplier + increment, mod 2^128.
// upstream: Go's math/rand/v2 pcg.go (PCG.next), from O'Neill's pcg-cpp.
func pcgStep(hi, lo uint64) (uint64, uint64) {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	h, l := bits.Mul64(lo, mulLo)
	h += hi*mulLo + lo*mulHi
	l, c := bits.Add64(l, incLo, 0)
	h, _ = bits.Add64(h, incHi, c)
	return h, l
}

// pcgOutput is the number of state hi, lo: DXSM, "double xorshift multiply" (math/rand/v2
// PCG.Uint64).
func pcgOutput(hi, lo uint64) uint64 {
	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// suffix returns n random characters of the upstream alphabet.
func (g *nameGenerator) suffix(n int) string {
	return string(g.appendSuffix(make([]byte, 0, n), n))
}

// appendSuffix appends n random characters of the upstream alphabet to b.
func (g *nameGenerator) appendSuffix(b []byte, n int) []byte {
	for range n {
		b = append(b, g.alphanum())
	}
	return b
}

// alphanum draws a character of the upstream alphabet: alphanums[rng.IntN(27)], computed as
// Rand.IntN computes it on a 64-bit machine (Lemire's multiply, drawing again when the low
// half falls in the biased range), from the source without the call through rng's Source
// interface. A 32-bit machine's Rand takes another path: there it asks rng.
func (g *nameGenerator) alphanum() byte {
	n := uint64(len(alphanums))
	if is32bit {
		return alphanums[g.rng.IntN(int(n))]
	}
	hi, lo := bits.Mul64(g.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.src.Uint64(), n)
		}
	}
	return alphanums[hi]
}

// is32bit is math/rand/v2's test for a machine whose Rand.IntN takes its 32-bit path.
const is32bit = ^uint(0)>>32 == 0

// podNameAndUID names a pod its workload controller creates, drawing again while taken says
// the name is in use, then draws its UID: the same draws and strings as generate then uid,
// in one allocation (a pod's name and UID live as long as it does). The pod's generateName
// is its owner's name and a dash (upstream: controller_utils.go getPodsPrefix), cut to 58
// characters as generate cuts it: owner-hash- for a ReplicaSet's pods (a ReplicaSet is
// named after its Deployment and its template hash), owner- for a DaemonSet's (hash "").
func (g *nameGenerator) podNameAndUID(owner, hash string, taken func([]byte) bool) (name, uid string) {
	b := g.buf[:0]
	for {
		b = append(b[:0], owner...)
		if hash != "" {
			b = append(append(b, '-'), hash...)
		}
		b = append(b, '-')
		b = g.appendSuffix(b[:min(len(b), maxGeneratedPrefix)], 5)
		if !taken(b) {
			break
		}
	}
	n := len(b)
	b = g.appendUID(b)
	g.buf = b
	s := string(b)
	return s[:n], s[n:]
}

// maxGeneratedPrefix is the longest generateName the API server keeps: a generated name is
// at most 63 characters, 5 of them random (upstream: apiserver storage/names/generate.go
// maxGeneratedNameLength).
const maxGeneratedPrefix = 63 - 5

// generate completes a generateName as the API server does: the prefix cut to 58 characters
// plus 5 random characters (upstream: names.SimpleNameGenerator.GenerateName).
func (g *nameGenerator) generate(prefix string) string {
	if len(prefix) > maxGeneratedPrefix {
		prefix = prefix[:maxGeneratedPrefix]
	}
	return prefix + g.suffix(5)
}

// templateHash returns a pod-template-hash-like string (10 characters, as Deployments make).
func (g *nameGenerator) templateHash() string { return g.suffix(10) }

// uid returns a UUID-shaped identifier (36 characters, as the API server assigns).
func (g *nameGenerator) uid() string { return string(g.appendUID(make([]byte, 0, 36))) }

// appendUID appends a UUID-shaped identifier to b: 32 hex digits, in groups of 8, 4, 4, 4
// and 12 joined by dashes. The digits are drawn in one plain loop and then placed around
// the dashes: a loop per group took about 250 more instructions a UID, and an append and a
// switch per character were half of the UID's cost before that.
func (g *nameGenerator) appendUID(b []byte) []byte {
	const hex = "0123456789abcdef"
	var d [32]byte
	hi, lo := g.src.hi, g.src.lo
	for i := range d {
		hi, lo = pcgStep(hi, lo)
		d[i] = hex[pcgOutput(hi, lo)&15] // rng.IntN(16)
	}
	g.src.hi, g.src.lo = hi, lo
	n := len(b)
	b = slices.Grow(b, 36)[:n+36]
	u := (*[36]byte)(b[n:])
	copy(u[:8], d[:8])
	copy(u[9:13], d[8:12])
	copy(u[14:18], d[12:16])
	copy(u[19:23], d[16:20])
	copy(u[24:], d[20:])
	u[8], u[13], u[18], u[23] = '-', '-', '-', '-'
	return b
}

// ipAllocator hands out pod IPs from per-node ranges, the shape most CNIs give (a /24 or
// /64 per node), host numbers 2 to 251 in turn, as the host-local IPAM plugin's round robin
// does. Node n's ranges are 10.(64 + n/256).(n%256).0/24 and fd00:10:x:y::/64 with x and y
// those two numbers in hex (fd00:10:40::/64 for node 0). 10.64.0.0/10 holds 16,384 nodes'
// ranges; the IPv4 ranges of a larger cluster go on through 10.255.255.0/24 and then from
// 10.0.0.0/24, so that 65,536 nodes have ranges of their own, and a node past those shares
// its IPv4 range with the node 65,536 before it. (The second octet was not wrapped: a node
// from 49,152 on had addresses such as 10.256.0.2, which are none, and the Endpoints
// controller wrote them "<nil>".)
type ipAllocator struct {
	next []int // next host number per node
}

// ipHosts is how many host numbers a node's range hands out (from 2 on).
const ipHosts = 250

func newIPAllocator(nodes int) *ipAllocator { return &ipAllocator{next: make([]int, nodes)} }

// wrapped reports whether node's range has handed out every host number once: from then on
// the next one may still be held by a pod (allocate's inUse).
func (a *ipAllocator) wrapped(node int) bool { return a.next[node] >= ipHosts }

// allocate returns the addresses for a new pod on node i, one per family in order (IPv4 and
// IPv6 share the host number). inUse, when not nil, says which host numbers the node's pods
// still hold: those are skipped, as host-local IPAM skips the addresses it has reserved.
// When every one is held (more pods on the node than its range has addresses: upstream's
// kubelet would admit no more than maxPods, 110 by default), the next is handed out again.
// upstream: containernetworking/plugins ipam/host-local backend/allocator RangeIter.
func (a *ipAllocator) allocate(node int, families []model.IPFamily, inUse *[ipHosts + 2]bool) []string {
	host := a.next[node]%ipHosts + 2
	if inUse != nil {
		for n := range ipHosts {
			h := (a.next[node]+n)%ipHosts + 2
			if !inUse[h] {
				a.next[node] += n
				host = h
				break
			}
		}
	}
	a.next[node]++
	if len(families) == 0 {
		return nil
	}
	hi, lo := int64(64+node/256), int64(node%256)
	hi4 := hi % 256 // the second octet of 10.0.0.0/8 (see ipAllocator)
	ips := make([]string, len(families))
	// Each address is formatted into a stack buffer and made a string once (strconv.Itoa
	// and concatenation allocated up to four times per address).
	var buf [48]byte
	for i, f := range families {
		b := buf[:0]
		if f == model.IPv6 {
			// The canonical form (RFC 5952, as the kubelet reports it): the zero groups
			// between the node's and the host's collapse into one "::".
			b = append(b, "fd00:10:"...)
			b = strconv.AppendInt(b, hi, 16)
			if lo != 0 {
				b = append(strconv.AppendInt(append(b, ':'), lo, 16), "::"...)
			} else {
				b = append(b, "::"...)
			}
			b = strconv.AppendInt(b, int64(host), 16)
		} else {
			b = append(b, "10."...)
			b = append(strconv.AppendInt(b, hi4, 10), '.')
			b = append(strconv.AppendInt(b, lo, 10), '.')
			b = strconv.AppendInt(b, int64(host), 10)
		}
		ips[i] = string(b)
	}
	return ips
}

// hostOf is the host number of a pod address allocate handed out: the last dotted decimal
// of an IPv4 address, the hexadecimal after "::" of an IPv6 one; -1 for another shape.
func hostOf(ip string) int {
	i := strings.LastIndexAny(ip, ".:")
	if i < 0 {
		return -1
	}
	base := 10
	if ip[i] == ':' {
		base = 16
	}
	h, err := strconv.ParseInt(ip[i+1:], base, 32)
	if err != nil || h < 2 || h >= ipHosts+2 {
		return -1
	}
	return int(h)
}

// placer spreads pods over schedulable nodes, round-robin from a random start, as the default
// scheduler's spreading does for pods of many replicas.
type placer struct {
	nodes  int
	cursor int
}

func newPlacer(nodes int, rng *rand.Rand) *placer {
	return &placer{nodes: nodes, cursor: rng.IntN(nodes)}
}

// place returns the next open node from the cursor on (wrapping round), or -1 if none is:
// the open set lets it skip full, cordoned and not-ready nodes without looking at each.
func (p *placer) place(open *bitIndex) int {
	n := open.first(p.cursor, p.nodes)
	if n < 0 {
		n = open.first(0, p.cursor)
	}
	if n < 0 {
		return -1
	}
	p.cursor = (n + 1) % p.nodes
	return n
}

// nameHashes is a set of namespaced names held as 64-bit hashes of them: 16 bytes or so a
// name where a map of the names took about 80 (two strings and a bool a slot). Two names
// with one hash are taken as one: a name drawn while another of its hash is in the set is
// drawn again, which one draw in about 2^64 / names would be without need (never, in any
// run). The hash is FNV-1a, so that a run draws the same names every time.
type nameHashes map[uint64]struct{}

// nameHash64 is the FNV-1a hash of namespace, a slash and name.
func nameHash64(namespace, name string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := range len(namespace) {
		h = (h ^ uint64(namespace[i])) * prime
	}
	h = (h ^ '/') * prime
	for i := range len(name) {
		h = (h ^ uint64(name[i])) * prime
	}
	return h
}

// has reports whether namespace/name is in the set (or a name of its hash).
func (s nameHashes) has(namespace, name string) bool {
	_, ok := s[nameHash64(namespace, name)]
	return ok
}

// add puts namespace/name in the set.
func (s nameHashes) add(namespace, name string) { s[nameHash64(namespace, name)] = struct{}{} }

// remove takes namespace/name out of the set.
func (s nameHashes) remove(namespace, name string) { delete(s, nameHash64(namespace, name)) }
