package sim

import "container/heap"

// event is something that happens at one instant of virtual time. Each kind is a small typed
// struct; apply is its effect on the engine. Events never hold closures.
type event interface {
	apply(e *Engine)
	String() string
}

// queued is an event with its time and its insertion sequence (the tie-breaker).
type queued struct {
	at  Time
	seq uint64
	ev  event
}

// eventQueue is a min-heap ordered by (at, seq), so that runs are deterministic.
type eventQueue struct {
	items []queued
	seq   uint64
}

func (q *eventQueue) Len() int { return len(q.items) }
func (q *eventQueue) Less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
func (q *eventQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *eventQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *eventQueue) Pop() any {
	n := len(q.items) - 1
	it := q.items[n]
	q.items[n] = queued{}
	q.items = q.items[:n]
	return it
}

// schedule adds ev at time at.
func (q *eventQueue) schedule(at Time, ev event) {
	q.seq++
	heap.Push(q, queued{at: at, seq: q.seq, ev: ev})
}

// pop removes and returns the earliest event.
func (q *eventQueue) pop() queued { return heap.Pop(q).(queued) }
