package sim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The differential harnesses that model/testdata/upstream/run.sh installs in this package
// (the Deployment, DaemonSet, StatefulSet and ReplicaSet controllers, kube-proxy) read
// their seeds and the length of their sequences from the environment through these.

// harnessSeeds reads EPSIM_DIFF_SEEDS, "first-last" (defFirst-defLast when unset), and
// fails the test on another value.
func harnessSeeds(t *testing.T, defFirst, defLast uint64) (first, last uint64) {
	t.Helper()
	first, last, err := parseHarnessSeeds(os.Getenv("EPSIM_DIFF_SEEDS"), defFirst, defLast)
	if err != nil {
		t.Fatal(err)
	}
	return first, last
}

// harnessSteps reads EPSIM_DIFF_STEPS, the steps of a sequence (def when unset), and fails
// the test on another value than a positive number.
func harnessSteps(t *testing.T, def int) int {
	t.Helper()
	steps, err := parseHarnessSteps(os.Getenv("EPSIM_DIFF_STEPS"), def)
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// parseHarnessSeeds parses "first-last", 1 ≤ first ≤ last ("" is defFirst-defLast).
func parseHarnessSeeds(v string, defFirst, defLast uint64) (first, last uint64, err error) {
	if v == "" {
		return defFirst, defLast, nil
	}
	a, b, ok := strings.Cut(v, "-")
	first, err1 := strconv.ParseUint(a, 10, 64)
	last, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || first == 0 || last < first {
		return 0, 0, fmt.Errorf("EPSIM_DIFF_SEEDS=%q: want first-last, 1 ≤ first ≤ last", v)
	}
	return first, last, nil
}

// parseHarnessSteps parses a positive number ("" is def).
func parseHarnessSteps(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("EPSIM_DIFF_STEPS=%q: want a positive number", v)
	}
	return n, nil
}

func TestHarnessEnvParsing(t *testing.T) {
	for _, c := range []struct {
		v           string
		first, last uint64
		ok          bool
	}{
		{"", 1, 20, true},
		{"5-5", 5, 5, true},
		{"401-560", 401, 560, true},
		{"0-3", 0, 0, false},
		{"7", 0, 0, false},
		{"9-3", 0, 0, false},
		{"a-b", 0, 0, false},
		{"-4", 0, 0, false},
		{"1-2-3", 0, 0, false},
	} {
		first, last, err := parseHarnessSeeds(c.v, 1, 20)
		if (err == nil) != c.ok || c.ok && (first != c.first || last != c.last) {
			t.Errorf("parseHarnessSeeds(%q, 1, 20) = %d, %d, %v; want %d, %d, ok %v", c.v, first, last, err, c.first, c.last, c.ok)
		}
	}
	for _, c := range []struct {
		v    string
		want int
		ok   bool
	}{{"", 20, true}, {"40", 40, true}, {"0", 0, false}, {"-1", 0, false}, {"x", 0, false}} {
		got, err := parseHarnessSteps(c.v, 20)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseHarnessSteps(%q, 20) = %d, %v; want %d, ok %v", c.v, got, err, c.want, c.ok)
		}
	}
	t.Setenv("EPSIM_DIFF_SEEDS", "10-12")
	t.Setenv("EPSIM_DIFF_STEPS", "7")
	if first, last := harnessSeeds(t, 1, 20); first != 10 || last != 12 {
		t.Errorf("harnessSeeds with 10-12 = %d, %d", first, last)
	}
	if steps := harnessSteps(t, 20); steps != 7 {
		t.Errorf("harnessSteps with 7 = %d", steps)
	}
}
