package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestAddrListMatchesSortedSlice drives the chunked address list and a plain sorted slice
// with the same random inserts and removals (enough to split and empty chunks) and checks
// order, count, byte sums and prefix sums (of bytes and of the IPs' proxy hashes) after each
// step.
func TestAddrListMatchesSortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l addrList
	var ref []*endpointsPodState
	mk := func(i int) *endpointsPodState {
		// IPv4 addresses have sort keys that order them; IPv6 ones have addrKeyOther, so the
		// search compares them in full (mixed, as a list never is).
		ip := fmt.Sprintf("%d.%d.%d.%d", 10+20*rng.IntN(2), rng.IntN(4), rng.IntN(256), rng.IntN(256))
		if rng.IntN(3) == 0 {
			// Between the 10.* and the 30.* addresses, and after them all.
			ip = fmt.Sprintf("%s::%x:%x", []string{"2001:db8", "fd00:10:244"}[rng.IntN(2)], rng.IntN(4), rng.IntN(1<<16))
		}
		ps := testAddrState(ip, fmt.Sprintf("uid-%06d", i))
		ps.bytes = addressBytes{int32(1 + rng.IntN(50)), int32(1 + rng.IntN(90))}
		return ps
	}
	for step := range 6000 {
		if len(ref) > 0 && (rng.IntN(3) == 0 || step > 4000) {
			ps := ref[rng.IntN(len(ref))]
			l.remove(ps, nil)
			i := slices.Index(ref, ps)
			ref = slices.Delete(ref, i, i+1)
		} else {
			ps := mk(step)
			l.insert(ps, nil)
			i, _ := slices.BinarySearchFunc(ref, ps, endpointsListCompare)
			ref = slices.Insert(ref, i, ps)
		}
		if step%97 != 0 && step != 5999 {
			continue
		}
		if l.len() != len(ref) {
			t.Fatalf("step %d: len %d, want %d", step, l.len(), len(ref))
		}
		var got []*endpointsPodState
		l.each(-1, func(i int, ps *endpointsPodState) { got = append(got, ps) })
		if !slices.Equal(got, ref) {
			t.Fatalf("step %d: order differs from the sorted slice", step)
		}
		k := rng.IntN(len(ref) + 1)
		var want, total ByEncoding
		var wantHash uint64
		for i, ps := range ref {
			if i < k {
				endpointsBytesAdd(&want, ps.bytes.full())
				wantHash += proxyIPHash(ps.ipOf())
			}
			endpointsBytesAdd(&total, ps.bytes.full())
		}
		if got := l.prefixIPHash(k); got != wantHash {
			t.Fatalf("step %d: prefixIPHash(%d) %#x, want %#x", step, k, got, wantHash)
		}
		if l.bytes != total || l.prefixBytes(k) != want {
			t.Fatalf("step %d: bytes %v prefix(%d) %v, want %v %v", step, l.bytes, k, l.prefixBytes(k), total, want)
		}
		if n := len(materialiseCount(&l, k)); n != k {
			t.Fatalf("step %d: materialised %d of the first %d", step, n, k)
		}
	}
	if l.len() != 0 && len(ref) == 0 || len(l.chunks) > 0 && len(ref) == 0 {
		t.Fatalf("emptied list keeps %d chunks", len(l.chunks))
	}
}

