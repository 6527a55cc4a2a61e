package diffenv

import (
	"fmt"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	for _, c := range []struct {
		v           string
		first, last uint64
		ok          bool
	}{
		{"", 1, 200, true},
		{"5-5", 5, 5, true},
		{"3001-3300", 3001, 3300, true},
		{"0-3", 0, 0, false},
		{"7", 0, 0, false},
		{"9-3", 0, 0, false},
		{"a-b", 0, 0, false},
		{"-4", 0, 0, false},
		{"1-2-3", 0, 0, false},
	} {
		first, last, err := ParseSeeds(c.v, 1, 200)
		if (err == nil) != c.ok || c.ok && (first != c.first || last != c.last) {
			t.Errorf("ParseSeeds(%q, 1, 200) = %d, %d, %v; want %d, %d, ok %v", c.v, first, last, err, c.first, c.last, c.ok)
		}
	}
}

func TestParsePositive(t *testing.T) {
	for _, c := range []struct {
		v    string
		want int
		ok   bool
	}{{"", 20, true}, {"60", 60, true}, {"0", 0, false}, {"-1", 0, false}, {"x", 0, false}} {
		got, err := ParsePositive("N", c.v, 20)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParsePositive(%q) = %d, %v; want %d, ok %v", c.v, got, err, c.want, c.ok)
		}
	}
}

func TestParseWorlds(t *testing.T) {
	for _, c := range []struct {
		v        string
		topology bool
		ok       bool
	}{{"", false, true}, {"all", false, true}, {"topology", true, true}, {"Topology", false, false}, {"hints", false, false}} {
		got, err := ParseWorlds(c.v)
		if (err == nil) != c.ok || got != c.topology {
			t.Errorf("ParseWorlds(%q) = %v, %v; want %v, ok %v", c.v, got, err, c.topology, c.ok)
		}
	}
}

// TestReadsTheEnvironment: the sweeps read the process's environment through Seeds, Steps
// and TopologyOnly.
func TestReadsTheEnvironment(t *testing.T) {
	t.Setenv("EPSIM_DIFF_SEEDS", "10-12")
	t.Setenv("EPSIM_DIFF_STEPS", "7")
	t.Setenv("EPSIM_DIFF_WORLDS", "topology")
	if first, last, err := Seeds(100001, 100200); err != nil || first != 10 || last != 12 {
		t.Errorf("Seeds(100001, 100200) with 10-12 = %d, %d, %v", first, last, err)
	}
	if n, err := Steps(20); err != nil || n != 7 {
		t.Errorf("Steps(20) with 7 = %d, %v", n, err)
	}
	if only, err := TopologyOnly(); err != nil || !only {
		t.Errorf("TopologyOnly() with topology = %v, %v", only, err)
	}
	t.Setenv("EPSIM_DIFF_SEEDS", "")
	t.Setenv("EPSIM_DIFF_STEPS", "")
	if first, last, err := Seeds(100001, 100200); err != nil || first != 100001 || last != 100200 {
		t.Errorf("Seeds(100001, 100200) unset = %d, %d, %v", first, last, err)
	}
	if n, err := Steps(20); err != nil || n != 20 {
		t.Errorf("Steps(20) unset = %d, %v", n, err)
	}
}

func ExampleParseSeeds() {
	first, last, err := ParseSeeds("3001-3300", 1, 200)
	fmt.Println(first, last, err)
	_, _, err = ParseSeeds("9-3", 1, 200)
	fmt.Println(err)
	// Output:
	// 3001 3300 <nil>
	// EPSIM_DIFF_SEEDS="9-3": want first-last, 1 ≤ first ≤ last, as 1-200
}
