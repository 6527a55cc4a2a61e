package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readListsBoth reads data as Services and as Nodes, fast or not: the objects, then the
// error that ended the stream (an *InputError as a value) and the stats, of each.
func readListsBoth(r func() io.Reader, fast bool) []any {
	var out []any
	result := func(objs any, stats *Stats, err error) {
		out = append(out, objs)
		var ie *InputError
		if errors.As(err, &ie) {
			out = append(out, *ie)
		}
		if err != nil {
			out = append(out, "error "+err.Error())
		}
		out = append(out, stats)
	}
	result(readObjects(r(), "services.json", serviceType, serviceFromJSON, fast))
	result(readObjects(r(), "nodes.json", nodeType, nodeFromJSON, fast))
	return out
}

// checkListsSameAsDecoder fails unless the fast readers of Services and Nodes read data as
// the ones decoding with encoding/json alone do.
func checkListsSameAsDecoder(t *testing.T, data []byte) {
	t.Helper()
	in := func() io.Reader { return bytes.NewReader(data) }
	fast, slow := readListsBoth(in, true), readListsBoth(in, false)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("input %.300q\nfast:    %s\ndecoder: %s", data, describeAll(fast), describeAll(slow))
	}
}

func describeAll(vs []any) string {
	var b strings.Builder
	for _, v := range vs {
		switch v := v.(type) {
		case *Stats:
			if v != nil {
				fmt.Fprintf(&b, "\n  stats %+v", *v)
			}
		default:
			b.WriteString("\n  ")
			b.WriteString(strings.TrimPrefix(fmt.Sprintf("%+v", v), "&"))
		}
	}
	return b.String()
}

// service and node are list items whose fields are filled in by the caller.
func service(meta, spec string) string {
	return `{"apiVersion":"v1","kind":"Service","metadata":{` + meta + `},"spec":{` + spec + `},"status":{"loadBalancer":{}}}`
}

func node(meta, status string) string {
	return `{"apiVersion":"v1","kind":"Node","metadata":{` + meta + `},"spec":{"podCIDR":"10.1.0.0/24"},"status":{` + status + `}}`
}

func list(items ...string) string {
	return `{"apiVersion":"v1","items":[` + strings.Join(items, ",") + `],"kind":"List","metadata":{"resourceVersion":""}}`
}

const (
	okServiceMeta = `"name":"web","namespace":"shop","uid":"u1","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"web"},"annotations":{"service.kubernetes.io/topology-mode":"Auto"}`
	okServiceSpec = `"selector":{"app":"web"},"clusterIP":"10.96.0.10","type":"ClusterIP","ipFamilies":["IPv4"],"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080},{"name":"m","port":9090,"targetPort":"metrics","appProtocol":"http"}]`
	okNodeMeta    = `"name":"n1","labels":{"topology.kubernetes.io/zone":"z1","topology.kubernetes.io/region":"r","node-role.kubernetes.io/control-plane":""}`
	okNodeStatus  = `"capacity":{"cpu":"16","memory":"64Gi"},"allocatable":{"cpu":"15890m","pods":"110"},"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True","reason":"KubeletReady"}],"images":[{"names":["a@sha256:00"],"sizeBytes":5}]`
)

