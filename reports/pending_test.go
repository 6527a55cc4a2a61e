package reports

import (
	"bytes"
	"strings"
	"testing"

	"epsim/sim"
)

// Pods that found no node are out of every figure: the table, the run report and the plan
// must say how many, where, and in the singular for one.
func TestPendingPodsSaid(t *testing.T) {
	res := fixtureResults()
	res.Phases[0].PendingPods = 1
	res.Phases[len(res.Phases)-1].PendingPods = 42
	res.Total.PendingPods = 42
	s := NewSummary(res, nil)

	var table bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  1 pod Pending at the phase's end: no node was ready with room",
		"  42 pods Pending at the phase's end:",
		"  42 pods Pending at the run's end:",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if n := strings.Count(table.String(), "Pending"); n != 3 {
		t.Errorf("table says Pending %d times; want 3 (the phases with pending pods and the total)", n)
	}

	var md bytes.Buffer
	if err := WriteRunMarkdown(&md, &RunReport{File: "x.yaml", Summary: s, Config: fixtureConfig()}); err != nil {
		t.Fatal(err)
	}
	if want := "- Phase `" + res.Phases[0].Name + "`: 1 pod Pending at the phase's end"; !strings.Contains(md.String(), want) {
		t.Errorf("run report lacks the warning %q", want)
	}

	r := &PlanResults{Points: []PlanPoint{{Summary: s}}}
	var kinds []string
	for _, l := range r.Limits(&r.Points[0], sim.ModeEndpointSlices) {
		kinds = append(kinds, l.Kind)
		if l.Kind == "podsPending" && !strings.HasPrefix(l.Text, "up to 42 pods Pending") {
			t.Errorf("podsPending: %q", l.Text)
		}
	}
	if !strings.Contains(strings.Join(kinds, " "), "podsPending") {
		t.Errorf("plan limits %v lack podsPending", kinds)
	}
	res.Phases[0].PendingPods, res.Phases[len(res.Phases)-1].PendingPods, res.Total.PendingPods = 0, 0, 0
	table.Reset()
	if err := WriteTable(&table, NewSummary(res, nil)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "Pending") {
		t.Errorf("a run with no pending pods mentions them:\n%s", table.String())
	}
}
