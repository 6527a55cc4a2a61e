package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestDefaultPGOProfile: cmd/sim/default.pgo, the CPU profile `go build ./cmd/sim` optimizes
// sim with, is a profile of sim's own hot code, and the go command applies it (this test's
// binary, of package main, is built with it as sim is). A profile that lost those functions
// (renamed or gone) still builds but no longer guides anything: `make pgo` makes it again.
func TestDefaultPGOProfile(t *testing.T) {
	f, err := os.Open("default.pgo")
	if err != nil {
		t.Fatalf("%v (make pgo writes it)", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("default.pgo is not a gzipped pprof profile: %v", err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("default.pgo: %v", err)
	}
	// The function names are in the profile's string table, as written.
	for _, fn := range []string{
		"epsim/sim.(*Engine).run",
		"epsim/sim.(*apiServer).commit",
		"epsim/model.(*ServiceSlices).Sync",
		"epsim/model.(*ServiceEndpoints).Sync",
	} {
		if !bytes.Contains(raw, []byte(fn)) {
			t.Errorf("default.pgo has no samples of %s: run make pgo", fn)
		}
	}

	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this binary")
	}
	for _, s := range info.Settings {
		if s.Key == "-pgo" {
			if filepath.Base(s.Value) != "default.pgo" || !strings.Contains(filepath.ToSlash(s.Value), "cmd/sim/") {
				t.Errorf("built with -pgo=%s, want cmd/sim/default.pgo", s.Value)
			}
			return
		}
	}
	t.Error("this binary was built without a profile: go build no longer finds cmd/sim/default.pgo")
}
