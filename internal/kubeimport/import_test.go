package kubeimport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"

	"epsim/scenarios"
	"epsim/sim"
)

// sampleInputs opens the shipped sample cluster.
func sampleInputs(t *testing.T) []Input {
	t.Helper()
	var in []Input
	for _, name := range sampleFiles {
		data, err := os.ReadFile(filepath.Join(sampleDir, name))
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, Input{Name: name, R: bytes.NewReader(data)})
	}
	return in
}

// TestImportGolden imports the sample cluster and compares the scenario with the golden
// file (regenerate with -update after TestSampleCluster).
func TestImportGolden(t *testing.T) {
	for _, tc := range []struct {
		golden    string
		anonymize bool
	}{{"import.golden.yaml", false}, {"import-anonymized.golden.yaml", true}} {
		t.Run(tc.golden, func(t *testing.T) {
			res, err := Import(sampleInputs(t), Options{Name: "sample-cluster", Anonymize: tc.anonymize})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(sampleDir, tc.golden)
			if *update {
				if err := os.WriteFile(path, res.YAML, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(res.YAML, want) {
				t.Errorf("import differs from %s (run with -update if intended):\n%s", path, res.YAML)
			}
		})
	}
}

// TestImportSample checks what the sample maps to, field by field, through the loader.
func TestImportSample(t *testing.T) {
	res, err := Import(sampleInputs(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("imported.yaml", res.YAML, nil)
	if err != nil {
		t.Fatalf("the imported scenario does not load: %v\n%s", err, res.YAML)
	}
	cfg := sc.Config
	if cfg.Cluster.Nodes != 12 || strings.Join(cfg.Cluster.Zones, ",") != "us-east-1a,us-east-1b,us-east-1c" ||
		cfg.Cluster.Region != "us-east-1" || cfg.Cluster.NodeMilliCPU != 3920 {
		t.Errorf("cluster %+v", cfg.Cluster)
	}
	by := map[string]sim.ServiceConfig{}
	for _, s := range cfg.Services {
		by[s.Namespace+"/"+s.Name] = s
	}
	pct := func(v int) sim.IntOrPercent { return sim.IntOrPercent{Value: v, IsPercent: true} }
	abs := func(v int) sim.IntOrPercent { return sim.IntOrPercent{Value: v} }
	tests := []struct {
		id    string
		check func(s sim.ServiceConfig) bool
	}{
		{"shop/web", func(s sim.ServiceConfig) bool {
			return s.Replicas == 6 && s.MaxSurge == abs(1) && s.MaxUnavailable == abs(0) && s.MinReady.Seconds() == 5 &&
				s.Ports[0].Name == "http" && s.Ports[0].TargetPort == 8080 && s.TopologyMode == "Auto"
		}},
		// Five alike but for their labels, each naming its own Service
		// (app.kubernetes.io/name: cart-i): one entry, $name stamping each copy's
		// (TestImportCopiesKeepTheirLabels).
		{"shop/cart", func(s sim.ServiceConfig) bool {
			return s.Count == 5 && s.Replicas == 3 && len(s.Ports) == 2 && s.MaxSurge == pct(25) && s.Labels["app.kubernetes.io/name"] == sim.NameLabelValue
		}},
		{"data/db", func(s sim.ServiceConfig) bool {
			return s.WorkloadKind == "StatefulSet" && s.Headless && s.PublishNotReadyAddresses && s.Replicas == 3 && s.MaxSurge == abs(0) && s.MaxUnavailable == abs(1)
		}},
		{"kube-system/node-exporter", func(s sim.ServiceConfig) bool {
			return s.WorkloadKind == "DaemonSet" && s.Replicas == 12 && s.TrafficDistribution == "PreferClose"
		}},
		{"default/api", func(s sim.ServiceConfig) bool {
			return len(s.IPFamilies) == 2 && s.MaxUnavailable == pct(100) && s.Ports[0].AppProtocol == "kubernetes.io/h2c"
		}},
		{"default/kubernetes", func(s sim.ServiceConfig) bool { return s.ManualEndpoints == 1 && s.Replicas == 0 }},
		{"data/external-db", func(s sim.ServiceConfig) bool { return s.ManualEndpoints == 3 }},
		{"shop/legacy", func(s sim.ServiceConfig) bool { return s.Replicas == 2 }},
	}
	for _, tc := range tests {
		s, ok := by[tc.id]
		if !ok {
			t.Errorf("%s missing from %v", tc.id, res.YAML)
			continue
		}
		if !tc.check(s) {
			t.Errorf("%s mapped to %+v", tc.id, s)
		}
	}
	if _, ok := by["default/docs"]; ok {
		t.Error("the ExternalName Service was imported")
	}
	for _, want := range []string{"ExternalName", "uneven", "Recreate", "no workload in the input"} {
		if !strings.Contains(strings.Join(res.Notes, "\n"), want) {
			t.Errorf("no note mentions %q: %q", want, res.Notes)
		}
		if !bytes.Contains(res.YAML, []byte(want)) {
			t.Errorf("the file's comments do not mention %q", want)
		}
	}
	if res.Services != 12 || res.Entries != 8 || res.Pods != 6+15+3+12+4+2 {
		t.Errorf("size: %d services, %d entries, %d pods", res.Services, res.Entries, res.Pods)
	}
}

// TestImportRuns imports the sample cluster and runs it end to end: every phase settles, and
// both control planes write, the mirrored slices of the selector-less Services included.
func TestImportRuns(t *testing.T) {
	res, err := Import(sampleInputs(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("imported.yaml", res.YAML, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(sc.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Phases) != 4 {
		t.Fatalf("%d phases, want create, rollout-largest, rollout-all, drain-node", len(r.Phases))
	}
	// The selector-less Services: the user's Endpoints objects in the Endpoints mode, the
	// mirroring controller's slices in the EndpointSlice mode.
	mirrored := map[string]int{}
	for _, w := range r.Writes {
		if w.Name == "kubernetes" || w.Name == "external-db" || strings.HasPrefix(w.Name, "kubernetes-") || strings.HasPrefix(w.Name, "external-db-") {
			mirrored[string(w.Mode)+" "+w.Kind+" "+w.Verb] += w.Endpoints
		}
	}
	if want := map[string]int{"endpoints Endpoints create": 4, "endpointslices EndpointSlice create": 4}; !reflect.DeepEqual(mirrored, want) {
		t.Errorf("selector-less Services' writes (endpoints per mode, kind, verb) = %v, want %v", mirrored, want)
	}
	for _, p := range r.Phases {
		for _, m := range []sim.Mode{sim.ModeEndpoints, sim.ModeEndpointSlices} {
			if p.Mode(m).Writes.Total() == 0 {
				t.Errorf("phase %s: no %s writes", p.Name, m)
			}
		}
	}
}

// TestImportAnonymized: no real name survives, and the file still loads.
func TestImportAnonymized(t *testing.T) {
	res, err := Import(sampleInputs(t), Options{Anonymize: true})
	if err != nil {
		t.Fatal(err)
	}
	body := res.YAML
	for _, real := range []string{"shop", "cart", "web", "node-exporter", "us-east", "ec2.internal", "external-db", "metrics"} {
		if bytes.Contains(body, []byte(real)) {
			t.Errorf("anonymized output contains %q:\n%s", real, body)
		}
	}
	if _, err := scenarios.Parse("anon.yaml", body, nil); err != nil {
		t.Fatalf("anonymized scenario does not load: %v", err)
	}
	again, _ := Import(sampleInputs(t), Options{Anonymize: true})
	if !bytes.Equal(again.YAML, body) {
		t.Error("anonymizing twice gives different files")
	}
}

// TestImportErrors: bad input is an error that says what is wrong, never a panic.
func TestImportErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{`not json`, ErrFormat},
		{`[1,2]`, ErrFormat},
		{`{"type":"ADDED","object":{}}`, ErrFormat},
		{`{"kind":"List","items":[]}`, ErrEmpty},
		{`{"kind":"Node","metadata":{"name":"n1"}}`, ErrEmpty},
	} {
		_, err := Import([]Input{{Name: "in.json", R: strings.NewReader(tc.in)}}, Options{})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.in, err, tc.want)
		}
	}
	// An object that does not decode is named: one of thousands in a list.
	for _, c := range []struct{ in, want string }{
		// The field and the JSON types in kubectl's words, not encoding/json's Go types
		// ("cannot unmarshal string into Go struct field .spec.ports of type
		// []kubeimport.servicePort").
		{`{"kind":"List","items":[{"kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"ports":[{"port":"80"}]}}]}`, `a Service "shop/web": spec.ports.port: a string, where kubectl writes a whole number in range`},
		{`{"kind":"List","items":[{"kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"ports":"80"}}]}`, `a Service "shop/web": spec.ports: a string, where kubectl writes a list`},
		{`{"kind":"Node","metadata":{"name":"n-7"},"status":{"allocatable":{"cpu":4}}}`, `a Node "n-7": status.allocatable: a number, where kubectl writes a string`},
		{`{"kind":"Node","status":{"allocatable":{"cpu":4}}}`, `a Node: status.allocatable: a number, where kubectl writes a string`},
		// kubectl's -o yaml, or a manifest, is named as YAML.
		{"apiVersion: v1\nitems: []\nkind: List\n", "(byte 0, line 1); this looks like YAML: give kubectl's '-o json' output"},
		{"\n---\nkind: Node\n", "this looks like YAML"},
	} {
		_, err := Import([]Input{{Name: "in.json", R: strings.NewReader(c.in)}}, Options{})
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go struct") {
			t.Errorf("%s: %v, want it to say %q", c.in, err, c.want)
		}
	}
	// Services read and all left out: the error says why (it told the user to add the
	// Services they had given), in the anonymized words with --anonymize.
	node := `{"kind":"Node","metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z"}}}{"kind":"Node","metadata":{"name":"n2"}}`
	for _, c := range []struct {
		services string
		anon     bool
		want     string
	}{
		{`{"kind":"Service","metadata":{"name":"x","namespace":"a"},"spec":{"selector":{"a":"x"},"ports":[{"port":-5}]}}`, false,
			"nothing to import: 1 Service read, none the scenario can hold: Service a/x: port -5 out of range, left out; Service a/x: no usable port and not headless, skipped"},
		{`{"kind":"Service","metadata":{"name":"x","namespace":"a"},"spec":{"selector":{"a":"x"},"ports":[{"port":-5}]}}`, true,
			"nothing to import: 1 Service read, none the scenario can hold: 1 Service selects no pods in the input; it is imported with replicas: 0; a port out of range left out; a Service without a usable port (and not headless) skipped"},
		{`{"kind":"Service","metadata":{"name":"y","namespace":"a"},"spec":{"ports":[{"port":80}]}}`, false,
			"nothing to import: 1 Service read, none the scenario can hold: 1 Service without a selector and without endpoints in the input skipped"},
		{`{"kind":"List","items":[]}`, false, "nothing to import: no Service the scenario can hold (add 'kubectl get services -A -o json')"},
	} {
		_, err := Import([]Input{{Name: "in.json", R: strings.NewReader(node + c.services)}}, Options{Anonymize: c.anon})
		if !errors.Is(err, ErrEmpty) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s (anonymize %v):\n got %v\nwant %s", c.services, c.anon, err, c.want)
		}
	}

	broken := io.MultiReader(strings.NewReader(`{"kind":"Node"`), iotest.ErrReader(errors.New("disk on fire")))
	_, err := Import([]Input{{Name: "in.json", R: broken}}, Options{})
	if !errors.Is(err, ErrRead) || err.Error() != "cannot read in.json: disk on fire" {
		t.Errorf("read error: %v, want ErrRead", err)
	}
}

// FuzzImport: any input gives an error or a scenario that loads.
func FuzzImport(f *testing.F) {
	for _, name := range sampleFiles {
		if data, err := os.ReadFile(filepath.Join(sampleDir, name)); err == nil && len(data) < 20000 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"kind":"Node","metadata":{"name":"a","labels":{"topology.kubernetes.io/zone":"z"}}}{"kind":"Service","metadata":{"name":"s"},"spec":{"selector":{"a":"b"},"ports":[{"port":1,"targetPort":"x"}]}}`))
	f.Add([]byte(`{"kind":"Service","metadata":{"name":"db"},"spec":{"selector":{"app":"db"},"ports":[{"port":1}]}}{"kind":"StatefulSet","metadata":{"name":"db"},"spec":{"replicas":2,"serviceName":"db-h","template":{"metadata":{"labels":{"app":"db"}}}}}`))
	f.Add([]byte(`{"kind":"Service","metadata":{"name":"db"},"spec":{"selector":{"app":"db"},"ports":[{"port":1}]}}{"kind":"StatefulSet","metadata":{"name":"db"},"spec":{"serviceName":"Bad_Name","template":{"metadata":{"labels":{"app":"db"}}}}}`))
	f.Add([]byte(`{"kind":"Service","metadata":{"name":"w"},"spec":{"selector":{"a":"w"},"ports":[{"port":1}]}}{"kind":"Deployment","metadata":{"name":"w"},"spec":{"replicas":-3,"minReadySeconds":100000,"strategy":{"rollingUpdate":{"maxSurge":"200%","maxUnavailable":"150%"}},"template":{"metadata":{"labels":{"a":"w"}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nodes := `{"kind":"Node","metadata":{"name":"n-1"}}`
		for _, anon := range []bool{false, true} {
			res, err := Import([]Input{{Name: "nodes", R: strings.NewReader(nodes)}, {Name: "fuzz", R: bytes.NewReader(data)}}, Options{Anonymize: anon})
			if err != nil {
				if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrEmpty) && !strings.Contains(err.Error(), "pods is more") {
					t.Fatalf("unexpected error kind: %v", err)
				}
				return
			}
			if _, err := scenarios.Parse("fuzz.yaml", res.YAML, nil); err != nil {
				t.Fatalf("imported scenario does not load: %v\n%s", err, res.YAML)
			}
		}
	})
}

// TestImportLargeCluster: 10,000 Services of three shapes give a file of a few entries.
func TestImportLargeCluster(t *testing.T) {
	var nodes, svcs, deps []string
	for i := range 2000 {
		nodes = append(nodes, fmt.Sprintf(`{"kind":"Node","metadata":{"name":"node-%d","labels":{"topology.kubernetes.io/zone":"z%d"}}}`, i, i%3))
	}
	for i := range 10000 {
		ns := []string{"team-a", "team-b"}[i%2]
		replicas := []int{3, 10, 50}[i%3]
		svcs = append(svcs, fmt.Sprintf(`{"kind":"Service","metadata":{"namespace":"%s","name":"svc-%d"},"spec":{"selector":{"app":"svc-%d"},"ports":[{"name":"http","port":80,"targetPort":8080}]}}`, ns, i, i))
		deps = append(deps, fmt.Sprintf(`{"kind":"Deployment","metadata":{"namespace":"%s","name":"svc-%d"},"spec":{"replicas":%d,"template":{"metadata":{"labels":{"app":"svc-%d"}}}}}`, ns, i, replicas, i))
	}
	list := func(items []string) Input {
		return Input{Name: "list", R: strings.NewReader(`{"kind":"List","items":[` + strings.Join(items, ",") + `]}`)}
	}
	res, err := Import([]Input{list(nodes), list(svcs), list(deps)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Services != 10000 || res.Entries != 6 || res.Pods != 3334*3+3333*10+3333*50 {
		t.Errorf("%d Services in %d entries, %d pods; want 10000 in 6", res.Services, res.Entries, res.Pods)
	}
	if lines := bytes.Count(res.YAML, []byte("\n")); lines > 100 {
		t.Errorf("%d lines for 10,000 Services:\n%s", lines, res.YAML)
	}
	sc, err := scenarios.Parse("large.yaml", res.YAML, nil)
	if err != nil {
		t.Fatalf("does not load: %v\n%s", err, res.YAML)
	}
	total := 0
	for _, s := range sc.Config.Services {
		total += s.Count
	}
	if total != 10000 {
		t.Errorf("%d Services after loading", total)
	}
}

// TestImportPortNames: invalid, repeated and missing port names become unique valid ones.
func TestImportPortNames(t *testing.T) {
	in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"ports":[{"name":"BAD","port":1},{"name":"port-0","port":2},{"port":3},{"name":"port-0","port":4}]}}
{"kind":"Endpoints","metadata":{"name":"s","namespace":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}`
	_, sc := importText(t, in)
	var names []string
	for _, p := range sc.Config.Services[0].Ports {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "port-0,port-1,port-2,port-3" {
		t.Errorf("port names %s", got)
	}
}

// TestImportTypedLists: items of a typed list (NodeList, ServiceList, as the API server
// returns them) carry no kind of their own.
func TestImportTypedLists(t *testing.T) {
	in := `{"kind":"NodeList","items":[{"metadata":{"name":"n1"}},{"metadata":{"name":"n2"}}]}
{"kind":"ServiceList","items":[{"metadata":{"name":"web","namespace":"a"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}]}
{"kind":"DeploymentList","items":[{"metadata":{"name":"web","namespace":"a"},"spec":{"replicas":4,"template":{"metadata":{"labels":{"app":"web"}}}}}]}`
	res, sc := importText(t, in)
	if res.Nodes != 2 || res.Services != 1 || res.Pods != 4 {
		t.Errorf("%d nodes, %d Services, %d pods; want 2, 1, 4", res.Nodes, res.Services, res.Pods)
	}
	if s := sc.Config.Services[0]; s.WorkloadKind != "Deployment" || s.Replicas != 4 {
		t.Errorf("service %+v", s)
	}
}

// TestImportStatefulSetServiceName: a StatefulSet's serviceName decides which Service's
// endpoints carry its pods' hostnames. Two Services select one StatefulSet governed by the
// headless one: only the other gets a serviceName, naming the headless one (also when the
// names are anonymized), and the scenario loads with it.
func TestImportStatefulSetServiceName(t *testing.T) {
	in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"db","namespace":"a"},"spec":{"selector":{"app":"db"},"ports":[{"port":5432}]}}
{"kind":"Service","metadata":{"name":"db-headless","namespace":"a"},"spec":{"clusterIP":"None","selector":{"app":"db"},"ports":[{"port":5432}]}}
{"kind":"StatefulSet","metadata":{"name":"db","namespace":"a"},"spec":{"replicas":3,"serviceName":"db-headless","template":{"metadata":{"labels":{"app":"db"}}}}}`
	for _, anonymize := range []bool{false, true} {
		res, err := Import([]Input{{Name: "in", R: strings.NewReader(in)}}, Options{Anonymize: anonymize})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("sts.yaml", res.YAML, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, res.YAML)
		}
		governed := map[string]string{} // Service → its serviceName
		var headless string
		for _, s := range sc.Config.Services {
			if s.WorkloadKind != sim.KindStatefulSet {
				t.Errorf("anonymize=%v: Service %s is a %s, want StatefulSet", anonymize, s.Name, s.WorkloadKind)
			}
			governed[s.Name] = s.ServiceName
			if s.Headless {
				headless = s.Name
			}
		}
		if len(governed) != 2 || headless == "" || governed[headless] != "" {
			t.Fatalf("anonymize=%v: serviceNames %v (headless %q); want the headless Service to govern\n%s", anonymize, governed, headless, res.YAML)
		}
		for name, sn := range governed {
			if name != headless && sn != headless {
				t.Errorf("anonymize=%v: Service %s has serviceName %q, want %q\n%s", anonymize, name, sn, headless, res.YAML)
			}
		}
	}
}

// TestImportStatefulSetBadServiceName: a serviceName that is no Service's name (hostile
// input; the API server refuses it) is written as another, valid name, with a note, so the
// scenario loads and the Service's endpoints still get no hostnames.
func TestImportStatefulSetBadServiceName(t *testing.T) {
	for _, tc := range []struct{ service, want string }{{"db", "governing-service"}, {"governing-service", "governing-service-2"}} {
		in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"` + tc.service + `","namespace":"a"},"spec":{"selector":{"app":"db"},"ports":[{"port":5432}]}}
{"kind":"StatefulSet","metadata":{"name":"db","namespace":"a"},"spec":{"replicas":3,"serviceName":"Bad_Name","template":{"metadata":{"labels":{"app":"db"}}}}}`
		res, sc := importText(t, in)
		if got := sc.Config.Services[0].ServiceName; got != tc.want {
			t.Errorf("Service %s: serviceName %q, want %q", tc.service, got, tc.want)
		}
		if !strings.Contains(string(res.YAML), `serviceName "Bad_Name", not a valid Service name`) {
			t.Errorf("no note of the bad serviceName:\n%s", res.YAML)
		}
	}
}

// TestImportSetStrategies: a DaemonSet that surges and a StatefulSet with Parallel pod
// management load with their strategy and policy, and an OrderedReady StatefulSet as one.
func TestImportSetStrategies(t *testing.T) {
	in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"agent","namespace":"a"},"spec":{"selector":{"app":"agent"},"ports":[{"port":9100}]}}
{"kind":"DaemonSet","metadata":{"name":"agent","namespace":"a"},"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},"template":{"metadata":{"labels":{"app":"agent"}}}}}
{"kind":"Service","metadata":{"name":"db","namespace":"a"},"spec":{"selector":{"app":"db"},"ports":[{"port":5432}]}}
{"kind":"StatefulSet","metadata":{"name":"db","namespace":"a"},"spec":{"replicas":3,"podManagementPolicy":"Parallel","template":{"metadata":{"labels":{"app":"db"}}}}}
{"kind":"Service","metadata":{"name":"zk","namespace":"a"},"spec":{"selector":{"app":"zk"},"ports":[{"port":2181}]}}
{"kind":"StatefulSet","metadata":{"name":"zk","namespace":"a"},"spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"zk"}}}}}`
	res, sc := importText(t, in)
	policies := map[string]string{}
	for _, s := range sc.Config.Services {
		if s.WorkloadKind == sim.KindDaemonSet && (s.MaxSurge != sim.IntOrPercent{Value: 1} || s.MaxUnavailable.Value != 0) {
			t.Errorf("DaemonSet strategy maxSurge %+v maxUnavailable %+v, want the input's 1 and 0", s.MaxSurge, s.MaxUnavailable)
		}
		if s.WorkloadKind == sim.KindStatefulSet {
			policies[s.Name] = s.PodManagementPolicy
		}
	}
	if want := map[string]string{"db": sim.PodManagementParallel, "zk": sim.PodManagementOrderedReady}; !maps.Equal(policies, want) {
		t.Errorf("StatefulSet policies %v, want %v\n%s", policies, want, res.YAML)
	}
}

// TestImportServiceLabels: a Service's labels are imported (its Endpoints and slices copy
// them, so they count in every object's size); invalid ones are left out and noted;
// Services with the same labels are alike (TestImportCopiesKeepTheirLabels: those whose
// values differ are not); --anonymize renames
// keys (but Kubernetes' own prefixes) and values to valid ones of the same lengths.
func TestImportServiceLabels(t *testing.T) {
	in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"a1","namespace":"x","labels":{"app.kubernetes.io/name":"cart","team.acme.io/owner":"payments","tier":"web","bad key":"v"}},"spec":{"ports":[{"port":1}]}}
{"kind":"Endpoints","metadata":{"name":"a1","namespace":"x"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}
{"kind":"Service","metadata":{"name":"a2","namespace":"x","labels":{"app.kubernetes.io/name":"cart","team.acme.io/owner":"payments","tier":"web"}},"spec":{"ports":[{"port":1}]}}
{"kind":"Endpoints","metadata":{"name":"a2","namespace":"x"},"subsets":[{"addresses":[{"ip":"10.0.0.2"}]}]}
{"kind":"Service","metadata":{"name":"b","namespace":"x","labels":{"app.kubernetes.io/name":"search","service.kubernetes.io/service-proxy-name":"p"}},"spec":{"ports":[{"port":1}]}}
{"kind":"Endpoints","metadata":{"name":"b","namespace":"x"},"subsets":[{"addresses":[{"ip":"10.0.0.3"}]}]}`
	for _, anon := range []bool{false, true} {
		res, err := Import([]Input{{Name: "in", R: strings.NewReader(in)}}, Options{Anonymize: anon})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("labels.yaml", res.YAML, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, res.YAML)
		}
		if len(sc.Config.Services) != 2 || sc.Config.Services[0].Count != 2 {
			t.Fatalf("anonymize %v: services %+v, want a's two as one entry and b\n%s", anon, sc.Config.Services, res.YAML)
		}
		if !bytes.Contains(res.YAML, []byte("1 Service labels are not valid")) {
			t.Errorf("anonymize %v: no note of the invalid label:\n%s", anon, res.YAML)
		}
		lengths := func(m map[string]string) []int {
			var out []int
			for _, k := range slices.Sorted(maps.Keys(m)) {
				out = append(out, len(k), len(m[k]))
			}
			return out
		}
		a, b := sc.Config.Services[0].Labels, sc.Config.Services[1].Labels
		wantA := map[string]string{"app.kubernetes.io/name": "cart", "team.acme.io/owner": "payments", "tier": "web"}
		wantB := map[string]string{"app.kubernetes.io/name": "search", "service.kubernetes.io/service-proxy-name": "p"}
		if !anon {
			if !maps.Equal(a, wantA) || !maps.Equal(b, wantB) {
				t.Errorf("labels %v and %v, want %v and %v", a, b, wantA, wantB)
			}
			continue
		}
		if !slices.Equal(lengths(a), lengths(wantA)) || a["app.kubernetes.io/name"] == "" || a["app.kubernetes.io/name"] == "cart" ||
			bytes.Contains(res.YAML, []byte("acme")) || bytes.Contains(res.YAML, []byte("payments")) {
			t.Errorf("anonymized labels %v: want the lengths of %v, Kubernetes' key kept, the rest renamed", a, wantA)
		}
		if _, ok := b["service.kubernetes.io/service-proxy-name"]; !ok || len(b) != 2 {
			t.Errorf("anonymized labels of b %v: want the proxy name's key kept", b)
		}
	}
}

// TestImportCopiesKeepTheirLabels: every Service of the cluster is, in the scenario, a
// Service of its name with its own labels. An entry's copies all get the entry's labels,
// with $name (sim.NameLabelValue) each copy's own name: Services alike but for labels that
// name themselves (app.kubernetes.io/name: cart-0, cart-1…) are one entry, those whose
// labels are the same are one too, and one whose label names another Service is apart.
func TestImportCopiesKeepTheirLabels(t *testing.T) {
	in := []string{`{"kind":"Node","metadata":{"name":"n"}}`}
	want := map[string]map[string]string{}
	add := func(name string, labels map[string]string) {
		meta, _ := json.Marshal(map[string]any{"name": name, "namespace": "shop", "labels": labels})
		in = append(in, `{"kind":"Service","metadata":`+string(meta)+`,"spec":{"ports":[{"port":80}]}}`,
			`{"kind":"Endpoints","metadata":{"name":"`+name+`","namespace":"shop"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}`)
		want[name] = labels
	}
	for i := range 5 {
		add(fmt.Sprintf("cart-%d", i), map[string]string{"app.kubernetes.io/name": fmt.Sprintf("cart-%d", i), "team": "shop"})
	}
	for i := range 3 {
		add(fmt.Sprintf("web-%d", i), map[string]string{"app.kubernetes.io/name": "web", "team": "shop"})
	}
	// Named after another Service: not its own name, so not one of the carts.
	add("cart-9", map[string]string{"app.kubernetes.io/name": "cart-0", "team": "shop"})
	for _, anon := range []bool{false, true} {
		res, err := Import([]Input{{Name: "in", R: strings.NewReader(strings.Join(in, "\n"))}}, Options{Anonymize: anon})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("copies.yaml", res.YAML, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, res.YAML)
		}
		got := map[string]map[string]string{}
		for _, s := range sc.Config.Services {
			for i := range s.Count {
				// What the simulator stamps: $name is each copy's own name.
				name := scenarios.StampName(s.Name, s.Count, i)
				got[name] = maps.Clone(s.Labels)
				for k, v := range s.Labels {
					if v == sim.NameLabelValue {
						got[name][k] = name
					}
				}
			}
		}
		if len(sc.Config.Services) != 3 {
			t.Errorf("anonymize %v: %d entries, want the 5 carts as one ($name), the 3 webs as one and the odd cart apart\n%s", anon, len(sc.Config.Services), res.YAML)
		}
		if anon {
			continue // names and values renamed; the same grouping
		}
		for name, labels := range want {
			if !maps.Equal(got[name], labels) {
				t.Errorf("Service %s has labels %v in the scenario, want %v\n%s", name, got[name], labels, res.YAML)
			}
		}
	}
}

// TestImportRepeatedInputs gives every sample file twice: each Node, workload and Endpoints
// object is read twice, and the scenario is the one of the files given once (the node
// count, the DaemonSets' pods, every entry), with a note per kind of what was dropped.
func TestImportRepeatedInputs(t *testing.T) {
	once, err := Import(sampleInputs(t), Options{Name: "sample-cluster"})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Import(append(sampleInputs(t), sampleInputs(t)...), Options{Name: "sample-cluster"})
	if err != nil {
		t.Fatal(err)
	}
	if twice.Nodes != once.Nodes || twice.Pods != once.Pods || twice.Services != once.Services || twice.Entries != once.Entries {
		t.Errorf("files given twice: %d nodes, %d pods, %d Services in %d entries; once: %d, %d, %d in %d",
			twice.Nodes, twice.Pods, twice.Services, twice.Entries, once.Nodes, once.Pods, once.Services, once.Entries)
	}
	body := func(y []byte) string { // the scenario without its header comments
		var out []string
		for _, l := range strings.Split(string(y), "\n") {
			if !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	if body(twice.YAML) != body(once.YAML) {
		t.Errorf("files given twice give another scenario:\n%s\nonce:\n%s", body(twice.YAML), body(once.YAML))
	}
	for _, what := range []string{"Nodes", "workloads", "Services"} {
		want := fmt.Sprintf("%s appear more than once", what)
		if !slices.ContainsFunc(twice.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note says %q: %q", want, twice.Notes)
		}
	}
	// One note for the repeated Services, as for the other kinds, naming a few: a note per
	// Service made a file given twice print a line per Service, 10,000 in a large cluster,
	// on stderr and at the top of the scenario. The other notes are once's: an ExternalName
	// Service given twice was counted twice.
	if n := len(twice.Notes) - len(once.Notes); n != 5 {
		t.Errorf("%d notes more than once's, want 5 (Nodes, workloads, Endpoints objects, EndpointSlices, Services): %q", n, twice.Notes)
	}
	if !slices.ContainsFunc(twice.Notes, func(n string) bool {
		return n == "13 Services appear more than once (the same input given twice?); the first of each is kept: data/db, data/external-db, default/api, …"
	}) {
		t.Errorf("no note names the first repeated Services: %q", twice.Notes)
	}
}

// TestImportWorkloadValues: every workload value the scenario cannot hold is noted with what
// stands for it, and a value it can hold is kept. maxSurge 200% (valid in Kubernetes and in
// a scenario) was imported as 25%; replicas 10^12 as 1000000 and -3 as 0, a bad maxSurge or
// maxUnavailable as the default and a long minReadySeconds as a day, all without a note.
func TestImportWorkloadValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string // the Deployment's spec, without the template
		// want is what the scenario holds: a field and its value as the loader reads them.
		want      func(s sim.ServiceConfig) string
		wantValue string
		note      string // "" for none
	}{
		{"maxSurge over 100%", `"replicas":4,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"200%","maxUnavailable":0}}`,
			func(s sim.ServiceConfig) string { return scenarios.FormatIntOrPercent(s.MaxSurge) }, "200%", ""},
		{"maxSurge not a percentage", `"replicas":4,"strategy":{"rollingUpdate":{"maxSurge":"abc%"}}`,
			func(s sim.ServiceConfig) string { return scenarios.FormatIntOrPercent(s.MaxSurge) }, "25%", `maxSurge "abc%", not an integer or a whole percentage; imported as the default 25%`},
		{"maxUnavailable negative", `"replicas":4,"strategy":{"rollingUpdate":{"maxUnavailable":-5}}`,
			func(s sim.ServiceConfig) string { return scenarios.FormatIntOrPercent(s.MaxUnavailable) }, "25%", `maxUnavailable "-5", negative; imported as the default 25%`},
		{"maxUnavailable over 100%", `"replicas":4,"strategy":{"rollingUpdate":{"maxUnavailable":"150%"}}`,
			func(s sim.ServiceConfig) string { return scenarios.FormatIntOrPercent(s.MaxUnavailable) }, "100%", "maxUnavailable 150%, more than 100%; imported as 100%"},
		{"both zero", `"replicas":4,"strategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":"0%"}}`,
			func(s sim.ServiceConfig) string { return scenarios.FormatIntOrPercent(s.MaxUnavailable) }, "1", "both 0, which the API server refuses; maxUnavailable imported as 1"},
		{"replicas 10^12", `"replicas":1000000000000`,
			func(s sim.ServiceConfig) string { return fmt.Sprint(s.Replicas) }, "1000000", "1000000000000 pods is more than a service holds; 1000000 kept"},
		{"replicas negative", `"replicas":-3`,
			func(s sim.ServiceConfig) string { return fmt.Sprint(s.Replicas) }, "0", "has replicas -3, which the API server refuses; imported as 0"},
		{"minReadySeconds over a day", `"replicas":4,"minReadySeconds":100000`,
			func(s sim.ServiceConfig) string { return s.MinReady.String() }, "24h0m0s", "minReadySeconds 100000, more than a scenario holds; imported as 86400"},
		{"minReadySeconds negative", `"replicas":4,"minReadySeconds":-7`,
			func(s sim.ServiceConfig) string { return s.MinReady.String() }, "0s", "minReadySeconds -7, which the API server refuses; imported as 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"web","namespace":"a"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}
{"kind":"Deployment","metadata":{"name":"web","namespace":"a"},"spec":{` + tc.spec + `,"template":{"metadata":{"labels":{"app":"web"}}}}}`
			res, sc := importText(t, in)
			if got := tc.want(sc.Config.Services[0]); got != tc.wantValue {
				t.Errorf("imported %s, want %s\n%s", got, tc.wantValue, res.YAML)
			}
			noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tc.note) })
			if tc.note == "" {
				if len(res.Notes) > 0 {
					t.Errorf("notes %q, want none", res.Notes)
				}
			} else if !noted || !strings.Contains(string(res.YAML), tc.note) {
				t.Errorf("notes %q lack %q (or the scenario's comments do)", res.Notes, tc.note)
			}
		})
	}
}

