package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
	"epsim/trace"
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

	// A missing input and a directory (a path that opens but does not read) are the user's
	// mistake, named once, as other commands name them.
	for _, tc := range []struct{ arg, want string }{
		{filepath.Join(dir, "none.json"), "sim: import: " + filepath.Join(dir, "none.json") + ": no such file or directory\n"},
		{dir, "sim: import: " + dir + ": is a directory, not a file\n"},
	} {
		te := newTestEnv()
		if code := te.main([]string{"import", tc.arg}); code != exitBadInput || te.stderr.String() != tc.want {
			t.Errorf("import %s: exit %d, stderr %q; want %d, %q", tc.arg, code, te.stderr.String(), exitBadInput, tc.want)
		}
	}

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{oops"), 0o644)
	te = newTestEnv()
	if code := te.main([]string{"import", "--anonymize", bad}); code != exitBadInput {
		t.Errorf("bad input: exit %d, want %d (%s)", code, exitBadInput, te.stderr.String())
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

// TestMessagesCountOne: what the commands count on stderr is often one (one node, one
// Service, one event out of order) and is said in the singular: "1 pods" read as a bug.
func TestMessagesCountOne(t *testing.T) {
	in := filepath.Join(t.TempDir(), "one.json")
	os.WriteFile(in, []byte(`{"kind":"List","apiVersion":"v1","items":[
{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z1"}},"status":{"allocatable":{"cpu":"4"}}},
{"kind":"Service","apiVersion":"v1","metadata":{"namespace":"default","name":"one"},"spec":{"selector":{"app":"one"},"ports":[{"port":80,"targetPort":8080,"protocol":"TCP"}]}},
{"kind":"Endpoints","apiVersion":"v1","metadata":{"namespace":"default","name":"one"},"subsets":[{"addresses":[{"ip":"10.1.0.1","nodeName":"n1"}],"ports":[{"port":8080,"protocol":"TCP"}]}]}]}`), 0o644)
	te := newTestEnv()
	if code := te.main([]string{"import", in}); code != exitOK {
		t.Fatalf("import: exit %d: %s", code, te.stderr.String())
	}
	said := te.stderr.String()
	if want := "sim: import: 1 node, 1 Service in 1 entry, 1 pod\n"; !strings.Contains(said, want) {
		t.Errorf("import's stderr %q lacks %q", said, want)
	}

	var w strings.Builder
	warnReplay(&w, "trace.jsonl", &sim.ReplayStats{OutOfOrder: 1, Relists: 1, RelistDeleted: 1, CreatedAfterEnd: 1},
		&trace.Stats{BeforeListing: 1, InvalidIPs: 1, InvalidIPEvents: []int64{7}, Skipped: map[string]int64{"type ERROR": 1}})
	said += w.String()
	for _, want := range []string{"1 event out of time order", "1 event dated before", "lists the pods again 1 time ",
		"the 1 pod a relist did not list was deleted", "1 Service was created after", "1 event of type ERROR",
		"1 event rejected for a pod IP that is not an IP address (event 7)"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("replay's warnings lack %q:\n%s", want, w.String())
		}
	}
	said += failedText(reports.DiffCounts{Failed: 1}, "5%")
	if m := regexp.MustCompile(`\b1 (nodes|Services|entries|pods|events|times|figures)\b`).FindString(said); m != "" {
		t.Errorf("%q in\n%s", m, said)
	}
}

// "-" among files reads stdin as one more input: it was read only when it was the sole
// argument, so 'kubectl get services -A -o json | sim import nodes.json -' imported no
// Service at all. "-" twice is a usage error.
func TestImportStdinAmongFiles(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.json")
	os.WriteFile(nodes, []byte(`{"kind":"List","items":[{"kind":"Node","metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z1"}},"status":{"allocatable":{"cpu":"4"}}}]}`), 0o644)
	services := `{"kind":"List","items":[{"kind":"Service","metadata":{"namespace":"default","name":"one"},"spec":{"selector":{"app":"one"},"ports":[{"port":80}]}},
{"kind":"Deployment","metadata":{"namespace":"default","name":"one"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"one"}},"template":{"metadata":{"labels":{"app":"one"}}}}}]}`
	te := newTestEnv()
	te.stdin = strings.NewReader(services)
	if code := te.main([]string{"import", nodes, "-"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	if want := "sim: import: 1 node, 1 Service in 1 entry, 3 pods\n"; !strings.Contains(te.stderr.String(), want) {
		t.Errorf("stderr %q lacks %q: stdin was not read", te.stderr.String(), want)
	}
	te = newTestEnv()
	te.stdin = strings.NewReader(services)
	if code := te.main([]string{"import", "-", "-"}); code != exitBadInput || !strings.Contains(te.stderr.String(), "given twice") {
		t.Errorf("import - -: exit %d, stderr %q", code, te.stderr.String())
	}
}

// TestImportOutIsAnInput: --out naming one of the input files (by another path, or a link
// to it) is refused before the import, leaving the file as it was: it replaced the user's
// kubectl output with the scenario. record refuses its input as --out likewise.
// Reference: DESIGN.md "Quality bars" (bad input never leaves half-written output).
func TestImportOutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	sample := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "testdata", "import-"+f+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	nodes, services := filepath.Join(dir, "nodes.json"), filepath.Join(dir, "services.json")
	os.WriteFile(nodes, sample("nodes"), 0o644)
	os.WriteFile(services, sample("services"), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(services, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{nodes, filepath.Join(dir, ".", "services.json"), link} {
		te := newTestEnv()
		code := te.main([]string{"import", "--out", out, nodes, services})
		if code != exitBadInput || !strings.Contains(te.stderr.String(), "is an input: importing would destroy it") {
			t.Errorf("--out %s: exit %d, stderr %q", out, code, te.stderr.String())
		}
	}
	if b, _ := os.ReadFile(nodes); string(b) != string(sample("nodes")) {
		t.Error("nodes.json was changed")
	}
	if b, _ := os.ReadFile(services); string(b) != string(sample("services")) {
		t.Error("services.json was changed")
	}
}
