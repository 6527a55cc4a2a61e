package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"epsim/reports"
	"epsim/sim"
)

// records returns n write records, each different.
func records(n int) []sim.WriteRecord {
	out := make([]sim.WriteRecord, n)
	for i := range out {
		out[i] = sim.WriteRecord{At: sim.Time(i) * 1000, Mode: sim.ModeEndpointSlices, Verb: "update", Kind: "EndpointSlice",
			Namespace: "ns", Name: fmt.Sprintf("web-%d", i%97), Endpoints: i % 100, ObjectBytes: int64(i), EventBytes: int64(2 * i),
			Watchers: 5000, Outcome: "ok", Phase: "rollout"}
	}
	return out
}

func openStream(t *testing.T, path string, flag int) *outputStream {
	t.Helper()
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return &outputStream{Writer: bufio.NewWriterSize(f, 1<<16), f: f, name: "writes.jsonl"}
}

// TestWriteLogWritesInOrder: the log written behind the run is the one written at once,
// byte for byte, across batches and a partial last one.
func TestWriteLogWritesInOrder(t *testing.T) {
	recs := records(3*writeLogBatch + 17)
	path := filepath.Join(t.TempDir(), "writes.jsonl")
	l := startWriteLog(openStream(t, path, os.O_WRONLY|os.O_CREATE))
	for _, r := range recs {
		if err := l.LogWrite(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := reports.WriteWritesJSONL(&want, recs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("writes.jsonl: %d bytes, want %d", len(got), want.Len())
	}
}

// TestWriteLogStopsTheRunOnAFullDisk: once a write fails, LogWrite says so (which stops
// the run) within a few batches, and close reports the error.
func TestWriteLogStopsTheRunOnAFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	l := startWriteLog(openStream(t, "/dev/full", os.O_WRONLY))
	stopped := -1
	for i, r := range records(100 * writeLogBatch) {
		if err := l.LogWrite(r); err != nil {
			stopped = i
			break
		}
	}
	if stopped < 0 {
		t.Fatal("LogWrite never failed on a full disk")
	}
	err := l.close()
	if err == nil || !strings.Contains(err.Error(), "writes.jsonl: ") || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("close: %v, want the full disk", err)
	}
}
