package model

import (
	"testing"

	"epsim/internal/diffenv"
)

// The live differential harnesses of model/testdata/upstream (run.sh installs them as tests
// of this package, with upstream's controllers) and the long sweeps of this package read
// their sequences' seeds and length from the environment through these (internal/diffenv),
// and set informer stores with mustReplace.

// diffSeeds reads EPSIM_DIFF_SEEDS, "first-last" (default 1-200).
func diffSeeds() (first, last uint64, err error) { return diffenv.Seeds(1, 200) }

// diffSeedsOr is diffSeeds with another default range, for a sweep of its own seeds when
// EPSIM_DIFF_SEEDS is unset (TestReconcileFullMatchesUpstreamLong).
func diffSeedsOr(defFirst, defLast uint64) (first, last uint64, err error) {
	return diffenv.Seeds(defFirst, defLast)
}

// diffSteps reads EPSIM_DIFF_STEPS, the syncs of a sequence (default def).
func diffSteps(def int) (int, error) { return diffenv.Steps(def) }

// diffTopologyOnly reads EPSIM_DIFF_WORLDS: "all" (or unset) or "topology".
func diffTopologyOnly() (bool, error) { return diffenv.TopologyOnly() }

// mustReplace fails the test if replacing an informer store's objects failed.
func mustReplace(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
