package trace

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"testing"
	"time"
)

// TestClockLead: a recorded trace whose objects are dated after their events arrived (the
// recorder's clock 30 s behind the cluster's) says by how much at least, and at which
// event; the trace as recorded says nothing.
func TestClockLead(t *testing.T) {
	raw, err := os.ReadFile("../scenarios/testdata/replay-trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	timeField := regexp.MustCompile(`"time":"([^"]+)"`)
	shifted := timeField.ReplaceAllFunc(raw, func(m []byte) []byte {
		at, err := time.Parse(time.RFC3339Nano, string(timeField.FindSubmatch(m)[1]))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(`"time":"` + at.Add(-30*time.Second).Format(time.RFC3339Nano) + `"`)
	})
	for _, tc := range []struct {
		name   string
		in     []byte
		lo, hi float64
	}{
		{"as recorded", raw, 0, 0},
		{"recorder 30 s behind", shifted, 29, 30},
	} {
		r := NewPodReader(bytes.NewReader(tc.in), "trace.jsonl")
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		s := r.Stats()
		if s.ClockLeadSeconds < tc.lo || s.ClockLeadSeconds > tc.hi || (s.ClockLeadSeconds > 0) != (s.ClockLeadEvent > 0) {
			t.Errorf("%s: clock lead %.3f s at event %d, want %g..%g s", tc.name, s.ClockLeadSeconds, s.ClockLeadEvent, tc.lo, tc.hi)
		}
	}
}
