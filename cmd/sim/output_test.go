package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestSingleFileOutputsKeepOtherFiles: a flag naming the one file a command writes
// (check's baselines and --junit, import's and record's --out) writes over an earlier
// output of that kind, a damaged one or an empty file, and refuses anything else (bad
// input), leaving it as it was: a mistyped name (--out services.json) destroyed the user's
// file without a word.
func TestSingleFileOutputsKeepOtherFiles(t *testing.T) {
	raw, err := os.ReadFile(sample("replay-watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	testdata := filepath.Join("..", "..", "scenarios", "testdata")
	for _, tc := range []struct {
		name    string
		args    func(path string) []string
		stdin   []byte
		damaged func(earlier []byte) []byte // an earlier output, damaged, still written over
	}{
		{"baseline", func(p string) []string {
			return []string{"check", "quick", "--baseline", p, "--update-baseline", "--quiet"}
		}, nil, func(b []byte) []byte { return append([]byte("<<<<<<< HEAD\n"), b...) }},
		{"junit", func(p string) []string {
			return []string{"check", "quick", "--baseline-dir", t.TempDir(), "--update-baseline", "--junit", p, "--quiet"}
		}, nil, func(b []byte) []byte { return b[:len(b)/2] }},
		{"import", func(p string) []string {
			return []string{"import", "--out", p, filepath.Join(testdata, "import-nodes.json"), filepath.Join(testdata, "import-services.json")}
		}, nil, func(b []byte) []byte { return bytes.Replace(b, []byte("# Imported"), []byte("# imported"), 1) }},
		{"record", func(p string) []string { return []string{"record", "--out", p} },
			raw, func(b []byte) []byte { return b[:len(b)/3] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out")
			run := func() (int, string) {
				var stdout, stderr bytes.Buffer
				e := newEnv(&stdout, &stderr)
				if tc.stdin != nil {
					e.stdin = bytes.NewReader(tc.stdin)
				}
				return e.main(tc.args(path)), stderr.String()
			}
			if code, msg := run(); code != exitOK {
				t.Fatalf("first write: exit %d: %s", code, msg)
			}
			earlier, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name    string
				content []byte
			}{{"earlier", earlier}, {"damaged", tc.damaged(earlier)}, {"empty", nil}} {
				if err := os.WriteFile(path, c.content, 0o644); err != nil {
					t.Fatal(err)
				}
				if code, msg := run(); code != exitOK {
					t.Errorf("over an %s output: exit %d: %s", c.name, code, msg)
				}
			}
			for _, other := range []string{"precious notes\n", `{"apiVersion": "v1", "kind": "List"}`} {
				if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
					t.Fatal(err)
				}
				code, msg := run()
				if code != exitBadInput || !strings.Contains(msg, "exists and is not") {
					t.Errorf("over a user's file %q: exit %d, %q; want %d, saying why", other, code, msg, exitBadInput)
				}
				if got, _ := os.ReadFile(path); string(got) != other {
					t.Errorf("a refused write changed the user's file to %.80q", got)
				}
			}
		})
	}
}

// --write-log=false leaves writes.jsonl out of a run's and a replay's --out (650 MB of a
// day of cluster-day), takes away the one an earlier run left, and changes no other file:
// the figures come from the run, not from its log. A replay still compares its slice
// writes with the recording's (--endpointslices reads the writes, not the file).
func TestWriteLogLeftOut(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with"), filepath.Join(dir, "without")
	for _, args := range [][]string{
		{"run", "quick", "--quiet", "--charts=false", "--out", with},
		{"run", "quick", "--quiet", "--charts=false", "--out", without}, // a log to take away
		{"run", "quick", "--quiet", "--charts=false", "--out", without, "--write-log=false"},
	} {
		te := realEnv()
		if code := te.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, te.stderr.String())
		}
	}
	a, b := listDir(t, with), listDir(t, without)
	if !slices.Contains(a, "writes.jsonl") || slices.Contains(b, "writes.jsonl") ||
		!slices.Equal(slices.DeleteFunc(slices.Clone(a), func(n string) bool { return n == "writes.jsonl" }), b) {
		t.Fatalf("with the log %v, without %v: want the same files but writes.jsonl", a, b)
	}
	for _, name := range b {
		x, _ := os.ReadFile(filepath.Join(with, name))
		y, _ := os.ReadFile(filepath.Join(without, name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs without the write log", name)
		}
	}

	recorded := writeRecordedSlice(t, dir)
	replay := func(out string, extra ...string) string {
		t.Helper()
		te := realEnv()
		args := append([]string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
			"--nodes", sample("replay-nodes.json"), "--endpointslices", recorded, "--out", out, "--charts=false", "--quiet"}, extra...)
		if code := te.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, te.stderr.String())
		}
		return te.stdout.String()
	}
	rw, rwo := filepath.Join(dir, "replay-with"), filepath.Join(dir, "replay-without")
	if x, y := replay(rw), replay(rwo, "--write-log=false"); x != y || !strings.Contains(x, "EndpointSlice") {
		t.Errorf("the replay's output changed without the write log:\n%s\n---\n%s", x, y)
	}
	if names := listDir(t, rwo); slices.Contains(names, "writes.jsonl") || !slices.Contains(listDir(t, rw), "writes.jsonl") {
		t.Errorf("replay --out with --write-log=false holds %v", names)
	}
	for _, name := range []string{"summary.json", "replay.json", "report.md"} {
		x, _ := os.ReadFile(filepath.Join(rw, name))
		y, _ := os.ReadFile(filepath.Join(rwo, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("replay's %s differs without the write log (or is empty)", name)
		}
	}
}
