package sim

import "testing"

// TestModesDoNotPerturbEachOther runs one scenario with both control planes and with each
// alone: a control plane's writes must not change the other's pods or objects. The
// objects each one creates draw their names and UIDs from their own streams, not the
// pods', and each mode's cluster has its own etcd revisions, so the first phase (which
// starts at 0 in every run) writes the same objects of the same sizes either way. (Later
// phases start when both modes have settled, which moves their absolute times.)
func TestModesDoNotPerturbEachOther(t *testing.T) {
	cfg := testConfig(500, 5000)
	cfg.Timeline = cfg.Timeline[:1]
	both, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		alone := cfg
		alone.RunEndpoints, alone.RunEndpointSlices = m == ModeEndpoints, m == ModeEndpointSlices
		res, err := Run(alone, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := res.Phases[0].Mode(m), both.Phases[0].Mode(m)
		if a.Writes != b.Writes || a.FanoutBytes != b.FanoutBytes || a.EtcdBytes != b.EtcdBytes || a.MaxObjectBytes != b.MaxObjectBytes {
			t.Errorf("%s alone: writes %+v, %d bytes fanned out, %d stored, largest %d; with both modes: %+v, %d, %d, %d",
				m, a.Writes, a.FanoutBytes, a.EtcdBytes, a.MaxObjectBytes, b.Writes, b.FanoutBytes, b.EtcdBytes, b.MaxObjectBytes)
		}
	}
}
