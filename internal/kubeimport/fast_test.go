package kubeimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"epsim/internal/jsonparse"
)

// readBoth reads data with the fast decoders and with encoding/json alone.
func readBoth(data []byte) (fast, slow result) {
	in := func() []Input { return []Input{{Name: "in.json", R: bytes.NewReader(data)}} }
	return newResult(readWith(in(), true)), newResult(readWith(in(), false))
}

// result is what a read gave: its objects, or its error.
type result struct {
	o   *objects
	err string
}

func newResult(o *objects, err error) result {
	if err != nil {
		return result{err: err.Error()}
	}
	return result{o: o}
}

// String shows a result with its pointers followed.
func (r result) String() string {
	if r.o == nil {
		return "error " + r.err
	}
	b, _ := json.Marshal([]any{r.o.nodes, r.o.services, r.o.workloads, r.o.endpoints, r.o.slices, r.o.skipped})
	return string(b)
}

// checkSameAsDecoder fails unless the fast decoders read data as encoding/json alone does.
func checkSameAsDecoder(t *testing.T, data []byte) {
	t.Helper()
	if fast, slow := readBoth(data); !reflect.DeepEqual(fast, slow) {
		t.Fatalf("input %.300q\nfast:    %.2000s\ndecoder: %.2000s", data, fast, slow)
	}
}

func list(items ...string) string {
	return `{"apiVersion":"v1","items":[` + strings.Join(items, ",") + `],"kind":"List","metadata":{"resourceVersion":""}}`
}

const (
	okNode       = `{"kind":"Node","metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z1"},"annotations":{"a":"b"}},"spec":{"podCIDR":"10.0.0.0/24"},"status":{"allocatable":{"cpu":"3920m","pods":"110"},"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"2026-01-01T00:00:00Z"},null,{"type":null}],"images":[{"names":["x"],"sizeBytes":1}]}}`
	okService    = `{"kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"type":"ClusterIP","selector":{"app":"web"},"clusterIP":"10.96.0.1","ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080},{"port":9090,"targetPort":"metrics","appProtocol":"http"}],"ipFamilies":["IPv4"],"publishNotReadyAddresses":true,"trafficDistribution":"PreferClose"}}`
	okDeployment = `{"kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":3,"minReadySeconds":5,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","ports":[{"name":"metrics","containerPort":9090,"protocol":"TCP"}]}],"initContainers":[{"name":"proxy","restartPolicy":"Always","ports":[{"name":"proxy","containerPort":15001}]},{"name":"init","restartPolicy":null,"ports":null}]}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":0}}},"status":{"replicas":3}}`
	okSet        = `{"kind":"StatefulSet","metadata":{"name":"db"},"spec":{"replicas":null,"serviceName":"db-h","podManagementPolicy":"Parallel","updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1}},"template":{"metadata":{"labels":{"app":"db"}}}}}`
	okDaemonSet  = `{"kind":"DaemonSet","metadata":{"name":"agent"},"spec":{"updateStrategy":{"rollingUpdate":null}},"status":{"desiredNumberScheduled":12}}`
	okEndpoints  = `{"kind":"Endpoints","metadata":{"name":"ext"},"subsets":[{"addresses":[{"ip":"1.2.3.4"},null],"notReadyAddresses":[{"ip":"1.2.3.5","nodeName":"n"}]},null]}`
	okReplicaSet = `{"kind":"ReplicaSet","metadata":{"name":"web-5d8f","namespace":"shop","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u","controller":true,"blockOwnerDeletion":true},{"kind":"X","controller":null},null]},"spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"web","pod-template-hash":"5d8f"}}}}}`
	okSlice      = `{"kind":"EndpointSlice","metadata":{"name":"ext-1"},"addressType":"IPv4","endpoints":[{"addresses":["1.2.3.4"],"conditions":{"ready":true}},{"addresses":null}],"ports":[{"name":"http","port":8080,"protocol":"TCP","appProtocol":"http"},{"port":null,"name":null},null]}`
)

