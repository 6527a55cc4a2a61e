package model

import (
	"math/rand/v2"
	"testing"
)

// TestIdentityMapMatchesGoMap drives an identityMap and a Go map through the same random
// inserts, updates, deletes and clears, and compares them after every step. Keys come from
// small pools whose members share their home slot (sameHome), so that runs form, wrap
// around the table's end and are mended by backward-shift deletion; the zero identity is in
// every pool.
func TestIdentityMapMatchesGoMap(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		pool := []endpointHash{0}
		for range 1 + rng.IntN(60) {
			if len(pool) > 1 && rng.IntN(3) == 0 {
				// The same home as an earlier key, whatever the table size.
				pool = append(pool, sameHome(pool[1+rng.IntN(len(pool)-1)], rng.Uint64()))
				continue
			}
			pool = append(pool, endpointHash(rng.Uint64()))
		}
		var m identityMap[int]
		want := map[endpointHash]int{}
		for step := range 400 {
			k := pool[rng.IntN(len(pool))]
			switch op := rng.IntN(10); {
			case op < 5:
				m.set(k, step)
				want[k] = step
			case op < 6:
				p, present := m.slot(k)
				if _, ok := want[k]; ok != present {
					t.Fatalf("seed %d step %d: slot(%v) present %v, want %v", seed, step, k, present, ok)
				}
				*p += 1000
				want[k] += 1000
			case op < 9:
				m.delete(k)
				delete(want, k)
			case rng.IntN(8) == 0:
				m.clear()
				clear(want)
			}
			compareIdentityMap(t, seed, step, &m, want, pool)
		}
	}
}

func compareIdentityMap(t *testing.T, seed uint64, step int, m *identityMap[int], want map[endpointHash]int, pool []endpointHash) {
	t.Helper()
	if m.len() != len(want) {
		t.Fatalf("seed %d step %d: len %d, want %d", seed, step, m.len(), len(want))
	}
	for _, k := range pool {
		got, ok := m.get(k)
		w, wok := want[k]
		if ok != wok || got != w {
			t.Fatalf("seed %d step %d: get(%v) = %d, %v; want %d, %v", seed, step, k, got, ok, w, wok)
		}
		if p := m.ref(k); (p != nil) != wok || (p != nil && *p != w) {
			t.Fatalf("seed %d step %d: ref(%v) disagrees with get", seed, step, k)
		}
	}
	seen := 0
	for k, v := range m.all() {
		seen++
		if w, ok := want[k]; !ok || w != v {
			t.Fatalf("seed %d step %d: all() yields %v=%d, want %d (present %v)", seed, step, k, v, w, ok)
		}
	}
	if seen != len(want) {
		t.Fatalf("seed %d step %d: all() yields %d keys, want %d", seed, step, seen, len(want))
	}
	if m.slots != nil && overloaded(int(m.n), len(m.slots)) {
		t.Fatalf("seed %d step %d: %d keys in %d slots, above the load allowed", seed, step, m.n, len(m.slots))
	}
	if m.slots != nil && int(m.n) >= len(m.slots) {
		t.Fatalf("seed %d step %d: %d keys in %d slots: no empty slot ends a probe", seed, step, m.n, len(m.slots))
	}
}

// TestIdentityMapAllStops checks that all stops when the loop breaks.
func TestIdentityMapAllStops(t *testing.T) {
	var m identityMap[int]
	for i := range 20 {
		m.set(endpointHash(i), i)
	}
	n := 0
	for range m.all() {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("loop ran %d times, want 3", n)
	}
}

func BenchmarkIdentityMap(b *testing.B) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]endpointHash, n)
	for i := range keys {
		keys[i] = endpointHash(rng.Uint64())
	}
	b.Run("identityMap", func(b *testing.B) {
		var m identityMap[*podEntry]
		for _, k := range keys {
			m.set(k, nil)
		}
		b.ResetTimer()
		for i := range b.N {
			k := keys[i%n]
			m.delete(k)
			m.set(k, nil)
			if _, ok := m.get(keys[(i*7)%n]); !ok {
				b.Fatal("missing key")
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		m := map[endpointHash]*podEntry{}
		for _, k := range keys {
			m[k] = nil
		}
		b.ResetTimer()
		for i := range b.N {
			k := keys[i%n]
			delete(m, k)
			m[k] = nil
			if _, ok := m[keys[(i*7)%n]]; !ok {
				b.Fatal("missing key")
			}
		}
	})
}

func TestIdentityMapLoad(t *testing.T) {
	for _, tc := range []struct{ n, slots int }{
		{0, 0}, {1, 4}, {3, 4}, {4, 6}, {5, 6}, {6, 8}, {7, 8}, {8, 12}, {10, 12}, {11, 16}, {14, 16},
		{15, 24}, {18, 24}, {19, 32}, {24, 32}, {25, 48}, {36, 48}, {37, 64},
	} {
		var m identityMap[int]
		for i := range tc.n {
			m.set(endpointHash(i+1), i)
		}
		if len(m.slots) != tc.slots {
			t.Errorf("%d keys: %d slots, want %d", tc.n, len(m.slots), tc.slots)
		}
	}
}

// sameHome returns a key other than k whose mix differs from k's in the low 20 bits only,
// by x: the same home slot in a table of up to 2^32 slots but for one pair in 4,096 (the
// home is the mix times the size, over 2^64).
func sameHome(k endpointHash, x uint64) endpointHash {
	inv := uint64(identityMapMixer) // the mixer's inverse mod 2^64, by Newton's iteration
	for range 5 {
		inv *= 2 - identityMapMixer*inv
	}
	return endpointHash((uint64(k)*identityMapMixer ^ (x&0xfffff | 1)) * inv)
}