// TestAddrKeyOrdersAsTheIPs checks that two addresses' keys, where both are not addrKeyOther
// and differ, order as the IPs do byte-wise (what compareStates compares first), and that
// equal keys of that kind are equal IPs: the search trusts them.
func TestAddrKeyOrdersAsTheIPs(t *testing.T) {
	ips := []string{"", ".", "0", "9", "1.1.1.1", "1.1.1.10", "1.1.1.9", "10.0.0.1", "10.0.0.10", "10.0.0.2",
		"10.244.1.5", "10.244.15", "10.244.1.50", "255.255.255.255", "0.0.0.0", "999.999.999.9999",
		"1234567890123456", "12345678901234567", "fd00::1", "2001:db8::1", "10.0.0.a", "::ffff:10.0.0.1"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		ip := fmt.Sprintf("%d.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256))
		ips = append(ips, ip[:rng.IntN(len(ip)+1)])
	}
	// Besides IPv6 and long IPs, the characters next to the digits and the dot, and bytes
	// past ASCII.
	for _, ip := range []string{"fd00::1", "2001:db8::1", "10.0.0.a", "::ffff:10.0.0.1", "12345678901234567",
		"10.0.0./", "10.0.0.:", "10.0.0-1", "10\x00", "1\xff.0"} {
		if keyOf(ip) != addrKeyOther {
			t.Errorf("keyOf(%q) = %d, want addrKeyOther", ip, keyOf(ip))
		}
	}
	for _, a := range ips {
		for _, b := range ips[:200] {
			ka, kb := keyOf(a), keyOf(b)
			if ka == addrKeyOther || kb == addrKeyOther {
				continue
			}
			if ka == kb && a != b {
				t.Fatalf("%q and %q have the same key", a, b)
			}
			if got, want := cmp.Compare(ka, kb), strings.Compare(a, b); got != want {
				t.Fatalf("keys of %q and %q compare %d, the IPs %d", a, b, got, want)
			}
		}
	}
}

func materialiseCount(l *addrList, k int) []*endpointsPodState {
	var out []*endpointsPodState
	l.each(k, func(_ int, ps *endpointsPodState) { out = append(out, ps) })
	return out
}

// endpointsListCompare orders pod states as LessEndpointAddress orders their addresses.
func endpointsListCompare(a, b *endpointsPodState) int {
	x := EndpointAddress{IP: a.ipOf(), TargetRef: &ObjectReference{UID: a.pod.UID}}
	y := EndpointAddress{IP: b.ipOf(), TargetRef: &ObjectReference{UID: b.pod.UID}}
	return compareAddressPtr(&x, &y)
}

func compareAddressPtr(a, b *EndpointAddress) int {
	if LessEndpointAddress(a, b) {
		return -1
	}
	if LessEndpointAddress(b, a) {
		return 1
	}
	return 0
}

// testAddrState returns the pod state of a pod with one IP and that UID.
func testAddrState(ip, uid string) *endpointsPodState {
	pod := &Pod{PodIdentity: NewPodIdentity("ns", "pod-"+uid, uid), IPs: []string{ip}}
	i, _ := legacyPodIPIndex(&Service{}, pod)
	if podIPAt(pod, i) == "" || podIPAt(pod, i) == "<nil>" {
		panic("testAddrState: not an IP: " + ip)
	}
	return &endpointsPodState{pod: pod, ip: i}
}

// BenchmarkAddrListChange measures one address leaving a list of n and another joining it, at
// random places, as in a rolling update: the cost should barely grow with n.
func BenchmarkAddrListChange(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			uid := 0
			mk := func() *endpointsPodState {
				uid++
				ip := fmt.Sprintf("10.%d.%d.%d", 64+rng.IntN(20), rng.IntN(256), 2+rng.IntN(250))
				return testAddrState(ip, fmt.Sprint(uid))
			}
			var l addrList
			live := make([]*endpointsPodState, n)
			for i := range live {
				live[i] = mk()
				l.insert(live[i], nil)
			}
			spare := make([]*endpointsPodState, 4096)
			for i := range spare {
				spare[i] = mk()
			}
			for i := 0; b.Loop(); i++ {
				j, k := rng.IntN(len(live)), i%len(spare)
				l.remove(live[j], nil)
				l.insert(spare[k], nil)
				live[j], spare[k] = spare[k], live[j]
			}
		})
	}
}