// fastCases are inputs at each point where the fast decoders must refuse or must agree
// with encoding/json on a subtle rule; the bool says whether the fast way takes them whole.
var fastCases = map[string]struct {
	in    string
	taken bool
}{
	"all kinds":            {list(okNode, okService, okDeployment, okSet, okDaemonSet, okEndpoints, okSlice, okReplicaSet), true},
	"bare objects":         {okNode + "\n" + okService + " " + okEndpoints, true},
	"other kinds":          {list(`{"kind":"Pod","metadata":{"name":"p"}}`, `{"kind":"ConfigMap","data":{"a":"b"}}`, okNode), true},
	"no kind":              {`{"metadata":{"name":"x"}}`, true},
	"typed list":           {`{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n1"}}]}`, true},
	"typed list kind last": {`{"items":[{"metadata":{"name":"n1"}}],"kind":"NodeList"}`, false},
	"list no kind":         {`{"items":[` + okNode + `]}`, true},
	"items null":           {`{"kind":"List","items":null}`, true},
	"items null no list":   {`{"kind":"Node","items":null,"metadata":{"name":"n"}}`, true},
	"no items":             {`{"kind":"ServiceList"}`, true},
	"nested lists":         {list(list(list(list(okNode)))), true},
	"nested too deep":      {list(list(list(list(list(list(okNode)))))), false},
	"list at depth 4":      {list(list(list(list(`{"kind":"List"}`)))), true},
	"list at depth 5":      {list(list(list(list(list(`{"kind":"List"}`))))), false},
	"items object":         {`{"kind":"List","items":{}}`, false},
	"item null":            {list(`null`), false},
	"item string":          {list(`"x"`), false},
	"watch event":          {`{"type":"ADDED","object":` + okNode + `}`, false},
	"typed watch":          {`{"type":"ADDED","kind":"Node","metadata":{"name":"n"}}`, true},
	"kind number":          {`{"kind":1}`, false},
	"kind twice":           {`{"kind":"Node","kind":"Service"}`, false},
	"metadata twice":       {`{"kind":"Node","metadata":{"name":"a"},"metadata":{"namespace":"b"}}`, false},
	"folded key":           {`{"kind":"Node","Metadata":{"name":"a"}}`, false},
	"escaped key":          {`{"kind":"Node","metadat\u0061":{"name":"a"}}`, false},
	"escapes":              {`{"kind":"Node","metadata":{"name":"a\u00e9","labels":{"k\n":"v\""}}}`, true},
	"nulls":                {`{"kind":"Service","metadata":null,"spec":{"selector":null,"ports":[null,{"targetPort":null,"appProtocol":null,"port":null}],"ipFamilies":[null],"trafficDistribution":null}}`, true},
	"empties":              {`{"kind":"Service","metadata":{"labels":{}},"spec":{"selector":{},"ports":[],"ipFamilies":[]}}`, true},
	"slice port float":     {`{"kind":"EndpointSlice","ports":[{"port":80.5}]}`, false},
	"port float":           {`{"kind":"Service","spec":{"ports":[{"port":80.5}]}}`, false},
	"port string":          {`{"kind":"Service","spec":{"ports":[{"port":"80"}]}}`, false},
	"target port float":    {`{"kind":"Service","spec":{"ports":[{"targetPort":1.5}]}}`, false},
	"target port big":      {`{"kind":"Service","spec":{"ports":[{"targetPort":9223372036854775808}]}}`, false},
	"target port escaped":  {`{"kind":"Service","spec":{"ports":[{"targetPort":"h\u0074tp"}]}}`, true},
	"replicas float":       {`{"kind":"Deployment","spec":{"replicas":1.0}}`, false},
	"replicas big":         {`{"kind":"Deployment","spec":{"replicas":9223372036854775807}}`, true},
	"bool string":          {`{"kind":"Service","spec":{"publishNotReadyAddresses":"true"}}`, false},
	"allocatable number":   {`{"kind":"Node","status":{"allocatable":{"cpu":4}}}`, false},
	"strategy null":        {`{"kind":"Deployment","spec":{"strategy":null}}`, true},
	"containers null":      {`{"kind":"Deployment","spec":{"template":{"spec":{"containers":[null,{"ports":null}]}}}}`, true},
	"spec array":           {`{"kind":"Deployment","spec":[]}`, false},
	"after an error":       {okNode + `{"kind":"Node","metadata":{"name":1}}` + okNode, false},
	"array":                {`[` + okNode + `]`, false},
	"number":               {`1 2`, false},
	"trailing":             {okNode + ` x`, false},
	"syntax":               {`{"kind":"Node",}`, false},
	"truncated":            {okNode[:50], false},
	"empty":                {``, true},
	"deep":                 {`{"kind":"Node","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, false},
}

func TestFastPathSameAsDecoder(t *testing.T) {
	for name, c := range fastCases {
		t.Run(name, func(t *testing.T) {
			checkSameAsDecoder(t, []byte(c.in))
			o := &objects{skipped: map[string]int{}}
			if taken := o.addFastOnly([]byte(c.in)) == len(c.in); taken != c.taken {
				t.Errorf("taken whole: %v, want %v", taken, c.taken)
			}
		})
	}
	for _, name := range sampleFiles {
		data, err := os.ReadFile(filepath.Join(sampleDir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			checkSameAsDecoder(t, data)
			o := &objects{skipped: map[string]int{}}
			if n := o.addFastOnly(data); n != len(data) {
				t.Errorf("refused at byte %d of %d: want taken whole", n, len(data))
			}
			for _, n := range []int{1, 517, len(data) / 3, len(data) - 2} {
				checkSameAsDecoder(t, data[:n])
			}
		})
	}
}

// addFastOnly adds data's values the fast way only, and returns where the first it
// refuses starts (len(data) when it takes them all).
func (o *objects) addFastOnly(data []byte) int {
	f := &fastReader{o: o}
	p := jsonparse.NewParser(data)
	for {
		p.Space()
		start := p.Offset()
		if start == len(data) {
			return start
		}
		raw, ok := p.Raw()
		if !ok || !f.value(raw) {
			return start
		}
	}
}

// TestReadBigFile reads a list from a file: the fast path reads it whole into a buffer of
// the file's size.
func TestReadBigFile(t *testing.T) {
	var items []string
	for i := range 500 {
		items = append(items, strings.Replace(okNode, `"n1"`, fmt.Sprintf(`"n%d"`, i), 1))
	}
	path := filepath.Join(t.TempDir(), "nodes.json")
	if err := os.WriteFile(path, []byte(list(items...)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := read([]Input{{Name: path, R: f}})
	if err != nil || len(o.nodes) != 500 || o.nodes[499].Metadata.Name != "n499" {
		t.Fatalf("read %v nodes, %v", o, err)
	}
	if !reflect.DeepEqual(o.nodes[7].Status.Allocatable, map[string]string{"cpu": "3920m", "pods": "110"}) {
		t.Fatalf("node 7: %+v", o.nodes[7])
	}
}

// FuzzReadFastPath compares the fast decoders with encoding/json alone on any input.
func FuzzReadFastPath(f *testing.F) {
	for _, c := range fastCases {
		if len(c.in) < 4000 {
			f.Add([]byte(c.in))
		}
	}
	for _, name := range sampleFiles {
		if data, err := os.ReadFile(filepath.Join(sampleDir, name)); err == nil && len(data) < 20000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSameAsDecoder(t, data) })
}

// TestReadErrorsSayWhere: a syntax error names its byte and line in the input, a value cut
// short names where it starts, both ways of reading.
func TestReadErrorsSayWhere(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"kind\":\"Node\"}\n\n  {\"kind\": \"Node\",, }", "invalid character ',' looking for beginning of object key string (byte 35, line 3)"},
		{list(okNode, okService) + "\n" + list(`{"kind":"Node" "x"}`), fmt.Sprintf("(byte %d, line 2)", len(list(okNode, okService))+1+strings.Index(list(`{"kind":"Node" "x"}`), `"x"`))},
		{okNode + " x", fmt.Sprintf("(byte %d, line 1)", len(okNode)+1)},
		{okNode + "\n" + okNode[:40], fmt.Sprintf("unexpected EOF (the input ends inside the value that starts at byte %d, line 2)", len(okNode)+1)},
	} {
		for _, fast := range []bool{true, false} {
			_, err := readWith([]Input{{Name: "in.json", R: strings.NewReader(c.in)}}, fast)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%.60q (fast %v): %v, want it to say %q", c.in, fast, err, c.want)
			}
		}
	}
}
