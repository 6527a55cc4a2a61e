package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"epsim/reports"
)

// TestReadBaselineAccepts: baselines that are valid, however written, read as their figures.
func TestReadBaselineAccepts(t *testing.T) {
	want := &reports.Baseline{Version: reports.BaselineVersion, Scenario: "fake", Seed: 1,
		Figures: map[string]float64{"flip.endpoints.syncs": 3}}
	for _, tc := range []struct {
		name, content string
	}{
		{"plain", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.endpoints.syncs": 3}}`},
		// Editors on Windows start a UTF-8 file with a byte-order mark.
		{"byte-order mark", "\ufeff" + `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.endpoints.syncs": 3}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readBaseline(path)
			if err != nil {
				t.Fatalf("readBaseline: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read %+v, want %+v", got, want)
			}
		})
	}
}
