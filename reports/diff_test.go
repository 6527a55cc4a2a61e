package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"epsim/sim"
)

// diffPair is two one-phase summaries differing in chosen figures.
func diffPair(edit func(b *ModeSummary)) (*Summary, *Summary) {
	mk := func() *Summary {
		m := func() *ModeSummary {
			return &ModeSummary{Writes: WritesSummary{Update: 2, Total: 2}, FanoutBytes: 1000, EtcdBytes: 100, Syncs: 2}
		}
		p := PhaseSummary{Name: "flip", Endpoints: m(), EndpointSlices: m()}
		total := PhaseSummary{Name: "total", Endpoints: m(), EndpointSlices: m()}
		return &Summary{Scenario: "s", Seed: 1, Modes: AllModes, Phases: []PhaseSummary{p}, Total: total}
	}
	a, b := mk(), mk()
	edit(b.Phases[0].EndpointSlices)
	return a, b
}

func TestDiffVerdicts(t *testing.T) {
	a, b := diffPair(func(m *ModeSummary) {
		m.FanoutBytes = 1100 // +10%
		m.EtcdBytes = 102    // +2%
		m.Syncs = 3          // +50%, an absolute change of 1
		m.Conflicts = 4      // from 0
	})
	for _, tc := range []struct {
		name   string
		opt    DiffOptions
		failed []string
	}{
		{"no threshold", DiffOptions{}, nil},
		{"5%", DiffOptions{FailOn: 0.05}, []string{"flip.endpointslices.conflicts", "flip.endpointslices.syncs", "flip.endpointslices.fanoutBytes"}},
		{"5% floor 5", DiffOptions{FailOn: 0.05, Floor: 5}, []string{"flip.endpointslices.fanoutBytes"}},
		{"1%", DiffOptions{FailOn: 0.01}, []string{"flip.endpointslices.conflicts", "flip.endpointslices.syncs", "flip.endpointslices.fanoutBytes", "flip.endpointslices.etcdBytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := DiffSummaries(a, b, "a", "b", tc.opt)
			var failed []string
			for _, row := range r.Rows {
				if row.Failed {
					failed = append(failed, row.Figure)
				}
			}
			if strings.Join(failed, " ") != strings.Join(tc.failed, " ") {
				t.Errorf("failed %q, want %q", failed, tc.failed)
			}
			// From 0 first, then by the size of the change; unchanged rows last.
			want := []string{"flip.endpointslices.conflicts", "flip.endpointslices.syncs", "flip.endpointslices.fanoutBytes"}
			for i, w := range want {
				if r.Rows[i].Figure != w {
					t.Errorf("row %d = %s, want %s", i, r.Rows[i].Figure, w)
				}
			}
			if last := r.Rows[len(r.Rows)-1]; last.Verdict != DiffSame {
				t.Errorf("last row %+v, want an unchanged figure", last)
			}
		})
	}
}