// TestImportInternalTrafficPolicy: internalTrafficPolicy Local imports as such on a Service
// that takes no traffic from outside the cluster; one that does (a node port, a load
// balancer, an external IP) has kube-proxy program its endpoints cluster-wide whatever its
// external policy, so it imports as Cluster, with a note.
// upstream: pkg/proxy/serviceport.go UsesClusterEndpoints, ExternallyAccessible.
func TestImportInternalTrafficPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, spec   string
		local, noted bool // imported as Local; the note says why not
		external     bool // noted: kube-proxy's rules for outside traffic are not simulated
	}{
		{"ClusterIP", `"internalTrafficPolicy":"Local"`, true, false, false},
		{"ClusterIP, policy Cluster", `"internalTrafficPolicy":"Cluster"`, false, false, false},
		{"ClusterIP, no external IP", `"internalTrafficPolicy":"Local","externalIPs":[]`, true, false, false},
		{"ClusterIP with an external IP", `"internalTrafficPolicy":"Local","externalIPs":["192.0.2.1"]`, false, true, true},
		{"NodePort", `"type":"NodePort","internalTrafficPolicy":"Local"`, false, true, true},
		{"NodePort, policy Cluster", `"type":"NodePort"`, false, false, true},
		{"LoadBalancer, external policy Local", `"type":"LoadBalancer","internalTrafficPolicy":"Local","externalTrafficPolicy":"Local"`, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"web","namespace":"a"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}],` + tc.spec + `}}
{"kind":"Deployment","metadata":{"name":"web","namespace":"a"},"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}}}}}`
			res, sc := importText(t, in)
			if got := sc.Config.Services[0].InternalTrafficPolicy == "Local"; got != tc.local {
				t.Errorf("internalTrafficPolicy %q, want Local %v\n%s", sc.Config.Services[0].InternalTrafficPolicy, tc.local, res.YAML)
			}
			const note = "internalTrafficPolicy Local but"
			noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, note) })
			if noted != tc.noted {
				t.Errorf("notes %q: noted %v, want %v", res.Notes, noted, tc.noted)
			}
			const rules = "1 Service takes traffic from outside the cluster (NodePort, LoadBalancer or external IPs): kube-proxy's rules for it"
			if got := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, rules) }); got != tc.external {
				t.Errorf("notes %q: the rules for outside traffic noted %v, want %v", res.Notes, got, tc.external)
			}
		})
	}
}

