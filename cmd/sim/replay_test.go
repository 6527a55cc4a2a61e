package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"epsim/trace"
)

var updateReplay = flag.Bool("update-replay", false, "rewrite scenarios/testdata/replay-*.golden")

const sampleDir = "../../scenarios/testdata"

func sample(name string) string { return filepath.Join(sampleDir, name) }

// copySample writes the sample file name to path and returns its bytes.
func copySample(t *testing.T, name, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(sample(name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// editSampleList writes the sample kubectl List name, its items changed by edit, into dir
// under the same name, and returns the path.
func editSampleList(t *testing.T, name, dir string, edit func(items []any) []any) string {
	t.Helper()
	b, err := os.ReadFile(sample(name))
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	list["items"] = edit(list["items"].([]any))
	if b, err = json.Marshal(list); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replaySample replays the sample trace with the Services and nodes files given, --out
// under dir, and returns stdout, stderr and replay.json.
func replaySample(t *testing.T, services, nodes, dir string) (stdout, stderr string, report ReplayReport) {
	t.Helper()
	e, out, errb := replayEnv()
	code := e.main([]string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", services,
		"--nodes", nodes, "--out", filepath.Join(dir, "out"), "--charts=false", "--quiet"})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "replay.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), report
}

// writeRecordedSlice writes into dir a recording of the cluster's EndpointSlices for
// --endpointslices, slices.json: one slice of shop/web, one ready endpoint on port 80.
func writeRecordedSlice(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "slices.json")
	if err := os.WriteFile(path, []byte(`{"type":"ADDED","object":{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1",`+
		`"metadata":{"name":"web-abcde","namespace":"shop","labels":{"kubernetes.io/service-name":"web",`+
		`"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io"}},"addressType":"IPv4",`+
		`"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true}}],"ports":[{"port":80}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayEnv is the real environment (real engine and loader) with captured streams.
func replayEnv() (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb)
	return e, &out, &errb
}

// checkGolden compares got with scenarios/testdata/name, or rewrites it with -update-replay.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := sample(name)
	if *updateReplay {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./cmd/sim -run TestReplayGolden -update-replay)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (run: go test ./cmd/sim -run TestReplayGolden -update-replay); got:\n%s", path, got)
	}
}

// TestReplayGolden replays the sample recording (scenarios/testdata, made by
// 'go test ./trace -run TestGenerateSample -update') as a trace and as kubectl's raw watch
// output, and compares the tables with golden files.
func TestReplayGolden(t *testing.T) {
	for _, tc := range []struct {
		pods, golden string
		recorded     bool
		args         []string
	}{
		{"replay-trace.jsonl", "replay-trace.golden", true, nil},
		{"replay-watch.json", "replay-watch.golden", false, nil},
		{"replay-trace.jsonl", "replay-trace-warm.golden", true, []string{"--start", "warm"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			e, out, errb := replayEnv()
			args := []string{"replay", "--pods", sample(tc.pods), "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json"), "--quiet"}
			code := e.main(append(args, tc.args...))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errb)
			}
			if said := strings.Contains(errb.String(), "no recorded times"); said == tc.recorded {
				t.Errorf("stderr %q: note about object times present=%v, recorded=%v", errb, said, tc.recorded)
			}
			checkGolden(t, tc.golden, out.Bytes())
		})
	}
}

// TestReplayAnyDate replays the sample recording and the same recording made 333 days
// later (every timestamp moved, in the pods, the Services and the recorded times): the
// tables must be the same. The pods' own timestamps give the trigger times kube-proxy's
// programming latency counts from, which were read against the simulator's fixed date
// (2026-01-01, the sample's): a recording of any other day made latencies of months, or
// none. Both starts, both formats.
func TestReplayAnyDate(t *testing.T) {
	dir := t.TempDir()
	later := strings.NewReplacer("2026-01-01T", "2026-11-30T", "2025-12-31T", "2026-11-29T", "2025-12-30T", "2026-11-28T")
	for _, name := range []string{"replay-trace.jsonl", "replay-watch.json", "replay-services.json"} {
		b, err := os.ReadFile(sample(name))
		if err != nil {
			t.Fatal(err)
		}
		moved := later.Replace(string(b))
		if dates := regexp.MustCompile(`"20\d\d-\d\d-\d\dT`).FindAllString(moved, -1); slices.ContainsFunc(dates, func(d string) bool { return !strings.HasPrefix(d, `"2026-11-`) }) {
			t.Fatalf("%s has a date the test does not move: %v", name, dates)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(moved), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(in, pods string, start string) string {
		e, out, errb := replayEnv()
		code := e.main([]string{"replay", "--pods", filepath.Join(in, pods), "--services", filepath.Join(in, "replay-services.json"),
			"--nodes", sample("replay-nodes.json"), "--quiet", "--start", start})
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		return out.String()
	}
	for _, pods := range []string{"replay-trace.jsonl", "replay-watch.json"} {
		for _, start := range []string{"cold", "warm"} {
			if a, b := run(sampleDir, pods, start), run(dir, pods, start); a != b {
				t.Errorf("%s, %s start: the replay 333 days later differs:\n%s\nthen:\n%s", pods, start, a, b)
			}
		}
	}
}

// TestReplayOut checks --out: the run's files, its report and replay.json, and --format
// json on stdout.
func TestReplayOut(t *testing.T) {
	dir := t.TempDir()
	e, out, errb := replayEnv()
	code := e.main([]string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
		"--out", dir, "--charts=false", "--format", "json", "--set", "controlPlane.maxEndpointsPerSlice=5"})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "no --nodes") {
		t.Errorf("stderr %q lacks the no --nodes note", errb)
	}
	// It says what it wrote into --out, as 'sim run --out' and 'sim plot' do.
	if want := "sim: replay: wrote 8 files into " + dir + ": summary.json, timeseries.csv, writes.jsonl, layout.csv, replay.json, effective-scenario.yaml, report.md, report.html\n"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q lacks %q", errb, want)
	}
	var summary map[string]any
	if err := json.Unmarshal(out.Bytes(), &summary); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	for _, f := range []string{"summary.json", "timeseries.csv", "writes.jsonl", "layout.csv", "replay.json", "report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	var report ReplayReport
	b, _ := os.ReadFile(filepath.Join(dir, "replay.json"))
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	// The sample: one DaemonSet pod event matches no Service.
	if report.Replay.Unmatched != 1 || report.TimesFrom != "recorded" || report.Nodes == 0 {
		t.Errorf("replay.json %s", b)
	}
}

// TestReplayRunReport: the report of a replay says what was replayed, not a scenario: the
// recording and how its times were taken, what was read (the rows the table prints), the
// cluster's slices against the simulated ones, and next steps that repeat the replay's own
// command (its inputs, --start and --set, quoted for a shell), never 'sim run' or 'sim
// check', which cannot run a recording. A file name of Markdown's characters stays text.
func TestReplayRunReport(t *testing.T) {
	dir := t.TempDir()
	pods := filepath.Join(dir, "a|b*`c.json")
	copySample(t, "replay-watch.json", pods)
	slices := writeRecordedSlice(t, dir)
	out := filepath.Join(dir, "out")
	e, stdout, errb := replayEnv()
	code := e.main([]string{"replay", "--pods", pods, "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json"),
		"--endpointslices", slices, "--start", "warm", "--set", "controlPlane.maxEndpointsPerSlice=50", "--set", "slo=1m",
		"--out", out, "--charts=false", "--quiet"})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	want := []string{
		"# Replay report: a\\|b\\*\\`c.json\n",
		"Replay of ``a|b*`c.json``, seed 1: 8 nodes, 3 Services,",
		"Event times come from the pods' own timestamps",
		"(`--start warm`): their first syncs ran in phase `start-up`",
		"## Replay\n",
		"| `shop/web` | 0/0/0 | ",
		"real initial listing left out (the slices the run began with): 1",
		"Pod churn as recorded (`--pods`)",
		"`sim replay --pods '" + pods + "' --services " + sample("replay-services.json") + " --nodes " + sample("replay-nodes.json") +
			" --endpointslices " + slices + " --start warm --set slo=1m --set controlPlane.maxEndpointsPerSlice=500 --out results/b`",
		"Exact event times: record the churn with `sim record`",
	}
	// Every row of what was read, as the table on stdout prints it.
	var report ReplayReport
	if b, err := os.ReadFile(filepath.Join(out, "replay.json")); err != nil || json.Unmarshal(b, &report) != nil {
		t.Fatalf("replay.json: %v", err)
	}
	facts := replayFacts(&report)
	if len(facts) < 5 {
		t.Fatalf("replay read %d facts, want the sample's 6 or more", len(facts))
	}
	for _, f := range facts {
		if !strings.Contains(stdout.String(), fmt.Sprintf("  %-32s %s\n", f[0], f[1])) {
			t.Errorf("stdout lacks the row %q", f)
		}
		want = append(want, "| "+f[0]+" | "+f[1]+" |")
	}
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	for _, not := range []string{"sim run ", "sim check ", "Pod churn at the workload controllers' pace"} {
		if strings.Contains(md, not) {
			t.Errorf("report.md has %q, which a replay cannot use", not)
		}
	}
	if html, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(html), "<h1>Replay report: a|b*`c.json</h1>") {
		t.Errorf("report.html does not title the replay (%v)", err)
	}
}

// TestReplayErrors: bad flags and bad input exit 2 with a message naming the problem.
func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.json")
	full, err := os.ReadFile(sample("replay-watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(trunc, full[:len(full)/2], 0o644)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	emptyList := filepath.Join(dir, "empty-list.json")
	os.WriteFile(emptyList, []byte(`{"kind": "List", "items": []}`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no pods", []string{"replay", "--services", "x"}, "needs --pods"},
		{"stdin without nodes", []string{"replay", "--pods", "-", "--services", "x"}, "needs --nodes"},
		{"missing file", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", filepath.Join(dir, "none.json")}, "sim: " + filepath.Join(dir, "none.json") + ": no such file or directory\n"},
		// --out is checked before the pods are read (twice without --nodes): the error came
		// after the whole recording had been read for its nodes.
		{"out a file", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--out", empty}, "sim: --out " + empty + ": exists and is not a directory\n"},
		{"truncated", []string{"replay", "--pods", trunc, "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json")}, "truncated input"},
		{"pods as services", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-watch.json")}, "a watch event, expected a Service"},
		{"bad set", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--set", "controlPlane.maxEndpointsPerSlice=0"}, "maxEndpointsPerSlice"},
		// As an empty --nodes is: nothing would be replayed, and the all-zero results would
		// pass for a quiet cluster.
		// A directory is bad input for every file flag alike; --pods was once read as far as
		// the replay, which failed it with exit 1.
		{"pods a directory", []string{"replay", "--pods", dir, "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json")}, dir + ": is a directory, not a file"},
		{"services a directory", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", dir, "--nodes", sample("replay-nodes.json")}, "is a directory"},
		{"slices a directory", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json"), "--endpointslices", dir}, "is a directory"},
		{"empty services", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", empty, "--nodes", sample("replay-nodes.json")}, "--services " + empty + " holds no Service"},
		{"empty service list", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", emptyList, "--nodes", sample("replay-nodes.json")}, "holds no Service"},
		{"empty pods", []string{"replay", "--pods", empty, "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json")}, "--pods " + empty + " holds no pod event"},
		{"empty pods without nodes", []string{"replay", "--pods", empty, "--services", sample("replay-services.json")}, "holds no pod event"},
		{"bad start", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--start", "hot"}, `--start "hot": want cold or warm`},
		// The comparison would set the cluster's slice writes beside none.
		{"comparison without slices", []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
			"--endpointslices", sample("replay-trace.jsonl"), "--mode", "endpoints"}, "needs --mode both or endpointslices, not endpoints"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, errb := replayEnv()
			if code := e.main(tc.args); code != exitBadInput {
				t.Errorf("exit %d, want %d; stderr %s", code, exitBadInput, errb)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", errb, tc.want)
			}
			if tc.name == "out a file" && strings.Contains(errb.String(), "no --nodes") {
				t.Errorf("the pods were read before --out was checked: %q", errb)
			}
		})
	}
}

// TestRecordOutMode: the trace --out writes has the mode a plain create gives a new file
// (0666 less the umask), as every other output has, not os.CreateTemp's 0600.
func TestRecordOutMode(t *testing.T) {
	raw, err := os.ReadFile(sample("replay-watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, umask := range []int{0o022, 0o027} {
		old := syscall.Umask(umask)
		tr := filepath.Join(t.TempDir(), "trace.jsonl")
		e, _, errb := replayEnv()
		e.stdin = bytes.NewReader(raw)
		code := e.main([]string{"record", "--out", tr})
		syscall.Umask(old)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		st, err := os.Stat(tr)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Mode().Perm(), os.FileMode(0o666&^umask); got != want {
			t.Errorf("umask %#o: trace mode %v, want %v", umask, got, want)
		}
	}
}

// TestRecordCommand records the raw sample watch stream, fed as a stream, and replays the
// trace it wrote.
func TestRecordCommand(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace.jsonl")
	e, _, errb := replayEnv()
	raw, err := os.ReadFile(sample("replay-watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	e.stdin = bytes.NewReader(raw)
	if code := e.main([]string{"record", "--out", tr}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	want, _ := os.ReadFile(sample("replay-trace.jsonl"))
	got, _ := os.ReadFile(tr)
	if bytes.Count(got, []byte("\n")) != bytes.Count(want, []byte("\n")) {
		t.Errorf("recorded %d lines, the sample trace has %d", bytes.Count(got, []byte("\n")), bytes.Count(want, []byte("\n")))
	}
	if !strings.Contains(errb.String(), "events recorded") {
		t.Errorf("stderr %q", errb)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".trace.jsonl.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	e, _, errb = replayEnv()
	if code := e.main([]string{"replay", "--pods", tr, "--services", sample("replay-services.json"), "--quiet"}); code != exitOK {
		t.Fatalf("replaying the recorded trace: exit %d: %s", code, errb)
	}
}

// TestRecordRefusesFiles: the example that squeezed a 40 s recording into 75 ms ('sim record
// --out t.jsonl watch.json') is refused, as is a file redirected to stdin and --out being the
// input; nothing is written.
func TestRecordRefusesFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.jsonl")
	watch := sample("replay-watch.json")
	openStdin := func(path string) *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin func() *os.File
		want  string
	}{
		{"file argument", []string{"record", "--out", out, watch}, nil, "pipe the live stream"},
		{"file on stdin", []string{"record", "--out", out}, func() *os.File { return openStdin(watch) }, "stdin is a file, not a live stream"},
		{"out is the input", []string{"record", "--out", watch}, func() *os.File { return openStdin(watch) }, "is the input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(watch)
			e, _, errb := replayEnv()
			if tc.stdin != nil {
				e.stdin = tc.stdin()
			}
			if code := e.main(tc.args); code != exitBadInput {
				t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errb)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", errb, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
			if after, _ := os.ReadFile(watch); !bytes.Equal(before, after) {
				t.Errorf("the input %s changed", watch)
			}
		})
	}
}

// TestRecordKeepsOutOnError: garbage input over an existing --out trace (which truncated it
// to 0 bytes) leaves the trace as it was, and no temporary file.
func TestRecordKeepsOutOnError(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.jsonl")
	want := copySample(t, "replay-trace.jsonl", out)
	e, _, errb := replayEnv()
	e.stdin = strings.NewReader("this is not a watch stream\n")
	if code := e.main([]string{"record", "--out", out}); code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errb)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Errorf("--out changed: %d bytes, was %d", len(got), len(want))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".trace.jsonl.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestRecordKeepsEventsBeforeBadInput: input the recorder cannot read after events it
// recorded (kubectl killed mid-write in a restart loop, then its error message) ends the
// recording as bad input, with every complete event before it kept in --out, whole; it
// once deleted the recording. A stream bad from its first byte still leaves --out alone
// (TestRecordKeepsOutOnError).
func TestRecordKeepsEventsBeforeBadInput(t *testing.T) {
	raw, err := os.ReadFile(sample("replay-watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	e, _, errb := replayEnv()
	e.stdin = bytes.NewReader(raw)
	if code := e.main([]string{"record", "--out", whole}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	wholeTrace, _ := os.ReadFile(whole)
	// The stream cut inside its third event, then kubectl's error.
	// A top-level event begins at a line "{" and its "type" (types nested in the object
	// are indented deeper).
	var starts []int
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte("{\n    \"type\""))
		if j < 0 {
			break
		}
		starts = append(starts, i+j)
		i += j + 1
	}
	third := starts[2]
	out := filepath.Join(dir, "trace.jsonl")
	e, _, errb = replayEnv()
	e.stdin = io.MultiReader(bytes.NewReader(raw[:third+40]), strings.NewReader("\nerror: unexpected EOF\n"))
	if code := e.main([]string{"record", "--out", out}); code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errb)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the events before the bad input are lost: %v (stderr %s)", err, errb)
	}
	lines := bytes.SplitAfter(got, []byte("\n"))
	if n := bytes.Count(got, []byte("\n")); n != 2 {
		t.Fatalf("kept %d events, want the 2 before the cut", n)
	}
	wholeLines := bytes.SplitAfter(wholeTrace, []byte("\n"))
	for i, l := range lines[:len(lines)-1] {
		// Each kept line is the whole recording's, but for its arrival time.
		if a, b := bytes.Index(l, []byte(`"type"`)), bytes.Index(wholeLines[i], []byte(`"type"`)); a < 0 || !bytes.Equal(l[a:], wholeLines[i][b:]) {
			t.Errorf("kept line %d differs from the whole recording's:\n%s\n%s", i, l, wholeLines[i])
		}
	}
	if !strings.Contains(errb.String(), "events before it are kept in "+out) {
		t.Errorf("stderr does not say what was kept: %s", errb)
	}
}

// TestRecordBadOut: an --out that cannot become the trace file (a directory, a path ending
// in "/", a missing directory) is refused before anything is read, and a finished recording
// whose rename fails (a directory took --out's place meanwhile) is kept, under a name the
// error gives. Both once recorded the whole stream, then deleted it at the rename.
func TestRecordBadOut(t *testing.T) {
	raw, err := os.ReadFile(sample("replay-watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		out     func(dir string) string
		takenBy string // a directory made at the end of the input, at --out
		code    int
		want    string
	}{
		{"directory", func(dir string) string { return dir }, "", exitBadInput, "is a directory"},
		{"trailing slash", func(dir string) string { return filepath.Join(dir, "new") + "/" }, "", exitBadInput, "names a directory"},
		{"missing directory", func(dir string) string { return filepath.Join(dir, "no", "t.jsonl") }, "", exitBadInput, "does not exist"},
		{"taken meanwhile", func(dir string) string { return filepath.Join(dir, "t.jsonl") }, "t.jsonl", exitFailed, "the recording is kept in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := tc.out(dir)
			e, _, errb := replayEnv()
			in := &eofHook{r: bytes.NewReader(raw)}
			if tc.takenBy != "" {
				in.atEOF = func() { os.Mkdir(filepath.Join(dir, tc.takenBy), 0o755) }
			}
			e.stdin = in
			if code := e.main([]string{"record", "--out", out}); code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errb)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", errb, tc.want)
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".t.jsonl.tmp-*"))
			if tc.takenBy == "" {
				if in.read > 0 {
					t.Errorf("read %d bytes of the stream before refusing --out", in.read)
				}
				return
			}
			if len(left) != 1 || !strings.Contains(errb.String(), left[0]) {
				t.Fatalf("kept recordings %v, stderr %q", left, errb)
			}
			if got, _ := os.ReadFile(left[0]); bytes.Count(got, []byte("\n")) == 0 {
				t.Errorf("the kept recording %s is empty", left[0])
			}
		})
	}
}

// eofHook is a reader that counts what was read and calls atEOF once at the end.
type eofHook struct {
	r     io.Reader
	read  int
	atEOF func()
}

func (h *eofHook) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.read += n
	if err == io.EOF && h.atEOF != nil {
		h.atEOF()
		h.atEOF = nil
	}
	return n, err
}

// TestReplayWrongKindOfFile: a file holding none of the objects its flag is for, but
// others, is refused (exit 2) with the kinds it holds. It once replayed with no Services
// (exit 0), compared against no EndpointSlices, or blamed a missing --nodes.
func TestReplayWrongKindOfFile(t *testing.T) {
	dir := t.TempDir()
	sliceWatch := writeFile(t, dir, "slices.json", `{"type":"ADDED","object":{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1",`+
		`"metadata":{"name":"web-abcde","namespace":"shop","creationTimestamp":"2026-01-01T00:00:00Z"},"addressType":"IPv4","endpoints":[]}}`+"\n")
	pods, services, nodes := sample("replay-trace.jsonl"), sample("replay-services.json"), sample("replay-nodes.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"services given nodes", []string{"--pods", pods, "--services", nodes}, "--services " + nodes + " holds no Service, only other kinds (Node: 8)"},
		{"nodes given services", []string{"--pods", pods, "--services", services, "--nodes", services}, "--nodes " + services + " holds no Node, only other kinds (Service: 3)"},
		{"endpointslices given pods", []string{"--pods", pods, "--services", services, "--endpointslices", pods}, "--endpointslices " + pods + " holds no EndpointSlice, only other kinds (Pod: 167)"},
		{"pods given slices", []string{"--pods", sliceWatch, "--services", services, "--nodes", nodes}, "--pods " + sliceWatch + " holds no Pod, only other kinds (EndpointSlice: 1)"},
		{"pods given slices, no --nodes", []string{"--pods", sliceWatch, "--services", services}, "--pods " + sliceWatch + " holds no Pod, only other kinds (EndpointSlice: 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, out, errb := replayEnv()
			if code := e.main(append([]string{"replay", "--quiet"}, tc.args...)); code != exitBadInput {
				t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errb)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", errb, tc.want)
			}
			if out.Len() > 0 {
				t.Errorf("a result was printed:\n%s", out)
			}
		})
	}
}

// TestReplayComparisonAgreesWithWriteLog replays the sample with a real EndpointSlice
// stream and --out: the simulated side of replay.json's comparison, tallied as the replay
// went, must be the committed EndpointSlice writes of writes.jsonl (written as it went too),
// and the real side the stream's one event. From a warm start, both leave out the start:
// the start-up phase's writes, and the stream's listing (its one ADDED).
func TestReplayComparisonAgreesWithWriteLog(t *testing.T) {
	for _, start := range []string{"cold", "warm"} {
		t.Run(start, func(t *testing.T) { checkReplayComparison(t, start) })
	}
}

func checkReplayComparison(t *testing.T, start string) {
	dir := t.TempDir()
	slices := writeRecordedSlice(t, dir)
	out := filepath.Join(dir, "out")
	e, _, errb := replayEnv()
	code := e.main([]string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
		"--nodes", sample("replay-nodes.json"), "--endpointslices", slices, "--out", out, "--charts=false", "--quiet", "--start", start})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var report ReplayReport
	b, _ := os.ReadFile(filepath.Join(out, "replay.json"))
	if err := json.Unmarshal(b, &report); err != nil || report.Compare == nil {
		t.Fatalf("replay.json %s: %v", b, err)
	}
	var want trace.Writes
	var lastWrite float64
	perService := map[string]int64{}
	log, _ := os.ReadFile(filepath.Join(out, "writes.jsonl"))
	for line := range strings.Lines(string(log)) {
		var w struct {
			Mode, Verb, Kind, Name, Outcome, Phase string
			EventBytes, Watchers                   int64
			TimeSeconds                            float64
		}
		if err := json.Unmarshal([]byte(line), &w); err != nil {
			t.Fatal(err)
		}
		if w.Mode != "endpointslices" || w.Kind != "EndpointSlice" || w.Outcome != "ok" || start == "warm" && w.Phase == "start-up" {
			continue
		}
		lastWrite = max(lastWrite, w.TimeSeconds)
		switch w.Verb {
		case "create":
			want.Added++
		case "delete":
			want.Deleted++
		default:
			want.Modified++
		}
		want.FanoutBytes += w.EventBytes * w.Watchers
		perService[w.Name[:len(w.Name)-6]]++
	}
	if want.Total() == 0 || report.Compare.Simulated != want {
		t.Errorf("comparison's simulated writes %+v, writes.jsonl %+v", report.Compare.Simulated, want)
	}
	for _, s := range report.Compare.Services {
		if got := s.Simulated.Total(); got != perService[s.Name] {
			t.Errorf("%s: %d simulated writes, writes.jsonl %d", s.Name, got, perService[s.Name])
		}
		delete(perService, s.Name)
	}
	if len(perService) > 0 {
		t.Errorf("Services of writes.jsonl missing from the comparison: %v", perService)
	}
	// The real stream's listing is the slices the run began with, not writes.
	if report.Compare.Real.Total() != 0 || report.Compare.ListingSkipped != 1 || report.Replay.SeededSlices != 1 {
		t.Errorf("real writes %+v, listing left out %d, slices the run began with %d; want none, 1, 1",
			report.Compare.Real, report.Compare.ListingSkipped, report.Replay.SeededSlices)
	}
	if report.Start != start {
		t.Errorf("replay.json start %q, want %q", report.Start, start)
	}
	// Real writes count until the simulated ones ended: a cold start's clock is the
	// recording's, a warm one's is its start-up's longer.
	c := report.Compare
	tail := lastWrite - c.Pods.End.Sub(c.Pods.Start).Seconds()
	if start == "cold" && math.Abs(c.TailSeconds-tail) > 1e-6 || start == "warm" && (c.TailSeconds <= 0 || c.TailSeconds >= tail) {
		t.Errorf("tail %gs; the last simulated write %gs after the recording's last event (on the run's clock)", c.TailSeconds, tail)
	}
}

// TestReplayProgress: on a terminal, a replay's bar shows the share of the pod file read and
// the virtual time; not with --quiet, and never on stdout.
func TestReplayProgress(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		e, out, errb := replayEnv()
		e.stderrIsTerminal = true
		args := []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--nodes", sample("replay-nodes.json")}
		if quiet {
			args = append(args, "--quiet")
		}
		if code := e.main(args); code != exitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		drawn := strings.Contains(errb.String(), "replay, virtual") && strings.Contains(errb.String(), "%")
		if drawn == quiet {
			t.Errorf("quiet %v: stderr %q", quiet, errb)
		}
		if strings.Contains(out.String(), "replay, virtual") {
			t.Errorf("progress on stdout: %q", out)
		}
	}
}

// TestReplayUnknownNodes: pods on a node that --nodes leaves out are not lost silently:
// stderr names the node, replay.json counts their events and the node, and the table says
// so. (The sample's pods run on every node; the first node is dropped from its list.)
func TestReplayUnknownNodes(t *testing.T) {
	dir := t.TempDir()
	var dropped string
	nodes := editSampleList(t, "replay-nodes.json", dir, func(items []any) []any {
		dropped = items[0].(map[string]any)["metadata"].(map[string]any)["name"].(string)
		return items[1:]
	})
	trace, err := os.ReadFile(sample("replay-trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Every event on the node but its DELETED ones, which apply no pod.
	var want int64
	for _, line := range bytes.Split(trace, []byte("\n")) {
		if bytes.Contains(line, []byte(`"nodeName":"`+dropped+`"`)) && !bytes.Contains(line, []byte(`"type":"DELETED"`)) {
			want++
		}
	}
	out, errb, report := replaySample(t, sample("replay-services.json"), nodes, dir)
	if !strings.Contains(errb, "not in --nodes (1: "+dropped+";") {
		t.Errorf("stderr %q does not name %s", errb, dropped)
	}
	if !strings.Contains(out, "events on nodes not in --nodes") {
		t.Errorf("the table does not count the events on unknown nodes:\n%s", out)
	}
	r := report.Replay
	if r.UnknownNodes != 1 || r.UnknownNodeEvents != want || len(r.UnknownNodeExamples) != 1 || r.UnknownNodeExamples[0] != dropped {
		t.Errorf("replay.json: %d events on %d unknown nodes %v; want %d on 1, %s", r.UnknownNodeEvents, r.UnknownNodes, r.UnknownNodeExamples, want, dropped)
	}
}

// TestReplayCountsOutsideTraffic: Services that take traffic from outside the cluster
// (type NodePort or LoadBalancer, or an external IP; upstream serviceport.go
// ExternallyAccessible) are counted in the table and replay.json, since kube-proxy's rules
// for that traffic are not simulated; a ClusterIP Service and an ExternalName one are not.
func TestReplayCountsOutsideTraffic(t *testing.T) {
	dir := t.TempDir()
	services := editSampleList(t, "replay-services.json", dir, func(items []any) []any {
		if len(items) < 3 {
			t.Fatalf("the sample has %d Services, want 3 or more", len(items))
		}
		spec := func(i int) map[string]any { return items[i].(map[string]any)["spec"].(map[string]any) }
		spec(0)["type"] = "LoadBalancer"
		spec(1)["externalIPs"] = []string{"192.0.2.1"}
		return append(items, map[string]any{"kind": "Service", "metadata": map[string]any{"name": "ext", "namespace": "shop"},
			"spec": map[string]any{"type": "ExternalName", "externalName": "example.com", "externalIPs": []string{"192.0.2.2"}}})
	})
	out, _, report := replaySample(t, services, sample("replay-nodes.json"), dir)
	if !strings.Contains(out, "Services taking outside traffic  2 (") {
		t.Errorf("the table does not count 2 Services taking outside traffic:\n%s", out)
	}
	if report.OutsideTraffic != 2 {
		t.Errorf("replay.json: %d Services taking outside traffic, want 2", report.OutsideTraffic)
	}
}

// TestReplayWarnsOfSkippedEventTypes: events of a type replay does not apply are not lost
// silently. Two MODIFIED events of the sample turned ERROR, and three into another type,
// are each warned of on stderr with their count and what they mean; BOOKMARK events, which
// a watch that asked for them gets and which say nothing, are not.
func TestReplayWarnsOfSkippedEventTypes(t *testing.T) {
	b, err := os.ReadFile(sample("replay-trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	to := []string{"ERROR", "ERROR", "EXPLODED", "EXPLODED", "EXPLODED", "BOOKMARK"}
	for i, line := range lines {
		if len(to) > 0 && bytes.Contains(line, []byte(`"type":"MODIFIED"`)) {
			lines[i] = bytes.Replace(line, []byte(`"type":"MODIFIED"`), []byte(`"type":"`+to[0]+`"`), 1)
			to = to[1:]
		}
	}
	pods := filepath.Join(t.TempDir(), "pods.jsonl")
	if err := os.WriteFile(pods, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	e, _, errb := replayEnv()
	code := e.main([]string{"replay", "--pods", pods, "--services", sample("replay-services.json"),
		"--nodes", sample("replay-nodes.json"), "--quiet"})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"2 events of type ERROR skipped (the watch reported an error", "3 events of type EXPLODED skipped (not a watch event type"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr %q does not say %q", errb, want)
		}
	}
	if strings.Contains(errb.String(), "BOOKMARK") {
		t.Errorf("stderr warns of bookmarks: %q", errb)
	}
}

// TestReplayWarmStartsFromTheClustersSlices: with --start warm, the listing of
// --endpointslices is where the start-up begins. It has a slice of shop/checkout (which has
// no pods) holding an endpoint of a pod gone: the start-up rewrites it into the placeholder
// (upstream's finalize turns the placeholder's create and the slice's delete into an
// update), where without the listing checkout's slice is taken to be the placeholder its
// listing implies, and nothing is written. Another controller's slice is left out, and
// counted.
func TestReplayWarmStartsFromTheClustersSlices(t *testing.T) {
	dir := t.TempDir()
	stream := filepath.Join(dir, "slices.json")
	meta := func(name, manager string) string {
		return `"metadata":{"name":"` + name + `","namespace":"shop","uid":"` + name + `-uid","resourceVersion":"48213377",` +
			`"creationTimestamp":"2025-12-30T10:00:00Z","generation":1,` +
			`"labels":{"kubernetes.io/service-name":"checkout","endpointslice.kubernetes.io/managed-by":"` + manager + `"},` +
			`"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"checkout","uid":"7d3c9b1a-2e4f-4a6b-8c0d-9e8f7a6b5c4d","controller":true,"blockOwnerDeletion":true}]}`
	}
	endpoint := `"endpoints":[{"addresses":["10.0.9.9"],"conditions":{"ready":true},"targetRef":{"kind":"Pod","namespace":"shop","name":"checkout-0","uid":"c0"}}],"ports":[{"name":"http","protocol":"TCP","port":80}]`
	listing := `{"type":"ADDED","object":{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1",` +
		meta("checkout-stale", "endpointslice-controller.k8s.io") + `,"addressType":"IPv4",` + endpoint + `}}` + "\n" +
		`{"type":"ADDED","object":{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1",` +
		meta("checkout-mesh", "mesh-controller.example.com") + `,"addressType":"IPv4",` + endpoint + `}}` + "\n"
	if err := os.WriteFile(stream, []byte(listing), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) (ReplayReport, map[string]float64) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		e, _, errb := replayEnv()
		args := []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
			"--nodes", sample("replay-nodes.json"), "--out", out, "--charts=false", "--quiet", "--start", "warm"}
		if code := e.main(append(args, extra...)); code != exitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		var report ReplayReport
		var summary struct {
			Phases []struct {
				EndpointSlices struct{ Writes map[string]float64 } `json:"endpointslices"`
			}
		}
		for name, v := range map[string]any{"replay.json": &report, "summary.json": &summary} {
			b, _ := os.ReadFile(filepath.Join(out, name))
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		return report, summary.Phases[0].EndpointSlices.Writes
	}
	report, seeded := run("--endpointslices", stream)
	_, packed := run()
	if r := report.Replay; r.SeededSlices != 1 || r.UnseededSlices != 1 {
		t.Errorf("replay.json: seeded %d, left out %d; want 1 and 1", r.SeededSlices, r.UnseededSlices)
	}
	if seeded["create"] != packed["create"] || seeded["delete"] != packed["delete"] || seeded["update"] != packed["update"]+1 {
		t.Errorf("start-up slice writes: %v from the cluster's slices, %v without; want one more update (checkout's)", seeded, packed)
	}
	if c := report.Compare; c == nil || c.ListingSkipped != 2 || c.Real.Total() != 0 {
		t.Errorf("comparison %+v: want the listing of 2 left out, no real write", c)
	}
}

// TestReplaySetPaths checks that replay honours --set modes as --mode, and rejects (exit 2)
// a --set of a field it takes from the recording instead of silently ignoring it.
func TestReplaySetPaths(t *testing.T) {
	base := []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
		"--nodes", sample("replay-nodes.json"), "--quiet", "--format", "json"}
	t.Run("modes", func(t *testing.T) {
		e, out, errb := replayEnv()
		if code := e.main(append(slices.Clone(base), "--set", "modes=[endpoints]")); code != exitOK {
			t.Fatalf("exit %d; stderr %s", code, errb)
		}
		var got struct{ Modes []string }
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Modes, []string{"endpoints"}) {
			t.Errorf("modes %q, want [endpoints]", got.Modes)
		}
	})
	for _, tc := range []struct{ set, want string }{
		{"cluster.nodes=5", "the nodes come from --nodes"},
		{"cluster.zones=[a]", "the nodes come from --nodes"},
		{"services[0].replicas=5", "the Services come from --services"},
		{"name=foo", "named after --pods"},
		{"timeline[0].action=create", "the pod churn comes from --pods"},
		{"controlPlane.workloads.burstReplicas=3", "not from workload controllers"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			e, _, errb := replayEnv()
			if code := e.main(append(slices.Clone(base), "--set", tc.set)); code != exitBadInput {
				t.Errorf("exit %d, want %d; stderr %s", code, exitBadInput, errb)
			}
			for _, want := range []string{"--set " + tc.set, tc.want, "honours are under seed, modes, controlPlane"} {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("stderr %q lacks %q", errb, want)
				}
			}
		})
	}
	t.Run("mode and set modes", func(t *testing.T) {
		e, _, errb := replayEnv()
		if code := e.main(append(slices.Clone(base), "--set", "modes=endpoints", "--mode", "both")); code != exitBadInput {
			t.Errorf("exit %d, want %d; stderr %s", code, exitBadInput, errb)
		}
	})
}

