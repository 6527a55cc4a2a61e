package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
)

// TestRunOutputsAreByteIdentical runs the real engine twice on the same scenario and seed:
// every file of --out must be identical byte for byte, and a different seed must change the
// write log. Reference: DESIGN.md "The engine" (deterministic); issue 4 "Determinism test".
func TestRunOutputsAreByteIdentical(t *testing.T) {
	run := func(seed string) string {
		dir := t.TempDir()
		te := realEnv()
		if code := te.main([]string{"run", "quick", "--quiet", "--charts=false", "--seed", seed, "--out", dir}); code != 0 {
			t.Fatalf("sim run quick: exit %d: %s", code, te.stderr.String())
		}
		return dir
	}
	a, b := run("3"), run("3")
	for _, f := range []string{"summary.json", "timeseries.csv", "writes.jsonl", "layout.csv"} {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, f))
		if err != nil {
			t.Fatal(err)
		}
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed (%d and %d bytes)", f, len(x), len(y))
		}
	}
	c := run("4")
	x, _ := os.ReadFile(filepath.Join(a, "writes.jsonl"))
	y, _ := os.ReadFile(filepath.Join(c, "writes.jsonl"))
	if bytes.Equal(x, y) {
		t.Error("seeds 3 and 4 gave the same write log")
	}
}

// sim run --out writes writes.jsonl as the run goes (the engine hands each write to the
// writer instead of holding the log): the file is the log a run holds, written at its end.
func TestRunStreamsTheWriteLog(t *testing.T) {
	dir := t.TempDir()
	te := realEnv()
	if code := te.main([]string{"run", "quick", "--quiet", "--charts=false", "--seed", "5", "--out", dir}); code != 0 {
		t.Fatalf("sim run quick: exit %d: %s", code, te.stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "writes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_, cfg, err := scenarios.Load("quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 5
	res, err := sim.Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := reports.WriteWritesJSONL(&want, res.Writes); err != nil {
		t.Fatal(err)
	}
	if want.Len() == 0 || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("writes.jsonl (%d bytes) is not the held log written out (%d bytes)", len(got), want.Len())
	}
}
