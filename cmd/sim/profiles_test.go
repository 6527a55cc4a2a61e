package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"epsim/sim"
)

// profiledCommand is a command that runs several simulations, as a profiles test drives it.
type profiledCommand struct {
	name string
	// env returns a test environment that counts the runs it starts in runs.
	env  func(t *testing.T, runs *atomic.Int32) *testEnv
	args func(t *testing.T) []string
}

// profiledCommands are check (of two scenarios, side by side) and plan (of four points).
var profiledCommands = []profiledCommand{
	{
		name: "check",
		env: func(t *testing.T, runs *atomic.Int32) *testEnv {
			te := checkEnv()
			run := te.runSim
			te.runSim = func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
				runs.Add(1)
				return run(cfg, obs)
			}
			return te
		},
		args: func(t *testing.T) []string {
			return []string{"check", "x.yaml", "y.yaml", "--baseline-dir", t.TempDir(), "--update-baseline", "--quiet"}
		},
	},
	{
		name: "plan",
		env: func(t *testing.T, runs *atomic.Int32) *testEnv {
			te := realEnv()
			te.runSim = func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
				runs.Add(1)
				return sim.Run(cfg, obs)
			}
			return te
		},
		args: func(t *testing.T) []string { return []string{"plan", writePlan(t, tinyPlan), "--quiet"} },
	},
}

// TestCommandProfiles: check and plan write the profiles --cpuprofile and --memprofile ask
// for, which pprof reads (gzip-compressed protobuf), and take a path that cannot be one as
// bad input, found before anything runs.
func TestCommandProfiles(t *testing.T) {
	for _, c := range profiledCommands {
		for _, flagName := range []string{"--cpuprofile", "--memprofile"} {
			t.Run(c.name+" "+flagName, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "prof.out")
				var runs atomic.Int32
				te := c.env(t, &runs)
				if code := te.main(append(c.args(t), flagName, path)); code != exitOK {
					t.Fatalf("exit %d: %s", code, te.stderr.String())
				}
				if runs.Load() < 2 {
					t.Fatalf("%d runs, want several", runs.Load())
				}
				prof := readProfile(t, path)
				if want := map[string]string{"--cpuprofile": "cpu", "--memprofile": "inuse_space"}[flagName]; !bytes.Contains(prof, []byte(want)) {
					t.Errorf("the profile (%d bytes) has no %q samples", len(prof), want)
				}

				for _, bad := range []struct{ path, want string }{
					{filepath.Join(t.TempDir(), "no", "such", "dir", "prof.out"), flagName},
					{t.TempDir(), "is a directory"},
				} {
					runs.Store(0)
					te := c.env(t, &runs)
					if code := te.main(append(c.args(t), flagName, bad.path)); code != exitBadInput || !strings.Contains(te.stderr.String(), bad.want) {
						t.Errorf("%s %s: exit %d, stderr %q; want exit %d and %q", flagName, bad.path, code, te.stderr.String(), exitBadInput, bad.want)
					}
					if runs.Load() != 0 {
						t.Errorf("%s %s: %d runs before the error, want none", flagName, bad.path, runs.Load())
					}
				}
			})
		}
	}
}

// TestCommandMemprofileHoldsTheRuns: the heap profile of a check of two scenarios and of a
// plan of two points, run side by side, is of the runs' heap near its peak, which each run
// samples as it goes (commandProfiles.watch), not of what is left when they are done. In a
// child, whose heap is the command's.
func TestCommandMemprofileHoldsTheRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 5000-nodes four times in children")
	}
	plan := writePlan(t, "name: two\nscenario: 5000-nodes\ngrid:\n  - set: controlPlane.maxEndpointsPerSlice\n    values: [50, 100]\n")
	for _, args := range [][]string{
		{"check", "5000-nodes", "dual-stack", "--baseline-dir", t.TempDir(), "--update-baseline", "--jobs", "2"},
		{"plan", plan, "--jobs", "2"},
	} {
		t.Run(args[0], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mem.prof")
			if r := runChild(t, nil, append(args, "--quiet", "--memprofile", path)...); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			// The profile's string table names the functions of its samples' stacks.
			// A run of 5000-nodes peaks at about 10 MB of live heap; the runs' results, which
			// are all a profile taken at the end would hold, are 1–4 MB.
			if inuse := inuseBytes(t, readProfile(t, path)); inuse < 7e6 {
				t.Errorf("the heap profile holds %.1f MB in use, want at least 7 (one run's peak is about 10): not of the runs' peak", float64(inuse)/1e6)
			}
		})
	}
}