// TestImportTerminatingEndpoints: a Service no workload selects runs with the pods its
// EndpointSlices hold, leaving out the terminating ones (a rollout's old pods on their
// way out: their replacements are counted). Without conditions an endpoint counts.
func TestImportTerminatingEndpoints(t *testing.T) {
	ep := func(ip string, terminating string) string {
		cond := ""
		if terminating != "" {
			cond = `,"conditions":{"ready":false,"serving":true,"terminating":` + terminating + `}`
		}
		return `{"addresses":["` + ip + `"]` + cond + `}`
	}
	var eps []string
	for i := range 5 {
		eps = append(eps, ep(fmt.Sprintf("10.0.0.%d", i+1), "false"), ep(fmt.Sprintf("10.0.1.%d", i+1), "true"))
	}
	eps = append(eps, ep("10.0.2.1", ""), ep("10.0.2.2", "null"))
	in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}
{"kind":"EndpointSlice","metadata":{"name":"s-abcde","namespace":"a","labels":{"kubernetes.io/service-name":"s"}},"addressType":"IPv4","endpoints":[` + strings.Join(eps, ",") + `]}`
	res, sc := importText(t, in)
	if got := sc.Config.Services[0].Replicas; got != 7 {
		t.Errorf("%d replicas, want the 5 not terminating and the 2 without the condition\n%s", got, res.YAML)
	}
}

// importText imports the objects of in (one input) and parses the scenario it makes,
// failing t on an error of either.
func importText(t *testing.T, in string) (*Result, *scenarios.Scenario) {
	t.Helper()
	res, err := Import([]Input{{Name: "in", R: strings.NewReader(in)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("imported.yaml", res.YAML, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.YAML)
	}
	return res, sc
}

// TestImportSliceManagers: a Service no workload selects runs with the pods of the
// EndpointSlice controller's slices; another manager's slices of the same Service (a mesh,
// a custom controller: managed-by other than endpointslice-controller.k8s.io) hold other
// addresses, and count only when the controller has no slice of the Service.
func TestImportSliceManagers(t *testing.T) {
	slice := func(name, manager string, ips ...string) string {
		labels := `"kubernetes.io/service-name":"s"`
		if manager != "" {
			labels += `,"endpointslice.kubernetes.io/managed-by":"` + manager + `"`
		}
		var eps []string
		for _, ip := range ips {
			eps = append(eps, `{"addresses":["`+ip+`"]}`)
		}
		return `{"kind":"EndpointSlice","metadata":{"name":"` + name + `","namespace":"a","labels":{` + labels + `}},"addressType":"IPv4","endpoints":[` + strings.Join(eps, ",") + `]}`
	}
	ctl := slice("s-ctl", "endpointslice-controller.k8s.io", "10.0.0.1", "10.0.0.2", "10.0.0.3")
	ctlEmpty := slice("s-ctl", "endpointslice-controller.k8s.io")
	unlabelled := slice("s-old", "", "10.0.0.1", "10.0.0.2", "10.0.0.3")
	mesh := slice("s-mesh", "mesh.example.com", "192.168.0.1", "192.168.0.2", "192.168.0.3", "192.168.0.4", "192.168.0.5")
	for _, tc := range []struct {
		name   string
		slices []string
		want   int
		noted  bool // that another manager's slices are not simulated
	}{
		{"controller's", []string{ctl}, 3, false},
		{"controller's and another manager's", []string{ctl, mesh}, 3, true},
		{"another manager's before the controller's", []string{mesh, ctl}, 3, true},
		{"unlabelled and another manager's", []string{unlabelled, mesh}, 3, true},
		{"another manager's alone", []string{mesh}, 5, false},
		{"controller's empty and another manager's", []string{ctlEmpty, mesh}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}
` + strings.Join(tc.slices, "\n")
			res, sc := importText(t, in)
			if got := sc.Config.Services[0].Replicas; got != tc.want {
				t.Errorf("%d replicas, want %d\n%s", got, tc.want, res.YAML)
			}
			const note = "1 EndpointSlice managed by mesh.example.com beside the EndpointSlice controller's is not simulated"
			if noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, note) }); noted != tc.noted {
				t.Errorf("notes %q: noted %v, want %v", res.Notes, noted, tc.noted)
			}
		})
	}
}

