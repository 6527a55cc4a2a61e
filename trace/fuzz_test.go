package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// seeds are the first bytes of the sample files plus small hand-picked edge cases.
func seeds(f *testing.F, files ...string) {
	for _, name := range files {
		b, err := os.ReadFile(sampleDir + "/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4000)])
	}
	for _, s := range []string{"", "{", "[]", `{"type":"ADDED"}`, `{"type":"ADDED","object":{"kind":"Pod","status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"bad"}]}}}`,
		`{"kind":"List","items":[{"kind":"Service","spec":{"ports":[{"targetPort":"x"}]}}]}`, `{"kind":"List","items":null}`, `}`, `{"time":"x","type":"DELETED","object":{"kind":"Pod"}}`,
		`{"time":"2026-01-01T00:00:00Z","type":"ADDED","object":{"kind":"Pod"}}{"time":"2400-01-01T00:00:00Z","type":"DELETED","object":{"kind":"Pod"}}`} {
		f.Add([]byte(s))
	}
}

// drain reads every event; it must end in io.EOF or an error, never panic, and an
// InputError must name an event and an offset within the input.
func checkErr(t *testing.T, err error, n int) {
	if err == nil || errors.Is(err, io.EOF) {
		return
	}
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error is not an InputError: %v", err)
	}
	if ie.Event < 1 || ie.Offset < 0 || ie.Offset > int64(n) {
		t.Fatalf("bad location in %v (input %d bytes)", err, n)
	}
}

func FuzzPodReader(f *testing.F) {
	seeds(f, "replay-watch.json", "replay-trace.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewPodReader(bytes.NewReader(data), "fuzz")
		for range 10000 {
			ev, err := r.Next()
			if err != nil {
				checkErr(t, err, len(data))
				return
			}
			// A recorded event dated before the recording's first one comes out before it
			// (applied at once by the replay), and is counted.
			// No event is further from the start than a recording may span (maxSpan).
			if ev.Pod == nil || ev.At < 0 && r.Stats().BeforeListing == 0 || time.Duration(ev.At) > maxSpan {
				t.Fatalf("bad event %+v (stats %+v)", ev, *r.Stats())
			}
		}
	})
}

func FuzzSliceReader(f *testing.F) {
	seeds(f, "replay-trace.jsonl")
	f.Add([]byte(`{"type":"ADDED","object":{"kind":"EndpointSlice","metadata":{"name":"a-x","labels":{"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io"}},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true}}],"ports":[{"port":80}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewSliceReader(bytes.NewReader(data), "fuzz")
		for range 10000 {
			_, err := r.Next()
			if err != nil {
				checkErr(t, err, len(data))
				return
			}
		}
	})
}

func FuzzReadServices(f *testing.F) {
	seeds(f, "replay-services.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := ReadServices(bytes.NewReader(data), "fuzz")
		checkErr(t, err, len(data))
	})
}

func FuzzReadNodes(f *testing.F) {
	seeds(f, "replay-nodes.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := ReadNodes(bytes.NewReader(data), "fuzz")
		checkErr(t, err, len(data))
	})
}

func FuzzRecord(f *testing.F) {
	seeds(f, "replay-watch.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		at := time.Unix(0, 0)
		_, err := Record(bytes.NewReader(data), &out, "fuzz", func() time.Time { at = at.Add(time.Millisecond); return at })
		checkErr(t, err, len(data))
		// What Record wrote reads back without error.
		r := NewPodReader(bytes.NewReader(out.Bytes()), "trace")
		for {
			if _, err := r.Next(); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("recorded trace does not read back: %v\n%s", err, out.Bytes())
				}
				return
			}
		}
	})
}
