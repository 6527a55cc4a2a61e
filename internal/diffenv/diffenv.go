// Package diffenv reads the settings of the differential sweeps from the environment: the
// seeds of their sequences (EPSIM_DIFF_SEEDS), the length of a sequence (EPSIM_DIFF_STEPS)
// and which worlds a sweep of the EndpointSlice packing runs (EPSIM_DIFF_WORLDS). The
// Makefile's sweep targets set them; the long sweeps of package model and the harnesses
// that model/testdata/upstream/run.sh installs in packages model and sim read them here.
package diffenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Seeds reads EPSIM_DIFF_SEEDS, "first-last" with 1 ≤ first ≤ last (defFirst-defLast when
// it is unset or empty).
func Seeds(defFirst, defLast uint64) (first, last uint64, err error) {
	return ParseSeeds(os.Getenv("EPSIM_DIFF_SEEDS"), defFirst, defLast)
}

// Steps reads EPSIM_DIFF_STEPS, the steps of a sequence: a positive number (def when it is
// unset or empty).
func Steps(def int) (int, error) {
	return ParsePositive("EPSIM_DIFF_STEPS", os.Getenv("EPSIM_DIFF_STEPS"), def)
}

// TopologyOnly reads EPSIM_DIFF_WORLDS: "all" (or unset) or "topology" (true).
func TopologyOnly() (bool, error) {
	return ParseWorlds(os.Getenv("EPSIM_DIFF_WORLDS"))
}

// ParseSeeds parses v as EPSIM_DIFF_SEEDS: "first-last", 1 ≤ first ≤ last ("" is
// defFirst-defLast).
func ParseSeeds(v string, defFirst, defLast uint64) (first, last uint64, err error) {
	if v == "" {
		return defFirst, defLast, nil
	}
	a, b, ok := strings.Cut(v, "-")
	first, err1 := strconv.ParseUint(a, 10, 64)
	last, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || first == 0 || last < first {
		return 0, 0, fmt.Errorf("EPSIM_DIFF_SEEDS=%q: want first-last, 1 ≤ first ≤ last, as 1-200", v)
	}
	return first, last, nil
}

// ParsePositive parses v, the value of the variable name, as a positive number ("" is
// def).
func ParsePositive(name, v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a positive number", name, v)
	}
	return n, nil
}

// ParseWorlds parses v as EPSIM_DIFF_WORLDS: "" or "all", or "topology" (true).
func ParseWorlds(v string) (topologyOnly bool, err error) {
	switch v {
	case "", "all":
		return false, nil
	case "topology":
		return true, nil
	}
	return false, fmt.Errorf("EPSIM_DIFF_WORLDS=%q: want all or topology", v)
}
