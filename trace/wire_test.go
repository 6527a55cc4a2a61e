package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// checkWire decodes raw as each kind, with the real k8s.io/api type and the oracle
// conversion, and with the package's own type and conversion. Where the real type takes the
// object, the package's must too and give the same model objects, times, labels and
// resourceVersion, and, for a pod, the same trimmed JSON; where the package's refuses it,
// the real type must refuse it too (the package skips fields it does not read, so it may
// take an object the real type refuses for a malformed field it never reads).
func checkWire(t *testing.T, raw []byte) {
	t.Helper()
	// Pod.
	var ap corev1.Pod
	var wp podJSON
	if check(t, "Pod", raw, &ap, &wp) {
		same(t, "Pod", raw, oraclePodFromAPI(&ap), podFromJSON(&wp))
		same(t, "Pod labels", raw, ap.Labels, wp.Metadata.Labels)
		same(t, "Pod resourceVersion", raw, ap.ResourceVersion, wp.Metadata.ResourceVersion)
		sameTime(t, "Pod time", raw, oraclePodTime(&ap).UnixNano(), podTime(&wp).UnixNano())
		sameTime(t, "Pod creation", raw, ap.CreationTimestamp.UnixNano(), wp.Metadata.CreationTimestamp.UnixNano())
		want, err1 := json.Marshal(oracleTrimPod(&ap))
		got, err2 := json.Marshal(trimPod(&wp))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s\ntrimmed pod:\n got %s (%v)\nwant %s (%v)", raw, got, err2, want, err1)
		}
	}
	// Service.
	var as corev1.Service
	var ws serviceJSON
	if check(t, "Service", raw, &as, &ws) {
		same(t, "Service", raw, oracleServiceFromAPI(&as), serviceFromJSON(&ws))
	}
	// Node.
	var an corev1.Node
	var wn nodeJSON
	if check(t, "Node", raw, &an, &wn) {
		same(t, "Node", raw, oracleNodeFromAPI(&an), nodeFromJSON(&wn))
	}
	// EndpointSlice.
	var asl discoveryv1.EndpointSlice
	var wsl sliceJSON
	if check(t, "EndpointSlice", raw, &asl, &wsl) {
		same(t, "EndpointSlice", raw, oracleSliceFromAPI(&asl), sliceFromJSON(&wsl))
		sameTime(t, "EndpointSlice time", raw, oracleSliceTime(&asl).UnixNano(), sliceTime(&wsl).UnixNano())
	}
}

// check decodes raw into the real type and into the package's; it reports whether both
// took it, and fails if only the real type refused it.
func check(t *testing.T, kind string, raw []byte, api, own any) bool {
	t.Helper()
	errAPI := json.Unmarshal(raw, api)
	errOwn := json.Unmarshal(raw, own)
	if errAPI == nil && errOwn != nil {
		t.Fatalf("%s\nas a %s: the real type takes it, ours says %v", raw, kind, errOwn)
	}
	return errAPI == nil
}

func same(t *testing.T, what string, raw []byte, want, got any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\n%s:\n got %s\nwant %s", raw, what, dump(got), dump(want))
	}
}