// TestImportSliceTargetPorts: a named targetPort of a Service no workload in the input
// selects is the number the EndpointSlice controller resolved it to in the pods, as its
// slices' ports say (named after the Service port, with its protocol); not another
// manager's slices' ports, nor a port of another protocol.
func TestImportSliceTargetPorts(t *testing.T) {
	slice := func(manager, ports string) string {
		return `{"kind":"EndpointSlice","metadata":{"name":"s-` + strings.ReplaceAll(manager, ".", "") + `","namespace":"a","labels":{"kubernetes.io/service-name":"s","endpointslice.kubernetes.io/managed-by":"` + manager + `"}},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[` + ports + `]}`
	}
	for _, tc := range []struct {
		name        string
		servicePort string
		slices      []string
		want        int32
	}{
		{"named port", `{"name":"https","port":443,"targetPort":"tls"}`,
			[]string{slice("endpointslice-controller.k8s.io", `{"name":"https","port":8443,"protocol":"TCP"}`)}, 8443},
		{"unnamed port", `{"port":443,"targetPort":"tls"}`,
			[]string{slice("endpointslice-controller.k8s.io", `{"name":"","port":8443,"protocol":"TCP"}`)}, 8443},
		{"another protocol", `{"name":"dns","port":53,"protocol":"UDP","targetPort":"dns"}`,
			[]string{slice("endpointslice-controller.k8s.io", `{"name":"dns","port":5353,"protocol":"TCP"}`)}, 53},
		{"another manager's", `{"name":"https","port":443,"targetPort":"tls"}`,
			[]string{slice("endpointslice-controller.k8s.io", `{"name":"https","port":8443,"protocol":"TCP"}`), slice("mesh.example.com", `{"name":"https","port":15443,"protocol":"TCP"}`)}, 8443},
		{"numeric targetPort kept", `{"name":"https","port":443,"targetPort":9443}`,
			[]string{slice("endpointslice-controller.k8s.io", `{"name":"https","port":8443,"protocol":"TCP"}`)}, 9443},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[` + tc.servicePort + `]}}
