package model

import "testing"

// TestPodPhaseNames checks that every core/v1 phase survives the trip through its byte, and
// that a phase this version does not know counts as Unknown (not terminal).
func TestPodPhaseNames(t *testing.T) {
	for _, tc := range []struct {
		name     string
		want     PodPhase
		back     string
		terminal bool
	}{
		{"", PodPhaseUnset, "", false},
		{"Pending", PodPending, "Pending", false},
		{"Running", PodRunning, "Running", false},
		{"Succeeded", PodSucceeded, "Succeeded", true},
		{"Failed", PodFailed, "Failed", true},
		{"Unknown", PodUnknown, "Unknown", false},
		{"running", PodUnknown, "Unknown", false}, // phases are case-sensitive
		{"Evicted", PodUnknown, "Unknown", false},
	} {
		p := ParsePodPhase(tc.name)
		if p != tc.want || p.String() != tc.back {
			t.Errorf("ParsePodPhase(%q) = %d (%q), want %d (%q)", tc.name, p, p, tc.want, tc.back)
		}
		// Both controllers leave out terminal pods only.
		pod := &Pod{PodIdentity: NewPodIdentity("ns", "p", "u"), Phase: p, IPs: []string{"10.0.0.1"}}
		if got := !shouldPodBeInEndpoints(pod); got != tc.terminal {
			t.Errorf("%q: left out of slices %v, want %v", tc.name, got, tc.terminal)
		}
		if got := !legacyPodIncluded(pod, false); got != tc.terminal {
			t.Errorf("%q: left out of Endpoints %v, want %v", tc.name, got, tc.terminal)
		}
	}
	if got := PodPhase(200).String(); got != "Unknown" {
		t.Errorf("PodPhase(200) = %q, want Unknown", got)
	}
}