// TestPlanMergeProfiles: a merge runs no point, so --memprofile, the points' heap, is a
// usage error there; --cpuprofile profiles the merge.
func TestPlanMergeProfiles(t *testing.T) {
	shards := t.TempDir()
	te := realEnv()
	if code := te.main([]string{"plan", writePlan(t, tinyPlan), "--quiet", "--shard", "0/1", "--out", shards}); code != exitOK {
		t.Fatalf("shard: exit %d: %s", code, te.stderr.String())
	}
	te = realEnv()
	if code := te.main([]string{"plan", "--merge", shards, "--memprofile", filepath.Join(t.TempDir(), "mem.prof")}); code != exitBadInput || !strings.Contains(te.stderr.String(), "--merge runs none") {
		t.Errorf("--merge --memprofile: exit %d, stderr %q; want a usage error", code, te.stderr.String())
	}
	path := filepath.Join(t.TempDir(), "cpu.prof")
	te = realEnv()
	if code := te.main([]string{"plan", "--merge", shards, "--cpuprofile", path}); code != exitOK {
		t.Fatalf("--merge --cpuprofile: exit %d: %s", code, te.stderr.String())
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("--merge --cpuprofile wrote no profile: %v", err)
	}
}

// inuseBytes returns the in-use bytes a heap profile (pprof's protobuf, gunzipped) holds:
// the sum of its samples' inuse_space values, which the runtime has scaled for sampling.
// The profile is read with a protobuf reader of its own, of the few fields it needs.
func inuseBytes(t *testing.T, prof []byte) int64 {
	t.Helper()
	var types []uint64 // per value of a sample: its type, as an index into strs
	var samples [][]uint64
	var strs []string
	for _, f := range protoFields(t, prof) {
		switch f.num {
		case 1: // Profile.sample_type: ValueType{type = 1, unit = 2}
			for _, g := range protoFields(t, f.bytes) {
				if g.num == 1 {
					types = append(types, g.varint)
				}
			}
		case 2: // Profile.sample: Sample{location_id = 1, value = 2 (packed)}
			var values []uint64
			for _, g := range protoFields(t, f.bytes) {
				if g.num == 2 {
					values = append(values, protoPacked(t, g)...)
				}
			}
			samples = append(samples, values)
		case 6: // Profile.string_table
			strs = append(strs, string(f.bytes))
		}
	}
	col := slices.IndexFunc(types, func(s uint64) bool { return s < uint64(len(strs)) && strs[s] == "inuse_space" })
	if col < 0 {
		t.Fatal("the profile has no inuse_space values: not a heap profile")
	}
	var sum int64
	for _, v := range samples {
		if col < len(v) {
			sum += int64(v[col])
		}
	}
	return sum
}

// protoField is one field of a protobuf message: a varint's value, or a length-delimited
// field's bytes (the other wire types are skipped).
type protoField struct {
	num    uint64
	varint uint64
	bytes  []byte
	packed bool // bytes, not varint
}

// protoFields splits a protobuf message into its varint and length-delimited fields.
func protoFields(t *testing.T, b []byte) []protoField {
	t.Helper()
	var out []protoField
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatal("not a profile: a bad field key")
		}
		b = b[n:]
		f := protoField{num: key >> 3}
		switch key & 7 {
		case 0: // varint
			if f.varint, n = binary.Uvarint(b); n <= 0 {
				t.Fatal("not a profile: a bad varint")
			}
			b = b[n:]
		case 1: // 64-bit
			b = b[min(8, len(b)):]
			continue
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				t.Fatal("not a profile: a bad length")
			}
			f.bytes, f.packed, b = b[n:n+int(l)], true, b[n+int(l):]
		case 5: // 32-bit
			b = b[min(4, len(b)):]
			continue
		default:
			t.Fatalf("not a profile: wire type %d", key&7)
		}
		out = append(out, f)
	}
	return out
}