` + strings.Join(tc.slices, "\n")
			res, sc := importText(t, in)
			if got := sc.Config.Services[0].Ports[0].TargetPort; got != tc.want {
				t.Errorf("targetPort %d, want %d\n%s", got, tc.want, res.YAML)
			}
		})
	}
}

// TestImportSidecarTargetPorts: a named targetPort resolves as upstream's FindPort does:
// against the containers' ports, then those of the sidecars (init containers with
// restartPolicy Always, which keep running beside them); not a plain init container's,
// which has exited by the time the pod is ready.
func TestImportSidecarTargetPorts(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string // the pod template's spec
		want int32
	}{
		{"container", `"containers":[{"name":"app","ports":[{"name":"web","containerPort":8080,"protocol":"TCP"}]}]`, 8080},
		{"sidecar", `"containers":[{"name":"app"}],"initContainers":[{"name":"proxy","restartPolicy":"Always","ports":[{"name":"web","containerPort":15006,"protocol":"TCP"}]}]`, 15006},
		{"container before sidecar", `"initContainers":[{"name":"proxy","restartPolicy":"Always","ports":[{"name":"web","containerPort":15006,"protocol":"TCP"}]}],"containers":[{"name":"app","ports":[{"name":"web","containerPort":8080,"protocol":"TCP"}]}]`, 8080},
		{"plain init container", `"containers":[{"name":"app"}],"initContainers":[{"name":"setup","ports":[{"name":"web","containerPort":15006,"protocol":"TCP"}]}]`, 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n"}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":"web"}]}}
{"kind":"Deployment","metadata":{"name":"s","namespace":"a"},"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"s"}},"spec":{` + tc.spec + `}}}}`
			res, sc := importText(t, in)
			if got := sc.Config.Services[0].Ports[0].TargetPort; got != tc.want {
				t.Errorf("targetPort %d, want %d\n%s", got, tc.want, res.YAML)
			}
		})
	}
}

// TestImportUnresolvedTargetPorts: a port whose named targetPort the selected pods lack
// (no container port of that name and protocol) is in none of their endpoints (upstream:
// the Endpoints and EndpointSlice controllers skip a port FindPort fails on), so it is
// left out, noted; when no port resolves, the port number stands in, noted.
func TestImportUnresolvedTargetPorts(t *testing.T) {
	const containers = `"containers":[{"name":"app","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"dns","containerPort":5353,"protocol":"TCP"}]}]`
	for _, tc := range []struct {
		name, ports string
		want        string // the imported ports, name:port>targetPort
		note        string
	}{
		{"another protocol", `{"name":"http","port":80,"targetPort":"http"},{"name":"dns","port":53,"protocol":"UDP","targetPort":"dns"}`,
			"http:80>8080", `targetPort "dns" names no container port of the selected pods; port 53 left out`},
		{"no such name", `{"name":"http","port":80,"targetPort":"http"},{"name":"metrics","port":9100,"targetPort":"metrics"},{"name":"admin","port":9000,"targetPort":9000}`,
			"http:80>8080,admin:9000>9000", `targetPort "metrics" names no container port of the selected pods; port 9100 left out`},
		{"none resolves", `{"name":"metrics","port":9100,"targetPort":"metrics"},{"name":"debug","port":6060,"targetPort":"debug"}`,
			"metrics:9100>9100,debug:6060>6060", `targetPort "debug" names no container port of the selected pods; the port number 6060 is used`},
		{"all resolve", `{"name":"http","port":80,"targetPort":"http"},{"name":"dns","port":53,"protocol":"TCP","targetPort":"dns"}`,
			"http:80>8080,dns:53>5353", ""},
		// A number: 0 is unset, which the API server defaults to the port; one out of
		// range it refuses, so kubectl never prints it: noted, not passed over.
		{"number unset", `{"name":"http","port":80,"targetPort":0}`, "http:80>80", ""},
		{"number out of range", `{"name":"http","port":80,"targetPort":70000},{"name":"dns","port":53,"targetPort":-1}`,
			"http:80>80,dns:53>53", "targetPort -1 out of range; the port number 53 is used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[` + tc.ports + `]}}
{"kind":"Deployment","metadata":{"name":"s","namespace":"a"},"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"s"}},"spec":{` + containers + `}}}}`
			res, sc := importText(t, in)
			var got []string
			for _, p := range sc.Config.Services[0].Ports {
				got = append(got, fmt.Sprintf("%s:%d>%d", p.Name, p.Port, p.TargetPort))
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("ports %s, want %s\n%s", strings.Join(got, ","), tc.want, res.YAML)
			}
			if tc.note == "" {
				if len(res.Notes) > 0 {
					t.Errorf("notes %q, want none", res.Notes)
				}
			} else if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q, want one saying %q", res.Notes, tc.note)
			}
		})
	}
}

