package trace

import (
	"io"
	"sync"

	"epsim/sim"
)

// AheadSource reads a sim.TraceSource on a goroutine of its own, batches of events ahead
// of Next, so that decoding a recording (a third of a replay's CPU) runs beside the
// simulation, on another core. Next returns the events, and then the error, that the
// source gives, in the same order: the replay is the same. Once Next has returned the
// source's error (io.EOF at its end) the reading has stopped, and the source may be looked
// at (its Stats); Close stops it sooner.
type AheadSource struct {
	batches chan aheadBatch
	free    chan []sim.TraceEvent
	stop    chan struct{}
	close   sync.Once
	cur     []sim.TraceEvent
	next    int
	err     error
}

// aheadBatch is a run of events, and the error that ended the source after them (nil
// while it goes on).
type aheadBatch struct {
	events []sim.TraceEvent
	err    error
}

// Read-ahead sizes: events in a batch, and batches read ahead of the one being applied.
const (
	aheadBatchEvents = 512
	aheadBatches     = 4
)

// ReadAhead starts reading src ahead.
func ReadAhead(src sim.TraceSource) *AheadSource {
	a := &AheadSource{
		batches: make(chan aheadBatch, aheadBatches),
		free:    make(chan []sim.TraceEvent, aheadBatches+2),
		stop:    make(chan struct{}),
	}
	go a.read(src)
	return a
}

// read fills batches from src until it ends or Close is called.
func (a *AheadSource) read(src sim.TraceSource) {
	defer close(a.batches)
	for {
		// A send below may win over a closed stop (select picks at random among the
		// ready cases), so stop is looked at first, before reading another batch.
		select {
		case <-a.stop:
			return
		default:
		}
		var events []sim.TraceEvent
		select {
		case events = <-a.free:
		default:
			events = make([]sim.TraceEvent, 0, aheadBatchEvents)
		}
		var err error
		for len(events) < aheadBatchEvents {
			ev, e := src.Next()
			if e != nil {
				err = e
				break
			}
			events = append(events, ev)
		}
		select {
		case a.batches <- aheadBatch{events, err}:
		case <-a.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// errAheadClosed is what Next returns after Close.
var errAheadClosed = io.ErrClosedPipe

// Next implements sim.TraceSource.
func (a *AheadSource) Next() (sim.TraceEvent, error) {
	for a.next == len(a.cur) {
		if a.err != nil {
			return sim.TraceEvent{}, a.err
		}
		if a.cur != nil {
			clear(a.cur) // the replay keeps the pods it needs; the batch need not
			select {
			case a.free <- a.cur[:0]:
			default:
			}
		}
		select {
		case <-a.stop: // closed: the batches read ahead are dropped
			a.cur, a.next, a.err = nil, 0, errAheadClosed
			continue
		default:
		}
		b, ok := <-a.batches
		if !ok {
			a.cur, a.next, a.err = nil, 0, errAheadClosed
			continue
		}
		a.cur, a.next, a.err = b.events, 0, b.err
	}
	ev := a.cur[a.next]
	a.next++
	return ev, nil
}

// Close stops the reading, at the end of the batch being read; it does not wait for it
// (a read from a pipe may not return for long). After Close, Next gives at most the rest
// of the batch it is in, then errAheadClosed.
func (a *AheadSource) Close() {
	a.close.Do(func() { close(a.stop) })
}