// A small Service's address list keeps little spare: a list of up to 13 addresses (a Service
// of 10 pods in a rollout) holds its arrays in at most 224 bytes, where doubling kept 256.
func TestAddrListKeepsLittleSpare(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 13; n++ {
		var l addrList
		for i := range n {
			l.insert(testAddrState(fmt.Sprintf("10.0.%d.%d", rng.IntN(256), rng.IntN(256)), fmt.Sprint(i)), nil)
		}
		if len(l.chunks) != 1 {
			t.Fatalf("%d addresses in %d chunks", n, len(l.chunks))
		}
		c := l.chunks[0]
		if bytes := cap(c.items)*8 + cap(c.keys)*int(unsafe.Sizeof(addrKey(0))); bytes > 224 {
			t.Errorf("%d addresses: arrays for %d and %d entries, %d bytes; want at most 224", n, cap(c.items), cap(c.keys), bytes)
		}
	}
}

// TestAddrListReusesEmptiedChunks: a list that empties gives its chunk to the shared buffers,
// cleared, and a list that fills again takes it: an address moving between a ready and a
// not-ready list, as a small Service's pods turn ready one by one, allocates nothing.
func TestAddrListReusesEmptiedChunks(t *testing.T) {
	buf := new(EndpointsBuffers)
	var ready, notReady addrList
	a, b := testAddrState("10.0.0.2", "a"), testAddrState("10.0.0.3", "b")
	ready.insert(b, buf)
	flip := func() {
		notReady.insert(a, buf)
		notReady.remove(a, buf)
		ready.insert(a, buf)
		ready.remove(a, buf)
	}
	flip() // the first chunk is made here
	if len(buf.chunks) != 1 {
		t.Fatalf("buffers keep %d chunks after the not-ready list emptied, want 1", len(buf.chunks))
	}
	if c := buf.chunks[0]; len(c.items) != 0 || c.items[:cap(c.items)][0] != nil || c.bytes != (ByEncoding{}) {
		t.Fatalf("a spare chunk keeps %d entries, a pod state or %v bytes", len(c.items), c.bytes)
	}
	if n := testing.AllocsPerRun(100, flip); n != 0 {
		t.Errorf("an address moving between lists allocates %v objects, want 0", n)
	}
	notReady.insert(a, buf)
	var got []*endpointsPodState
	ready.each(-1, func(_ int, ps *endpointsPodState) { got = append(got, ps) })
	notReady.each(-1, func(_ int, ps *endpointsPodState) { got = append(got, ps) })
	if !slices.Equal(got, []*endpointsPodState{b, a}) || ready.bytes != b.bytes.full() || notReady.bytes != a.bytes.full() {
		t.Errorf("lists hold %v with bytes %v and %v", got, ready.bytes, notReady.bytes)
	}
	// Chunks of large arrays are not kept: a list given one would keep them.
	var big addrList
	states := make([]*endpointsPodState, spareChunkMaxCap+1)
	for i := range states {
		states[i] = testAddrState(fmt.Sprintf("10.0.1.%d", i+2), fmt.Sprint(i))
		big.insert(states[i], nil)
	}
	kept := len(buf.chunks)
	for _, ps := range states {
		big.remove(ps, buf)
	}
	if len(buf.chunks) != kept {
		t.Errorf("a chunk of capacity %d went to the spares", spareChunkMaxCap+1)
	}
}

