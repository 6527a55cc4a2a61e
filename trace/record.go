package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"time"

	"epsim/model"
)

// traceLine is one line of a trace: a watch event with the time it arrived.
type traceLine struct {
	Time   string `json:"time"`
	Type   string `json:"type"`
	Object any    `json:"object"`
}

// Writer writes a trace: one JSON object per line, {"time": RFC 3339 with nanoseconds, UTC;
// "type": ADDED|MODIFIED|DELETED; "object": the object}.
type Writer struct {
	w *bufio.Writer
}

// NewWriter returns a Writer to w. Each Write is flushed, so an interrupted recording keeps
// every complete event.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write writes one event that arrived at t; obj is marshaled with encoding/json.
func (w *Writer) Write(t time.Time, typ model.EventType, obj any) error {
	b, err := json.Marshal(traceLine{Time: t.UTC().Format(time.RFC3339Nano), Type: string(typ), Object: obj})
	if err != nil {
		return err
	}
	w.w.Write(b)
	w.w.WriteByte('\n')
	return w.w.Flush()
}

// WriteWatchEvent writes one watch event as 'kubectl get … --watch --output-watch-events -o
// json' prints it: {"type": …, "object": …}, indented by four spaces, then a newline.
func WriteWatchEvent(w io.Writer, typ model.EventType, obj any) error {
	b, err := json.MarshalIndent(struct {
		Type   string `json:"type"`
		Object any    `json:"object"`
	}{string(typ), obj}, "", "    ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteList writes objects as 'kubectl get … -o json' prints a list: {"apiVersion": "v1",
// "items": […], "kind": "List", "metadata": {"resourceVersion": ""}}, indented by four spaces.
func WriteList[T any](w io.Writer, items []T) error {
	b, err := json.MarshalIndent(struct {
		APIVersion string            `json:"apiVersion"`
		Items      []T               `json:"items"`
		Kind       string            `json:"kind"`
		Metadata   map[string]string `json:"metadata"`
	}{"v1", items, "List", map[string]string{"resourceVersion": ""}}, "", "    ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Record copies a kubectl watch stream (r) to a trace (w), stamping each event with now()
// as it arrives: the only honest clock for a watch stream, since objects carry timestamps
// of second precision and only for some changes. Pods are trimmed to what epsim reads
// (trimPod); EndpointSlices are kept whole; events of other kinds and BOOKMARK events are
// skipped and counted. It returns when r ends; a final event cut short (the watch was
// killed mid-write) is an *InputError with Truncated set, after every complete event was
// written.
func Record(r io.Reader, w io.Writer, name string, now func() time.Time) (*Stats, error) {
	s := newJSONStream(r, name)
	tw := NewWriter(w)
	stats := &Stats{RecordedTimes: true}
	for {
		var ev wireEvent
		if err := s.next(&ev); err != nil {
			if err == io.EOF {
				return stats, nil
			}
			return stats, err
		}
		start := s.valueStart
		at := now()
		if ev.Object == nil {
			wr := &watchReader{s: s, kind: "Pod"}
			return stats, wr.notAnEvent(start, ev)
		}
		switch ev.Type {
		case string(model.EventAdded), string(model.EventModified), string(model.EventDeleted):
		case "":
			return stats, s.errorf(start, "watch event without \"type\" (expected ADDED, MODIFIED or DELETED)")
		default:
			stats.skip("type " + ev.Type)
			continue
		}
		var tm typeMeta
		if err := json.Unmarshal(ev.Object, &tm); err != nil {
			return stats, s.errorf(start, "\"object\" is not a Kubernetes object: %v", err)
		}
		var obj any
		switch tm.Kind {
		case "Pod":
			var p podJSON
			if err := json.Unmarshal(ev.Object, &p); err != nil {
				return stats, s.objectError(start, "Pod", err)
			}
			obj = trimPod(&p)
		case "EndpointSlice":
			obj = compact(ev.Object)
		default:
			stats.skip("kind " + tm.Kind)
			continue
		}
		if stats.Events == 0 {
			stats.Start = at
		}
		if err := tw.Write(at, model.EventType(ev.Type), obj); err != nil {
			return stats, err
		}
		stats.Events++
	}
}

// compact returns raw without insignificant white space.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
