package trace

import (
	"encoding/json"
	"io"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"

	"epsim/model"
	"epsim/sim"
)

// SliceEvent is one event of an EndpointSlice watch stream.
type SliceEvent struct {
	At    sim.Time
	Type  model.EventType
	Slice *model.EndpointSlice
}

// SliceReader reads an EndpointSlice watch stream — 'kubectl get endpointslices -A --watch
// --output-watch-events -o json', or a trace of it written by Record — one event per Next.
type SliceReader struct {
	w *watchReader
}

// NewSliceReader returns a reader of the EndpointSlice watch stream r; name prefixes error
// messages.
func NewSliceReader(r io.Reader, name string) *SliceReader {
	s := &SliceReader{}
	s.w = newWatchReader(r, name, "EndpointSlice", func(raw []byte) (decoded, error) {
		var sl discoveryv1.EndpointSlice
		if err := json.Unmarshal(raw, &sl); err != nil || sl.Kind != "EndpointSlice" {
			return decoded{kind: sl.Kind}, err
		}
		return decoded{kind: sl.Kind, obj: SliceFromAPI(&sl), at: sliceTime(&sl), created: sl.CreationTimestamp.Time}, nil
	})
	return s
}

// Next returns the next EndpointSlice event, or io.EOF at the end of the stream.
func (s *SliceReader) Next() (SliceEvent, error) {
	it, err := s.w.next()
	if err != nil {
		return SliceEvent{}, err
	}
	return SliceEvent{At: it.at, Type: it.typ, Slice: it.obj.(*model.EndpointSlice)}, nil
}

// Stats describes what has been read so far.
func (s *SliceReader) Stats() *Stats { return &s.w.stats }

// sliceTime is the latest time a slice itself records: its creation, the trigger-time
// annotation the controller sets on each write, or its deletion.
func sliceTime(s *discoveryv1.EndpointSlice) time.Time {
	t := s.CreationTimestamp.Time
	if v := s.Annotations[model.AnnotationTriggerTime]; v != "" {
		if tt, err := time.Parse(time.RFC3339Nano, v); err == nil && tt.After(t) {
			t = tt
		}
	}
	if d := s.DeletionTimestamp; d != nil && d.After(t) {
		t = d.Time
	}
	return t
}