// protoPacked returns the values of a repeated varint field: packed, or one unpacked.
func protoPacked(t *testing.T, f protoField) []uint64 {
	t.Helper()
	if !f.packed {
		return []uint64{f.varint}
	}
	var out []uint64
	for b := f.bytes; len(b) > 0; {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatal("not a profile: a bad packed varint")
		}
		out, b = append(out, v), b[n:]
	}
	return out
}

// TestCommandMemprofileLiftsTheFloor: the runs of check and plan keep the collector's floor
// (GOGC raised while the live heap is small), but not under --memprofile, as sim run's:
// a heap profile is of a collection, and a run under the floor makes none (a check of two
// 5000-nodes runs collected never). Whichever way the runs go: side by side, one after the
// other, a check of one scenario.
func TestCommandMemprofileLiftsTheFloor(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOMEMLIMIT")
	gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	// The live heap of this test process, collected, is far below a floor (192 MiB).
	runtime.GC()
	checkEnv := func() *testEnv { return checkEnv() }
	for _, c := range []struct {
		name string
		env  func() *testEnv
		args func(t *testing.T) []string
	}{
		{"check side by side", checkEnv, func(t *testing.T) []string {
			return []string{"check", "x.yaml", "y.yaml", "--jobs", "2", "--baseline-dir", t.TempDir(), "--update-baseline", "--quiet"}
		}},
		{"check one after the other", checkEnv, func(t *testing.T) []string {
			return []string{"check", "x.yaml", "y.yaml", "--jobs", "1", "--baseline-dir", t.TempDir(), "--update-baseline", "--quiet"}
		}},
		{"check of one scenario", checkEnv, func(t *testing.T) []string {
			return []string{"check", "x.yaml", "--baseline-dir", t.TempDir(), "--update-baseline", "--quiet"}
		}},
		{"plan", realEnv, func(t *testing.T) []string { return []string{"plan", writePlan(t, tinyPlan), "--quiet"} }},
		{"plan one after the other", realEnv, func(t *testing.T) []string {
			return []string{"plan", writePlan(t, tinyPlan), "--quiet", "--jobs", "1"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, profiled := range []bool{false, true} {
				var mu sync.Mutex
				var seen []int // GOGC as each run started
				te := c.env()
				run := te.runSim
				te.runSim = func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
					mu.Lock()
					seen = append(seen, gogc())
					mu.Unlock()
					return run(cfg, obs)
				}
				args := c.args(t)
				if profiled {
					args = append(args, "--memprofile", filepath.Join(t.TempDir(), "mem.prof"))
				}
				if code := te.main(args); code != exitOK {
					t.Fatalf("exit %d: %s", code, te.stderr.String())
				}
				if len(seen) == 0 {
					t.Fatal("no run")
				}
				for _, g := range seen {
					if floored := g > 100; floored == profiled {
						t.Errorf("--memprofile %v: a run started at GOGC %d, want %s", profiled, g, map[bool]string{false: "above 100 (the floor)", true: "100 (no floor)"}[profiled])
					}
				}
				if got := gogc(); got != 100 {
					t.Errorf("--memprofile %v: GOGC %d after the command, want 100 back", profiled, got)
				}
			}
		})
	}
}