// TestRecordNothing: input with no event to record (kubectl's output not piped in, or a
// watch of another kind) is no recording: exit 2 with a message that says so and how to
// record, and --out keeps what it held, where an empty trace and exit 0 used to follow.
func TestRecordNothing(t *testing.T) {
	for _, tc := range []struct {
		name, input, want string
	}{
		{"empty", "", "stdin ended without a single watch event: was kubectl's output piped in"},
		{"only skipped kinds", `{"type":"ADDED","object":{"kind":"Node","metadata":{"name":"a"}}}` + "\n", "only what record skips (kind Node: 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "trace.jsonl")
			earlier := `{"time":"2026-01-01T00:00:00Z","type":"ADDED","object":{"kind":"Pod"}}` + "\n"
			if err := os.WriteFile(out, []byte(earlier), 0o644); err != nil {
				t.Fatal(err)
			}
			e, _, errb := replayEnv()
			e.stdin = strings.NewReader(tc.input)
			if code := e.main([]string{"record", "--out", out}); code != exitBadInput {
				t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errb)
			}
			said := errb.String()
			for _, want := range []string{"sim: record: nothing recorded: ", tc.want, "--out " + out + " is left as it was", "| sim record --out"} {
				if !strings.Contains(said, want) {
					t.Errorf("stderr %q lacks %q", said, want)
				}
			}
			if strings.Contains(said, "0 events recorded") {
				t.Errorf("stderr %q still counts 0 events as a recording", said)
			}
			if b, _ := os.ReadFile(out); string(b) != earlier {
				t.Errorf("--out holds %q, want what it held before", b)
			}
		})
	}
}

