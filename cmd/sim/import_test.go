package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"epsim/scenarios"
)

// TestImportCommand imports the sample cluster into a file (named after it), and refuses
// input that is not kubectl JSON with exit status 2.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "my-cluster.yaml")
	var args []string
	for _, f := range []string{"nodes", "services", "workloads", "endpoints", "endpointslices"} {
		args = append(args, filepath.Join("..", "..", "scenarios", "testdata", "import-"+f+".json"))
	}
	te := newTestEnv()
	if code := te.main(append([]string{"import", "--out", out}, args...)); code != 0 {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	sc, _, err := scenarios.Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "my-cluster" || te.stdout.Len() != 0 {
		t.Errorf("name %q, stdout %q", sc.Name, te.stdout.String())
	}
	if !strings.Contains(te.stderr.String(), "not mapped: ") || !strings.Contains(te.stderr.String(), "12 nodes, 12 Services in 8 entries") {
		t.Errorf("stderr: %s", te.stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{oops"), 0o644)
	te = newTestEnv()
	if code := te.main([]string{"import", "--anonymize", bad}); code != exitBadInput {
		t.Errorf("bad input: exit %d, want %d (%s)", code, exitBadInput, te.stderr.String())
	}
	// A path that opens but does not read (a directory) is the user's mistake too.
	te = newTestEnv()
	if code := te.main([]string{"import", dir}); code != exitBadInput || !strings.Contains(te.stderr.String(), "cannot read "+dir) {
		t.Errorf("a directory: exit %d, want %d (%s)", code, exitBadInput, te.stderr.String())
	}
	// --out a directory: said at once, naming the flag, and nothing is written there.
	te = newTestEnv()
	if code := te.main(append([]string{"import", "--out", dir}, args...)); code != exitBadInput ||
		!strings.Contains(te.stderr.String(), "--out "+dir+" is a directory") {
		t.Errorf("--out a directory: exit %d, want %d (%s)", code, exitBadInput, te.stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 { // my-cluster.yaml, bad.json
		t.Errorf("--out a directory left %v", entries)
	}
	// --out in a directory that does not exist: bad input (exit 2), said before the
	// import's work, as record says it.
	te = newTestEnv()
	missing := filepath.Join(dir, "none", "x.yaml")
	if code := te.main(append([]string{"import", "--out", missing}, args...)); code != exitBadInput ||
		!strings.Contains(te.stderr.String(), "--out "+missing+": directory "+filepath.Dir(missing)+" does not exist") {
		t.Errorf("--out in a missing directory: exit %d, want %d (%s)", code, exitBadInput, te.stderr.String())
	}
	if strings.Contains(te.stderr.String(), "nodes,") {
		t.Errorf("--out in a missing directory was checked only after the import: %s", te.stderr.String())
	}
}
