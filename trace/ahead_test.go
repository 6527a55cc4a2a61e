package trace

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"epsim/model"
	"epsim/sim"
)

// countedSource gives n events, then err; reads counts the calls of Next.
type countedSource struct {
	n     int
	err   error
	reads atomic.Int64
}

func (s *countedSource) Next() (sim.TraceEvent, error) {
	i := int(s.reads.Add(1)) - 1
	if i >= s.n {
		return sim.TraceEvent{}, s.err
	}
	pod := &model.Pod{PodIdentity: model.NewPodIdentity("ns", fmt.Sprintf("p-%d", i), "u")}
	return sim.TraceEvent{At: sim.Time(i), Type: model.EventAdded, Pod: pod}, nil
}

func TestReadAheadGivesTheSourceInOrder(t *testing.T) {
	failure := errors.New("event 1301: malformed")
	for _, c := range []struct {
		n   int
		err error
	}{{0, io.EOF}, {1, io.EOF}, {aheadBatchEvents, io.EOF}, {3*aheadBatchEvents + 7, io.EOF}, {1300, failure}} {
		t.Run(fmt.Sprintf("%d then %v", c.n, c.err), func(t *testing.T) {
			a := ReadAhead(&countedSource{n: c.n, err: c.err})
			defer a.Close()
			for i := range c.n {
				ev, err := a.Next()
				if err != nil || ev.At != sim.Time(i) || ev.Pod.Name != fmt.Sprintf("p-%d", i) {
					t.Fatalf("event %d: %+v, %v", i, ev, err)
				}
			}
			for range 3 { // the error stays
				if _, err := a.Next(); err != c.err {
					t.Fatalf("after %d events: %v, want %v", c.n, err, c.err)
				}
			}
		})
	}
}

func TestReadAheadStopsOnClose(t *testing.T) {
	src := &countedSource{n: 1 << 30, err: io.EOF}
	a := ReadAhead(src)
	if _, err := a.Next(); err != nil {
		t.Fatal(err)
	}
	a.Close()
	a.Close() // twice is fine
	n := 0
	for {
		_, err := a.Next()
		if err != nil {
			if err != errAheadClosed {
				t.Fatalf("after Close: %v, want %v", err, errAheadClosed)
			}
			break
		}
		if n++; n >= aheadBatchEvents { // at most the rest of the batch Next is in

			t.Fatalf("still reading after Close: %d events", n)
		}
	}
	// Read before Close: the batch given, those queued, the one filling and the one
	// waiting to be queued; after it at most the one filling.
	if r := src.reads.Load(); r > (aheadBatches+3)*aheadBatchEvents {
		t.Fatalf("the source was read %d times after Close", r)
	}
}