// TestReplayScenarioSettingsOnly: --scenario takes a file's control-plane settings, its
// services and timeline being ignored, so a file of settings alone (what 'sim help replay'
// suggests writing) must do; it was refused for lacking name, cluster, services and
// timeline. Its settings are used: a smaller maxEndpointsPerSlice writes more slices.
func TestReplayScenarioSettingsOnly(t *testing.T) {
	dir := t.TempDir()
	cp := writeFile(t, dir, "cp.yaml", "controlPlane:\n  maxEndpointsPerSlice: 2\n")
	bad := writeFile(t, dir, "bad.yaml", "controlPlane:\n  maxEndpointsPerSlice: 5000\n")
	args := func(extra ...string) []string {
		return append([]string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
			"--nodes", sample("replay-nodes.json"), "--quiet", "--format", "json"}, extra...)
	}
	objects := func(extra ...string) int64 {
		t.Helper()
		e, out, errb := replayEnv()
		if code := e.main(args(extra...)); code != exitOK {
			t.Fatalf("%v: exit %d: %s", extra, code, errb)
		}
		var s struct {
			Total struct {
				EndpointSlices struct{ Objects int64 } `json:"endpointslices"`
			} `json:"total"`
		}
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		return s.Total.EndpointSlices.Objects
	}
	if def, two := objects(), objects("--scenario", cp); two <= def {
		t.Errorf("--scenario with maxEndpointsPerSlice 2: %d slices, default: %d; want more", two, def)
	}
	e, _, errb := replayEnv()
	if code := e.main(args("--scenario", bad)); code != exitBadInput || !strings.Contains(errb.String(), "bad.yaml:2:25: controlPlane.maxEndpointsPerSlice: 5000 out of range") {
		t.Errorf("bad setting: exit %d, stderr %q", code, errb)
	}
}

