package main

import (
	"os"
	"slices"
	"testing"

	"epsim/scenarios"
)

// markCall is one call of prepareHeap.
type markCall struct{ n, limit int64 }

// recordMarks replaces prepareHeap for the test with a recorder that marks nothing.
func recordMarks(t *testing.T) *[]markCall {
	t.Helper()
	var calls []markCall
	before := prepareHeap
	prepareHeap = func(n, limit int64) bool {
		calls = append(calls, markCall{n, limit})
		return false
	}
	t.Cleanup(func() { prepareHeap = before })
	return &calls
}

// TestCommandsMarkTheHeapTheyFill checks which commands ask for a huge-page heap
// (internal/hugeheap) and how large: a run, and a check of one scenario, the run's memory
// estimate; a replay, twice its recordings' bytes; a check of several scenarios nothing,
// as a process that runs several simulations keeps the holes of its reused heap resident.
func TestCommandsMarkTheHeapTheyFill(t *testing.T) {
	limit := scenarios.DefaultMaxMemory()
	trace, err := os.Stat(sample("replay-trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("run", func(t *testing.T) {
		calls := recordMarks(t)
		te := newTestEnv()
		if code := te.main([]string{"run", "x.yaml", "--quiet"}); code != exitOK {
			t.Fatalf("exit %d: %s", code, te.stderr.String())
		}
		want := []markCall{{scenarios.EstimateMemory(&te.ran[0]), limit}}
		if !slices.Equal(*calls, want) {
			t.Errorf("marked %v, want %v (the run's estimate)", *calls, want)
		}
	})
	t.Run("check of one scenario", func(t *testing.T) {
		calls := recordMarks(t)
		te := checkEnv()
		if code := te.main([]string{"check", "x.yaml", "--baseline-dir", t.TempDir(), "--update-baseline"}); code != exitOK {
			t.Fatalf("exit %d: %s", code, te.stderr.String())
		}
		if len(*calls) != 1 || (*calls)[0].n != scenarios.EstimateMemory(&te.ran[0]) {
			t.Errorf("marked %v, want one call with the run's estimate", *calls)
		}
	})
	t.Run("check of several scenarios", func(t *testing.T) {
		calls := recordMarks(t)
		te := checkEnv()
		if code := te.main([]string{"check", "x.yaml", "y.yaml", "--baseline-dir", t.TempDir(), "--update-baseline"}); code != exitOK {
			t.Fatalf("exit %d: %s", code, te.stderr.String())
		}
		if len(te.ran) != 2 || len(*calls) != 0 {
			t.Errorf("ran %d scenarios and marked %v, want 2 and nothing", len(te.ran), *calls)
		}
	})
	t.Run("replay", func(t *testing.T) {
		calls := recordMarks(t)
		e, _, errb := replayEnv()
		code := e.main([]string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--quiet"})
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		want := []markCall{{2 * trace.Size(), limit}}
		if !slices.Equal(*calls, want) {
			t.Errorf("marked %v, want %v (twice the trace's %d bytes)", *calls, want, trace.Size())
		}
	})
	t.Run("replay from stdin", func(t *testing.T) {
		calls := recordMarks(t)
		f, err := os.Open(sample("replay-trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		stdin := os.Stdin
		os.Stdin = f // replay reads the process's stdin
		t.Cleanup(func() { os.Stdin = stdin })
		e, _, errb := replayEnv()
		code := e.main([]string{"replay", "--pods", "-", "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json"), "--quiet"})
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		if want := []markCall{{0, limit}}; !slices.Equal(*calls, want) {
			t.Errorf("marked %v, want %v (a stream of unknown size: nothing)", *calls, want)
		}
	})
}

// TestReplayHeapBytes checks the heap a replay is taken to fill from its inputs' sizes.
func TestReplayHeapBytes(t *testing.T) {
	for _, tc := range []struct {
		pods, slices, want int64
	}{
		{pods: 100 << 20, slices: -1, want: 200 << 20},
		{pods: 100 << 20, slices: 50 << 20, want: 300 << 20},
		{pods: -1, slices: 50 << 20, want: 0}, // pods from stdin: nothing
		{pods: 0, slices: -1, want: 0},
	} {
		if got := replayHeapBytes(tc.pods, tc.slices); got != tc.want {
			t.Errorf("replayHeapBytes(%d, %d) = %d, want %d", tc.pods, tc.slices, got, tc.want)
		}
	}
}
