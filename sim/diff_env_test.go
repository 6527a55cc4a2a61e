package sim

import (
	"testing"

	"epsim/internal/diffenv"
)

// The differential harnesses that model/testdata/upstream/run.sh installs in this package
// (the Deployment, DaemonSet, StatefulSet and ReplicaSet controllers, kube-proxy) read
// their seeds and the length of their sequences from the environment through these
// (internal/diffenv), failing the test on a value it cannot read.

// harnessSeeds reads EPSIM_DIFF_SEEDS, "first-last" (defFirst-defLast when unset).
func harnessSeeds(t *testing.T, defFirst, defLast uint64) (first, last uint64) {
	t.Helper()
	first, last, err := diffenv.Seeds(defFirst, defLast)
	if err != nil {
		t.Fatal(err)
	}
	return first, last
}

// harnessSteps reads EPSIM_DIFF_STEPS, the steps of a sequence (def when unset).
func harnessSteps(t *testing.T, def int) int {
	t.Helper()
	steps, err := diffenv.Steps(def)
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// TestHarnessEnv: the harnesses get the environment's range and steps, or their defaults.
func TestHarnessEnv(t *testing.T) {
	t.Setenv("EPSIM_DIFF_SEEDS", "")
	t.Setenv("EPSIM_DIFF_STEPS", "")
	if first, last := harnessSeeds(t, 1, 20); first != 1 || last != 20 {
		t.Errorf("harnessSeeds(1, 20) unset = %d, %d", first, last)
	}
	if steps := harnessSteps(t, 20); steps != 20 {
		t.Errorf("harnessSteps(20) unset = %d", steps)
	}
	t.Setenv("EPSIM_DIFF_SEEDS", "401-560")
	t.Setenv("EPSIM_DIFF_STEPS", "40")
	if first, last := harnessSeeds(t, 1, 20); first != 401 || last != 560 {
		t.Errorf("harnessSeeds with 401-560 = %d, %d", first, last)
	}
	if steps := harnessSteps(t, 20); steps != 40 {
		t.Errorf("harnessSteps with 40 = %d", steps)
	}
}