// TestImportTruncatedEndpoints: a Service whose pods no workload explains and that has no
// EndpointSlice in the input takes its pods from its Endpoints object; one the Endpoints
// controller cut to 1000 addresses (endpoints.kubernetes.io/over-capacity: truncated)
// has more, which the notes say. An Endpoints object without a namespace is the default
// namespace's, as a Service's.
func TestImportTruncatedEndpoints(t *testing.T) {
	endpoints := func(ns string, n int, annotations string) string {
		var addrs []string
		for i := range n {
			addrs = append(addrs, fmt.Sprintf(`{"ip":"10.0.%d.%d"}`, i/250, i%250+1))
		}
		return `{"kind":"Endpoints","metadata":{"name":"s"` + ns + `,"annotations":{` + annotations + `}},"subsets":[{"addresses":[` + strings.Join(addrs, ",") + `]}]}`
	}
	for _, tc := range []struct {
		name, endpoints string
		want            int
		note            string
	}{
		{"truncated", endpoints(`,"namespace":"default"`, 1000, `"endpoints.kubernetes.io/over-capacity":"truncated"`), 1000, "more than the 1000 pods imported"},
		{"whole", endpoints(`,"namespace":"default"`, 999, ""), 999, ""},
		{"no namespace", endpoints("", 7, ""), 7, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"s","namespace":"default"},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}
` + tc.endpoints
			res, sc := importText(t, in)
			if got := sc.Config.Services[0].Replicas; got != tc.want {
				t.Errorf("%d replicas, want %d\n%s", got, tc.want, res.YAML)
			}
			noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "truncated") })
			if noted != (tc.note != "") || tc.note != "" && !strings.Contains(strings.Join(res.Notes, "\n"), tc.note) {
				t.Errorf("notes %q, want a note saying %q", res.Notes, tc.note)
			}
		})
	}
}

// TestImportReplicaSets: a ReplicaSet is the workload behind its pods unless a Deployment
// in the input controls it ('kubectl get all' lists both, and the Deployment stands for
// them): a bare one, one whose Deployment is not in the input, another controller's (Argo
// Rollouts' stable and canary ReplicaSets) are run as a Deployment, noted.
func TestImportReplicaSets(t *testing.T) {
	rs := func(name string, replicas int, owner string) string {
		refs := ""
		if owner != "" {
			kind, oname, _ := strings.Cut(owner, "/")
			refs = `,"ownerReferences":[{"apiVersion":"apps/v1","kind":"` + kind + `","name":"` + oname + `","uid":"u","controller":true}]`
		}
		return fmt.Sprintf(`{"kind":"ReplicaSet","metadata":{"name":%q,"namespace":"a"%s},"spec":{"replicas":%d,"template":{"metadata":{"labels":{"app":"s","pod-template-hash":%q}}}}}`, name, refs, replicas, name)
	}
	deployment := `{"kind":"Deployment","metadata":{"name":"s","namespace":"a"},"spec":{"replicas":6,"template":{"metadata":{"labels":{"app":"s"}}}}}`
	for _, tc := range []struct {
		name    string
		objects []string
		want    int
		kind    string
		note    string // "" for none
	}{
		{"bare", []string{rs("s-1", 5, "")}, 5, sim.KindDeployment, "ReplicaSet s-1, which no Deployment in the input owns, is run as a Deployment"},
		{"with its Deployment", []string{deployment, rs("s-new", 6, "Deployment/s"), rs("s-old", 0, "Deployment/s")}, 6, sim.KindDeployment, ""},
		{"Deployment not in the input", []string{rs("s-1", 4, "Deployment/s")}, 4, sim.KindDeployment, "is run as a Deployment"},
		{"another controller's", []string{rs("s-stable", 8, "Rollout/s"), rs("s-canary", 2, "Rollout/s")}, 10, sim.KindDeployment, "selects 2 workloads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}
` + strings.Join(tc.objects, "\n")
			res, sc := importText(t, in)
			if s := sc.Config.Services[0]; s.Replicas != tc.want || s.WorkloadKind != tc.kind {
				t.Errorf("%d replicas of %v, want %d of %v\n%s", s.Replicas, s.WorkloadKind, tc.want, tc.kind, res.YAML)
			}
			if tc.note == "" {
				if len(res.Notes) > 0 {
					t.Errorf("notes %q, want none", res.Notes)
				}
			} else if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q, want one saying %q", res.Notes, tc.note)
			}
		})
	}
}

// TestImportSelectorlessSlices: a Service without a selector takes its endpoints from its
// Endpoints object; without one, from the EndpointSlices written for it directly (by the
// user or a controller), noted; with neither it is skipped.
func TestImportSelectorlessSlices(t *testing.T) {
	const (
		endpoints = `{"kind":"Endpoints","metadata":{"name":"s","namespace":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}]}]}`
		slice     = `{"kind":"EndpointSlice","metadata":{"name":"s-1","namespace":"a","labels":{"kubernetes.io/service-name":"s","endpointslice.kubernetes.io/managed-by":"staff"}},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]},{"addresses":["10.0.0.2"]},{"addresses":["10.0.0.3"]}]}`
	)
	for _, tc := range []struct {
		name, objects string
		want          int // manualEndpoints; 0: skipped
		note          string
	}{
		{"Endpoints", endpoints, 2, ""},
		{"Endpoints and slices", endpoints + "\n" + slice, 2, ""},
		{"slices alone", slice, 3, "the 3 endpoints of its EndpointSlices imported as manualEndpoints"},
		{"neither", "", 0, "1 Service without a selector and without endpoints in the input skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"ports":[{"port":80}]}}
{"kind":"Service","metadata":{"name":"other","namespace":"a"},"spec":{"ports":[{"port":80}]}}
{"kind":"Endpoints","metadata":{"name":"other","namespace":"a"},"subsets":[{"addresses":[{"ip":"10.1.0.1"}]}]}
` + tc.objects
			res, sc := importText(t, in)
			got := 0
			for _, s := range sc.Config.Services {
				if s.Name == "s" {
					got = s.ManualEndpoints
				}
			}
			if got != tc.want {
				t.Errorf("manualEndpoints %d, want %d\n%s", got, tc.want, res.YAML)
			}
			if tc.note == "" {
				if len(res.Notes) > 0 {
					t.Errorf("notes %q, want none", res.Notes)
				}
			} else if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q, want one saying %q", res.Notes, tc.note)
			}
		})
	}
}

// TestImportSharedWorkloads: the note on workloads several Services select counts the
// workloads, however many Services select each.
func TestImportSharedWorkloads(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}` + "\n")
	for _, name := range []string{"web", "web-headless", "web-metrics"} {
		fmt.Fprintf(&in, `{"kind":"Service","metadata":{"name":%q,"namespace":"a"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`+"\n", name)
	}
	fmt.Fprintf(&in, `{"kind":"Service","metadata":{"name":"db","namespace":"a"},"spec":{"selector":{"app":"db"},"ports":[{"port":80}]}}`+"\n")
	for _, app := range []string{"web", "db"} {
		fmt.Fprintf(&in, `{"kind":"Deployment","metadata":{"name":%q,"namespace":"a"},"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":%q}}}}}`+"\n", app, app)
	}
	res, _ := importText(t, in.String())
	if want := "1 workload is selected by more than one Service"; !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q, want one saying %q", res.Notes, want)
	}
}

// TestImportByteOrderMarks: input with a byte order mark (UTF-8's, or UTF-16 as Windows
// PowerShell's '>' writes kubectl's output) reads as the same input without it.
func TestImportByteOrderMarks(t *testing.T) {
	const in = "{\"kind\":\"List\",\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n-\u00e9\"}},\r\n" +
		`{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"ports":[{"port":80}]}},` +
		`{"kind":"Endpoints","metadata":{"name":"s","namespace":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}]}` + "\r\n"
	encode16 := func(order binary.AppendByteOrder, bom []byte) []byte {
		out := slices.Clone(bom)
		for _, u := range utf16.Encode([]rune(in)) {
			out = order.AppendUint16(out, u)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"none", []byte(in)},
		{"UTF-8", append([]byte{0xef, 0xbb, 0xbf}, in...)},
		{"UTF-16LE", encode16(binary.LittleEndian, []byte{0xff, 0xfe})},
		{"UTF-16BE", encode16(binary.BigEndian, []byte{0xfe, 0xff})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, fast := range []bool{true, false} {
				o, err := readWith([]Input{{Name: "in.json", R: bytes.NewReader(tc.data)}}, fast)
				if err != nil {
					t.Fatalf("fast %v: %v", fast, err)
				}
				if len(o.nodes) != 1 || o.nodes[0].Metadata.Name != "n-\u00e9" || len(o.services) != 1 || len(o.endpoints) != 1 {
					t.Errorf("fast %v: read %d nodes (%+v), %d Services, %d Endpoints", fast, len(o.nodes), o.nodes, len(o.services), len(o.endpoints))
				}
			}
		})
	}
}