// listCases are inputs at each point where the parser must refuse or must agree with
// encoding/json on a subtle rule.
var listCases = map[string]string{
	"services":                list(service(okServiceMeta, okServiceSpec), service(`"name":"b"`, `"selector":null,"ports":null`)),
	"nodes":                   list(node(okNodeMeta, okNodeStatus), node(`"name":"n2"`, `"conditions":null`)),
	"both kinds":              list(service(okServiceMeta, okServiceSpec), node(okNodeMeta, okNodeStatus)),
	"typed list":              `{"kind":"ServiceList","items":[{"metadata":{"name":"a"},"spec":{}}]}`,
	"kind first":              `{"kind":"List","apiVersion":"v1","items":[` + service(okServiceMeta, okServiceSpec) + `]}`,
	"no items":                `{"kind":"ServiceList"}`,
	"items null":              `{"kind":"List","items":null}`,
	"items empty":             `{"kind":"List","items":[]}`,
	"items only":              `{"items":[` + node(okNodeMeta, okNodeStatus) + `]}`,
	"items object":            `{"kind":"List","items":{}}`,
	"items twice":             `{"kind":"List","items":[],"items":[` + node(okNodeMeta, ``) + `]}`,
	"items folded":            `{"kind":"List","Items":[` + node(okNodeMeta, ``) + `]}`,
	"items escaped":           `{"kind":"List","\u0069tems":[` + node(okNodeMeta, ``) + `]}`,
	"bare":                    service(okServiceMeta, okServiceSpec) + "\n" + node(okNodeMeta, okNodeStatus),
	"bare with items":         `{"kind":"Service","metadata":{"name":"a"},"items":[` + node(okNodeMeta, ``) + `]}`,
	"bare with bad items":     `{"kind":"Node","metadata":{"name":"a"},"items":5}`,
	"other kind":              `{"kind":"Pod","metadata":{"name":"p"}}`,
	"no kind":                 `{"metadata":{"name":"p"}}`,
	"kind number":             `{"kind":5,"items":[]}`,
	"kind null":               `{"kind":null,"items":[]}`,
	"api version number":      `{"apiVersion":1,"kind":"List","items":[]}`,
	"item api version number": list(`{"apiVersion":1,"kind":"Node","metadata":{"name":"a"}}`),
	"item api version null":   list(`{"apiVersion":null,"kind":"Node","metadata":{"name":"a"}}`),
	"item kind number":        list(`{"kind":1,"metadata":{"name":"a"}}`),
	"item no kind":            list(`{"metadata":{"name":"a"},"spec":{"clusterIP":"1.2.3.4"},"status":{"allocatable":{"cpu":"1"}}}`),
	"item null":               list(`null`, node(okNodeMeta, ``)),
	"item string":             list(`"x"`),
	"item array":              list(`[]`),
	"item other kind":         list(`{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[]},"status":{"phase":"Running"}}`, service(okServiceMeta, okServiceSpec)),
	"item nested list":        list(list(service(okServiceMeta, okServiceSpec))),
	"watch event":             `{"type":"ADDED","object":` + service(okServiceMeta, okServiceSpec) + `}`,
	"watch event of a list":   `{"type":"ADDED","kind":"List"}`,
	"duplicate kind":          `{"kind":"List","kind":"Service","metadata":{"name":"a"}}`,
	"duplicate field":         list(service(`"name":"a","name":"b"`, ``)),
	"folded field":            list(service(`"Name":"a"`, `"ClusterIP":"1.2.3.4"`)),
	"escaped field":           list(service(`"n\u0061me":"a"`, ``)),
	"escapes":                 list(service(`"name":"a\u0062","annotations":{"k\"":"v\\","x":"\ud800"}`, `"selector":{"a\n":"b"}`)),
	"invalid utf8":            list(service("\"name\":\"a\xff\",\"labels\":{\"a\xfe\":\"b\"}", ``)),
	"null values":             list(service(`"name":null,"labels":null,"annotations":null,"deletionTimestamp":null`, `"selector":{"a":null},"clusterIP":null,"type":null,"publishNotReadyAddresses":null,"trafficDistribution":null,"internalTrafficPolicy":null,"ipFamilies":[null],"ports":[null,{"name":null,"port":null,"targetPort":null,"appProtocol":null}]`), node(`"labels":{"topology.kubernetes.io/zone":null}`, `"capacity":null,"allocatable":{"cpu":null},"conditions":[null,{"type":null}]`)),
	"empty values":            list(service(`"labels":{},"annotations":{}`, `"selector":{},"ipFamilies":[],"ports":[]`), node(`"labels":{}`, `"capacity":{},"allocatable":{},"conditions":[]`)),
	"deleting":                list(service(`"name":"a","deletionTimestamp":"2026-01-02T03:04:05Z","deletionGracePeriodSeconds":0`, ``)),
	"traffic distribution":    list(service(`"name":"a"`, `"trafficDistribution":"PreferClose","publishNotReadyAddresses":true,"type":"ExternalName"`)),
	"traffic policy":          list(service(`"name":"a"`, `"internalTrafficPolicy":"Local","externalTrafficPolicy":"Local"`), service(`"name":"b"`, `"internalTrafficPolicy":"Cluster"`)),
	"reachable from outside":  list(service(`"name":"a"`, `"internalTrafficPolicy":"Local","type":"NodePort"`), service(`"name":"b"`, `"internalTrafficPolicy":"Local","externalIPs":["192.0.2.1"]`), service(`"name":"c"`, `"internalTrafficPolicy":"Local","externalIPs":[]`)),
	"external ips null":       list(service(`"name":"a"`, `"externalIPs":null`), service(`"name":"b"`, `"externalIPs":[null]`)),
	"external ips bad":        list(service(`"name":"a"`, `"externalIPs":"192.0.2.1"`)),
	"dual stack":              list(service(`"name":"a"`, `"ipFamilies":["IPv6","IPv4"],"ports":[{"port":53,"protocol":"UDP"}]`)),
	"target port float":       list(service(``, `"ports":[{"port":80,"targetPort":80.5}]`)),
	"target port big":         list(service(``, `"ports":[{"port":80,"targetPort":2147483648}]`)),
	"target port object":      list(service(``, `"ports":[{"port":80,"targetPort":{}}]`)),
	"target port escaped":     list(service(``, `"ports":[{"port":80,"targetPort":"h\u0074tp"}]`)),
	"port float":              list(service(``, `"ports":[{"port":80.0}]`)),
	"port string":             list(service(``, `"ports":[{"port":"80"}]`)),
	"port big":                list(service(``, `"ports":[{"port":2147483648}]`)),
	"port negative zero":      list(service(``, `"ports":[{"port":-0}]`)),
	"selector number":         list(service(``, `"selector":{"a":1}`)),
	"spec array":              list(service(``, ``)[:0] + `{"kind":"Service","spec":[]}`),
	"bool string":             list(service(``, `"publishNotReadyAddresses":"true"`)),
	"cpu number":              list(node(okNodeMeta, `"allocatable":{"cpu":2}`)),
	"cpu bad":                 list(node(okNodeMeta, `"allocatable":{"cpu":"two"}`)),
	"cpu exponent":            list(node(okNodeMeta, `"allocatable":{"cpu":"1e3","memory":" 5Gi "}`)),
	"cpu escaped":             list(node(okNodeMeta, `"allocatable":{"c\u0070u":"2"}`)),
	"cpu twice":               list(node(okNodeMeta, `"allocatable":{"cpu":"2","cpu":"3"}`)),
	"conditions object":       list(node(okNodeMeta, `"conditions":{}`)),
	"bad time":                list(node(`"name":"a","creationTimestamp":"yesterday"`, ``)),
	"managed fields":          list(node(`"name":"a","managedFields":[{"manager":"kubelet","operation":"Update","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{}}}]`, ``)),
	"owners":                  list(node(`"name":"a","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"u","controller":true}]`, ``)),
	"two lists":               list(service(okServiceMeta, okServiceSpec)) + "\n" + list(node(okNodeMeta, okNodeStatus)),
	"after an error":          list(service(`"name":1`, ``)) + list(service(okServiceMeta, okServiceSpec)),
	"deep":                    list(node(`"x":`+strings.Repeat("[", 300)+strings.Repeat("]", 300), ``)),
	"deeper":                  list(node(`"x":`+strings.Repeat("[", 600)+strings.Repeat("]", 600), ``)),
	"too deep":                list(node(`"x":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001), ``)),
	"truncated":               list(service(okServiceMeta, okServiceSpec))[:150],
	"syntax":                  list(service(`"name":"a",`, ``)),
	"syntax in a later item":  list(service(okServiceMeta, okServiceSpec), `{"kind":"Service" "x"}`),
	"bad literal":             list(node(`"labels":nul`, ``)),
	"trailing":                list() + ` x`,
	"extra bracket":           list() + `}`,
	"array":                   `[` + list() + `]`,
	"string value":            `"x"`,
	"whitespace":              " \t\r\n",
	"empty":                   ``,
}

func TestListFastPathSameAsDecoder(t *testing.T) {
	for name, in := range listCases {
		t.Run(name, func(t *testing.T) { checkListsSameAsDecoder(t, []byte(in)) })
	}
	checkSamplesAndCuts(t, []string{"replay-services.json", "replay-nodes.json", "import-services.json", "import-nodes.json"}, checkListsSameAsDecoder)
}

// TestListFastPathTakesSamples checks that the parser decodes, rather than hands on, the
// sample lists (kubectl output with managedFields, images and unknown fields) and the cases
// it should, and refuses what it must: so that the differential test above cannot pass by
// refusing everything.
func TestListFastPathTakesSamples(t *testing.T) {
	taken := func(in []byte) bool {
		s, n := newFramedStream(bytes.NewReader(in), "in"), 0
		l := &listReader[serviceJSON]{objectType: serviceType, s: s}
		ln := &listReader[nodeJSON]{objectType: nodeType, s: s}
		for {
			raw, err := s.nextRaw()
			if err == io.EOF {
				return n > 0
			}
			if err != nil || !l.fastValue(raw) || !ln.fastValue(raw) {
				return false
			}
			n++
		}
	}
	for _, name := range []string{"replay-services.json", "replay-nodes.json", "import-services.json", "import-nodes.json"} {
		data, err := os.ReadFile(sampleDir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !taken(data) {
			t.Errorf("%s: refused, want taken", name)
		}
	}
	for _, name := range []string{"services", "nodes", "both kinds", "typed list", "kind first", "no items", "items null",
		"items empty", "items only", "bare", "bare with items", "other kind", "no kind", "kind null", "item api version null",
		"item no kind", "item nested list", "escapes", "invalid utf8", "null values", "empty values", "deleting",
		"traffic distribution", "dual stack", "target port escaped", "port negative zero", "cpu exponent", "cpu escaped",
		"cpu twice", "cpu number", "managed fields", "owners", "two lists", "deep"} {
		if !taken([]byte(listCases[name])) {
			t.Errorf("%s: refused, want taken", name)
		}
	}
	for _, name := range []string{"items object", "items twice", "items folded", "items escaped", "kind number",
		"api version number", "item api version number", "item kind number", "item null", "item string", "watch event",
		"duplicate kind", "duplicate field", "folded field", "escaped field", "target port float", "target port big",
		"target port object", "port float", "port string", "port big", "selector number", "bool string", "cpu bad", "conditions object", "bad time", "deeper", "too deep"} {
		if taken([]byte(listCases[name])) {
			t.Errorf("%s: taken, want refused", name)
		}
	}
}

// TestListsReadInSmallPieces reads a sample list a byte at a time, and across a read
// error: framing across reads, and an I/O error told as before.
func TestListsReadInSmallPieces(t *testing.T) {
	data, err := os.ReadFile(sampleDir + "/import-nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	slow := readListsBoth(func() io.Reader { return bytes.NewReader(data) }, false)
	fast := readListsBoth(func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) }, true)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("read a byte at a time:\nfast:    %s\ndecoder: %s", describeAll(fast), describeAll(slow))
	}
	broken := func() io.Reader {
		return io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(errors.New("disk on fire")))
	}
	fast, slow = readListsBoth(broken, true), readListsBoth(broken, false)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("read error:\nfast:    %s\ndecoder: %s", describeAll(fast), describeAll(slow))
	}
	if !strings.Contains(describeAll(fast), "disk on fire") {
		t.Fatalf("read error not told: %s", describeAll(fast))
	}
}

// TestListStreamSizedToTheFile reads a list from a file: the stream's buffer is made the
// file's size at once, not doubled up to it.
func TestListStreamSizedToTheFile(t *testing.T) {
	path := t.TempDir() + "/nodes.json"
	var items []string
	for i := range 300 {
		items = append(items, node(fmt.Sprintf(`"name":"n%d"`, i), okNodeStatus))
	}
	data := []byte(list(items...))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := newListStream(f, path)
	raw, err := s.nextRaw()
	if err != nil || len(raw) != len(data) {
		t.Fatalf("read %d bytes, %v; want %d", len(raw), err, len(data))
	}
	if c := cap(s.buf); c < len(data) || c > len(data)+bytes.MinRead {
		t.Fatalf("buffer of %d bytes for a file of %d", c, len(data))
	}
}

// FuzzListFastPath compares the fast readers of Services and Nodes with ones decoding
// with encoding/json alone, on any input.
func FuzzListFastPath(f *testing.F) {
	seeds(f, "replay-services.json", "replay-nodes.json", "import-nodes.json")
	for _, in := range listCases {
		if len(in) < 4000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkListsSameAsDecoder(t, data) })
}
