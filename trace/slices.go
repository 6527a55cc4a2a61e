package trace

import (
	"encoding/json"
	"errors"
	"io"

	"epsim/model"
	"epsim/sim"
)

// SliceEvent is one event of an EndpointSlice watch stream.
type SliceEvent struct {
	At    sim.Time
	Type  model.EventType
	Slice *model.EndpointSlice
	// Listed marks an event of the stream's initial listing: a slice that existed when the
	// watch started, not a write (the same rule as a pod stream's listing).
	Listed bool
}

// SliceReader reads an EndpointSlice watch stream — 'kubectl get endpointslices -A --watch
// --output-watch-events -o json', or a trace of it written by Record — one event per Next.
type SliceReader struct {
	w *watchReader
	// ahead is the event Listing read past the listing, which Next returns first; taken
	// counts the events Listing returned.
	ahead    *SliceEvent
	aheadErr error
	taken    int64
}

// NewSliceReader returns a reader of the EndpointSlice watch stream r; name prefixes error
// messages.
func NewSliceReader(r io.Reader, name string) *SliceReader {
	return newSliceReader(r, name, true)
}

// newSliceReader returns a SliceReader that decodes events with decodeSliceEvent where it
// can when fast is set, and with encoding/json alone when not (for tests).
func newSliceReader(r io.Reader, name string, fast bool) *SliceReader {
	decode := func(raw []byte) (decoded, error) {
		var sl sliceJSON
		if err := json.Unmarshal(raw, &sl); err != nil || sl.Kind != "EndpointSlice" {
			return decoded{kind: sl.Kind}, err
		}
		return sliceDecoded(&sl), nil
	}
	if !fast {
		return &SliceReader{w: newWatchReader(r, name, "EndpointSlice", decode)}
	}
	w := &watchReader{s: newFramedStream(r, name), kind: "EndpointSlice", decode: decode, leading: true}
	cache := newDecodeCache()
	w.fast = func(raw []byte) (wireEvent, decoded, bool) {
		ev, sl, ok := decodeSliceEvent(raw, cache)
		if !ok {
			return wireEvent{}, decoded{}, false
		}
		return ev, sliceDecoded(sl), true
	}
	return &SliceReader{w: w}
}

// sliceDecoded is what a SliceReader takes from a slice.
func sliceDecoded(sl *sliceJSON) decoded {
	return decoded{kind: sl.Kind, obj: sliceFromJSON(sl), at: sliceTime(sl), created: sl.Metadata.CreationTimestamp.Time}
}

// Next returns the next EndpointSlice event, or io.EOF at the end of the stream.
func (s *SliceReader) Next() (SliceEvent, error) {
	if ev := s.ahead; ev != nil || s.aheadErr != nil {
		err := s.aheadErr
		s.ahead, s.aheadErr = nil, nil
		if ev == nil {
			return SliceEvent{}, err
		}
		return *ev, nil
	}
	it, err := s.w.next()
	if err != nil {
		return SliceEvent{}, err
	}
	return SliceEvent{At: it.at, Type: it.typ, Slice: it.obj.(*model.EndpointSlice), Listed: it.listed}, nil
}

// Listing reads the stream's initial listing, the slices that existed when the watch
// started (its leading events marked Listed), and returns them in stream order. It is called
// before Next, which then goes on with the first event after the listing.
func (s *SliceReader) Listing() ([]*model.EndpointSlice, error) {
	var out []*model.EndpointSlice
	for {
		ev, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				s.aheadErr = err
				return out, nil
			}
			return nil, err
		}
		if !ev.Listed {
			s.ahead = &ev
			return out, nil
		}
		s.taken++
		out = append(out, ev.Slice)
	}
}

// Stats describes what has been read so far.
func (s *SliceReader) Stats() *Stats { return &s.w.stats }
