package scenarios

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"epsim/sim"
)

var update = flag.Bool("update", false, "rewrite docs/scenario.md from the reference")

// TestReferenceCoversSchema: every field the loader accepts is described, and every
// described field is one the loader accepts, under the same parent.
func TestReferenceCoversSchema(t *testing.T) {
	lists := map[string][]string{
		"": topFields, "cluster": clusterFields, "controlPlane": cpFields,
		"controlPlane.endpointSlice": controllerFields, "controlPlane.endpoints": controllerFields,
		"controlPlane.workloads": workloadFields, "controlPlane.workloads.replicaSet": workloadControllerFields,
		"controlPlane.workloads.deployment":  workloadControllerFields,
		"controlPlane.workloads.statefulSet": workloadControllerFields, "controlPlane.workloads.daemonSet": workloadControllerFields, "controlPlane.workloads.scheduler": clientFields,
		"apiServer": apiServerFields, "apiServer.watchers[]": watcherFields, "network": networkFields,
		"apiServer.costs": apiCostFields, "kubeProxy": kubeProxyFields, "kubeProxy.costs": kubeProxyCostFields,
		"services[]": serviceFields, "services[].ports[]": portFields, "services[].timing": timingFields,
		"timeline[]": actionFields, "guards": guardFields,
	}
	described := map[string]bool{}
	for _, f := range Reference() {
		if described[f.Path] {
			t.Errorf("%s described twice", f.Path)
		}
		described[f.Path] = true
		if f.Doc == "" || f.Type == "" {
			t.Errorf("%s lacks a type or description", f.Path)
		}
		parent, name := "", f.Path
		if i := strings.LastIndexByte(f.Path, '.'); i >= 0 {
			parent, name = f.Path[:i], f.Path[i+1:]
		}
		if !contains(lists[parent], name) {
			t.Errorf("%s is described but the loader has no such field", f.Path)
		}
	}
	for parent, names := range lists {
		for _, n := range names {
			p := n
			if parent != "" {
				p = parent + "." + n
			}
			if !described[p] {
				t.Errorf("field %s is not described in Reference", p)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestScenarioDoc: docs/scenario.md is what the reference renders (regenerate with -update).
func TestScenarioDoc(t *testing.T) {
	const path = "../docs/scenario.md"
	got := Markdown()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the schema reference; run go test ./scenarios -run TestScenarioDoc -update", path)
	}
}

// TestReferenceExamples: the examples of the actions, distributions and count load.
func TestReferenceExamples(t *testing.T) {
	topics := map[string]string{}
	for _, tp := range Topics() {
		topics[tp.Name] = tp.Example
	}
	var count, manual string
	for _, f := range Reference() {
		switch f.Path {
		case "services[].count":
			count = f.Example
		case "services[].manualEndpoints":
			manual = f.Example
		}
	}
	docs := []string{
		"name: x\ncluster: {nodes: 10}\nservices:\n  - name: web\n    " + strings.ReplaceAll(topics["distributions"], "\n", "\n    ") + "\n" + topics["actions"] + "\n",
		"name: x\ncluster: {nodes: 10}\n" + count + "\n",
		"name: x\ncluster: {nodes: 10}\n" + manual + "\ntimeline:\n  - {name: create, action: create}\n",
	}
	for _, d := range docs {
		if _, err := Parse("example.yaml", []byte(d), nil); err != nil {
			t.Errorf("example does not load: %v\n%s", err, d)
		}
	}
}

// TestExplain covers the top level, a nested field by either path form, a topic and a typo.
func TestExplain(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"", "services "},
		{"controlPlane.maxEndpointsPerSlice", "DEFAULT:  100"},
		{"services[0].ports.targetPort", "FIELD:    services[].ports[].targetPort"},
		{"services.timing", "FIELDS:\n    schedule"},
		{"actions", "flipReadiness"},
		{"timeline.action", "ACTIONS:"},
	} {
		got, err := Explain(tc.path)
		if err != nil || !strings.Contains(got, tc.want) {
			t.Errorf("Explain(%q) = %q, %v; want it to contain %q", tc.path, got, err, tc.want)
		}
	}
	if _, err := Explain("cluster.nodez"); err == nil || !strings.Contains(err.Error(), `did you mean "cluster.nodes"`) {
		t.Errorf("typo: %v", err)
	}
}

// TestRequiredSaysWhen: a timeline field that only some actions take is not documented as
// required outright. Each says for which action, as the loader requires it (a wait without
// duration and a scale with neither replicas nor percent are rejected, a failNodes without
// duration loads), in the docs table, 'sim explain FIELD' and 'sim explain timeline'.
func TestRequiredSaysWhen(t *testing.T) {
	for _, f := range Reference() {
		if strings.HasPrefix(f.Path, "timeline[].") && f.Path != "timeline[].name" && f.Path != "timeline[].action" &&
			f.Required && f.RequiredWhen == "" {
			t.Errorf("%s: documented as required for every action", f.Path)
		}
	}
	md := string(Markdown())
	children, err := Explain("timeline")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, field, when string }{
		{"timeline.duration", "duration", "for wait"},
		{"timeline.replicas", "replicas", "for scale: replicas or percent"},
		{"timeline.percent", "percent", "for scale: replicas or percent"},
		{"timeline.labels", "labels", "for labelService"},
	} {
		got, err := Explain(tc.path)
		if err != nil || !strings.Contains(got, "REQUIRED: "+tc.when+"\n") {
			t.Errorf("Explain(%q) = %q, %v; want REQUIRED: %s", tc.path, got, err, tc.when)
		}
		if row := "| `timeline[]." + tc.field + "` | "; !strings.Contains(md, row) || !strings.Contains(md[strings.Index(md, row):], "| required "+tc.when+" |") {
			t.Errorf("docs/scenario.md: %s row does not say required %s", tc.field, tc.when)
		}
		if !strings.Contains(children, "(required "+tc.when+")") {
			t.Errorf("Explain(timeline): %s does not say (required %s):\n%s", tc.field, tc.when, children)
		}
	}
	const doc = "name: x\ncluster: {nodes: 10}\nservices: [{name: web}]\ntimeline:\n  - {name: create, action: create}\n"
	for _, tc := range []struct {
		action string
		ok     bool
	}{
		{"{name: w, action: wait}", false},
		{"{name: s, action: scale}", false},
		{"{name: f, action: failNodes, nodes: 1}", true},
	} {
		if _, err := Parse("x.yaml", []byte(doc+"  - "+tc.action+"\n"), nil); (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want loaded %v", tc.action, err, tc.ok)
		}
	}
}

