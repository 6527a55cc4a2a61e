package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEventQueueOrder interleaves random schedules (many at the same instant) and pops, and
// requires every pop to return the earliest waiting event by (time, insertion order). The
// spreads put events from the next nanosecond to a year ahead, so that they move down
// through every bucket of the radix heap, and bursts of a few thousand at once fill buckets
// past the capacity they keep.
func TestEventQueueOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spread func(r *rand.Rand) Time
	}{
		{"near", func(r *rand.Rand) Time { return Time(r.IntN(50)) }},
		{"wide", func(r *rand.Rand) Time { return Time(r.Int64N(1 << r.IntN(56))) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var q eventQueue
			// want is what is waiting, kept sorted by (time, order scheduled); each event
			// is its number in that order.
			var want []queued
			seq := 0
			seqOf := func(it queued) int { return int(it.ev.(evSeq)) }
			byTimeThenSeq := func(a, b queued) int {
				return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(seqOf(a), seqOf(b)))
			}
			pops, nowPops, bursts := 0, 0, 0
			var last Time // the time of the last pop: events scheduled for it go to bucket 0
			for step := range 20000 {
				if r.IntN(3) > 0 || len(want) == 0 {
					// As the engine does: never before the last pop, often at its very time.
					n := 1
					if r.IntN(2000) == 0 {
						n = 3000 // a burst (the create phase's thousands of pods)
						bursts++
					}
					for range n {
						at := last + tc.spread(r)
						if r.IntN(3) == 0 {
							at = last
						}
						seq++
						it := queued{at: at, ev: evSeq(seq)}
						q.schedule(at, it.ev)
						i, _ := slices.BinarySearchFunc(want, it, byTimeThenSeq)
						want = slices.Insert(want, i, it)
					}
					continue
				}
				fromNow := q.head < len(q.buckets[0]) && seqOf(q.buckets[0][q.head]) == seqOf(want[0])
				got := q.pop()
				pops++
				last = got.at
				if fromNow {
					nowPops++
				}
				if got.ev == nil {
					t.Fatalf("step %d: popped an event of time %d without its event", step, got.at)
				}
				if got.at != want[0].at || got.ev != want[0].ev {
					t.Fatalf("step %d: popped (%d, %v), want (%d, %v)", step, got.at, got.ev, want[0].at, want[0].ev)
				}
				want = want[1:]
				if q.Len() != len(want) {
					t.Fatalf("step %d: %d waiting, want %d", step, q.Len(), len(want))
				}
			}
			for len(want) > 0 {
				got := q.pop()
				if got.at != want[0].at || got.ev != want[0].ev {
					t.Fatalf("drain: popped (%d, %v), want (%d, %v)", got.at, got.ev, want[0].at, want[0].ev)
				}
				want = want[1:]
			}
			if pops < 5000 || q.Len() != 0 || nowPops < 500 || bursts == 0 {
				t.Fatalf("%d pops (%d already in bucket 0), %d bursts, %d left", pops, nowPops, bursts, q.Len())
			}
			// Nothing popped is still referred to from the queue's arrays.
			for b, bucket := range q.buckets {
				for i, it := range bucket[:cap(bucket)] {
					if it.ev != nil {
						t.Fatalf("bucket %d, slot %d still holds an event", b, i)
					}
				}
			}
		})
	}
}

// evSeq is a test event that is its number in the order events were scheduled.
type evSeq int

func (evSeq) apply(*Engine)    {}
func (e evSeq) String() string { return fmt.Sprintf("event %d", int(e)) }

// TestFifoLetsDroppedElementsGo requires that no slot of a fifo's array outside its live
// elements still refers to anything, after drops with and without the array's compaction:
// the event queue's FIFO holds events that refer to pods and runs.
func TestFifoLetsDroppedElementsGo(t *testing.T) {
	var f fifo[*int]
	r := rand.New(rand.NewPCG(3, 4))
	for step := range 2000 {
		if r.IntN(3) > 0 || f.len() == 0 {
			v := step
			f.push(&v)
		} else {
			f.drop(1 + r.IntN(f.len()))
		}
		all := f.buf[:cap(f.buf)]
		for i, p := range all {
			live := i >= f.head && i < len(f.buf)
			if !live && p != nil {
				t.Fatalf("step %d: slot %d (live %d..%d) still refers to %d", step, i, f.head, len(f.buf), *p)
			}
		}
	}
}

// eventSink keeps the events TestPodLifecycleEventsFromArenas makes from being optimized away.
var eventSink event

// TestPodLifecycleEventsFromArenas checks what the arenas are for: scheduling a pod's
// lifecycle event boxes no copy of it (a two-word struct made an allocation each), and
// applying one clears it, so that an array kept by a waiting event keeps no applied pod.
func TestPodLifecycleEventsFromArenas(t *testing.T) {
	e, err := newEngine(testConfig(3, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	p := e.services[0].pods[0]
	if allocs := testing.AllocsPerRun(1000, func() {
		eventSink = e.arenas.started.put(evPodStarted{p, p.epoch})
	}); allocs != 0 {
		t.Errorf("a lifecycle event costs %v allocations, want 0 (one array of %d per %d events)", allocs, eventArenaSize, eventArenaSize)
	}
	ready := e.arenas.ready.put(evPodReady{p, p.epoch})
	ready.apply(e)
	if *ready != (evPodReady{}) {
		t.Errorf("an applied event still holds %+v", *ready)
	}
}

// TestNoneBeforeNeverMissesAnEvent drives the queue with random schedules and pops and
// checks noneBefore against the earliest waiting time: never true when an event waits at t
// or before, and true when nothing waits at all.
func TestNoneBeforeNeverMissesAnEvent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q eventQueue
	var waiting []Time
	saidTrue := 0
	for range 20000 {
		if len(waiting) == 0 || rng.IntN(3) > 0 {
			at := q.cur + Time(rng.Int64N(1<<uint(rng.IntN(40))))
			q.schedule(at, evServiceCreate{})
			waiting = append(waiting, at)
		} else {
			it := q.pop()
			i := slices.Index(waiting, it.at)
			waiting = slices.Delete(waiting, i, i+1)
		}
		earliest := Time(-1)
		if len(waiting) > 0 {
			earliest = slices.Min(waiting)
		}
		probe := q.cur + Time(rng.Int64N(1<<uint(rng.IntN(40))))
		got := q.noneBefore(probe)
		if got && earliest >= 0 && earliest <= probe {
			t.Fatalf("noneBefore(%d) true with an event at %d (cur %d)", probe, earliest, q.cur)
		}
		if earliest < 0 && !got {
			t.Fatalf("noneBefore(%d) false on an empty queue", probe)
		}
		if got {
			saidTrue++
		}
	}
	if saidTrue == 0 {
		t.Fatal("noneBefore never said true")
	}
}
