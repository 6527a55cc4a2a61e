package main

// The hostile-input suite of issue 12: each input that once took the machine down, printed a
// wrong figure or left --out half-written, run through the real command in a child process
// (this test binary, re-executed) under a memory cap the child sets itself: an address-space
// rlimit and GOMEMLIMIT. Each test asserts the exit code, the message and what --out holds.

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"epsim/sim"
)

const (
	// hostileAS is the child's address-space limit: Go reserves address space generously,
	// so this is well above what the child may really use (hostileMemLimit, and the peak
	// RSS each test asserts).
	hostileAS       = 4 << 30
	hostileMemLimit = 512 << 20
	// hostileMaxRSS is the most resident memory a hostile run may reach.
	hostileMaxRSS = 400 << 20
)

func TestMain(m *testing.M) {
	if os.Getenv("EPSIM_HOSTILE_CHILD") == "1" {
		// The child: cap memory, then be sim.
		lim := syscall.Rlimit{Cur: hostileAS, Max: hostileAS}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			os.Exit(99)
		}
		debug.SetMemoryLimit(hostileMemLimit)
		code := newEnv(os.Stdout, os.Stderr).main(os.Args[1:])
		if f := os.Getenv("EPSIM_CHILD_PEAK_RSS"); f != "" {
			if err := writePeakRSS(f); err != nil {
				fmt.Fprintln(os.Stderr, "peak RSS:", err)
				os.Exit(98)
			}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// childResult is what a child sim did.
type childResult struct {
	code           int
	signal         syscall.Signal // the signal that ended it, if any
	stdout, stderr string
	maxRSS         int64 // bytes
}

// runChild runs sim args in a child process under the memory cap. env adds variables.
func runChild(t *testing.T, env []string, args ...string) childResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	peakFile := filepath.Join(t.TempDir(), "peak-rss")
	cmd.Env = append(append(os.Environ(), "EPSIM_HOSTILE_CHILD=1", "EPSIM_CHILD_PEAK_RSS="+peakFile), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	r := childResult{stdout: stdout.String(), stderr: stderr.String()}
	if cmd.ProcessState == nil {
		t.Fatalf("sim %v did not run: %v", args, err)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	r.code = ws.ExitStatus()
	if ws.Signaled() {
		r.signal = ws.Signal()
	}
	// The child's own high-water mark: its rusage's maxrss also takes in the test process's
	// at the moment of the exec (the child shares its memory until then: os/exec starts it
	// with vfork), and so grew with what earlier tests left in this process.
	if b, err := os.ReadFile(peakFile); err == nil {
		r.maxRSS, _ = strconv.ParseInt(string(b), 10, 64)
	} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = int64(ru.Maxrss) << 10 // a child that crashed before writing its own
	}
	if r.code == 99 {
		t.Fatalf("child could not set its memory cap: %s", r.stderr)
	}
	if strings.Contains(r.stderr, "fatal error") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("sim %v crashed:\n%.2000s", args, r.stderr)
	}
	return r
}

// writePeakRSS writes this process's peak resident memory (VmHWM of /proc/self/status), in
// bytes, to file; nothing where there is no /proc (runChild reads the rusage then).
func writePeakRSS(file string) error {
	status, err := os.ReadFile("/proc/self/status")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return fmt.Errorf("VmHWM %q: %w", v, err)
			}
			return os.WriteFile(file, []byte(strconv.FormatInt(kb<<10, 10)), 0o644)
		}
	}
	return fmt.Errorf("/proc/self/status has no VmHWM")
}

// writeFile writes a test input and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshot records every entry under dir (names, modes and content hashes), to prove that a
// failed command touched nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", p, err)
			return nil
		}
		info, _ := d.Info()
		fmt.Fprintf(&b, "%s %v", p, info.Mode())
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// strayTemporaries lists sim's temporaries left in dir and beside it.
func strayTemporaries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, d := range []string{dir, filepath.Dir(dir)} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.Contains(e.Name(), stageInfix) || isTemporary(e.Name()) {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	return out
}

// aRun makes an --out directory holding a complete earlier run of quick.
func aRun(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if r := runChild(t, nil, "run", "quick", "--quiet", "--out", out); r.code != 0 {
		t.Fatalf("earlier run: exit %d: %s", r.code, r.stderr)
	}
	return out
}

const tinyBandwidth = `name: tiny-bandwidth
seed: 1
cluster: {nodes: 10}
apiServer: {egressBandwidth: 1bit}
services:
  - name: web
    replicas: 20
timeline:
  - {name: create, action: create, services: [web]}
`

const longWait = `name: long-wait
seed: 1
cluster: {nodes: 10}
guards: {endTime: 1000h}
services:
  - name: web
    replicas: 20
timeline:
  - {name: create, action: create, services: [web]}
  - {name: wait, action: wait, duration: 998h}
  - {name: flip, action: flipReadiness, services: [web], pods: 1}
`

