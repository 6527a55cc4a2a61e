package model

import (
	"maps"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestSmallMapMatchesMap runs random sets, deletes and gets on a smallMap and a Go map, across
// the size where the list becomes a map, and compares every answer and the whole contents.
func TestSmallMapMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	grewBig := false
	for seq := range 200 {
		var m smallMap[string, int]
		want := map[string]int{}
		keys := 1 + r.IntN(3*smallMapScan)
		for step := range 300 {
			k := strconv.Itoa(r.IntN(keys))
			switch r.IntN(3) {
			case 0:
				m.set(k, step)
				want[k] = step
			case 1:
				m.delete(k)
				delete(want, k)
			}
			gv, gok := m.get(k)
			wv, wok := want[k]
			if gv != wv || gok != wok || m.at(k) != wv || m.len() != len(want) {
				t.Fatalf("seq %d step %d key %s: get %d,%v at %d len %d; want %d,%v len %d", seq, step, k, gv, gok, m.at(k), m.len(), wv, wok, len(want))
			}
			grewBig = grewBig || m.big != nil
		}
		got := maps.Collect(m.all())
		if !maps.Equal(got, want) {
			t.Fatalf("seq %d: contents %v, want %v", seq, got, want)
		}
	}
	if !grewBig {
		t.Error("no sequence grew past the list")
	}
}

// TestSmallMapDeleteKeepsNothing: a deleted entry's value is not kept in the list's array.
func TestSmallMapDeleteKeepsNothing(t *testing.T) {
	var m smallMap[string, *int]
	a, b := new(int), new(int)
	m.set("a", a)
	m.set("b", b)
	m.delete("a")
	if arr := m.small[:cap(m.small)]; arr[1].v != nil || arr[0].v != b {
		t.Errorf("after delete: %v", arr)
	}
	m.delete("b")
	if m.small != nil || m.len() != 0 {
		t.Errorf("emptied map keeps %v", m.small)
	}
}