func sameTime(t *testing.T, what string, raw []byte, want, got int64) {
	t.Helper()
	if got != want {
		t.Fatalf("%s\n%s: got %d, want %d", raw, what, got, want)
	}
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// wireObjects returns every object of the sample files, and of a stream of watch events
// and lists, as JSON.
func wireObjects(t testing.TB, data []byte) [][]byte {
	var out [][]byte
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var v struct {
			Object json.RawMessage   `json:"object"`
			Items  []json.RawMessage `json:"items"`
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		switch {
		case v.Object != nil:
			out = append(out, v.Object)
		case v.Items != nil:
			for _, it := range v.Items {
				out = append(out, it)
			}
		default:
			out = append(out, raw)
		}
	}
	return out
}

// wireEdgeCases are objects at the edges of what the types decode: nulls, fractions of a
// second, int-or-strings, quantities, sidecars, and fields of the wrong JSON type.
var wireEdgeCases = []string{
	`{}`, `{"kind":"Pod"}`, `{"kind":"Pod","metadata":null,"spec":null,"status":null}`,
	`{"kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"7","creationTimestamp":"2026-01-01T00:00:00.5+02:00","deletionTimestamp":"2026-01-01T00:01:00Z","deletionGracePeriodSeconds":30,"labels":{"app":"a"}},` +
		`"spec":{"nodeName":"n1","hostname":"h","subdomain":"s","containers":[{"name":"c","image":"x","ports":[{"containerPort":80},{"name":"p","containerPort":81,"protocol":"UDP","hostPort":8081,"hostIP":"1.2.3.4"}],"resources":{"limits":{"cpu":"1"}}},{"name":"noports"}],` +
		`"initContainers":[{"name":"side","restartPolicy":"Always","ports":[{"containerPort":90}]},{"name":"init","ports":[{"containerPort":91}]},{"name":"side2","restartPolicy":"Always"}]},` +
		`"status":{"phase":"Running","podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.1"},{"ip":""},{"ip":"fd00::1"}],"conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2026-01-01T00:00:01Z"},{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:09Z","reason":"r","message":"m"}]}}`,
	`{"kind":"Pod","status":{"podIP":"10.0.0.2","conditions":[{"type":"Ready","status":"False","lastTransitionTime":null}]}}`,
	`{"kind":"Pod","metadata":{"creationTimestamp":""}}`, `{"kind":"Pod","metadata":{"creationTimestamp":5}}`,
	`{"kind":"Pod","metadata":{"creationTimestamp":"2026-01-01"}}`, `{"kind":"Pod","spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}`,
	`{"kind":"Pod","spec":{"containers":{}}}`, `{"kind":"Pod","spec":{"containers":[{"resources":"x"}]}}`, `{"kind":"Pod","spec":{"volumes":"x"}}`,
	`{"kind":"Pod","spec":{"initContainers":[{"restartPolicy":"Never","ports":[{"containerPort":1}]}]}}`,
	`{"kind":"Pod","Metadata":{"Name":"upper"},"SPEC":{"NodeName":"n"}}`, `{"kind":"Pod","metadata":{"name":"a","name":"b"}}`,
	`{"kind":"Service","metadata":{"name":"s","namespace":"n","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"a":"b"},"annotations":{"c":"d"}},` +
		`"spec":{"selector":{"app":"a"},"clusterIP":"10.96.0.1","type":"ClusterIP","publishNotReadyAddresses":true,"trafficDistribution":"PreferClose","internalTrafficPolicy":"Local","ipFamilies":["IPv4","IPv6"],` +
		`"ports":[{"port":80},{"name":"h","protocol":"UDP","port":53,"targetPort":5353,"appProtocol":"dns"},{"port":81,"targetPort":"http"},{"port":82,"targetPort":null},{"port":83,"targetPort":""},{"port":84,"targetPort":0}]}}`,
	`{"kind":"Service","spec":{"type":"ExternalName"},"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z"}}`,
	`{"kind":"Service","spec":{"type":"NodePort","internalTrafficPolicy":"Local","ports":[{"port":80,"nodePort":30080}]}}`,
	`{"kind":"Service","spec":{"type":"LoadBalancer","internalTrafficPolicy":"Local","externalTrafficPolicy":"Local"}}`,
	`{"kind":"Service","spec":{"internalTrafficPolicy":"Local","externalIPs":["192.0.2.1"]}}`,
	`{"kind":"Service","spec":{"internalTrafficPolicy":"Local","externalIPs":[]}}`,
	`{"kind":"Service","spec":{"ports":[{"port":80,"targetPort":1.5}]}}`, `{"kind":"Service","spec":{"ports":[{"port":80,"targetPort":99999999999}]}}`,
	`{"kind":"Service","spec":{"ports":[{"port":80,"targetPort":true}]}}`, `{"kind":"Service","spec":{"selector":null}}`,
	`{"kind":"Node","metadata":{"name":"n","labels":{"topology.kubernetes.io/zone":"z","topology.kubernetes.io/region":"r","node-role.kubernetes.io/master":""}},` +
		`"status":{"capacity":{"cpu":"4","memory":"16Gi"},"allocatable":{"cpu":"3920m","memory":"15Gi","pods":"110"},"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}]}}`,
	`{"kind":"Node","status":{"allocatable":{"cpu":"abc"}}}`, `{"kind":"Node","status":{"capacity":{"memory":"1x"}}}`, `{"kind":"Node","status":{"allocatable":{"cpu":4}}}`,
	`{"kind":"Node","status":{"allocatable":{"cpu":null}}}`, `{"kind":"Node","status":{"allocatable":{"cpu":"1.5"}}}`, `{"kind":"Node","status":{"allocatable":{"cpu":"0.0001"}}}`,
	`{"kind":"EndpointSlice","metadata":{"name":"s-1","generateName":"s-","namespace":"n","uid":"u","resourceVersion":"5","generation":3,"creationTimestamp":"2026-01-01T00:00:00Z",` +
		`"labels":{"kubernetes.io/service-name":"s"},"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"2026-01-01T00:00:05.5Z"},` +
		`"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"s","uid":"su","controller":true,"blockOwnerDeletion":true}],` +
		`"managedFields":[{"manager":"m","operation":"Update","apiVersion":"discovery.k8s.io/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:a" : {}}},{"manager":"x","fieldsV1":null}]},` +
		`"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true,"serving":true,"terminating":false},"hostname":"h","nodeName":"n1","zone":"z",` +
		`"targetRef":{"kind":"Pod","namespace":"n","name":"p","uid":"pu"},"hints":{"forZones":[{"name":"z"}],"forNodes":[{"name":"n1"}]}},{"addresses":[],"conditions":{}}],` +
		`"ports":[{"name":"http","protocol":"TCP","port":80,"appProtocol":"h2c"},{}]}`,
	`{"kind":"EndpointSlice","metadata":{"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"bad"},"deletionTimestamp":"2026-01-01T00:00:00Z"},"endpoints":null}`,
	`{"kind":"EndpointSlice","endpoints":[{"conditions":{"ready":"yes"}}]}`,
}

func TestWireMatchesAPITypes(t *testing.T) {
	var objects [][]byte
	for _, name := range []string{"replay-watch.json", "replay-services.json", "replay-nodes.json", "import-services.json",
		"import-nodes.json", "import-endpointslices.json", "import-workloads.json"} {
		b, err := os.ReadFile(sampleDir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, wireObjects(t, b)...)
	}
	// The trace Record writes: its pods are already trimmed, and trimming again changes nothing.
	b, err := os.ReadFile(sampleDir + "/replay-trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	objects = append(objects, wireObjects(t, b)...)
	for _, s := range wireEdgeCases {
		objects = append(objects, []byte(s))
	}
	kinds := map[string]int{}
	for _, raw := range objects {
		var tm typeMeta
		_ = json.Unmarshal(raw, &tm)
		kinds[tm.Kind]++
		checkWire(t, raw)
	}
	for _, k := range []string{"Pod", "Service", "Node", "EndpointSlice"} {
		if kinds[k] < 3 {
			t.Errorf("only %d %s objects checked", kinds[k], k)
		}
	}
}

// TestWireRefusesWhatAPITypesRefuse: where the readers read a field, a value the real types
// refuse is refused (the other way round from checkWire's promise).
func TestWireRefusesWhatAPITypesRefuse(t *testing.T) {
	for _, c := range []struct {
		raw string
		own any
	}{
		{`{"kind":"Pod","metadata":{"creationTimestamp":"2026-01-01"}}`, new(podJSON)},
		{`{"kind":"Pod","spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}`, new(podJSON)},
		{`{"kind":"Service","spec":{"ports":[{"port":80,"targetPort":1.5}]}}`, new(serviceJSON)},
		{`{"kind":"Node","status":{"allocatable":{"cpu":"abc"}}}`, new(nodeJSON)},
		{`{"kind":"Node","status":{"capacity":{"memory":"1x"}}}`, new(nodeJSON)},
		{`{"kind":"EndpointSlice","endpoints":[{"conditions":{"ready":"yes"}}]}`, new(sliceJSON)},
	} {
		if err := json.Unmarshal([]byte(c.raw), c.own); err == nil {
			t.Errorf("%s: taken", c.raw)
		}
	}
}

func FuzzWireMatchesAPITypes(f *testing.F) {
	for _, s := range wireEdgeCases {
		f.Add([]byte(s))
	}
	for _, name := range []string{"replay-watch.json", "replay-nodes.json", "import-endpointslices.json"} {
		b, err := os.ReadFile(sampleDir + "/" + name)
		if err != nil {
			f.Fatal(err)
		}
		objs := wireObjects(f, b)
		for _, o := range objs[:min(3, len(objs))] {
			f.Add(o)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if hugeExponent.Match(raw) {
			return // a quantity like "1e999999" takes both decoders unbounded time
		}
		checkWire(t, raw)
	})
}

// hugeExponent matches a quantity's exponent of four digits or more.
var hugeExponent = regexp.MustCompile(`[eE][+-]?[0-9]{4}`)

// TestTypeErrorsNameJSONKinds: an input's field of the wrong JSON type is reported with the
// JSON it should have been, not the reader's Go type.
func TestTypeErrorsNameJSONKinds(t *testing.T) {
	for _, c := range []struct{ object, want string }{
		{`{"kind":"Pod","spec":5}`, `Pod field "spec": expected an object, got JSON number`},
		{`{"kind":"Pod","status":{"conditions":5}}`, `Pod field "status.conditions": expected an array, got JSON number`},
		{`{"kind":"Pod","status":{"podIPs":[5]}}`, `Pod field "status.podIPs": expected an object, got JSON number`},
		{`{"kind":"Pod","spec":{"nodeName":true}}`, `Pod field "spec.nodeName": expected a string, got JSON bool`},
		{`{"kind":"Pod","spec":{"containers":[{"ports":[{"containerPort":1.5}]}]}}`, `Pod field "spec.containers.ports.containerPort": expected an integer (32-bit), got JSON number 1.5`},
	} {
		r := NewPodReader(strings.NewReader(`{"type":"ADDED","object":`+c.object+`}`), "in")
		_, err := r.Next()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "trace.") {
			t.Errorf("%s: %v, want %q", c.object, err, c.want)
		}
	}
}
