package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBoolFlagValueAsNextWord: "--charts false" sets the flag instead of naming a second
// scenario; only the literal words true and false are taken.
func TestBoolFlagValueAsNextWord(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		charts bool
	}{
		{[]string{"--charts", "false"}, false},
		{[]string{"--charts=false"}, false},
		{[]string{"-charts", "false"}, false},
		{[]string{"--charts", "true"}, true},
		{[]string{"--quiet", "true", "--charts", "false"}, false},
		{nil, true},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		te := newTestEnv()
		args := append([]string{"run", "x.yaml", "--out", dir}, tc.args...)
		if code := te.main(args); code != exitOK {
			t.Errorf("%q: exit %d: %s", args, code, te.stderr.String())
			continue
		}
		hasCharts := slices.Contains(listDir(t, dir), "egress-rate.png")
		if hasCharts != tc.charts {
			t.Errorf("%q: charts drawn %v, want %v", args, hasCharts, tc.charts)
		}
	}
	// Any other word after a boolean flag is an argument, as before.
	te := newTestEnv()
	if code := te.main([]string{"run", "x.yaml", "--charts", "no"}); code != exitBadInput ||
		!strings.Contains(te.stderr.String(), "exactly one scenario") {
		t.Errorf("--charts no: exit %d, stderr %s", code, te.stderr.String())
	}
	// After "--" nothing is a flag.
	fs := newFlagSet(cmdRun)
	cmdRun.setup(fs)
	pos, err := parseArgs(fs, []string{"--", "--charts", "false"})
	if err != nil || !slices.Equal(pos, []string{"--charts", "false"}) {
		t.Errorf("after --: %q, %v", pos, err)
	}
	// A string flag's value is never joined.
	if got := joinBoolValues(fs, []string{"--out", "true"}); !slices.Equal(got, []string{"--out", "true"}) {
		t.Errorf("joinBoolValues joined a string flag: %q", got)
	}
}

// TestShortFormatFlag: -o is --format in every command that has --format.
func TestShortFormatFlag(t *testing.T) {
	long, short := newTestEnv(), newTestEnv()
	if code := long.main([]string{"run", "x.yaml", "--format", "json"}); code != exitOK {
		t.Fatal(long.stderr.String())
	}
	if code := short.main([]string{"run", "x.yaml", "-o", "json"}); code != exitOK {
		t.Fatal(short.stderr.String())
	}
	if long.stdout.String() != short.stdout.String() || !strings.HasPrefix(short.stdout.String(), "{") {
		t.Errorf("-o json printed\n%s\nwant\n%s", short.stdout.String(), long.stdout.String())
	}
	for _, c := range commands {
		fs := newFlagSet(c)
		c.setup(fs)
		if f := fs.Lookup("format"); f != nil {
			o := fs.Lookup("o")
			if o == nil || o.Value != f.Value {
				t.Errorf("%s: -o is not --format's twin", c.name)
			}
		}
	}
	te := newTestEnv()
	if code := te.main([]string{"run", "x.yaml", "-o", "yaml"}); code != exitBadInput {
		t.Errorf("-o yaml: exit %d", code)
	}
}

func TestVersionLine(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "epsim", Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-30T12:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	got := versionLine(bi)
	for _, want := range []string{"sim (epsim) v1.2.3", "revision 0123abcd+dirty (2026-11-30T12:00:00Z)", "go1."} {
		if !strings.Contains(got, want) {
			t.Errorf("versionLine = %q, lacks %q", got, want)
		}
	}
	if got := versionLine(nil); !strings.Contains(got, "(devel) revision unknown") {
		t.Errorf("versionLine(nil) = %q", got)
	}
	te := newTestEnv()
	if code := te.main([]string{"version"}); code != exitOK || !strings.HasPrefix(te.stdout.String(), "sim (epsim) ") {
		t.Errorf("sim version: exit %d, %q", code, te.stdout.String())
	}
}

