package model

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The live differential harnesses of model/testdata/upstream (run.sh installs them as tests
// of this package, with upstream's controllers) read their sequences' seeds and length from
// the environment through these, and set informer stores with mustReplace.

// diffSeeds reads EPSIM_DIFF_SEEDS, "first-last" (default 1-200).
func diffSeeds() (first, last uint64, err error) {
	return parseSeedRange(os.Getenv("EPSIM_DIFF_SEEDS"))
}

// diffSeedsOr is diffSeeds with another default range, for a sweep of its own seeds when
// EPSIM_DIFF_SEEDS is unset (TestReconcileFullMatchesUpstreamLong).
func diffSeedsOr(defFirst, defLast uint64) (first, last uint64, err error) {
	if os.Getenv("EPSIM_DIFF_SEEDS") == "" {
		return defFirst, defLast, nil
	}
	return diffSeeds()
}

// diffSteps reads EPSIM_DIFF_STEPS, the syncs of a sequence (default def).
func diffSteps(def int) (int, error) {
	return parsePositive("EPSIM_DIFF_STEPS", os.Getenv("EPSIM_DIFF_STEPS"), def)
}

// diffTopologyOnly reads EPSIM_DIFF_WORLDS: "all" (or unset) or "topology".
func diffTopologyOnly() (bool, error) {
	return parseWorlds(os.Getenv("EPSIM_DIFF_WORLDS"))
}

// parseWorlds parses the worlds a sweep runs: "" or "all", or "topology" (true).
func parseWorlds(v string) (topologyOnly bool, err error) {
	switch v {
	case "", "all":
		return false, nil
	case "topology":
		return true, nil
	}
	return false, fmt.Errorf("EPSIM_DIFF_WORLDS=%q: want all or topology", v)
}

// parseSeedRange parses "first-last" ("" is the default, 1-200).
func parseSeedRange(v string) (first, last uint64, err error) {
	if v == "" {
		return 1, 200, nil
	}
	a, b, ok := strings.Cut(v, "-")
	first, err1 := strconv.ParseUint(a, 10, 64)
	last, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || last < first {
		return 0, 0, fmt.Errorf("EPSIM_DIFF_SEEDS=%q: want first-last, as 1-200", v)
	}
	return first, last, nil
}

// parsePositive parses the positive number v of variable name ("" is def).
func parsePositive(name, v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a positive number", name, v)
	}
	return n, nil
}

// mustReplace fails the test if replacing an informer store's objects failed.
func mustReplace(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDiffEnvParsing(t *testing.T) {
	for _, c := range []struct {
		v           string
		first, last uint64
		ok          bool
	}{
		{"", 1, 200, true},
		{"5-5", 5, 5, true},
		{"3001-3300", 3001, 3300, true},
		{"7", 0, 0, false},
		{"9-3", 0, 0, false},
		{"a-b", 0, 0, false},
		{"-4", 0, 0, false},
		{"1-2-3", 0, 0, false},
	} {
		first, last, err := parseSeedRange(c.v)
		if (err == nil) != c.ok || c.ok && (first != c.first || last != c.last) {
			t.Errorf("parseSeedRange(%q) = %d, %d, %v; want %d, %d, ok %v", c.v, first, last, err, c.first, c.last, c.ok)
		}
	}
	for _, c := range []struct {
		v    string
		want int
		ok   bool
	}{{"", 20, true}, {"60", 60, true}, {"0", 0, false}, {"-1", 0, false}, {"x", 0, false}} {
		got, err := parsePositive("N", c.v, 20)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parsePositive(%q) = %d, %v; want %d, ok %v", c.v, got, err, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		v        string
		topology bool
		ok       bool
	}{{"", false, true}, {"all", false, true}, {"topology", true, true}, {"Topology", false, false}, {"hints", false, false}} {
		got, err := parseWorlds(c.v)
		if (err == nil) != c.ok || got != c.topology {
			t.Errorf("parseWorlds(%q) = %v, %v; want %v, ok %v", c.v, got, err, c.topology, c.ok)
		}
	}
	// The harnesses read the process's environment through diffSeeds and diffSteps.
	t.Setenv("EPSIM_DIFF_SEEDS", "10-12")
	t.Setenv("EPSIM_DIFF_STEPS", "7")
	if first, last, err := diffSeeds(); err != nil || first != 10 || last != 12 {
		t.Errorf("diffSeeds() with 10-12 = %d, %d, %v", first, last, err)
	}
	if first, last, err := diffSeedsOr(100001, 100200); err != nil || first != 10 || last != 12 {
		t.Errorf("diffSeedsOr(100001, 100200) with 10-12 = %d, %d, %v", first, last, err)
	}
	t.Setenv("EPSIM_DIFF_SEEDS", "")
	if first, last, err := diffSeedsOr(100001, 100200); err != nil || first != 100001 || last != 100200 {
		t.Errorf("diffSeedsOr(100001, 100200) unset = %d, %d, %v", first, last, err)
	}
	if n, err := diffSteps(20); err != nil || n != 7 {
		t.Errorf("diffSteps(20) with 7 = %d, %v", n, err)
	}
	t.Setenv("EPSIM_DIFF_WORLDS", "topology")
	if only, err := diffTopologyOnly(); err != nil || !only {
		t.Errorf("diffTopologyOnly() with topology = %v, %v", only, err)
	}
}