// TestProfilesNameOneFile: --cpuprofile and --memprofile of one file (under one name or
// two) is a usage error of every command that takes them, found before anything runs or
// is written: both profiles would write the file, which pprof then could not read.
func TestProfilesNameOneFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "prof.out")
	link := filepath.Join(dir, "link.out")
	if err := os.WriteFile(file, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	commands := map[string][]string{
		"run":    {"run", "x.yaml", "--quiet"},
		"replay": {"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--quiet"},
		"check":  {"check", "x.yaml", "--baseline-dir", t.TempDir(), "--update-baseline", "--quiet"},
		"plan":   {"plan", writePlan(t, tinyPlan), "--quiet"},
	}
	for _, name := range []string{"run", "replay", "check", "plan"} {
		for _, second := range []string{file, filepath.Join(dir, ".", "sub", "..", "prof.out"), link} {
			var runs atomic.Int32
			te := newTestEnv()
			te.runSim = func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
				runs.Add(1)
				return nil, errors.New("ran")
			}
			args := append(slices.Clone(commands[name]), "--cpuprofile", file, "--memprofile", second)
			code := te.main(args)
			if code != exitBadInput || !strings.Contains(te.stderr.String(), "name one file") {
				t.Errorf("%s --memprofile %s: exit %d, stderr %q; want exit %d, \"name one file\"", name, second, code, te.stderr.String(), exitBadInput)
			}
			if runs.Load() != 0 {
				t.Errorf("%s --memprofile %s: ran before the error", name, second)
			}
			if b, err := os.ReadFile(file); err != nil || string(b) != "kept" {
				t.Errorf("%s --memprofile %s: the file holds %q (%v), want it untouched", name, second, b, err)
			}
		}
	}
}

// TestProfilesInOut: a profile in --out DIR under a name the outputs use (an output, a
// chart, the manifest) is a usage error, found before anything is written: the outputs
// would replace it, or it them. Under another name it is kept beside the outputs, as any
// file of the user's in DIR.
func TestProfilesInOut(t *testing.T) {
	commands := map[string]func(out string) (*env, []string){
		"run": func(out string) (*env, []string) {
			return newTestEnv().env, []string{"run", "x.yaml", "--quiet", "--charts=false", "--out", out}
		},
		"replay": func(out string) (*env, []string) {
			e, _, _ := replayEnv()
			return e, []string{"replay", "--pods", sample("replay-trace.jsonl"), "--services", sample("replay-services.json"), "--quiet", "--charts=false", "--out", out}
		},
		"plan": func(out string) (*env, []string) {
			return realEnv().env, []string{"plan", writePlan(t, tinyPlan), "--quiet", "--charts=false", "--out", out}
		},
	}
	for _, name := range []string{"run", "replay", "plan"} {
		for _, flagName := range []string{"--cpuprofile", "--memprofile"} {
			for _, file := range []string{"summary.json", "report.md", "egress-rate.png", ".sim-outputs"} {
				out := t.TempDir()
				e, args := commands[name](out)
				if code := e.main(append(args, flagName, filepath.Join(out, file))); code != exitBadInput {
					t.Errorf("%s %s DIR/%s: exit %d, want %d", name, flagName, file, code, exitBadInput)
				}
				if entries, _ := os.ReadDir(out); len(entries) != 0 {
					t.Errorf("%s %s DIR/%s: wrote %d files into --out, want none", name, flagName, file, len(entries))
				}
			}
			out := t.TempDir()
			e, args := commands[name](out)
			if code := e.main(append(args, flagName, filepath.Join(out, "prof.out"))); code != exitOK {
				t.Fatalf("%s %s DIR/prof.out: exit %d", name, flagName, code)
			}
			readProfile(t, filepath.Join(out, "prof.out"))
		}
	}
}

