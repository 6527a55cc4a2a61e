package sim

import (
	"testing"
	"time"
)

// TestLayoutSamples drives the collector's slice layout through changes in a few seconds:
// each second with a change gets one sample, at its end, of the layout that second left,
// whatever a later second changes; min, median and max are of the slices alive then.
func TestLayoutSamples(t *testing.T) {
	e, err := newEngine(testConfig(3, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(e)
	at := func(d time.Duration) { e.now = Time(d) }
	at(200 * time.Millisecond)
	c.sliceResized(-1, 10) // created
	c.sliceResized(-1, 30)
	at(900 * time.Millisecond)
	c.sliceResized(-1, 20) // second 0 ends with 10, 20, 30
	at(3500 * time.Millisecond)
	c.sliceResized(10, 100) // second 3 ends with 20, 30, 100
	at(3600 * time.Millisecond)
	c.sliceResized(30, -1) // deleted: second 3 ends with 20, 100
	at(7 * time.Second)
	c.sliceResized(20, 5) // second 7 ends with 5, 100
	c.finishLayout()
	want := []LayoutSample{
		{At: Time(1 * time.Second), Slices: 3, Endpoints: 60, Min: 10, Median: 20, Max: 30},
		{At: Time(4 * time.Second), Slices: 2, Endpoints: 120, Min: 20, Median: 20, Max: 100},
		{At: Time(8 * time.Second), Slices: 2, Endpoints: 105, Min: 5, Median: 5, Max: 100},
	}
	got := c.layoutSamples()
	if len(got) != len(want) {
		t.Fatalf("%d samples %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
