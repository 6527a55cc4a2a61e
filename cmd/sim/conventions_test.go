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