// TestRecordLastEventCutOff: a last event cut off where the input ends (kubectl stopped
// mid-write) is left out with a warning and record exits 0, keeping the events before it;
// 'sim help record' says so. The help said only that input record cannot read after some
// events exits 2, naming "kubectl killed mid-write" as its cause, which this case is not.
func TestRecordLastEventCutOff(t *testing.T) {
	raw, err := os.ReadFile(sample("replay-watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	third := 0
	for i, n := 0, 0; n < 3; n++ {
		j := bytes.Index(raw[i:], []byte("{\n    \"type\""))
		third, i = i+j, i+j+1
	}
	out := filepath.Join(t.TempDir(), "trace.jsonl")
	e, _, errb := replayEnv()
	e.stdin = bytes.NewReader(raw[:third+40])
	if code := e.main([]string{"record", "--out", out}); code != exitOK {
		t.Fatalf("exit %d, want %d: %s", code, exitOK, errb)
	}
	if got, _ := os.ReadFile(out); bytes.Count(got, []byte("\n")) != 2 {
		t.Errorf("kept %d events, want the 2 before the cut", bytes.Count(got, []byte("\n")))
	}
	if !strings.Contains(errb.String(), "sim: record: warning:") {
		t.Errorf("stderr has no warning: %s", errb)
	}
	help := strings.Join(strings.Fields(cmdRecord.long), " ")
	if !strings.Contains(help, "a last event cut off where the input ends (kubectl stopped mid-write) is left out with a warning, and record exits 0") {
		t.Errorf("'sim help record' does not say that a last event cut off is a warning (exit 0)")
	}
}

// TestReplayMemprofile: replay's --memprofile writes a heap profile pprof can read, as sim
// run's does, and a path it cannot write is refused before the inputs are read.
func TestReplayMemprofile(t *testing.T) {
	args := []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--quiet"}
	path := filepath.Join(t.TempDir(), "heap.out")
	e, _, errb := replayEnv()
	if code := e.main(append(args, "--memprofile", path)); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if prof := readProfile(t, path); !bytes.Contains(prof, []byte("inuse_space")) {
		t.Errorf("the profile (%d bytes) has no inuse_space samples: not a heap profile", len(prof))
	}
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{filepath.Join(t.TempDir(), "no", "such", "dir", "heap.out"), exitBadInput, "--memprofile"},
		{t.TempDir(), exitBadInput, "is a directory"},
	} {
		e, out, errb := replayEnv()
		if code := e.main(append(args, "--memprofile", c.path)); code != c.code || out.Len() != 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("--memprofile %s: exit %d, %d bytes of stdout, stderr %q; want exit %d and %q", c.path, code, out.Len(), errb, c.code, c.want)
		}
	}
}

