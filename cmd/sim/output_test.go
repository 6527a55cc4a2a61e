package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestProbeWritable: the check --out and --baseline make where no access(2) tells (Windows)
// agrees with access(2) here, and leaves nothing behind in the directory it tries.
func TestProbeWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "read-only")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir string
		ok        bool
		// notDir: access(2) says whether the file may be written, which no caller asks.
		notDir bool
	}{
		{"a directory", dir, true, false},
		{"a missing one", filepath.Join(dir, "missing"), false, false},
		{"a file", file, false, true},
		// root writes into a read-only directory, and access(2) says so too.
		{"a read-only one", readOnly, os.Geteuid() == 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, _ := os.ReadDir(c.dir)
			err := probeWritable(c.dir)
			if (err == nil) != c.ok {
				t.Fatalf("probeWritable(%s) = %v, want ok %v", c.dir, err, c.ok)
			}
			if unixErr := writable(c.dir); !c.notDir && (unixErr == nil) != (err == nil) {
				t.Errorf("probeWritable says %v, access(2) %v", err, unixErr)
			}
			if c.name == "a missing one" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("error %v, want one of a missing directory", err)
			}
			if after, _ := os.ReadDir(c.dir); len(after) != len(before) {
				t.Errorf("%d entries after the probe, %d before", len(after), len(before))
			}
		})
	}
}
