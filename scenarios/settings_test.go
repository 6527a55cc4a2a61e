package scenarios

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestSettings(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []Setting
		err        string
	}{
		{name: "nested mappings and lists of mappings", yaml: "name: a\ncluster:\n  nodes: 5\n  zones: [x, y]\nservices:\n  - name: web\n    ports:\n      - {port: 80}\n",
			want: []Setting{{"name", "a"}, {"cluster.nodes", "5"}, {"cluster.zones", "[x, y]"}, {"services[0].name", "web"}, {"services[0].ports[0].port", "80"}}},
		{name: "quoted scalars compare by value", yaml: "maxSurge: \"25%\"\nd: 'x'\n",
			want: []Setting{{"maxSurge", "25%"}, {"d", "x"}}},
		{name: "list items that need quotes", yaml: "zones: [\"a,b\", \"\", c]\n",
			want: []Setting{{"zones", `["a,b", "", c]`}}},
		{name: "empty mapping and list", yaml: "a: {}\nb: []\n",
			want: []Setting{{"a", "{}"}, {"b", "[]"}}},
		{name: "an alias is not expanded", yaml: "x: &p {port: 1}\ny: *p\n",
			want: []Setting{{"x.port", "1"}, {"y", "*p"}}},
		{name: "not a mapping", yaml: "- a\n", err: "want a mapping"},
		{name: "empty", yaml: "", err: "not a scenario file"},
		{name: "bad YAML", yaml: "a: [\n", err: "not a scenario file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Settings([]byte(tc.yaml))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Every leaf of an effective scenario is a setting, under the path --set takes: each one
// --set to another value in a second scenario is the one change CompareSettings finds.
func TestCompareSettingsOfEffectiveScenarios(t *testing.T) {
	load := func(sets ...string) []Setting {
		t.Helper()
		sc, err := Parse("quick.yaml", mustRead(t, "quick.yaml"), sets)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Settings(Effective(sc))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := load()
	if len(base) < 100 {
		t.Fatalf("an effective scenario gave %d settings, want every field (over 100)", len(base))
	}
	if c := CompareSettings(base, load()); c != nil {
		t.Fatalf("a scenario against itself: %v", c)
	}
	// A setting whose default follows another's changes with it: the diff shows both.
	nft := describeChanges(CompareSettings(base, load("kubeProxy.mode=nftables")))
	if !strings.HasPrefix(nft, "kubeProxy.mode: iptables → nftables; kubeProxy.costs.") {
		t.Errorf("--set kubeProxy.mode=nftables: changes %s, want the mode and the costs that follow it", nft)
	}
	for _, set := range []string{"controlPlane.maxEndpointsPerSlice=7", "services[0].replicas=3", "seed=9", "kubeProxy.minSyncPeriod=2s", "slo=1m"} {
		path, value, _ := strings.Cut(set, "=")
		changes := CompareSettings(base, load(set))
		if len(changes) != 1 || changes[0].Path != path || changes[0].A == nil || changes[0].B == nil {
			t.Errorf("--set %s: changes %v, want the one of %s", set, describeChanges(changes), path)
			continue
		}
		if got := *changes[0].B; got != value && !(path == "slo" && got == "1m0s") {
			t.Errorf("--set %s: B's value %q", set, got)
		}
	}
}

func TestCompareSettingsOrderAndPresence(t *testing.T) {
	a := []Setting{{"x", "1"}, {"y", "2"}, {"z", "3"}}
	b := []Setting{{"w", "0"}, {"y", "5"}, {"x", "1"}}
	got := describeChanges(CompareSettings(a, b))
	want := "y: 2 → 5; z: 3 → (none); w: (none) → 0"
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func describeChanges(changes []SettingChange) string {
	v := func(s *string) string {
		if s == nil {
			return "(none)"
		}
		return *s
	}
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = fmt.Sprintf("%s: %s → %s", c.Path, v(c.A), v(c.B))
	}
	return strings.Join(parts, "; ")
}

func ExampleCompareSettings() {
	a, _ := Settings([]byte("cluster: {nodes: 100}\ncontrolPlane: {maxEndpointsPerSlice: 100}\n"))
	b, _ := Settings([]byte("cluster: {nodes: 100}\ncontrolPlane: {maxEndpointsPerSlice: 500}\n"))
	for _, c := range CompareSettings(a, b) {
		fmt.Printf("%s: %s → %s\n", c.Path, *c.A, *c.B)
	}
	// Output: controlPlane.maxEndpointsPerSlice: 100 → 500
}

// FuzzSettings: any bytes give settings or an error, never a panic, and a file's settings
// agree with themselves.
func FuzzSettings(f *testing.F) {
	f.Add([]byte("name: a\ncluster: {nodes: 5, zones: [x, y]}\nservices: [{name: web, ports: [{port: 80}]}]\n"))
	f.Add([]byte("x: &p {port: 1}\ny: [*p, *p]\n"))
	f.Add([]byte("a: [\"\", \"b,c\", {d: 1}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Settings(data)
		if err != nil {
			return
		}
		if c := CompareSettings(s, s); c != nil && !hasDuplicatePaths(s) {
			t.Fatalf("settings differ from themselves: %v", describeChanges(c))
		}
	})
}

func hasDuplicatePaths(s []Setting) bool {
	seen := map[string]bool{}
	for _, x := range s {
		if seen[x.Path] {
			return true
		}
		seen[x.Path] = true
	}
	return false
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