// TestReferenceDefaults: a documented default, written into a scenario, changes nothing:
// the reference says what the loader does.
func TestReferenceDefaults(t *testing.T) {
	const base = "name: x\ncluster: {nodes: 10}\napiServer: {watchers: [{name: dns, resources: [endpoints]}]}\nservices:\n  - {name: web, ports: [{port: 80}]}\ntimeline:\n  - {name: create, action: create}\n"
	want, err := Parse("base.yaml", []byte(base), nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range Reference() {
		if f.Default == "" || strings.HasPrefix(f.Path, "timeline") || strings.ContainsAny(f.Default, "(") ||
			f.Type == "list of strings" || f.Type == "list of mappings" || f.Path == "services[].ports[].targetPort" {
			continue
		}
		path := strings.ReplaceAll(f.Path, "[]", "[0]")
		val := f.Default
		if f.Type == "distribution" && !strings.Contains(val, ":") {
			val = "{fixed: " + val + "}"
		} else if f.Type == "distribution" {
			val = "{" + val + "}"
		}
		got, err := Parse("base.yaml", []byte(base), []string{path + "=" + val})
		if err != nil {
			t.Errorf("%s: documented default %q does not load: %v", f.Path, f.Default, err)
			continue
		}
		checked++
		if !equalConfig(got.Config, want.Config) {
			t.Errorf("%s: documented default %q is not the loader's default", f.Path, f.Default)
		}
	}
	if checked < 30 {
		t.Errorf("only %d defaults checked", checked)
	}
}

func equalConfig(a, b sim.Config) bool { return reflect.DeepEqual(a, b) }