// TestImportTopologyModeHints: topology-mode Auto is left out (noted) when the real
// EndpointSlice controller gives no hints: a ready node but the control plane's without
// a topology.kubernetes.io/zone label (the beta label does not count) or allocatable CPU,
// or its ready nodes in fewer than two zones (upstream: topologycache SetNodes). The
// simulator's nodes are all ready and zoned, so it would give hints.
func TestImportTopologyModeHints(t *testing.T) {
	nodeJSON := func(name, labels, status string) string {
		return `{"kind":"Node","metadata":{"name":"` + name + `","labels":{` + labels + `}},"status":` + status + `}`
	}
	const (
		ready    = `{"allocatable":{"cpu":"4"},"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}]}`
		notReady = `{"allocatable":{"cpu":"4"},"conditions":[{"type":"Ready","status":"Unknown"}]}`
		noCPU    = `{"allocatable":{"memory":"16Gi"},"conditions":[{"type":"Ready","status":"True"}]}`
		za, zb   = `"topology.kubernetes.io/zone":"a"`, `"topology.kubernetes.io/zone":"b"`
	)
	zoned := []string{nodeJSON("n1", za, ready), nodeJSON("n2", zb, ready)}
	for _, tc := range []struct {
		name  string
		nodes []string
		why   string // "" when the mode is kept
	}{
		{"zoned", zoned, ""},
		{"no status", []string{nodeJSON("n1", za, "{}"), nodeJSON("n2", zb, "null")}, ""},
		{"unzoned node", append(slices.Clone(zoned), nodeJSON("n3", "", ready)), "node n3 is ready and has no topology.kubernetes.io/zone label"},
		{"beta zone label", append(slices.Clone(zoned), nodeJSON("n3", `"failure-domain.beta.kubernetes.io/zone":"a"`, ready)), "node n3 is ready and has no topology.kubernetes.io/zone label"},
		{"no CPU", append(slices.Clone(zoned), nodeJSON("n3", za, noCPU)), "node n3 is ready and has no allocatable CPU"},
		{"unzoned node not ready", append(slices.Clone(zoned), nodeJSON("n3", "", notReady)), ""},
		{"unzoned control plane", append(slices.Clone(zoned), nodeJSON("n3", `"node-role.kubernetes.io/control-plane":""`, ready)), ""},
		{"a zone's nodes not ready", []string{nodeJSON("n1", za, ready), nodeJSON("n2", zb, notReady)}, "its ready nodes (but the control plane's) are in one zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Join(tc.nodes, "\n") + `
{"kind":"Service","metadata":{"name":"s","namespace":"a","annotations":{"service.kubernetes.io/topology-mode":"Auto"}},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}
{"kind":"Deployment","metadata":{"name":"s","namespace":"a"},"spec":{"replicas":6,"template":{"metadata":{"labels":{"app":"s"}}}}}`
			res, sc := importText(t, in)
			want := "Auto"
			if tc.why != "" {
				want = ""
			}
			if got := sc.Config.Services[0].TopologyMode; got != want {
				t.Errorf("topologyMode %q, want %q\n%s", got, want, res.YAML)
			}
			noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "topology-mode Auto left out") })
			if noted != (tc.why != "") || tc.why != "" && !strings.Contains(strings.Join(res.Notes, "\n"), tc.why) {
				t.Errorf("notes %q, want the reason %q", res.Notes, tc.why)
			}
		})
	}
}

// TestImportStatefulSetNoServiceName: a StatefulSet without a serviceName (optional) gives
// its pods no subdomain, so no Service's endpoints carry their hostnames; the scenario's
// empty serviceName would mean the selecting Service governs them, so a name no Service
// has stands in, noted.
func TestImportStatefulSetNoServiceName(t *testing.T) {
	for _, svc := range []string{"db", "governing-service"} {
		in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"` + svc + `","namespace":"a"},"spec":{"clusterIP":"None","selector":{"app":"db"},"ports":[{"port":5432}]}}
{"kind":"StatefulSet","metadata":{"name":"db","namespace":"a"},"spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"db"}}}}}`
		res, sc := importText(t, in)
		s := sc.Config.Services[0]
		if s.ServiceName == "" || s.ServiceName == s.Name {
			t.Errorf("Service %s: serviceName %q, want a name no Service has\n%s", svc, s.ServiceName, res.YAML)
		}
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "has no serviceName") }) {
			t.Errorf("notes %q, want one saying the StatefulSet has no serviceName", res.Notes)
		}
	}
}

// TestImportManualFamilies: the mirroring controller mirrors a selector-less Service's
// Endpoints into slices of its addresses' own types, whatever the Service's ipFamilies: a
// dual-stack Service with IPv4 Endpoints gets IPv4 slices only, so the imported
// ipFamilies are those of the addresses (from its slices when it has no Endpoints).
func TestImportManualFamilies(t *testing.T) {
	for _, tc := range []struct {
		name, families, objects, want string
	}{
		{"dual-stack, IPv4 addresses", `["IPv4","IPv6"]`,
			`{"kind":"Endpoints","metadata":{"name":"s","namespace":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}]}]}`, "IPv4"},
		{"dual-stack, IPv6 addresses", `["IPv4","IPv6"]`,
			`{"kind":"Endpoints","metadata":{"name":"s","namespace":"a"},"subsets":[{"addresses":[{"ip":"fd00::1"}]}]}`, "IPv6"},
		{"dual-stack, both", `["IPv6","IPv4"]`,
			`{"kind":"Endpoints","metadata":{"name":"s","namespace":"a"},"subsets":[{"addresses":[{"ip":"fd00::1"},{"ip":"10.0.0.1"}]}]}`, "IPv6,IPv4"},
		{"single-stack", `["IPv4"]`,
			`{"kind":"Endpoints","metadata":{"name":"s","namespace":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}`, "IPv4"},
		{"dual-stack, IPv4 slices", `["IPv4","IPv6"]`,
			`{"kind":"EndpointSlice","metadata":{"name":"s-1","namespace":"a","labels":{"kubernetes.io/service-name":"s","endpointslice.kubernetes.io/managed-by":"staff"}},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]}`, "IPv4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z"}}}
{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"ipFamilies":` + tc.families + `,"ports":[{"port":80}]}}
` + tc.objects
			res, sc := importText(t, in)
			if got := strings.Join(sc.Config.Services[0].IPFamilies, ","); got != tc.want {
				t.Errorf("ipFamilies %s, want %s\n%s", got, tc.want, res.YAML)
			}
		})
	}
}

// TestImportNodesWithoutZones: when no node has a topology.kubernetes.io/zone label, the
// scenario's nodes have none either (zones: [""]), so its endpoints carry no zone, as the
// cluster's do; --anonymize keeps it so. A cluster with zones keeps them.
func TestImportNodesWithoutZones(t *testing.T) {
	svc := `{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}
{"kind":"Deployment","metadata":{"name":"s","namespace":"a"},"spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"s"}}}}}`
	for _, tc := range []struct {
		name, nodes string
		want        []string
	}{
		{"no labels", `{"kind":"Node","metadata":{"name":"n1"}}{"kind":"Node","metadata":{"name":"n2"}}`, []string{""}},
		{"labelled", `{"kind":"Node","metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z1"}}}`, []string{"z1"}},
	} {
		for _, anonymize := range []bool{false, true} {
			res, err := Import([]Input{{Name: "in", R: strings.NewReader(tc.nodes + svc)}}, Options{Anonymize: anonymize})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenarios.Parse("imported.yaml", res.YAML, nil)
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.name, err, res.YAML)
			}
			want := tc.want
			if anonymize && want[0] != "" {
				want = []string{"zone-1"}
			}
			if got := sc.Config.Cluster.Zones; !slices.Equal(got, want) {
				t.Errorf("%s, anonymize %v: zones %q, want %q", tc.name, anonymize, got, want)
			}
		}
	}
}

// TestImportDaemonSetNotOnEveryNode: the simulator runs a DaemonSet's pod on every node, so
// a DaemonSet scheduled on some nodes only (desiredNumberScheduled), or selected beside
// another workload, runs as a Deployment of the Service's pods, rolled as the DaemonSet
// rolls (maxSurge 0, maxUnavailable 1); one on every node stays a DaemonSet.
func TestImportDaemonSetNotOnEveryNode(t *testing.T) {
	var nodes strings.Builder
	for i := range 9 {
		fmt.Fprintf(&nodes, `{"kind":"Node","metadata":{"name":"n%d","labels":{"topology.kubernetes.io/zone":"z%d"}}}`, i, i%3)
	}
	svc := `{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}`
	ds := func(desired int) string {
		return fmt.Sprintf(`{"kind":"DaemonSet","metadata":{"name":"ds","namespace":"a"},"spec":{"template":{"metadata":{"labels":{"app":"s"}}}},"status":{"desiredNumberScheduled":%d}}`, desired)
	}
	deploy := `{"kind":"Deployment","metadata":{"name":"d","namespace":"a"},"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"s","x":"y"}}}}}`
	for _, tc := range []struct {
		name, in string
		kind     string
		replicas int
	}{
		{"on every node", ds(9), "DaemonSet", 9},
		{"on 3 of 9 nodes", ds(3), "Deployment", 3},
		{"beside a Deployment", ds(9) + deploy, "Deployment", 11},
	} {
		_, sc := importText(t, nodes.String()+svc+tc.in)
		s := sc.Config.Services[0]
		if s.WorkloadKind != tc.kind || tc.kind == "Deployment" && s.Replicas != tc.replicas {
			t.Errorf("%s: kind %q, replicas %d; want %s, %d", tc.name, s.WorkloadKind, s.Replicas, tc.kind, tc.replicas)
		}
		if tc.kind == "Deployment" && (s.MaxSurge != (sim.IntOrPercent{}) || s.MaxUnavailable != (sim.IntOrPercent{Value: 1})) {
			t.Errorf("%s: maxSurge %v, maxUnavailable %v; want 0 and 1 (the DaemonSet's)", tc.name, s.MaxSurge, s.MaxUnavailable)
		}
	}
}

