package sim

import "math/bits"

// event is something that happens at one instant of virtual time. Each kind is a small typed
// struct; apply is its effect on the engine. Events never hold closures.
type event interface {
	apply(e *Engine)
	String() string
}

// eventArena hands out events of one kind from shared arrays: scheduled as a pointer, an
// event fits in the queue's interface value, where a struct of two words is copied to the
// heap, an allocation each (pods' lifecycle events were 13% of many-services' allocations).
// An array is garbage once no event of it is waiting; the kinds' apply methods clear their
// event (takeEvent), so that an array kept by one waiting event does not keep the pods of
// the others.
type eventArena[T any] struct{ free []T }

// eventArenaSize is the number of events of an array (2 KB of two-word events).
const eventArenaSize = 128

// put returns a pointer to a copy of ev in the arena.
func (a *eventArena[T]) put(ev T) *T {
	if len(a.free) == 0 {
		a.free = make([]T, eventArenaSize)
	}
	p := &a.free[0]
	*p = ev
	a.free = a.free[1:]
	return p
}

// takeEvent returns the event at p and clears it there: an arena's event is applied once,
// and clearing it lets the pod it named go while its array is kept (see eventArena).
func takeEvent[T any](p *T) T {
	ev := *p
	var zero T
	*p = zero
	return ev
}

// queued is an event with its time. (Events of one time are applied in the order they
// were scheduled: the queue keeps that order without a sequence number.)
type queued struct {
	at Time
	ev event
}

// eventQueue is a radix heap of the events by time, so that runs are deterministic: pop
// returns the earliest event, and of events of one time the one scheduled first. It relies
// on what a discrete-event loop guarantees: nothing is scheduled before the last pop's time
// (cur), so the least time never decreases. Bucket b holds the events whose time differs
// from cur in bit b-1 and in no higher bit (bucket 0: at cur itself). When bucket 0 runs
// out, the least non-empty bucket's earliest time becomes cur and its events move down to
// the buckets their time gives now. An event moves about once (0.95 times on average in
// many-services, whose queue holds up to 20,000 events; 1.9 in 5000-nodes), each a
// constant step, where a 4-ary heap compared and moved it at each of its 7 levels on the
// way in and again on the way out.
//
// Events of one time stay in the order they were scheduled: bucket 0 holds cur's in the
// order they came, and a bucket is empty whenever events move into it (they move only from
// the least non-empty bucket), so its events are those moved in, in their order, then those
// scheduled since, later than any before them.
type eventQueue struct {
	// buckets[0] holds the events at cur, in the order scheduled, from head on.
	buckets [queueBuckets][]queued
	head    int
	full    uint64 // bit b set (b ≥ 1): buckets[b] is not empty; bit 0 means nothing
	n       int    // events waiting
	cur     Time   // the time of the last pop
}

// queueBuckets is one bucket per bit of a time (which is never negative) and bucket 0.
const queueBuckets = 64

// queueBucketKeep is the capacity up to which a bucket keeps its array when it empties: a
// larger one (a burst's) is let go rather than held for the rest of the run.
const queueBucketKeep = 1024

// Len returns the number of events waiting.
func (q *eventQueue) Len() int { return q.n }

// schedule adds ev at time at, which must not be before the last pop's time.
func (q *eventQueue) schedule(at Time, ev event) {
	q.n++
	b := bits.Len64(uint64(at ^ q.cur)) // 0 at cur itself
	q.buckets[b] = append(q.buckets[b], queued{at: at, ev: ev})
	q.full |= 1 << b
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() queued {
	if q.head == len(q.buckets[0]) {
		b := bits.TrailingZeros64(q.full &^ 1)
		if from := q.buckets[b]; len(from) == 1 {
			// The least bucket holds one event (most often): it is the earliest.
			top := from[0]
			from[0].ev = nil
			q.buckets[b] = from[:0]
			q.full &^= 1 << b
			q.restart()
			q.cur = top.at
			q.n--
			return top
		}
		q.moveDown(b)
	}
	now := q.buckets[0]
	top := now[q.head]
	now[q.head] = queued{}
	q.head++
	q.n--
	return top
}

// moveDown makes the earliest time waiting cur, with bucket 0 used up: the least non-empty
// bucket's (b's) events move to the buckets their time gives from the new cur, its earliest
// ones to bucket 0, each in the order they were in.
func (q *eventQueue) moveDown(b int) {
	from := q.buckets[b]
	least := from[0].at
	for i := 1; i < len(from); i++ {
		least = min(least, from[i].at)
	}
	q.cur = least
	q.restart()
	for i := range from {
		it := &from[i]
		to := bits.Len64(uint64(it.at ^ least)) // 0 for the earliest
		q.buckets[to] = append(q.buckets[to], *it)
		q.full |= 1 << to
		it.ev = nil // what it refers to may go once it is applied
	}
	q.full &^= 1 << b
	if cap(from) > queueBucketKeep {
		q.buckets[b] = nil
		return
	}
	q.buckets[b] = from[:0]
}

// noneBefore reports whether no event waits at t or before: then nothing happens between
// the last pop and t. It answers from a lower bound of the least non-empty bucket's times
// (those differ from cur first at the bucket's bit, where cur has 0), so it may say false
// of a queue whose earliest event is after t, never true of one with an event at t or before.
func (q *eventQueue) noneBefore(t Time) bool {
	if q.head < len(q.buckets[0]) {
		return false // events at cur
	}
	rest := q.full &^ 1
	if rest == 0 {
		return true
	}
	b := uint(bits.TrailingZeros64(rest))
	return q.cur>>b<<b|Time(1)<<(b-1) > t
}

// restart empties bucket 0, whose events are all popped, for the next time's: its array is
// reused, but for a burst's.
func (q *eventQueue) restart() {
	if cap(q.buckets[0]) > queueBucketKeep {
		q.buckets[0] = nil
	}
	q.buckets[0], q.head = q.buckets[0][:0], 0
}
