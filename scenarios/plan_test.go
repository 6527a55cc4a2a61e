package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLoadShippedPlans: every shipped plan loads, and its grid is the cross product of its
// axes in row-major order (first axis slowest).
func TestLoadShippedPlans(t *testing.T) {
	for _, name := range PlanNames() {
		p, err := LoadPlan(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := 1
		for _, ax := range p.Axes {
			want *= len(ax.Values)
		}
		if len(p.Points) != want {
			t.Errorf("%s: %d points, want %d", name, len(p.Points), want)
		}
		for i, pt := range p.Points {
			if pt.Index != i {
				t.Errorf("%s: point %d has index %d", name, i, pt.Index)
			}
		}
	}
}

func TestPlanGridOrderAndSets(t *testing.T) {
	p, err := LoadPlan("slice-size")
	if err != nil {
		t.Fatal(err)
	}
	pt := p.Points[1] // replicas 100, maxEndpointsPerSlice 100
	if !slices.Equal(pt.Values, []string{"100", "100"}) || pt.Config.Services[0].Replicas != 100 || pt.Config.ControlPlane.MaxEndpointsPerSlice != 100 {
		t.Errorf("point 1 = %v, replicas %d, maxEndpointsPerSlice %d", pt.Values, pt.Config.Services[0].Replicas, pt.Config.ControlPlane.MaxEndpointsPerSlice)
	}
	last := p.Points[len(p.Points)-1]
	if last.Config.Services[0].Replicas != 1600 || last.Config.ControlPlane.MaxEndpointsPerSlice != 500 {
		t.Errorf("last point: replicas %d, maxEndpointsPerSlice %d", last.Config.Services[0].Replicas, last.Config.ControlPlane.MaxEndpointsPerSlice)
	}
	c, err := LoadPlan("cluster-size")
	if err != nil {
		t.Fatal(err)
	}
	// One axis sets both controllers' batch period.
	cfg := c.Points[2].Config
	if cfg.ControlPlane.EndpointSlice.BatchPeriod.String() != "5s" || cfg.ControlPlane.Endpoints.BatchPeriod.String() != "5s" {
		t.Errorf("batch periods %s/%s, want 5s/5s", cfg.ControlPlane.EndpointSlice.BatchPeriod, cfg.ControlPlane.Endpoints.BatchPeriod)
	}
}

// TestParsePlanErrors: every problem at once, with file:line:column and the field path
// (the scenarios error style).
func TestParsePlanErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{"p.yaml: empty plan"}},
		{"missing", "name: x\n", []string{"p.yaml:1:1: scenario: required field is missing", "p.yaml:1:1: grid: required field is missing"}},
		{"unknown", "name: x\nscenario: quick\ngrid: [{set: a, values: [1]}]\nbudget: {}\n", []string{`p.yaml:4:1: budget: unknown field "budget" (did you mean "budgets"?)`}},
		{"bad path", "name: x\nscenario: quick\ngrid:\n  - set: 'a..b'\n    values: [1]\n", []string{"p.yaml:4:10: grid[0].set: bad path"}},
		{"path with value", "name: x\nscenario: quick\ngrid:\n  - set: a=1\n    values: [1]\n", []string{"p.yaml:4:10: grid[0].set: a path without a value"}},
		{"no values", "name: x\nscenario: quick\ngrid:\n  - set: a\n    values: []\n", []string{"p.yaml:5:13: grid[0].values: needs at least one value"}},
		{"dup value", "name: x\nscenario: quick\ngrid:\n  - set: a\n    values: [1, 1]\n", []string{"p.yaml:5:17: grid[0].values[1]: value 1 listed twice"}},
		// Values equal but written differently passed the check, and two axes setting one
		// path mislabelled the points.
		{"dup value written apart", "name: x\nscenario: quick\ngrid:\n  - set: a\n    values: [5, 05, 0x5, +5, 6]\n", []string{
			"p.yaml:5:17: grid[0].values[1]: value 05 listed twice: it is 5 (grid[0].values[0])",
			"p.yaml:5:21: grid[0].values[2]: value 0x5 listed twice: it is 5",
			"p.yaml:5:26: grid[0].values[3]: value +5 listed twice: it is 5"}},
		{"dup float and bool", "name: x\nscenario: quick\ngrid:\n  - set: a\n    values: [1.0, 1e0, true, True]\n", []string{
			"grid[0].values[1]: value 1e0 listed twice: it is 1.0", "grid[0].values[3]: value True listed twice: it is true"}},
		{"path set by two axes", "name: x\nscenario: quick\ngrid:\n  - {set: a.b, values: [1]}\n  - {name: other, set: [c, 'a.b'], values: [2]}\n", []string{
			`p.yaml:5:28: grid[1].set[1]: path a.b is already set by axis "a.b" (grid[0])`}},
		{"path set twice in one axis", "name: x\nscenario: quick\ngrid:\n  - {set: [a, a], values: [1]}\n", []string{
			`p.yaml:4:15: grid[0].set[1]: path a is already set by axis "a" (grid[0])`}},
		{"per day needs churn", "name: x\nscenario: quick\ngrid: [{set: a, values: [1]}]\nbudgets: {perNodeIngressPerDay: 1GB}\n", []string{"budgets.perNodeIngressPerDay: needs churn"}},
		{"bad budget", "name: x\nscenario: quick\ngrid: [{set: a, values: [1]}]\nbudgets: {writesPerSecond: fast, peakEgress: 0}\n", []string{"budgets.writesPerSecond: expected a number", "budgets.peakEgress: must be above 0"}},
		{"too big", "name: x\nscenario: quick\ngrid:\n  - {set: a, values: [" + seq(200) + "]}\n  - {set: b, values: [" + seq(200) + "]}\n", []string{"p.yaml:5:5: grid[1]: the grid has more than 10000 points"}},
		{"syntax", "name: [x\n", []string{"p.yaml:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePlan("p.yaml", []byte(tc.text))
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("got %v, want Errors", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors lack %q:\n%v", w, err)
				}
			}
		})
	}
}