// Issue 12: a 1 bit/s egress (latencies of millions of seconds) made the per-second series
// take 10 GB and write 1 GB for 20 pods; a 998 h wait took 3.4 GB. Both now run in bounded
// memory and output, and the header gives both the last write and the last delivery.
func TestHostileHugeSpans(t *testing.T) {
	for _, c := range []struct{ name, scenario, header string }{
		// Writes end within seconds; deliveries go on for thousands of hours.
		{"1bit", tinyBandwidth, `virtual time: last API write at [0-9.]+s, everything delivered by [0-9]{4}h`},
		{"998h-wait", longWait, `virtual time: last API write at 998h[0-9m.]+s`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sc := writeFile(t, dir, "s.yaml", c.scenario)
			out := filepath.Join(dir, "out")
			r := runChild(t, nil, "run", sc, "--quiet", "--out", out)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.maxRSS > hostileMaxRSS {
				t.Errorf("peak RSS %d MB, want at most %d MB", r.maxRSS>>20, hostileMaxRSS>>20)
			}
			if !regexp.MustCompile(c.header).MatchString(r.stdout) {
				t.Errorf("header does not match %q:\n%.400s", c.header, r.stdout)
			}
			var total int64
			filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if info, err := d.Info(); err == nil && !d.IsDir() {
					total += info.Size()
				}
				return nil
			})
			if total > 32<<20 {
				t.Errorf("--out holds %d MB, want a bounded output", total>>20)
			}
			rows := csvRows(t, filepath.Join(out, "timeseries.csv"))
			if len(rows)-1 > 1<<16 {
				t.Errorf("timeseries.csv has %d rows, more than sim.MaxSeriesBuckets", len(rows)-1)
			}
			if got := strayTemporaries(t, out); len(got) > 0 {
				t.Errorf("temporaries left: %v", got)
			}
		})
	}
}

func csvRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Issue 12: sim plot on a timeseries.csv with a row for second 99,999,999,999 tried to
// allocate 7 TB.
func TestHostilePlotHugeSecond(t *testing.T) {
	out := aRun(t)
	f, err := os.OpenFile(filepath.Join(out, "timeseries.csv"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "99999999999,1,1,1,1,1,1,0.000,0.000,0,0,1")
	f.Close()
	charts := filepath.Join(t.TempDir(), "charts")
	r := runChild(t, nil, "plot", out, "--out", charts)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.maxRSS > hostileMaxRSS {
		t.Errorf("peak RSS %d MB, want at most %d MB", r.maxRSS>>20, hostileMaxRSS>>20)
	}
}

// Scenario bombs: each is refused before the run (exit 2) with the limit or knob named.
func TestHostileScenarioBombs(t *testing.T) {
	dir := t.TempDir()
	var watchers strings.Builder
	watchers.WriteString("name: watcher-bomb\ncluster: {nodes: 10}\napiServer:\n  watchers:\n")
	for i := range 10000 {
		fmt.Fprintf(&watchers, "    - {name: w%d, count: 1000000, resources: [endpointslices]}\n", i)
	}
	watchers.WriteString("services: [{name: web, replicas: 2}]\ntimeline: [{name: create, action: create}]\n")
	var phases strings.Builder
	phases.WriteString("name: phase-bomb\ncluster: {nodes: 10}\nservices: [{name: web, replicas: 2}]\ntimeline:\n  - {name: create, action: create}\n")
	for i := range 20000 {
		fmt.Fprintf(&phases, "  - {name: w%d, action: wait, duration: 1s}\n", i)
	}
	var names strings.Builder
	names.WriteString("name: name-bomb\ncluster: {nodes: 10}\nservices:\n")
	for i := range 50000 {
		fmt.Fprintf(&names, "  - {name: Bad_%d, replicas: 1}\n", i)
	}
	names.WriteString("timeline: [{name: create, action: create}]\n")
	for _, c := range []struct {
		name, scenario string
		want           []string
	}{
		{"scale-past-pod-limit", "name: s\ncluster: {nodes: 1000}\nservices: [{name: web, count: 11, replicas: 10}]\n" +
			"timeline: [{name: create, action: create}, {name: grow, action: scale, replicas: 1000000}]\n",
			[]string{"timeline[1].replicas", "11000000 pods in total", "at most 10000000"}},
		{"percent-scale-past-pod-limit", "name: s\ncluster: {nodes: 1000}\nservices: [{name: web, count: 100, replicas: 20000}]\n" +
			"timeline: [{name: create, action: create}, {name: grow, action: scale, percent: 10000}]\n",
			[]string{"timeline[1].percent", "200000000 pods in total", "at most 10000000"}},
		{"daemonset-pods-past-limit", "name: s\ncluster: {nodes: 1000000}\nservices: [{name: agent, kind: DaemonSet, count: 11}]\n" +
			"timeline: [{name: create, action: create}]\n",
			[]string{"timeline", "11000000 pods in total", "a DaemonSet's replicas being the node count"}},
		{"10M-pods-1M-nodes", "name: s\ncluster: {nodes: 1000000}\nservices: [{name: web, count: 10, replicas: 1000000}]\n" +
			"timeline: [{name: create, action: create}]\n",
			[]string{"guards.maxMemory", "GiB of memory", "10000000 pods"}},
		{"1M-services", "name: s\ncluster: {nodes: 1000}\nservices: [{name: web, count: 1000000, replicas: 1}]\n" +
			"timeline: [{name: create, action: create}]\n",
			[]string{"guards.maxMemory", "1000000 services"}},
		{"maxMemory-knob", "name: s\ncluster: {nodes: 1000}\nguards: {maxMemory: 100MiB}\nservices: [{name: web, replicas: 100000}]\n" +
			"timeline: [{name: create, action: create}]\n",
			[]string{"guards.maxMemory", "more than guards.maxMemory = 100.0 MiB"}},
		{"watcher-overflow", watchers.String(), []string{"apiServer.watchers", "10000000010 watchers in total", "at most 10000000"}},
		{"20000-phases", phases.String(), []string{"timeline", "20001 actions is too many (at most 10000)"}},
		{"flip-more-pods-than-exist", "name: s\ncluster: {nodes: 10}\nservices: [{name: web, replicas: 200}]\n" +
			"timeline: [{name: create, action: create}, {name: f, action: flipReadiness, services: [web], pods: 300}]\n",
			[]string{"timeline[1].pods", `300 pods is more than service "web" has`}},
		{"restart-more-pods-than-exist", "name: s\ncluster: {nodes: 10}\nservices: [{name: web, replicas: 5}]\n" +
			"timeline: [{name: create, action: create}, {name: down, action: scale, replicas: 2}, {name: r, action: restartPods, pods: 3}]\n",
			[]string{"timeline[2].pods", "(2 replicas)"}},
		{"duration-too-large", "name: s\ncluster: {nodes: 10}\nservices: [{name: web, replicas: 2}]\n" +
			"timeline: [{name: create, action: create}, {name: w, action: wait, duration: 3000000h}]\n",
			[]string{"timeline[1].duration", "is too large"}},
		{"duration-over-limit", "name: s\ncluster: {nodes: 10}\nservices: [{name: web, replicas: 2}]\n" +
			"timeline: [{name: create, action: create}, {name: w, action: wait, duration: 1001h}]\n",
			[]string{"1001h0m0s is too large (at most 1000h0m0s)"}},
		{"50000-invalid-names", names.String(), []string{"and 49980 more"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := writeFile(t, dir, c.name+".yaml", c.scenario)
			out := filepath.Join(dir, c.name+"-out")
			os.Mkdir(out, 0o755)
			writeFile(t, out, "summary.json", "earlier\n")
			before := snapshot(t, filepath.Dir(out))
			for _, cmd := range [][]string{{"validate", sc}, {"run", sc, "--quiet", "--out", out}} {
				r := runChild(t, nil, cmd...)
				if r.code != exitBadInput {
					t.Fatalf("sim %s: exit %d, want %d: %.500s", cmd[0], r.code, exitBadInput, r.stderr+r.stdout)
				}
				msg := r.stderr + r.stdout
				for _, w := range c.want {
					if !strings.Contains(msg, w) {
						t.Errorf("sim %s: message lacks %q:\n%.1500s", cmd[0], w, msg)
					}
				}
				if len(msg) > 16<<10 {
					t.Errorf("sim %s: %d bytes of message; long lists must be capped", cmd[0], len(msg))
				}
			}
			if after := snapshot(t, filepath.Dir(out)); after != before {
				t.Errorf("a refused scenario touched --out:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// Issue 12: SIGINT/SIGTERM/SIGHUP during the write left .X.tmp-* files and could leave a
// mix. Now --out keeps the earlier run whole and nothing of ours is left beside it.
func TestHostileSignalDuringWrite(t *testing.T) {
	for _, sig := range []string{"INT", "TERM", "HUP"} {
		t.Run(sig, func(t *testing.T) {
			out := aRun(t)
			before := snapshot(t, filepath.Dir(out))
			r := runChild(t, []string{"EPSIM_TEST_HOOK=before-commit:" + sig}, "run", "quick", "--quiet", "--seed", "7", "--out", out)
			if r.signal == 0 && r.code <= 128 {
				t.Fatalf("sim did not die of SIG%s: exit %d: %s", sig, r.code, r.stderr)
			}
			if after := snapshot(t, filepath.Dir(out)); after != before {
				t.Errorf("a signal during the write changed --out:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// A run that fails, or is interrupted, leaves --out as it was: a directory it created
// (with missing parents) is removed again, one that existed stays, with the user's files.
// Reference: README "Exit status" and cmd/sim/doc.go ("leave --out as it was").
func TestHostileFailedRunLeavesNoNewOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"failed", nil, []string{"--set", "guards.maxEvents=100"}},
		{"SIGINT", []string{"EPSIM_TEST_HOOK=before-commit:INT"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, outs := outCandidates(t, "notes.txt", "mine")
			before := snapshot(t, parent)
			for _, out := range outs {
				r := runChild(t, tc.env, append([]string{"run", "quick", "--quiet", "--out", out}, tc.args...)...)
				if r.code == 0 && r.signal == 0 {
					t.Fatalf("--out %s: the run did not fail", out)
				}
			}
			if after := snapshot(t, parent); after != before {
				t.Errorf("a failed run changed what is beside --out:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// A plan shard stopped before its partial is written (a pod of an Indexed Job evicted)
// leaves --out as it was, as a run does: the directories it created are removed again, one
// that existed stays with its files; a shard that completes keeps what it created.
// Reference: README "Exit status" and cmd/sim/doc.go ("leave --out as it was").
func TestHostileStoppedShardLeavesNoNewOut(t *testing.T) {
	plan := writePlan(t, tinyPlan)
	for _, sig := range []string{"INT", "TERM"} {
		t.Run(sig, func(t *testing.T) {
			parent, outs := outCandidates(t, "partial-00001-of-00002.json", "another shard's")
			before := snapshot(t, parent)
			for _, out := range outs {
				r := runChild(t, []string{"EPSIM_TEST_HOOK=before-partial:" + sig}, "plan", plan, "--quiet", "--jobs", "1", "--shard", "0/2", "--out", out)
				if r.signal == 0 {
					t.Fatalf("--out %s: the shard was not stopped by the signal: exit %d: %s", out, r.code, r.stderr)
				}
			}
			if after := snapshot(t, parent); after != before {
				t.Errorf("a stopped shard changed what is beside --out:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
	out := filepath.Join(t.TempDir(), "a", "b")
	if r := runChild(t, nil, "plan", plan, "--quiet", "--jobs", "1", "--shard", "0/2", "--out", out); r.code != 0 {
		t.Fatalf("shard: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "partial-00000-of-00002.json")); err != nil {
		t.Errorf("a shard that completed: %v", err)
	}
}

// outCandidates makes a directory with one subdirectory, "existing", holding file (with
// content), and returns it with the --out paths a test of what a failed run leaves tries:
// a new directory, a new one with missing parents, and the existing one.
func outCandidates(t *testing.T, file, content string) (parent string, outs []string) {
	t.Helper()
	parent = t.TempDir()
	existing := filepath.Join(parent, "existing")
	os.Mkdir(existing, 0o755)
	writeFile(t, existing, file, content)
	return parent, []string{filepath.Join(parent, "new"), filepath.Join(parent, "a", "b", "c"), existing}
}

// A stage left by a sim killed with SIGKILL (no handler runs) and per-file temporaries of
// earlier versions are swept by the next run.
func TestHostileStaleTemporariesSwept(t *testing.T) {
	out := aRun(t)
	parent := filepath.Dir(out)
	os.Mkdir(filepath.Join(parent, ".out"+stageInfix+"123"), 0o700)
	writeFile(t, filepath.Join(parent, ".out"+stageInfix+"123"), "summary.json", "half")
	writeFile(t, out, ".summary.json.tmp-4242", "half")
	writeFile(t, parent, ".other.sim-stage", "not ours: another name")
	if r := runChild(t, nil, "run", "quick", "--quiet", "--out", out); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := strayTemporaries(t, out); len(got) > 0 {
		t.Errorf("stale temporaries not swept: %v", got)
	}
	if _, err := os.Stat(filepath.Join(parent, ".other.sim-stage")); err != nil {
		t.Errorf("a file not of our naming was removed: %v", err)
	}
}

// Issue 12: outputs of an earlier run that this run does not produce (charts after
// --charts=false, slice-layout after --mode endpoints) stayed behind; the user's own files
// must stay.
func TestHostileStaleOutputsRemoved(t *testing.T) {
	out := aRun(t)
	writeFile(t, out, "notes.txt", "mine")
	os.Mkdir(filepath.Join(out, "mine"), 0o755)
	writeFile(t, filepath.Join(out, "mine"), "a.txt", "mine too")
	r := runChild(t, nil, "run", "quick", "--quiet", "--mode", "endpoints", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	names := listDir(t, out)
	if slices.Contains(names, "slice-layout.png") || slices.Contains(names, "slice-layout.svg") {
		t.Errorf("slice-layout of the earlier run left after --mode endpoints: %v", names)
	}
	if !slices.Contains(names, "notes.txt") || !slices.Contains(names, "mine") {
		t.Errorf("the user's files were removed: %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "mine", "a.txt")); string(b) != "mine too" {
		t.Errorf("the user's directory lost its content: %q", b)
	}
	r = runChild(t, nil, "run", "quick", "--quiet", "--charts=false", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := []string{"effective-scenario.yaml", "layout.csv", "mine", "notes.txt", "report.html", "report.md", "summary.json", "timeseries.csv", "writes.jsonl"}
	if got := listDir(t, out); !slices.Equal(got, want) {
		t.Errorf("after --charts=false --out holds %v, want %v", got, want)
	}
}

// The user's own charts in --out stay: a run that drew none deleted every .png and .svg
// there (the rule for charts of sim versions that kept no manifest applied to every
// directory), beside a manifest that did not list them. A directory such a version wrote
// (its summary.json and charts, no manifest) still loses the old charts, and only those.
func TestHostileUserChartsStay(t *testing.T) {
	out := t.TempDir()
	writeFile(t, out, "diagram.png", "mine")
	writeFile(t, out, "notes.svg", "mine too")
	for _, args := range [][]string{
		{"run", "quick", "--quiet", "--charts=false", "--out", out}, // into the user's directory
		{"run", "quick", "--quiet", "--out", out},                   // with charts
		{"run", "quick", "--quiet", "--charts=false", "--out", out}, // its charts go again
	} {
		if r := runChild(t, nil, args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	want := []string{"diagram.png", "effective-scenario.yaml", "layout.csv", "notes.svg", "report.html", "report.md", "summary.json", "timeseries.csv", "writes.jsonl"}
	if got := listDir(t, out); !slices.Equal(got, want) {
		t.Errorf("--out holds %v, want %v", got, want)
	}
	for name, text := range map[string]string{"diagram.png": "mine", "notes.svg": "mine too"} {
		if b, _ := os.ReadFile(filepath.Join(out, name)); string(b) != text {
			t.Errorf("%s holds %q, want the user's %q", name, b, text)
		}
	}

	// As a sim without a manifest left it: its charts in both formats, the SVG gonum/plot's
	// (as every sim has drawn them); the user's lone diagram and a same-named pair of
	// another program's stay.
	old := t.TempDir()
	writeFile(t, old, "summary.json", "{\n  \"scenario\": \"quick\",\n  \"seed\": 1\n}\n")
	writeFile(t, old, "egress-rate.png", "an old chart")
	writeFile(t, old, "egress-rate.svg", oldSimSVG+"\n<svg></svg>\n")
	writeFile(t, old, "slice-layout.svg", oldSimSVG+"\n<svg></svg>\n")
	writeFile(t, old, "diagram.png", "mine")
	writeFile(t, old, "arch.png", "mine")
	writeFile(t, old, "arch.svg", "<?xml version=\"1.0\"?>\n<svg>mine</svg>\n")
	if r := runChild(t, nil, "run", "quick", "--quiet", "--charts=false", "--out", old); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want = []string{"arch.png", "arch.svg", "diagram.png", "effective-scenario.yaml", "layout.csv", "report.html", "report.md", "summary.json", "timeseries.csv", "writes.jsonl"}
	if got := listDir(t, old); !slices.Equal(got, want) {
		t.Errorf("the old sim's directory holds %v, want %v", got, want)
	}
}

// runFiles, replayFiles and planFiles, which userFileInTheWay guards, are what each
// command writes besides its charts: an output added to a command but not to its list
// would replace a user's file of that name without a word.
func TestCommandFilesListWhatTheyWrite(t *testing.T) {
	for _, c := range []struct {
		args  []string
		files []string
	}{
		{[]string{"run", "quick"}, runFiles},
		{[]string{"replay", "--pods", filepath.Join("..", "..", "scenarios", "testdata", "replay-trace.jsonl"),
			"--services", filepath.Join("..", "..", "scenarios", "testdata", "replay-services.json")}, replayFiles},
		{[]string{"plan", "slice-size"}, planFiles},
	} {
		out := t.TempDir()
		if r := runChild(t, nil, append(c.args, "--quiet", "--charts=false", "--out", out)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, r.code, r.stderr)
		}
		if got, want := listDir(t, out), slices.Sorted(slices.Values(c.files)); !slices.Equal(got, want) {
			t.Errorf("sim %s wrote %v; its list (userFileInTheWay's) says %v", c.args[0], got, want)
		}
	}
}

// A user's directory is not taken for an old sim's by a file's name alone: one holding a
// results.csv of its own lost it, and every .png and .svg, to a run, as if a plan had left
// them. Only a file with sim's name and sim's first bytes marks such a directory, as each
// kind of file did in sim's versions without a manifest.
func TestHostileUserResultsNotTakenForSims(t *testing.T) {
	for name, content := range map[string]string{
		"results.csv":    "host,latency\nnode-1,3ms\n",
		"layout.csv":     "rack,slot\n",
		"timeseries.csv": "second,cpu\n",
		"writes.jsonl":   `{"time":"5ms","user":"mine"}` + "\n",
		"plan.json":      `{"format": "my own"}`,
		"replay.json":    `{"pods": 3}`,
	} {
		out := t.TempDir()
		writeFile(t, out, name, content)
		writeFile(t, out, "diagram.png", "mine")
		args := []string{"run", "quick"} // a command that does not write the file
		if slices.Contains(runFiles, name) {
			args = []string{"plan", "slice-size"}
		}
		if r := runChild(t, nil, append(args, "--quiet", "--charts=false", "--out", out)...); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(out, "diagram.png")); string(b) != "mine" {
			t.Errorf("beside the user's %s, their diagram.png went with the run", name)
		}
		if b, _ := os.ReadFile(filepath.Join(out, name)); string(b) != content {
			t.Errorf("the user's %s went with the run, taken for an old sim's output", name)
		}
	}
	// Each kind of file as the last sim without a manifest wrote it marks its directory.
	for name, content := range map[string]string{
		"summary.json":   "{\n  \"scenario\": \"quick\",\n  \"seed\": 1,\n",
		"replay.json":    "{\n  \"pods\": \"trace.jsonl\",\n",
		"plan.json":      "{\n  \"format\": \"epsim-plan/1\",\n",
		"results.csv":    "index,grid.maxEndpointsPerSlice,seed\n0,20,1\n",
		"timeseries.csv": "second,endpointslices_writes,endpointslices_fanoutBytes\n",
		"layout.csv":     "timeSeconds,slices,endpoints,minPerSlice\n",
		"writes.jsonl":   `{"time":"5ms","timeSeconds":0.005,"mode":"endpoints","verb":"create"}` + "\n",
	} {
		if !looksLikeLegacyOutput(writeFile(t, t.TempDir(), name, content)) {
			t.Errorf("an old sim's %s is not recognised", name)
		}
	}
}

// A file of the user's where an output goes (their own report.md or summary.json in the
// directory they name) is bad input: it was replaced without a word. The run stops before
// it starts and changes nothing; a plan likewise.
func TestHostileUserFileWhereAnOutputGoes(t *testing.T) {
	for _, c := range []struct {
		file string
		args []string
	}{
		{"report.md", []string{"run", "quick", "--quiet"}},
		{"summary.json", []string{"run", "quick", "--quiet"}},
		{"writes.jsonl", []string{"run", "quick", "--quiet", "--charts=false"}},
		{"replay.json", []string{"replay", "--pods", filepath.Join("..", "..", "scenarios", "testdata", "replay-trace.jsonl"),
			"--services", filepath.Join("..", "..", "scenarios", "testdata", "replay-services.json"), "--quiet"}},
		{"report.html", []string{"plan", "slice-size", "--quiet"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			out := t.TempDir()
			writeFile(t, out, c.file, "the user's own\n")
			before := snapshot(t, out)
			r := runChild(t, nil, append(c.args, "--out", out)...)
			if r.code != exitBadInput || !strings.Contains(r.stderr, "holds a "+c.file+" that sim did not write") {
				t.Errorf("exit %d, stderr %q", r.code, r.stderr)
			}
			if snapshot(t, out) != before {
				t.Errorf("--out changed")
			}
		})
	}
	// An empty file (touch report.md) holds nothing to lose: the run writes over it.
	empty := t.TempDir()
	writeFile(t, empty, "report.md", "")
	if r := runChild(t, nil, "run", "quick", "--quiet", "--charts=false", "--out", empty); r.code != 0 {
		t.Fatalf("over an empty report.md: exit %d: %s", r.code, r.stderr)
	}
	// Beside an earlier run's outputs (its manifest), a file the run does not write stays
	// and does not stop it: a plan.json of the user's in a run's directory.
	out := aRun(t)
	writeFile(t, out, "plan.json", "mine")
	if r := runChild(t, nil, "run", "quick", "--quiet", "--out", out); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "plan.json")); string(b) != "mine" {
		t.Errorf("plan.json holds %q", b)
	}
}

// Bad --out: a file, a path under a file, a directory where an output file goes (the commit
// once failed there after replacing 15 of 16 files), a read-only directory.
func TestHostileBadOut(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "file", "not a directory\n")
	t.Run("file", func(t *testing.T) {
		before := snapshot(t, dir)
		r := runChild(t, nil, "run", "quick", "--quiet", "--out", file)
		if r.code != exitBadInput || !strings.Contains(r.stderr, "--out "+file+": exists and is not a directory") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
		if snapshot(t, dir) != before {
			t.Error("--out FILE was touched")
		}
	})
	t.Run("under-a-file", func(t *testing.T) {
		start := time.Now()
		r := runChild(t, nil, "run", "5000-nodes", "--quiet", "--out", filepath.Join(file, "sub"))
		if r.code != exitBadInput || !strings.Contains(r.stderr, "not a directory") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "phase") {
			t.Errorf("the run went ahead before --out was checked (%v)", time.Since(start))
		}
	})
	t.Run("directory-where-a-file-goes", func(t *testing.T) {
		out := aRun(t)
		os.Remove(filepath.Join(out, "layout.csv"))
		os.Mkdir(filepath.Join(out, "layout.csv"), 0o755)
		before := snapshot(t, filepath.Dir(out))
		r := runChild(t, nil, "run", "quick", "--quiet", "--seed", "3", "--out", out)
		if r.code != exitFailed || !strings.Contains(r.stderr, "layout.csv is a directory") || !strings.Contains(r.stderr, "nothing in it was changed") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
		if strings.Contains(r.stderr, stageInfix) || strings.Contains(r.stderr, tmpInfix) {
			t.Errorf("the message names a temporary: %q", r.stderr)
		}
		if after := snapshot(t, filepath.Dir(out)); after != before {
			t.Errorf("--out changed:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into read-only directories")
		}
		out := aRun(t)
		os.Chmod(out, 0o555)
		defer os.Chmod(out, 0o755)
		before := snapshot(t, filepath.Dir(out))
		r := runChild(t, nil, "run", "quick", "--quiet", "--out", out)
		if r.code != exitBadInput || !strings.Contains(r.stderr, "is not writable") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
		if snapshot(t, filepath.Dir(out)) != before {
			t.Error("read-only --out was touched")
		}
	})
}

// Two runs into one --out at the same time: the one holding the lock wins whole, the other
// fails at once, clearly, touching nothing. The test process holds the lock as a first sim
// would.
func TestHostileConcurrentRuns(t *testing.T) {
	out := aRun(t)
	held, err := lockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Dir(out))
	r := runChild(t, nil, "run", "quick", "--quiet", "--seed", "9", "--out", out)
	held.Close()
	if r.code != exitFailed || !strings.Contains(r.stderr, "another sim is writing into it") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "phase") {
		t.Error("the losing run simulated before failing")
	}
	if after := snapshot(t, filepath.Dir(out)); after != before {
		t.Errorf("the losing run changed --out:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// Really concurrent: two children at once; both finish, and --out is exactly one run.
	done := make(chan childResult, 2)
	for _, seed := range []string{"5", "6"} {
		go func() { done <- runChild(t, nil, "run", "quick", "--quiet", "--seed", seed, "--out", out) }()
	}
	a, b := <-done, <-done
	wins := 0
	for _, r := range []childResult{a, b} {
		switch {
		case r.code == 0:
			wins++
		case r.code == exitFailed && strings.Contains(r.stderr, "another sim is writing into it"):
		default:
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	}
	if wins == 0 {
		t.Fatal("neither run won")
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	seed := regexpSeed(string(data))
	rows := csvRows(t, filepath.Join(out, "layout.csv"))
	if seed != "5" && seed != "6" || len(rows) < 2 {
		t.Errorf("--out is not one whole run: seed %q, %d layout rows", seed, len(rows))
	}
	if got := strayTemporaries(t, out); len(got) > 0 {
		t.Errorf("temporaries left: %v", got)
	}
}

func regexpSeed(summary string) string {
	_, rest, _ := strings.Cut(summary, `"seed": `)
	n, _, _ := strings.Cut(rest, ",")
	if _, err := strconv.Atoi(n); err != nil {
		return ""
	}
	return n
}

// Issue 12: "sim: replay: sim: replay: …" — one prefix, the context once.
func TestHostileReplayMessage(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "trace.jsonl", `{"time":"2026-01-01T00:00:00Z","type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u1","labels":{"app":"web"}},"spec":{"nodeName":"n1"},"status":{"phase":"Running","podIP":"10.0.0.1"}}}`+"\n{not json\n")
	r := runChild(t, nil, "replay", "--pods", trace, "--services", "../../scenarios/testdata/replay-services.json", "--quiet")
	if r.code == 0 {
		t.Fatalf("a broken trace replayed: %s", r.stdout)
	}
	if strings.Count(r.stderr, "sim:") != 1 || strings.Contains(r.stderr, "replay: replay:") {
		t.Errorf("doubled prefix: %q", r.stderr)
	}
}

// Issue 12: results that overflowed int64 printed negative byte figures with exit 0. The
// collector now stops the run, naming the figure (see sim's TestOverflowNamesTheFigure); here
// the message path: exit 1, one line, no wrapped figure on stdout.
func TestCleanMessage(t *testing.T) {
	for in, want := range map[string]string{
		"replay: sim: replay: bad line 3": "replay: bad line 3",
		"sim: run x.yaml: sim: end time":  "run x.yaml: end time",
		"run a.yaml: a: b":                "run a.yaml: a: b",
		// Our packages' names are no news to the user ("sim: reports: partials do not
		// make up one plan", from sim plan --merge).
		"reports: partials do not make up one plan: x": "partials do not make up one plan: x",
		"plan p: reports: partials: x":                 "plan p: partials: x",
		strings.Repeat("line\n", 30) + "end":           strings.Repeat("line\n", 20) + "and 11 more lines",
	} {
		if got := cleanMessage(in); got != want {
			t.Errorf("cleanMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

// A crash is not bad input: exit 3, one line asking for a report with the seed.
func TestInternalErrorExit3(t *testing.T) {
	te := newTestEnv()
	te.runSim = func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
		panic("index out of range [3] with length 3")
	}
	dir := filepath.Join(t.TempDir(), "out")
	code := te.main([]string{"run", "x.yaml", "--seed", "77", "--out", dir})
	if code != exitInternal {
		t.Fatalf("exit %d, want %d", code, exitInternal)
	}
	msg := te.stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "internal error") || !strings.Contains(msg, "seed 77") || !strings.Contains(msg, "report") {
		t.Errorf("message %q", msg)
	}
	if got := strayTemporaries(t, dir); len(got) > 0 {
		t.Errorf("a crash left temporaries: %v", got)
	}
}

// Issue 12: "sim replay of a trace with a 900 h gap does the same" (gigabytes for the
// per-second series of the gap). The sample trace with its second half 900 h later replays in
// bounded memory and output.
func TestHostileReplayGap(t *testing.T) {
	data, err := os.ReadFile("../../scenarios/testdata/replay-trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	stamp := regexp.MustCompile(`^\{"time":"([^"]+)"`)
	for i := len(lines) / 2; i < len(lines); i++ {
		m := stamp.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("line %d has no time", i+1)
		}
		at, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			t.Fatal(err)
		}
		lines[i] = `{"time":"` + at.Add(900*time.Hour).Format(time.RFC3339Nano) + `"` + lines[i][len(m[0]):]
	}
	dir := t.TempDir()
	trace := writeFile(t, dir, "gap.jsonl", strings.Join(lines, "\n")+"\n")
	out := filepath.Join(dir, "out")
	r := runChild(t, nil, "replay", "--pods", trace, "--services", "../../scenarios/testdata/replay-services.json",
		"--nodes", "../../scenarios/testdata/replay-nodes.json", "--set", "guards.endTime=1000h", "--quiet", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.maxRSS > hostileMaxRSS {
		t.Errorf("peak RSS %d MB, want at most %d MB", r.maxRSS>>20, hostileMaxRSS>>20)
	}
	if !strings.Contains(r.stdout, "last API write at 900h") {
		t.Errorf("the replay did not span the gap:\n%.300s", r.stdout)
	}
	rows := csvRows(t, filepath.Join(out, "timeseries.csv"))
	if len(rows)-1 > 1<<16 || rows[1][len(rows[1])-1] == "1" {
		t.Errorf("timeseries.csv: %d rows of width %s s, want coarsened and bounded", len(rows)-1, rows[1][len(rows[1])-1])
	}
}

// sim plot --out into the directory of another run would leave that run's report.md
// showing these charts under its own figures: plot refuses, and changes nothing there. A
// copy of the run plotted, or the run itself, is fine.
func TestHostilePlotIntoAnotherRun(t *testing.T) {
	a := aRun(t)
	b := filepath.Join(t.TempDir(), "b")
	if r := runChild(t, nil, "run", "quick", "--quiet", "--seed", "2", "--out", b); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	before := snapshot(t, b)
	r := runChild(t, nil, "plot", a, "--out", b)
	if r.code != exitBadInput || !strings.Contains(r.stderr, "holds the results of another run") {
		t.Errorf("plot into another run's directory: exit %d, %q; want %d and why",
			r.code, r.stderr, exitBadInput)
	}
	if after := snapshot(t, b); after != before {
		t.Errorf("a refused plot changed %s:\n%s\nwas\n%s", b, after, before)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(copyDir, os.DirFS(a)); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{a, copyDir} {
		if r := runChild(t, nil, "plot", a, "--out", out); r.code != 0 {
			t.Errorf("plot %s --out %s: exit %d: %s", a, out, r.code, r.stderr)
		}
	}
}

// plot and diff given the --out directory of a 'sim plan' say that it is a plan's, not
// only that it has no summary.json.
func TestHostileRunDirIsAPlan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plan")
	if r := runChild(t, nil, "plan", "slice-size", "--quiet", "--out", p); r.code != 0 {
		t.Fatalf("plan: exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"plot", p}, {"diff", p, p}} {
		r := runChild(t, nil, args...)
		if r.code != exitBadInput || !strings.Contains(r.stderr, "holds a 'sim plan' (plan.json), not a run") {
			t.Errorf("%v: exit %d, %q; want %d, naming the plan", args, r.code, r.stderr, exitBadInput)
		}
	}
}