// TestImportNodeValuesNoted: a node value the importer cannot read is noted with what
// stands for it. A zone label whose value is not a label value was noted as no label at
// all, and an allocatable CPU of "-4" or "abc" became 4000m without a note.
func TestImportNodeValuesNoted(t *testing.T) {
	node := func(name, zone, status string) string {
		labels := ""
		if zone != "" {
			labels = `,"labels":{"topology.kubernetes.io/zone":"` + zone + `"}`
		}
		return `{"kind":"Node","metadata":{"name":"` + name + `"` + labels + `}` + status + `}` + "\n"
	}
	cpu := func(q string) string { return `,"status":{"allocatable":{"cpu":"` + q + `"}}` }
	for _, tc := range []struct {
		name, nodes string
		zones       []string
		milliCPU    int64
		note        string // "" for none
	}{
		{"every zone value invalid", node("n0", "zé", cpu("4")) + node("n1", "zé", cpu("4")),
			[]string{""}, 4000, `no node has a valid topology.kubernetes.io/zone label (2 have one whose value is not a label value, such as "zé")`},
		{"one zone value invalid", node("n0", "a", cpu("4")) + node("n1", "b", cpu("4")) + node("n2", "-x-", cpu("4")),
			[]string{"a", "b"}, 4000, `1 node without a valid topology.kubernetes.io/zone label (its value "-x-" is not a label value) is spread over the zones`},
		{"no zone label", node("n0", "", cpu("4")), []string{""}, 4000, "no node has a topology.kubernetes.io/zone label"},
		{"every CPU unreadable", node("n0", "a", cpu("-4")) + node("n1", "b", cpu("abc")),
			[]string{"a", "b"}, defaultMilliCPU, `no node has an allocatable CPU the importer reads (such as "-4"): every node gets 4000m`},
		{"one CPU unreadable", node("n0", "a", cpu("8")) + node("n1", "b", cpu("abc")),
			[]string{"a", "b"}, 8000, `1 node has no allocatable CPU the importer reads (such as "abc"): it gets 8000m too`},
		{"no CPU in a status", node("n0", "a", `,"status":{"allocatable":{"memory":"1Gi"}}`),
			[]string{"a"}, defaultMilliCPU, "no node's status lists its allocatable CPU: every node gets 4000m"},
		{"no status", node("n0", "a", "") + node("n1", "b", ""), []string{"a", "b"}, defaultMilliCPU, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, sc := importText(t, tc.nodes+`{"kind":"Service","metadata":{"name":"web","namespace":"a"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`)
			if c := sc.Config.Cluster; !slices.Equal(c.Zones, tc.zones) || c.NodeMilliCPU != tc.milliCPU {
				t.Errorf("zones %q, %dm a node; want %q, %dm\n%s", c.Zones, c.NodeMilliCPU, tc.zones, tc.milliCPU, res.YAML)
			}
			var nodeNotes []string
			for _, n := range res.Notes {
				if strings.Contains(n, "node") {
					nodeNotes = append(nodeNotes, n)
				}
			}
			switch {
			case tc.note == "" && len(nodeNotes) > 0:
				t.Errorf("notes %q, want none about nodes", nodeNotes)
			case tc.note != "" && !slices.ContainsFunc(nodeNotes, func(n string) bool { return strings.Contains(n, tc.note) }):
				t.Errorf("notes %q lack %q", res.Notes, tc.note)
			}
		})
	}
	if defaultMilliCPU != scenarios.DefaultNodeMilliCPU {
		t.Errorf("defaultMilliCPU %d, the scenario's default %d", defaultMilliCPU, scenarios.DefaultNodeMilliCPU)
	}
}

// TestOwnNameValueIsSims: the label value import writes for a Service's own name is the one
// the simulator stamps.
func TestOwnNameValueIsSims(t *testing.T) {
	if ownNameValue != sim.NameLabelValue {
		t.Errorf("import writes %q, the simulator reads %q", ownNameValue, sim.NameLabelValue)
	}
}

// 'kubectl get nodes,services,endpointslices,pods -o json' is a natural first input: the
// note about the ignored pods says what to add instead (the workloads), not only that they
// were ignored; with workloads in the input it says no more.
func TestImportPodsSayWhatToAdd(t *testing.T) {
	list := `{"kind":"List","apiVersion":"v1","items":[
{"kind":"Node","apiVersion":"v1","metadata":{"name":"n-1"}},
{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"default"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}},
{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"}},"spec":{"nodeName":"n-1","containers":[{"name":"c"}]}}
]}`
	res, err := Import([]Input{{Name: "cluster.json", R: strings.NewReader(list)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `1 object of kind "Pod" ignored: the pods come from their workloads; add 'kubectl get deployments,statefulsets,daemonsets -A -o json'`
	if !slices.Contains(res.Notes, want) {
		t.Errorf("notes %q\nwant %q", res.Notes, want)
	}
}

// TestImportCountsOne: what the import counts is often one — one node, one Service, one pod
// taken from its Endpoints, one ExternalName Service, one object of another kind — and the
// header, the description and the notes say "1 pod", never "1 pods".
func TestImportCountsOne(t *testing.T) {
	in := `{"kind":"List","apiVersion":"v1","items":[
{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z1"}},"status":{"allocatable":{"cpu":"4"}}},
{"kind":"Service","apiVersion":"v1","metadata":{"namespace":"default","name":"one"},"spec":{"selector":{"app":"one"},"ports":[{"port":80,"targetPort":8080,"protocol":"TCP"}]}},
{"kind":"Service","apiVersion":"v1","metadata":{"namespace":"default","name":"ext"},"spec":{"type":"ExternalName","externalName":"example.com"}},
{"kind":"Endpoints","apiVersion":"v1","metadata":{"namespace":"default","name":"one"},"subsets":[{"addresses":[{"ip":"10.1.0.1","nodeName":"n1"}],"ports":[{"port":8080,"protocol":"TCP"}]}]},
{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"default","name":"cm"}}]}`
	res, _ := importText(t, in)
	text := string(res.YAML)
	for _, want := range []string{
		"# 1 node in 1 zone, 1 Service (1 entry), 1 pod.\n",
		`description: "Imported from kubectl output: 1 node, 1 Service, 1 pod"`,
		`1 object of kind "ConfigMap" ignored`,
		"selects it; 1 pod taken from its endpoints",
		"1 ExternalName Service skipped (it has no endpoints)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the import lacks %q:\n%s", want, text)
		}
	}
	if m := regexp.MustCompile(`\b1 (nodes|zones|Services|entries|pods|objects|endpoints|EndpointSlices|workloads)\b`).FindString(text); m != "" {
		t.Errorf("the import says %q:\n%s", m, text)
	}
}

// TestImportNodePods: the pods a node takes (status.allocatable.pods, the kubelet's
// maxPods) become cluster.maxPodsPerNode: the most common value, capped at the addresses
// of a scenario node's pod range, each with a note; none read, the scenario's default.
func TestImportNodePods(t *testing.T) {
	node := func(name, pods string) string {
		alloc := `"cpu":"4"`
		if pods != "" {
			alloc += `,"pods":"` + pods + `"`
		}
		return `{"kind":"Node","metadata":{"name":"` + name + `","labels":{"topology.kubernetes.io/zone":"a"}},"status":{"allocatable":{` + alloc + `}}}` + "\n"
	}
	for _, tc := range []struct {
		name, nodes string
		want        int
		written     bool
		note        string // "" for none
	}{
		{"AKS-like 30", node("n0", "30") + node("n1", "30"), 30, true, ""},
		{"mixed", node("n0", "110") + node("n1", "58") + node("n2", "110"), 110, true,
			"nodes take 2 different numbers of pods (status.allocatable.pods); every node takes the most common, 110"},
		{"over the range", node("n0", "256"), 250, true,
			"nodes take 256 pods (status.allocatable.pods); the simulator's nodes hand out at most 250 pod addresses: maxPodsPerNode 250"},
		{"none given", node("n0", "") + node("n1", "bad"), scenarios.DefaultMaxPodsPerNode, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, sc := importText(t, tc.nodes+`{"kind":"Service","metadata":{"name":"web","namespace":"a"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`)
			if got := sc.Config.Cluster.MaxPodsPerNode; got != tc.want {
				t.Errorf("maxPodsPerNode %d; want %d\n%s", got, tc.want, res.YAML)
			}
			if got := bytes.Contains(res.YAML, []byte("maxPodsPerNode:")); got != tc.written {
				t.Errorf("maxPodsPerNode written: %v; want %v\n%s", got, tc.written, res.YAML)
			}
			var podNotes []string
			for _, n := range res.Notes {
				if strings.Contains(n, "allocatable.pods") {
					podNotes = append(podNotes, n)
				}
			}
			if tc.note == "" && len(podNotes) > 0 || tc.note != "" && !slices.Contains(podNotes, tc.note) {
				t.Errorf("notes %q; want %q", podNotes, tc.note)
			}
		})
	}
	if maxNodePods != sim.NodePodAddresses {
		t.Errorf("maxNodePods %d, the simulator's %d", maxNodePods, sim.NodePodAddresses)
	}
}