// TestProfilesKeepOtherFiles: a profile flag naming a file that holds something else (the
// scenario, recording or plan the command reads: one mistyped flag) is bad input, and the
// file is left as it was; an earlier profile, or an empty file, is written over.
func TestProfilesKeepOtherFiles(t *testing.T) {
	dir := t.TempDir()
	copyOf := func(src string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.Base(src))
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	trace := copyOf(sample("replay-trace.jsonl"))
	plan := writePlan(t, tinyPlan)
	scenario := copyOf(filepath.Join("..", "..", "scenarios", "quick.yaml"))
	commands := map[string]struct {
		env   func() *env
		args  []string
		input string // a file the command reads, named in args
	}{
		"run":    {func() *env { return realEnv().env }, []string{"run", scenario, "--quiet"}, scenario},
		"replay": {func() *env { e, _, _ := replayEnv(); return e }, []string{"replay", "--pods", trace, "--services", sample("replay-services.json"), "--quiet"}, trace},
		"check":  {func() *env { return realEnv().env }, []string{"check", scenario, "--baseline-dir", t.TempDir(), "--update-baseline", "--quiet"}, scenario},
		"plan":   {func() *env { return realEnv().env }, []string{"plan", plan, "--quiet"}, plan},
	}
	for _, name := range []string{"run", "replay", "check", "plan"} {
		c := commands[name]
		want, err := os.ReadFile(c.input)
		if err != nil {
			t.Fatal(err)
		}
		for _, flagName := range []string{"--cpuprofile", "--memprofile"} {
			if code := c.env().main(append(slices.Clone(c.args), flagName, c.input)); code != exitBadInput {
				t.Errorf("%s %s INPUT: exit %d, want %d", name, flagName, code, exitBadInput)
			}
			if got, err := os.ReadFile(c.input); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s %s INPUT: the input file was changed (%d bytes, was %d): %v", name, flagName, len(got), len(want), err)
			}
			prof := filepath.Join(t.TempDir(), "prof.out")
			for _, before := range []string{"", "\x1f\x8b an earlier profile"} {
				if err := os.WriteFile(prof, []byte(before), 0o644); err != nil {
					t.Fatal(err)
				}
				if code := c.env().main(append(slices.Clone(c.args), flagName, prof)); code != exitOK {
					t.Fatalf("%s %s over %q: exit %d, want %d", name, flagName, before, code, exitOK)
				}
				if got := readProfile(t, prof); len(got) == 0 {
					t.Errorf("%s %s over %q: an empty profile", name, flagName, before)
				}
			}
		}
	}
}

// TestCheckProfileIsAnOutput: a check's profile that is its --junit report or a baseline it
// writes is bad input, found before the runs: the report or baseline, written after the
// runs, would replace the profile.
func TestCheckProfileIsAnOutput(t *testing.T) {
	for _, flagName := range []string{"--cpuprofile", "--memprofile"} {
		dir := t.TempDir()
		for _, args := range [][]string{
			{"check", "x.yaml", "--baseline-dir", dir, "--update-baseline", "--junit", filepath.Join(dir, "r.xml"), flagName, filepath.Join(dir, "r.xml")},
			{"check", "x.yaml", "--baseline-dir", dir, "--update-baseline", flagName, filepath.Join(dir, "x.json")},
		} {
			te := checkEnv()
			if code := te.main(args); code != exitBadInput || !strings.Contains(te.stderr.String(), "give") {
				t.Errorf("%v: exit %d, stderr %q; want %d", args, code, te.stderr.String(), exitBadInput)
			}
			if len(te.ran) != 0 {
				t.Errorf("%v: ran %d scenarios before refusing", args, len(te.ran))
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%v: wrote %d files, want none", args, len(entries))
			}
		}
	}
}

// TestPlanProfileIsThePartial: a shard's profile named as the partial it writes into --out
// is a usage error: the partial, written after the points, would replace it.
func TestPlanProfileIsThePartial(t *testing.T) {
	for _, flagName := range []string{"--cpuprofile", "--memprofile"} {
		out := t.TempDir()
		te := realEnv()
		code := te.main([]string{"plan", writePlan(t, tinyPlan), "--quiet", "--shard", "1/2", "--out", out, flagName, filepath.Join(out, partialName(1, 2))})
		if code != exitBadInput || !strings.Contains(te.stderr.String(), "is the partial") {
			t.Errorf("%s DIR/PARTIAL: exit %d, stderr %q; want %d, \"is the partial\"", flagName, code, te.stderr.String(), exitBadInput)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%s DIR/PARTIAL: wrote %d files, want none", flagName, len(entries))
		}
	}
}
