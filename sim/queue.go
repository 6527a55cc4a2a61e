package sim

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

// queued is an event with its time and its insertion sequence (the tie-breaker).
type queued struct {
	at  Time
	seq uint64
	ev  event
}

// eventQueue is a min-heap ordered by (at, seq), so that runs are deterministic: (at, seq)
// is unique per event, so the order events come out in does not depend on the heap's shape.
// It is a typed 4-ary heap rather than container/heap, which boxes every item it moves in and
// out as an interface value (two allocations per event) and is twice as deep.
//
// Events scheduled for the instant of the last pop (a third of a large run's: a worker
// start, a write's next step) skip the heap: they go to a FIFO, which is in (at, seq) order
// by construction, and pop takes the earlier of the two heads.
type eventQueue struct {
	items []queued
	now   fifo[queued] // events at time cur, in seq order
	cur   Time         // the time of the last pop
	seq   uint64
}

// queueArity is the heap's branching factor. (pop's tournament among four children is
// written for 4: the array below fails to compile for another value.)
const queueArity = 4

var _ = [1]struct{}{}[queueArity-4]

// Len returns the number of events waiting.
func (q *eventQueue) Len() int { return len(q.items) + q.now.len() }

func (a *queued) before(b *queued) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// schedule adds ev at time at.
func (q *eventQueue) schedule(at Time, ev event) {
	q.seq++
	if at == q.cur && (q.now.len() == 0 || q.now.items()[0].at == at) {
		q.now.push(queued{at: at, seq: q.seq, ev: ev})
		return
	}
	q.items = append(q.items, queued{at: at, seq: q.seq, ev: ev})
	// Sift the new item up: move parents down until its place is found.
	items := q.items
	i := len(items) - 1
	it := items[i]
	for i > 0 {
		parent := (i - 1) / queueArity
		if !it.before(&items[parent]) {
			break
		}
		items[i] = items[parent]
		i = parent
	}
	items[i] = it
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() queued {
	if now := q.now.items(); len(now) > 0 && (len(q.items) == 0 || now[0].before(&q.items[0])) {
		top := now[0]
		q.now.drop(1)
		q.cur = top.at
		return top
	}
	items := q.items
	top := items[0]
	q.cur = top.at
	n := len(items) - 1
	last := items[n]
	items[n] = queued{}
	items = items[:n]
	q.items = items
	if n == 0 {
		return top
	}
	// Sift the last item down from the root.
	i := 0
	for {
		first := i*queueArity + 1
		if first >= n {
			break
		}
		least := first
		if first+queueArity <= n {
			kids := (*[queueArity]queued)(items[first : first+queueArity])
			// All four children (the usual case): a tournament of three comparisons.
			a, b := 0, 2
			if kids[1].before(&kids[0]) {
				a = 1
			}
			if kids[3].before(&kids[2]) {
				b = 3
			}
			if kids[b].before(&kids[a]) {
				a = b
			}
			least += a
		} else {
			for c := first + 1; c < n; c++ {
				if items[c].before(&items[least]) {
					least = c
				}
			}
		}
		if !items[least].before(&last) {
			break
		}
		items[i] = items[least]
		i = least
	}
	items[i] = last
	return top
}
