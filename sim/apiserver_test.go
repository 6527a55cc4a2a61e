package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"epsim/model"
)

// TestTriggerReader reads a sequence of annotations, repeated, changed, malformed and
// missing ones among them, and requires what parsing each one afresh gives (RFC 3339 with
// nanoseconds, as kube-proxy's getLastChangeTriggerTime).
func TestTriggerReader(t *testing.T) {
	at := func(sec int64, ns int64) string {
		return time.Unix(0, epoch+sec*1e9+ns).UTC().Format(time.RFC3339Nano)
	}
	values := []string{at(5, 0), at(5, 0), at(6, 250), "garbage", "garbage", at(6, 250), "", at(0, 0)}
	r := triggerReader{epoch: epoch}
	for i, v := range append(values, "missing") {
		ann := map[string]string{model.AnnotationTriggerTime: v}
		if v == "missing" {
			ann = map[string]string{"other": at(1, 0)}
		}
		got, gotOK := r.of(model.StringMapOf(ann))
		want, wantOK := Time(0), false
		if v != "missing" {
			want, wantOK = parseTrigger(v, epoch)
		}
		if got != want || gotOK != wantOK {
			t.Errorf("value %d (%q): %v %v, want %v %v", i, v, got, gotOK, want, wantOK)
		}
	}
	if got, ok := parseTrigger(at(6, 250), epoch); !ok || got != 6*Time(time.Second)+250 {
		t.Errorf("parseTrigger = %v %v, want 6.00000025s", got, ok)
	}
}

// TestResourceVersions takes versions from counters that cross a power of ten, with some
// taken without a string (bump) in between and some jumps (a replay following its
// recording's versions), and requires each to be the counter formatted in decimal, as one
// strconv.FormatInt call per version gave, and to stay so while later ones are formatted
// after it (over several of next's chunks).
func TestResourceVersions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, start := range []int64{0, 1000, 9990, 99_995, 999_999_990, math.MaxInt64 - 60} {
		a := &revisions{resourceVersion: start}
		var got, want []string
		for range 60 {
			switch r := rng.IntN(8); {
			case r < 2:
				a.bump()
				continue
			case r == 2 && a.resourceVersion < math.MaxInt64/2:
				a.resourceVersion += rng.Int64N(2_000_000)
			}
			got = append(got, a.next())
			want = append(want, strconv.FormatInt(a.resourceVersion, 10))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("from %d: versions %q, want %q", start, got, want)
		}
	}
}