// TestAddrListUnchangedPrefix drives a list with random inserts and removals (splitting and
// emptying chunks) and marks it now and then as keepFirst does: after each step the entries
// before unchangedPrefix must be those the mark saw, keepFirst must keep the first k whatever
// it reuses, and firstSameAs must answer the same whether it skips the prefix or not.
func TestAddrListUnchangedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var l addrList
	var live []*endpointsPodState
	for i := range 300 {
		ps := testAddrState(fmt.Sprintf("10.%d.%d.%d", rng.IntN(4), rng.IntN(256), rng.IntN(256)), fmt.Sprint(i))
		l.insert(ps, nil)
		live = append(live, ps)
	}
	var kept, marked []*endpointsPodState // kept by the last keepFirst; the whole list then
	fromMark, untouched := false, 0
	for step := range 20000 {
		switch r := rng.IntN(100); {
		case r < 3:
			k := rng.IntN(l.len()+2) - 1
			kept = l.keepFirst(kept, fromMark, k)
			if want := materialiseCount(&l, k); !slices.Equal(kept, want) {
				t.Fatalf("step %d: keepFirst(%v, %d) kept %d entries, not the list's first %d", step, fromMark, k, len(kept), len(want))
			}
			marked, fromMark = materialiseCount(&l, -1), true
			if p := l.unchangedPrefix(); p != l.len() {
				t.Fatalf("step %d: unchanged prefix %d right after the mark, want %d", step, p, l.len())
			}
		case r < 6:
			fromMark = false // kept is another list's
			kept = slices.Clone(kept)
		case r < 52 && len(live) > 0:
			i := rng.IntN(len(live))
			l.remove(live[i], nil)
			live = slices.Delete(live, i, i+1)
		default:
			// Low addresses now and then, so that a change lands before most of the list.
			ps := testAddrState(fmt.Sprintf("10.%d.%d.%d", rng.IntN(4), rng.IntN(256), rng.IntN(256)), fmt.Sprint(300+step))
			l.insert(ps, nil)
			live = append(live, ps)
		}
		if marked == nil {
			continue
		}
		all := materialiseCount(&l, -1)
		p := l.unchangedPrefix()
		if p > len(all) || p > len(marked) || !slices.Equal(all[:p], marked[:p]) {
			t.Fatalf("step %d: the unchanged prefix of %d is not what the mark saw", step, p)
		}
		if p > 0 {
			untouched++
		}
		k := len(kept)
		if rng.IntN(4) == 0 {
			k = rng.IntN(l.len() + 1)
		}
		if got, want := l.firstSameAs(k, kept, min(p, k)), slices.Equal(materialiseCount(&l, k), kept); fromMark && got != want {
			t.Fatalf("step %d: firstSameAs(%d) skipping %d = %v, want %v", step, k, min(p, k), got, want)
		}
		if got, want := l.firstSameAs(k, kept, 0), slices.Equal(materialiseCount(&l, k), kept); got != want {
			t.Fatalf("step %d: firstSameAs(%d) = %v, want %v", step, k, got, want)
		}
	}
	if untouched < 1000 {
		t.Fatalf("only %d steps had an unchanged prefix: the test does not exercise it", untouched)
	}
}

// TestAddrListUnchangedPrefixAcrossSplit checks that the prefix is exact where a change splits
// its chunk: the entries that move to the new chunk keep their positions, so the prefix stays
// the position of the change rather than the split's.
func TestAddrListUnchangedPrefixAcrossSplit(t *testing.T) {
	var l addrList
	for i := range addrChunkMax {
		l.insert(testAddrState(fmt.Sprintf("10.1.%d.%d", i/100, 100+i%100), fmt.Sprint(i)), nil)
	}
	if len(l.chunks) != 1 {
		t.Fatalf("%d chunks, want one full chunk", len(l.chunks))
	}
	l.markUnchanged()
	steps := []struct {
		ps     *endpointsPodState
		insert bool
	}{
		{testAddrState("10.1.9.100", "last"), true}, // the end of the full chunk: it splits
		{materialiseCount(&l, -1)[100], false},
		{testAddrState("10.1.0.100", "early"), true}, // before all but the first
	}
	for i, s := range steps {
		if s.insert {
			l.insert(s.ps, nil)
		} else {
			l.remove(s.ps, nil)
		}
		want := slices.Index(materialiseCount(&l, -1), s.ps)
		if !s.insert {
			want = 100
		}
		if got := l.unchangedPrefix(); got != want {
			t.Fatalf("step %d: unchanged prefix %d, want %d (%d chunks)", i, got, want, len(l.chunks))
		}
	}
}
