package main

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"epsim/scenarios"
)

// TestValidatePlansAndEffective: validate accepts plans (checking every grid point) next to
// scenarios; --effective and run --print-scenario print a scenario that loads back to the
// run they describe, overrides included.
func TestValidatePlansAndEffective(t *testing.T) {
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb)
	if code := e.main([]string{"validate", "quick", "../../scenarios/plans/kep-752.yaml", "slice-size"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"quick: ok (100 nodes", "kep-752.yaml: ok (plan kep-752: 2 grid points", "slice-size: ok (plan slice-size: 9 grid points"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := e.main([]string{"validate", "--set", "cluster.nodes=3", "slice-size"}); code != exitBadInput {
		t.Errorf("--set on a plan: exit %d", code)
	}

	_, want, err := scenarios.Load("quick", []string{"cluster.nodes=50"})
	if err != nil {
		t.Fatal(err)
	}
	want.Seed = 9
	for _, args := range [][]string{
		{"run", "quick", "--set", "cluster.nodes=50", "--seed", "9", "--print-scenario"},
	} {
		out.Reset()
		if code := e.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		sc, err := scenarios.Parse("printed.yaml", out.Bytes(), nil)
		if err != nil {
			t.Fatalf("%v: printed scenario does not load: %v", args, err)
		}
		if !reflect.DeepEqual(sc.Config, want) {
			t.Errorf("%v: printed scenario is another run", args)
		}
	}
	// --seed takes what a scenario's seed: takes: the largest prints a scenario that loads
	// back, and one more is refused (it printed a scenario that did not load).
	out.Reset()
	if code := e.main([]string{"run", "quick", "--seed", "9223372036854775807", "--print-scenario"}); code != exitOK {
		t.Fatalf("--seed 2^63-1: exit %d: %s", code, errb.String())
	}
	if _, err := scenarios.Parse("printed.yaml", out.Bytes(), nil); err != nil {
		t.Errorf("--seed 2^63-1: printed scenario does not load: %v", err)
	}
	for _, args := range [][]string{{"run", "quick", "--print-scenario"}, {"check", "quick", "--baseline-dir", t.TempDir()}} {
		errb.Reset()
		if code := e.main(append(args, "--seed", "9223372036854775808")); code != exitBadInput ||
			!strings.Contains(errb.String(), "0 to 2^63-1") {
			t.Errorf("%s --seed 2^63: exit %d: %s", args[0], code, errb.String())
		}
	}
	// --print-scenario prints YAML: asking for JSON too is refused, not answered in YAML.
	for _, args := range [][]string{
		{"run", "quick", "-o", "json", "--print-scenario"},
		{"run", "quick", "--print-scenario", "--format=json"},
	} {
		out.Reset()
		errb.Reset()
		if code := e.main(args); code != exitBadInput || out.Len() != 0 ||
			!strings.Contains(errb.String(), "--print-scenario prints the scenario as YAML") {
			t.Errorf("%v: exit %d, stdout %d bytes: %s", args, code, out.Len(), errb.String())
		}
	}
	out.Reset()
	if code := e.main([]string{"validate", "--effective", "quick"}); code != exitOK || !strings.Contains(out.String(), "nodeMilliCPU: 4000") {
		t.Errorf("validate --effective: exit %d:\n%s", code, out.String())
	}
}

// TestScenariosList shows each shipped scenario's size, phases and description.
func TestScenariosList(t *testing.T) {
	var out, errb bytes.Buffer
	if code := newEnv(&out, &errb).main([]string{"scenarios"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"quick: 100 nodes, 1 Service, 200 pods\n  phases: create, one-endpoint-not-ready, one-pod-restart, rolling-update\n  100 nodes",
		"many-services: 5,000 nodes, 10,000 Services",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestExplainCommand prints a field's reference, and refuses an unknown field with exit 2.
func TestExplainCommand(t *testing.T) {
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb)
	if code := e.main([]string{"explain", "services[0].maxSurge"}); code != exitOK || !strings.Contains(out.String(), "DEFAULT:  25%") {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
	if code := e.main([]string{"explain", "services.nope"}); code != exitBadInput {
		t.Errorf("unknown field: exit %d", code)
	}
}

// TestValidateHelpExamplesRun runs every example of 'sim help validate' verbatim, as a user
// pastes it at the repository's root (globs expanded as a shell does), and requires exit 0:
// validate runs nothing, so its examples are cheap to run, not only to parse
// (TestDocExamplesParse). An example once set cluster.nodes=100, which cluster-day's
// timeline rejects.
func TestValidateHelpExamplesRun(t *testing.T) {
	t.Chdir("../..")
	var examples int
	for _, m := range helpExample.FindAllStringSubmatch(cmdValidate.long, -1) {
		var args []string
		for _, f := range strings.Fields(m[1]) {
			if !strings.ContainsAny(f, "*?[") {
				args = append(args, f)
				continue
			}
			matches, err := filepath.Glob(f)
			if err != nil || len(matches) == 0 {
				t.Fatalf("example %q: %s matches nothing", m[1], f)
			}
			args = append(args, matches...)
		}
		if args[0] != "validate" {
			continue
		}
		examples++
		var out, errb bytes.Buffer
		if code := newEnv(&out, &errb).main(args); code != exitOK {
			t.Errorf("example %q: exit %d: %s", m[1], code, errb.String())
		}
	}
	if examples < 3 {
		t.Fatalf("found %d validate examples in its help", examples)
	}
}

// TestValidateEffectivePlan: --effective prints scenarios; given a plan it printed nothing
// at all and exited 0, as if the plan had been printed. It is refused, as --set is, saying
// how to print a grid point's scenario.
func TestValidateEffectivePlan(t *testing.T) {
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb)
	code := e.main([]string{"validate", "--effective", "slice-size"})
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, exitBadInput, out.String(), errb.String())
	}
	if want := "slice-size is a plan: --effective prints scenarios"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q; want it to say %q", errb.String(), want)
	}
}

// TestPrintScenarioRefusesRunFlags: --print-scenario does not run the scenario, so --out,
// --cpuprofile and --memprofile would write nothing; they were accepted and ignored (exit
// 0, no DIR), as -o json is refused.
func TestPrintScenarioRefusesRunFlags(t *testing.T) {
	dir := t.TempDir()
	for _, flags := range [][]string{
		{"--out", filepath.Join(dir, "out")},
		{"--cpuprofile", filepath.Join(dir, "cpu.prof")},
		{"--memprofile", filepath.Join(dir, "mem.prof")},
	} {
		var out, errb bytes.Buffer
		e := newEnv(&out, &errb)
		code := e.main(append([]string{"run", "quick", "--print-scenario"}, flags...))
		want := "--print-scenario prints the scenario and does not run it, so " + flags[0] + " would write nothing"
		if code != exitBadInput || out.Len() != 0 || !strings.Contains(errb.String(), want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit %d and %q", flags, code, out.Len(), errb.String(), exitBadInput, want)
		}
	}
}
