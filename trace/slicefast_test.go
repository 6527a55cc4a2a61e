package trace

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"epsim/model"
)

// readSlices reads every event of data with a SliceReader, fast or not (see drain).
func readSlices(t *testing.T, r io.Reader, fast bool) []any {
	t.Helper()
	sr := newSliceReader(r, "input", fast)
	return drain(t, sr.Next, sr.Stats)
}

// checkSlicesSameAsDecoder fails unless a fast SliceReader reads data as one decoding
// every event with encoding/json does.
func checkSlicesSameAsDecoder(t *testing.T, data []byte) {
	t.Helper()
	sameResults(t, data, readSlices(t, bytes.NewReader(data), true), readSlices(t, bytes.NewReader(data), false), describeSlice)
}

func describeSlice(v any) string {
	if ev, ok := v.(SliceEvent); ok && ev.Slice != nil {
		return fmt.Sprintf("%s at %v: %+v", ev.Type, ev.At, *ev.Slice)
	}
	return fmt.Sprintf("%+v", v)
}

// sliceStream is a watch stream of slices as kubectl prints it (recorded, when times are
// given, as 'sim record' writes it: compact, one event a line, with its time).
func sliceStream(t *testing.T, times bool, slices ...*discoveryv1.EndpointSlice) []byte {
	var b bytes.Buffer
	for i, s := range slices {
		typ := model.EventAdded
		if i > 0 {
			typ = model.EventModified
		}
		if times {
			w := NewWriter(&b)
			if err := w.Write(time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), typ, s); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := WriteWatchEvent(&b, typ, s); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// sampleSlices are real slices: the controller's, with hints, targetRefs, hostnames,
// managedFields shown, a mirrored one.
func sampleSlices() []*discoveryv1.EndpointSlice {
	a := realSlice("web-abcde", "web", 5, nil)
	b := realSlice("web-abcde", "web", 7, nil)
	host, zone := "web-0", "zone-b"
	b.Endpoints[0].Hostname = &host
	b.Endpoints[1].TargetRef = &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-0", UID: "u-1", ResourceVersion: "7"}
	b.Endpoints[2].Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: zone}}, ForNodes: []discoveryv1.ForNode{{Name: "n1"}}}
	b.Endpoints[3].DeprecatedTopology = map[string]string{"kubernetes.io/hostname": "n1"}
	ft := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC))
	b.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "endpointslice-controller", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "discovery.k8s.io/v1", Time: &ft, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:endpoints":{},"f:ports":{}}`)}}}
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))
	c := realSlice("db-xyz12", "db", 2, map[string]string{model.LabelHeadless: ""})
	c.DeletionTimestamp = &now
	d := realSlice("legacy-q1w2e", "legacy", 1, map[string]string{model.LabelManagedBy: model.MirroringControllerName})
	return []*discoveryv1.EndpointSlice{a, b, c, d}
}

// sliceEvent is a watch event of a slice whose fields are filled in by the caller.
func sliceEvent(meta, rest string) string {
	return `{"type":"MODIFIED","object":{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"name":"s-1","namespace":"n","creationTimestamp":"2026-01-01T00:00:00Z"` + meta + `},"addressType":"IPv4"` + rest + `}}`
}