// TestReplayInputInOut: an input of a replay in --out DIR under a name the outputs use is
// refused before anything is read or written: the outputs replaced it after the replay
// ('sim replay --pods out/writes.jsonl --services out/summary.json --out out' exited 0
// with the recording and the Services gone).
func TestReplayInputInOut(t *testing.T) {
	inputs := map[string]string{"--pods": sample("replay-trace.jsonl"), "--services": sample("replay-services.json"), "--nodes": sample("replay-nodes.json")}
	for _, flagName := range []string{"--pods", "--services", "--nodes"} {
		for _, name := range []string{"summary.json", "writes.jsonl", "replay.json", "egress-rate.svg"} {
			out := t.TempDir()
			text, err := os.ReadFile(inputs[flagName])
			if err != nil {
				t.Fatal(err)
			}
			moved := filepath.Join(out, name)
			if err := os.WriteFile(moved, text, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"replay", "--quiet", "--charts=false", "--out", out}
			for _, f := range []string{"--pods", "--services", "--nodes"} {
				path := inputs[f]
				if f == flagName {
					path = moved
				}
				args = append(args, f, path)
			}
			e, _, errb := replayEnv()
			if code := e.main(args); code != exitBadInput || !strings.Contains(errb.String(), "which would replace it") {
				t.Errorf("%s DIR/%s: exit %d, stderr %q; want %d, \"which would replace it\"", flagName, name, code, errb, exitBadInput)
			}
			if b, err := os.ReadFile(moved); err != nil || !bytes.Equal(b, text) {
				t.Errorf("%s DIR/%s: the input was changed: %v", flagName, name, err)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 1 {
				t.Errorf("%s DIR/%s: --out holds %d files, want the input alone", flagName, name, len(entries))
			}
		}
	}
}

// A replay's --out holds its settings (effective-scenario.yaml, without cluster, Services or
// timeline, which the recording gives): replayed again with them as --scenario, the
// replay's summary is the same, byte for byte, and diff finds no input differs; a replay with
// another --set is told apart by that setting.
func TestReplaySettingsRepeatTheReplay(t *testing.T) {
	dir := t.TempDir()
	replay := func(out string, extra ...string) {
		t.Helper()
		e, _, errb := replayEnv()
		args := append([]string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"),
			"--nodes", sample("replay-nodes.json"), "--out", out, "--charts=false", "--quiet"}, extra...)
		if code := e.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errb)
		}
	}
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	replay(a, "--set", "controlPlane.maxEndpointsPerSlice=2", "--start", "warm")
	settings := filepath.Join(a, "effective-scenario.yaml")
	text, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	for _, section := range []string{"\ncluster:", "\nservices:", "\ntimeline:"} {
		if strings.Contains(string(text), section) {
			t.Errorf("a replay's settings hold %s:\n%s", strings.TrimSpace(section), text)
		}
	}
	if !strings.Contains(string(text), "--set 'controlPlane.maxEndpointsPerSlice=2'") && !strings.Contains(string(text), "--set controlPlane.maxEndpointsPerSlice=2") {
		t.Errorf("the header lacks the command's --set:\n%s", text)
	}
	replay(b, "--scenario", settings, "--start", "warm")
	x, _ := os.ReadFile(filepath.Join(a, "summary.json"))
	y, _ := os.ReadFile(filepath.Join(b, "summary.json"))
	if len(x) == 0 || string(x) != string(y) {
		t.Error("the replay with its own settings as --scenario differs from it")
	}
	te := realEnv()
	if code := te.main([]string{"diff", a, b}); code != exitOK || !strings.Contains(te.stdout.String(), "\ninputs: the same") {
		t.Errorf("diff of a replay and its repeat: exit %d:\n%s", code, te.stdout.String())
	}
	replay(c, "--start", "warm")
	te = realEnv()
	te.main([]string{"diff", a, c})
	if !strings.Contains(te.stdout.String(), "\ninputs: 1 setting differs (effective-scenario.yaml and replay.json, A → B):\n  controlPlane.maxEndpointsPerSlice  2  →  100\n") {
		t.Errorf("diff of replays at two slice sizes:\n%s", te.stdout.String())
	}
}