// TestCompletionScripts: each script names every command and every flag, offers the
// shipped scenarios, and parses in its shell when the shell is installed.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		te := newTestEnv()
		te.names = func() []string { return []string{"quick", "5000-nodes"} }
		if code := te.main([]string{"completion", shell}); code != exitOK {
			t.Fatalf("%s: exit %d: %s", shell, code, te.stderr.String())
		}
		script := te.stdout.String()
		for _, c := range commands {
			if !strings.Contains(script, c.name) {
				t.Errorf("%s script lacks command %s", shell, c.name)
			}
		}
		for _, w := range []string{"charts", "fail-on", "baseline-dir", "quick", "5000-nodes", "kep-752"} {
			if !strings.Contains(script, w) {
				t.Errorf("%s script lacks %q", shell, w)
			}
		}
		path, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		f := filepath.Join(t.TempDir(), "sim."+shell)
		if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(path, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", shell, err, out)
		}
	}
	te := newTestEnv()
	if code := te.main([]string{"completion", "powershell"}); code != exitBadInput {
		t.Errorf("completion powershell: exit %d", code)
	}
}

// TestBashCompletionCompletes runs the bash script's function on a few command lines.
func TestBashCompletionCompletes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	te := newTestEnv()
	if code := te.main([]string{"completion", "bash"}); code != exitOK {
		t.Fatal(te.stderr.String())
	}
	f := filepath.Join(t.TempDir(), "sim.bash")
	os.WriteFile(f, te.stdout.Bytes(), 0o644)
	for _, tc := range []struct{ line, want string }{
		{"sim di", "diff"},
		{"sim run --ch", "--charts"},
		{"sim diff --fail", "--fail-on"},
		{"sim help ch", "check"},
	} {
		words := strings.Fields(tc.line)
		script := "source " + f + "; COMP_WORDS=(" + strings.Join(words, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "; _sim; echo \"${COMPREPLY[@]}\""
		out, err := exec.Command(bash, "-c", script).CombinedOutput()
		if err != nil || !slices.Contains(strings.Fields(string(out)), tc.want) {
			t.Errorf("%q completes to %q (%v), want %s", tc.line, out, err, tc.want)
		}
	}
}