var sliceCases = map[string]string{
	"plain":              sliceEvent(``, `,"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true}}],"ports":[{"port":80}]`),
	"nulls":              sliceEvent(`,"labels":null,"annotations":null,"ownerReferences":null,"managedFields":null,"generateName":null`, `,"endpoints":[null,{"addresses":null,"conditions":null,"hostname":null,"targetRef":null,"deprecatedTopology":null,"nodeName":null,"zone":null,"hints":null}],"ports":[null,{"name":null,"protocol":null,"port":null,"appProtocol":null}]`),
	"empties":            sliceEvent(`,"labels":{},"ownerReferences":[],"managedFields":[]`, `,"endpoints":[{"addresses":[],"conditions":{},"hints":{"forZones":[],"forNodes":null}}],"ports":[]`),
	"managed fields":     sliceEvent(`,"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:a" : { }},"subresource":"s"},{"fieldsV1":null,"time":null},{"fieldsV1":"x"},{"fieldsV1":[1, 2.5e3]}]`, ``),
	"managed time bad":   sliceEvent(`,"managedFields":[{"time":"yesterday"}]`, ``),
	"owners":             sliceEvent(`,"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"s","uid":"u","controller":null,"blockOwnerDeletion":false}]`, ``),
	"owner bad bool":     sliceEvent(`,"ownerReferences":[{"controller":"yes"}]`, ``),
	"escapes":            sliceEvent(`,"generateName":"s\u002d","labels":{"a\n":"b\""}`, `,"endpoints":[{"addresses":["10.0.0.\u0031"],"nodeName":"n\u00e9","targetRef":{"name":"p\t"}}]`),
	"port big":           sliceEvent(``, `,"ports":[{"port":2147483648}]`),
	"port negative":      sliceEvent(``, `,"ports":[{"port":-1}]`),
	"port float":         sliceEvent(``, `,"ports":[{"port":80.0}]`),
	"ready string":       sliceEvent(``, `,"endpoints":[{"conditions":{"ready":"true"}}]`),
	"target ref array":   sliceEvent(``, `,"endpoints":[{"targetRef":[]}]`),
	"hints zone string":  sliceEvent(``, `,"endpoints":[{"hints":{"forZones":["z"]}}]`),
	"topology number":    sliceEvent(``, `,"endpoints":[{"deprecatedTopology":{"a":1}}]`),
	"addresses object":   sliceEvent(``, `,"endpoints":[{"addresses":{}}]`),
	"duplicate":          sliceEvent(``, `,"addressType":"IPv6"`),
	"duplicate endpoint": sliceEvent(``, `,"endpoints":[{"zone":"a","zone":"b"}]`),
	"folded key":         sliceEvent(``, `,"Endpoints":[]`),
	"escaped key":        sliceEvent(``, `,"endp\u006fints":[]`),
	"trigger time":       sliceEvent(`,"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"2026-01-01T00:00:07.25Z"}`, ``),
	"trigger time bad":   sliceEvent(`,"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"soon"}`, ``),
	"deleting":           sliceEvent(`,"deletionTimestamp":"2026-01-01T00:00:09Z"`, ``),
	"other manager":      sliceEvent(`,"labels":{"endpointslice.kubernetes.io/managed-by":"someone"}`, ``),
	"pod":                `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"p"}}}`,
	"bookmark":           `{"type":"BOOKMARK","object":{"kind":"EndpointSlice","metadata":{"resourceVersion":"9"}}}`,
	"list":               `{"kind":"EndpointSliceList","items":[]}`,
	"truncated":          sliceEvent(``, ``)[:80],
	"syntax":             sliceEvent(``, `,}`),
	"after an error":     sliceEvent(``, ``) + sliceEvent(`,"labels":{"a":1}`, ``) + sliceEvent(``, ``),
	"deep":               sliceEvent(`,"x":`+strings.Repeat("[", 600)+strings.Repeat("]", 600), ``),
}

func TestSliceFastPathSameAsDecoder(t *testing.T) {
	for name, in := range sliceCases {
		t.Run(name, func(t *testing.T) { checkSlicesSameAsDecoder(t, []byte(in)) })
	}
	for _, times := range []bool{false, true} {
		data := sliceStream(t, times, sampleSlices()...)
		t.Run(fmt.Sprintf("samples, recorded %v", times), func(t *testing.T) {
			checkSlicesSameAsDecoder(t, data)
			for _, n := range []int{1, 517, len(data) / 3, len(data) - 2} {
				checkSlicesSameAsDecoder(t, data[:n])
			}
		})
	}
}

// TestSliceFastPathTakesSamples checks that the parser decodes, rather than hands on, real
// slices in both formats and the cases it should, and refuses what it must.
func TestSliceFastPathTakesSamples(t *testing.T) {
	taken := func(in []byte) (n int, ok bool) {
		s := newFramedStream(bytes.NewReader(in), "in")
		for {
			raw, err := s.nextRaw()
			if err == io.EOF {
				return n, true
			}
			if err != nil {
				return n, false
			}
			if _, _, ok := decodeSliceEvent(raw, newDecodeCache()); !ok {
				return n, false
			}
			n++
		}
	}
	for _, times := range []bool{false, true} {
		if n, ok := taken(sliceStream(t, times, sampleSlices()...)); !ok || n != 4 {
			t.Errorf("samples (recorded %v): %d taken, want all 4", times, n)
		}
	}
	for _, name := range []string{"plain", "nulls", "empties", "managed fields", "owners", "escapes", "port negative",
		"trigger time", "trigger time bad", "deleting", "other manager"} {
		if _, ok := taken([]byte(sliceCases[name])); !ok {
			t.Errorf("%s: refused, want taken", name)
		}
	}
	for _, name := range []string{"managed time bad", "owner bad bool", "port big", "port float", "ready string",
		"target ref array", "hints zone string", "topology number", "addresses object", "duplicate", "duplicate endpoint",
		"folded key", "escaped key", "pod", "bookmark", "deep"} {
		if _, ok := taken([]byte(sliceCases[name])); ok {
			t.Errorf("%s: taken, want refused", name)
		}
	}
}

// FuzzSliceFastPath compares a fast SliceReader with one decoding every event with
// encoding/json, on any input.
func FuzzSliceFastPath(f *testing.F) {
	for _, in := range sliceCases {
		if len(in) < 4000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSlicesSameAsDecoder(t, data) })
}