// seq lists 0..n-1 for a YAML flow list.
func seq(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(i)
	}
	return strings.Join(parts, ", ")
}

// TestPlanValuesRoundTrip: axis values reach the scenario as written, strings stay strings
// and mappings pass whole (a distribution).
func TestPlanValuesRoundTrip(t *testing.T) {
	p, err := ParsePlan("p.yaml", []byte(`name: x
scenario: quick
grid:
  - set: a
    values: [1s, "true", {lognormal: {median: 1s, p99: 2s}}, 0x10]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1s", `"true"`, "{lognormal: {median: 1s, p99: 2s}}", "0x10"}
	if !slices.Equal(p.Axes[0].Values, want) {
		t.Errorf("values %q, want %q", p.Axes[0].Values, want)
	}
}

// FuzzParsePlan: the plan parser never panics; it returns a plan or Errors.
func FuzzParsePlan(f *testing.F) {
	for _, name := range PlanNames() {
		data, err := shippedPlans.ReadFile("plans/" + name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\nscenario: quick\ngrid: [{set: [a, b], values: [{x: &a [1]}, *a]}]\nchurn: {a: 1}\n"))
	f.Add([]byte("name: x\nscenario: quick\ngrid: [{set: a, values: [5, 0x5, 1.0, 1e0, 99999999999999999999]}, {set: [b, a], values: [1]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan("fuzz.yaml", data)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %v is not Errors", err)
			}
			return
		}
		if p.Name == "" || p.Scenario == "" || len(p.Axes) == 0 {
			t.Fatalf("accepted a plan without name, scenario or axes: %+v", p)
		}
		n := 1
		for _, ax := range p.Axes {
			n *= len(ax.Values)
		}
		if n > MaxPlanPoints {
			t.Fatalf("accepted %d points", n)
		}
	})
}

// TestPlanPointErrorsNameTheValue: a value the base scenario refuses on its own is one
// error, at the value in the plan file, however many grid points have it; values refused
// only together are named by the grid points that have both.
func TestPlanPointErrorsNameTheValue(t *testing.T) {
	for _, tc := range []struct {
		name, grid string
		want       []string
		wantNot    []string
	}{
		{
			name: "a value refused alone",
			grid: "  - {set: cluster.nodes, values: [100, -3, 1000]}\n  - {set: controlPlane.endpoints.batchPeriod, values: [0, 1s, 5s]}\n",
			want: []string{
				"p.yaml:4:40: grid[0].values[1]: -3: scenarios/quick.yaml: --set cluster.nodes=-3: cluster.nodes: -3 out of range",
			},
			wantNot: []string{"grid point"},
		},
		{
			name: "values refused together",
			grid: "  - {set: 'services[0].maxSurge', values: [1, 0]}\n  - {set: 'services[0].maxUnavailable', values: [1, 0]}\n",
			want: []string{
				"plan p.yaml: grid point 3 (services[0].maxSurge=0, services[0].maxUnavailable=0)",
			},
			wantNot: []string{"grid point 0", "grid point 1", "grid point 2", "values["},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "p.yaml")
			text := "name: x\nscenario: quick\ngrid:\n" + tc.grid
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadPlan(file)
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), file, "p.yaml")
			if n := strings.Count(msg, "out of range"); tc.wantNot[0] == "grid point" && n != 1 {
				t.Errorf("the value's error %d times, want once:\n%s", n, msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("errors lack %q:\n%s", w, msg)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(msg, w) {
					t.Errorf("errors have %q:\n%s", w, msg)
				}
			}
		})
	}
}