// TestCompletionFixedValues: a flag whose values are a fixed set (choiceFlag) completes to
// that set, in every command that has it, and not to files; a flag that names a file still
// completes files. bash runs the script in a directory whose files would show if it offered
// them; zsh and fish are read for the flag's spec.
func TestCompletionFixedValues(t *testing.T) {
	spec := completionSpec(nil, nil)
	type fixed struct{ cmd, flag, values string }
	var all []fixed
	for _, c := range spec {
		for _, f := range c.flags {
			if len(f.choices) > 0 {
				all = append(all, fixed{c.name, f.name, strings.Join(f.choices, " ")})
			}
		}
	}
	// The sets each command's help and usage errors name (run, replay: parseMode,
	// checkFormat and --start's check).
	for _, want := range []fixed{
		{"run", "--mode", "both endpoints endpointslices"}, {"replay", "--mode", "both endpoints endpointslices"},
		{"replay", "--start", "cold warm"},
		{"run", "--format", "table json"}, {"run", "-o", "table json"}, {"check", "-o", "table json"},
		{"diff", "--format", "table json"}, {"diff", "-o", "table json"}, {"replay", "-o", "table json"},
	} {
		if !slices.Contains(all, want) {
			t.Errorf("sim %s %s: no fixed values %q among %v", want.cmd, want.flag, want.values, all)
		}
	}
	scripts := map[string]string{}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		te := newTestEnv()
		if code := te.main([]string{"completion", shell}); code != exitOK {
			t.Fatalf("%s: exit %d: %s", shell, code, te.stderr.String())
		}
		scripts[shell] = te.stdout.String()
	}
	for _, f := range all {
		if !strings.Contains(scripts["zsh"], "]:value:("+f.values+")'") {
			t.Errorf("zsh: sim %s %s does not complete %q", f.cmd, f.flag, f.values)
		}
		opt := "-l " + strings.TrimPrefix(f.flag, "--")
		if len(f.flag) == 2 {
			opt = "-s " + strings.TrimPrefix(f.flag, "-")
		}
		if !strings.Contains(scripts["fish"], "from "+f.cmd+"' "+opt+" -x -a '"+f.values+"'") {
			t.Errorf("fish: sim %s %s does not complete %q (without files)", f.cmd, f.flag, f.values)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "sim.bash")
	os.WriteFile(script, []byte(scripts["bash"]), 0o644)
	for _, name := range []string{"both.yaml", "cold.json", "table.txt", "json-out", "endpoints.yaml"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	complete := func(words ...string) []string {
		q := make([]string, len(words))
		for i, w := range words {
			q[i] = strconv.Quote(w)
		}
		line := "source sim.bash; COMP_WORDS=(" + strings.Join(q, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "; _sim; echo \"${COMPREPLY[@]}\""
		cmd := exec.Command(bash, "-c", line)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", words, err, out)
		}
		got := strings.Fields(string(out))
		slices.Sort(got)
		return got
	}
	sorted := func(s string) []string { f := strings.Fields(s); slices.Sort(f); return f }
	for _, f := range all {
		if got, want := complete("sim", f.cmd, f.flag, ""), sorted(f.values); !slices.Equal(got, want) {
			t.Errorf("bash: sim %s %s completes to %q, want %q", f.cmd, f.flag, got, want)
		}
	}
	if got := complete("sim", "run", "--mode", "endpoints"); !slices.Equal(got, []string{"endpoints", "endpointslices"}) {
		t.Errorf("bash: sim run --mode endpoints completes to %q", got)
	}
	if got := complete("sim", "replay", "--start", "w"); !slices.Equal(got, []string{"warm"}) {
		t.Errorf("bash: sim replay --start w completes to %q", got)
	}
	if got := complete("sim", "run", "--out", "json"); !slices.Equal(got, []string{"json-out"}) {
		t.Errorf("bash: sim run --out json completes to %q, want the file json-out", got)
	}
	// A flag whose value is not a path completes nothing: not the files beside it.
	for _, words := range [][]string{{"sim", "run", "--seed", ""}, {"sim", "plan", "--jobs", ""}, {"sim", "run", "--set", ""},
		{"sim", "plan", "--shard", ""}, {"sim", "diff", "--fail-on", ""}, {"sim", "import", "--name", ""}} {
		if got := complete(words...); len(got) != 0 {
			t.Errorf("bash: %q completes to %q, want nothing", words, got)
		}
	}
	// --flag=value: bash splits it at = (COMP_WORDBREAKS), or, without = there, keeps one
	// word whose completions keep the prefix.
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{"sim", "run", "--mode", "="}, []string{"both", "endpoints", "endpointslices"}},
		{[]string{"sim", "run", "--mode", "=", "endpoints"}, []string{"endpoints", "endpointslices"}},
		{[]string{"sim", "replay", "--start", "=", "c"}, []string{"cold"}},
		{[]string{"sim", "run", "--out", "=", "json"}, []string{"json-out"}},
		{[]string{"sim", "run", "--seed", "="}, nil},
		{[]string{"sim", "run", "--mode=endpoints"}, []string{"--mode=endpoints", "--mode=endpointslices"}},
		{[]string{"sim", "run", "--out=json"}, []string{"--out=json-out"}},
	} {
		if got := complete(tc.words...); !slices.Equal(got, tc.want) {
			t.Errorf("bash: %q completes to %q, want %q", tc.words, got, tc.want)
		}
	}
	for _, want := range []string{"0..2^63-1 (default\\: the scenario'\\''s seed)]:value: '", "'--out=[also write"} {
		if !strings.Contains(scripts["zsh"], want) {
			t.Errorf("zsh script lacks %q", want)
		}
	}
	if !strings.Contains(scripts["fish"], "from run' -l seed -x -d") || !strings.Contains(scripts["fish"], "from run' -l out -r -F -d") {
		t.Error("fish: --seed completes files, or --out does not")
	}
}

// Every command's help text is wrapped at 92 columns at most (most lines at 90), outside
// its indented examples and tables: text edited in place had left lines of up to 144
// columns in 'sim help import' and 'sim help check'.
func TestHelpWrapped(t *testing.T) {
	for _, c := range commands {
		for i, line := range strings.Split(c.long, "\n") {
			if strings.HasPrefix(line, " ") {
				continue // an example, a table, a command line
			}
			if n := utf8.RuneCountInString(line); n > 92 {
				t.Errorf("sim help %s, line %d: %d columns, want at most 92: %q", c.name, i+1, n, line)
			}
		}
	}
}

// An example of 'sim check --strict' names a baseline: --strict fails on improvements and
// new figures, which only a baseline has, and a check with neither baseline nor budgets is
// refused ("nothing to check"). The example 'sim check my-cluster.yaml --format json
// --strict' failed so on the scenario 'sim import' writes. Help, the manual and the README.
func TestStrictExamplesNameABaseline(t *testing.T) {
	texts := map[string]string{"sim help check": cmdCheck.long}
	for _, f := range []string{"doc.go", "../../README.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	for name, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "sim check ") && strings.Contains(line, "--strict") && !strings.Contains(line, "--baseline") {
				t.Errorf("%s: %q uses --strict without a baseline", name, strings.TrimSpace(line))
			}
		}
	}
}