// TestDiffMissingPhase: a phase renamed in B is gone from A's side and new in B's; those
// figures are counted apart from the changes and, not compared, fail --fail-on.
func TestDiffMissingPhase(t *testing.T) {
	a, b := diffPair(func(*ModeSummary) {})
	b.Phases[0].Name = "other"
	r := DiffSummaries(a, b, "a", "b", DiffOptions{FailOn: 0.5})
	c := r.Counts()
	if c.New == 0 || c.New != c.Gone || c.Failed != c.New+c.Gone || c.Over != 0 || c.Changed != 0 || c.Compared != c.Figures-c.New-c.Gone {
		t.Fatalf("counts %+v: want the renamed phase's figures gone from A and new in B, all failing, none changed", c)
	}
	var buf bytes.Buffer
	if err := WriteDiffTable(&buf, r, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GONE", "NEW", "flip.endpoints.syncs", "other.endpoints.syncs", "\nFAIL: ", "(not compared, which fails the diff)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestDiffOneModeOnly: B ran one mode, A both (sim run --mode endpoints). The EndpointSlices
// and ratio figures are only in A: not changes, not past the threshold, said as "only in
// A" (failing the diff, not compared); the common figures are compared as usual. It read
// "0 figures changed (N past the threshold), N only in A".
func TestDiffOneModeOnly(t *testing.T) {
	a, b := diffPair(func(*ModeSummary) {})
	b.Modes = []sim.Mode{sim.ModeEndpoints}
	b.Phases[0].EndpointSlices, b.Total.EndpointSlices = nil, nil
	b.Phases[0].Endpoints.FanoutBytes = 1200 // +20%, past 5%
	r := DiffSummaries(a, b, "a", "b", DiffOptions{FailOn: 0.05})
	c := r.Counts()
	if c.Gone == 0 || c.New != 0 {
		t.Fatalf("counts %+v: want figures only in A", c)
	}
	if c.Over != 1 || c.Changed != 1 || c.Failed != 1+c.Gone || c.Compared != c.Figures-c.Gone {
		t.Errorf("counts %+v: want 1 changed and over (flip.endpoints.fanoutBytes) of %d compared, and those only in A failed", c, c.Figures-c.Gone)
	}
	var buf bytes.Buffer
	if err := WriteDiffTable(&buf, r, false); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("\nFAIL: %d figures compared: 1 changed (1 past the threshold), %d unchanged; %d only in A (not compared, which fails the diff)\n",
		c.Compared, c.Compared-1, c.Gone)
	if !strings.HasSuffix(buf.String(), want) {
		t.Errorf("table\n%s\nwant it to end with %q", buf.String(), want)
	}
	for _, row := range r.Rows {
		if row.B == nil && (!row.Failed || row.Verdict != DiffGone) {
			t.Errorf("row %+v only in A: want verdict gone, failed", row)
		}
	}
}

// A figure that changed by less than 0.005% is shown as such, not as "-0.00%" on a row
// whose verdict is "changed" (kube-proxy CPU 76.566ms → 76.564ms printed -0.00%).
func TestDiffTinyChangeShown(t *testing.T) {
	a, b := diffPair(func(m *ModeSummary) { m.FanoutBytes = 1_000 })
	a.Phases[0].EndpointSlices.FanoutBytes = 100_000_000
	b.Phases[0].EndpointSlices.FanoutBytes = 99_999_999 // -0.000001%
	var buf bytes.Buffer
	if err := WriteDiffTable(&buf, DiffSummaries(a, b, "a", "b", DiffOptions{}), false); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "0.00%") || !strings.Contains(out, "-<0.01%") {
		t.Errorf("a tiny change reads as none:\n%s", out)
	}
	for _, tc := range []struct {
		p    float64
		want string
	}{{0.004, "+<0.01%"}, {-0.004, "-<0.01%"}, {0.005, "+0.01%"}, {-12.345, "-12.35%"}, {9900, "+9900.00%"}} {
		if got := formatChangePercent(tc.p); got != tc.want {
			t.Errorf("formatChangePercent(%g) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// The headline names each run's cluster size: two runs of one scenario with --set
// cluster.nodes differ in it, and no compared figure says so.
func TestDiffHeadlineNamesNodes(t *testing.T) {
	a, b := diffPair(func(*ModeSummary) {})
	a.Nodes, b.Nodes = 100, 1
	r := DiffSummaries(a, b, "a", "b", DiffOptions{})
	var buf bytes.Buffer
	if err := WriteDiffTable(&buf, r, false); err != nil {
		t.Fatal(err)
	}
	if line, _, _ := strings.Cut(buf.String(), "\n"); line != "diff A a (s, seed 1, 100 nodes) → B b (s, seed 1, 1 node)" {
		t.Errorf("headline %q", line)
	}
	if r.NodesA != 100 || r.NodesB != 1 {
		t.Errorf("nodesA %d, nodesB %d, want 100, 1", r.NodesA, r.NodesB)
	}
}

// The inputs two runs differ in are listed under the headline, one setting a line, a value
// only one run has as (none), an empty one or one with a control character (a newline,
// an escape sequence) quoted; inputs not compared say why; nil inputs print nothing.
func TestDiffTableInputs(t *testing.T) {
	a, b := diffPair(func(*ModeSummary) {})
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name   string
		inputs *DiffInputs
		want   string
	}{
		{"changes", &DiffInputs{File: "e.yaml", Changes: []InputChange{
			{Setting: "seed", A: str("1"), B: str("2")},
			{Setting: "description", A: str("x\n\x1b[31m"), B: str("")},
			{Setting: "services[1].name", B: str("api")},
		}}, "inputs: 3 settings differ (e.yaml, A → B):\n" +
			"  seed              1              →  2\n" +
			"  description       \"x\\n\\x1b[31m\"  →  \"\"\n" +
			"  services[1].name  (none)         →  api\n"},
		{"a long value is cut", &DiffInputs{File: "e.yaml", Changes: []InputChange{
			{Setting: "description", A: str(strings.Repeat("a", 61)), B: str(strings.Repeat("é", 60))},
		}}, "inputs: 1 setting differs (e.yaml, A → B):\n" +
			"  description  " + strings.Repeat("a", 59) + "…  →  " + strings.Repeat("é", 60) + "\n"},
		{"many are cut", &DiffInputs{File: "e.yaml", Changes: manyChanges(22)},
			"inputs: 22 settings differ (e.yaml, A → B):\n" + manyLines(20) + "  … and 2 more (-o json lists every one)\n"},
		{"only the seed", &DiffInputs{File: "e.yaml", Changes: []InputChange{{Setting: "seed", A: str("1"), B: str("2")}}},
			"inputs: 1 setting differs (e.yaml, A → B):\n  seed  1  →  2\n  (only the seed: the changes below are the spread of one scenario from seed to seed)\n"},
		{"same", &DiffInputs{File: "e.yaml"}, "inputs: the same (every setting of e.yaml)\n"},
		{"not compared", &DiffInputs{File: "e.yaml", NotCompared: "B b has no e.yaml"}, "inputs not compared: B b has no e.yaml\n"},
		{"not asked", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := DiffSummaries(a, b, "a", "b", DiffOptions{})
			r.Inputs = tc.inputs
			var buf bytes.Buffer
			if err := WriteDiffTable(&buf, r, false); err != nil {
				t.Fatal(err)
			}
			_, rest, _ := strings.Cut(buf.String(), "\n")
			if !strings.HasPrefix(rest, tc.want) || strings.HasPrefix(strings.TrimPrefix(rest, tc.want), "inputs") {
				t.Errorf("after the headline:\n%s\nwant first:\n%s", rest, tc.want)
			}
		})
	}
}

// manyChanges is n changes of settings s10, s11, … from "a" to "b"; manyLines their first
// n lines in the table.
func manyChanges(n int) []InputChange {
	var out []InputChange
	for i := range n {
		a, b := "a", "b"
		out = append(out, InputChange{Setting: fmt.Sprintf("s%d", 10+i), A: &a, B: &b})
	}
	return out
}

func manyLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  s%d  a  →  b\n", 10+i)
	}
	return b.String()
}
