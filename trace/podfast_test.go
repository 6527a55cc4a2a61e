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

	"epsim/sim"
)

// readAll reads every event of data with a PodReader, fast or not: the events, then the
// error that ended the stream (an *InputError as a value) and the stats.
func readAll(t *testing.T, r io.Reader, fast bool) []any {
	t.Helper()
	pr := newPodReader(r, "input", fast)
	return drain(t, pr.Next, pr.Stats)
}

// drain calls next until it fails: the events, then the error (an *InputError as a
// value) and the stats.
func drain[E any](t *testing.T, next func() (E, error), stats func() *Stats) []any {
	t.Helper()
	var out []any
	for range 100000 {
		ev, err := next()
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				out = append(out, *ie)
			}
			return append(out, "error "+err.Error(), *stats())
		}
		out = append(out, ev)
	}
	t.Fatal("no end after 100,000 events")
	return nil
}

// describe prints a result of readAll, pods and identities in full.
func describe(v any) string {
	if ev, ok := v.(sim.TraceEvent); ok && ev.Pod != nil {
		pod := *ev.Pod
		ev.Pod = nil
		id := pod.PodIdentity
		pod.PodIdentity = nil
		return fmt.Sprintf("%+v pod %+v identity %+v", ev, pod, id)
	}
	return fmt.Sprintf("%+v", v)
}

// checkSameAsDecoder fails unless a fast PodReader reads data as one decoding every
// event with encoding/json does: the same events, the same error, the same stats.
func checkSameAsDecoder(t *testing.T, data []byte) {
	t.Helper()
	sameResults(t, data, readAll(t, bytes.NewReader(data), true), readAll(t, bytes.NewReader(data), false), describe)
}

// sameResults fails at the first result of a fast reader that differs from the decoder's.
func sameResults(t *testing.T, data []byte, fast, slow []any, describe func(any) string) {
	t.Helper()
	if reflect.DeepEqual(fast, slow) {
		return
	}
	for i := range max(len(fast), len(slow)) {
		var f, s any
		if i < len(fast) {
			f = fast[i]
		}
		if i < len(slow) {
			s = slow[i]
		}
		if !reflect.DeepEqual(f, s) {
			t.Fatalf("input %.300q\nresult %d differs:\nfast:    %s\ndecoder: %s", data, i, describe(f), describe(s))
		}
	}
}

// podEvent is a watch event of a pod whose fields are filled in by the caller.
func podEvent(typ, meta, spec, status string) string {
	return `{"type":"` + typ + `","object":{"kind":"Pod","apiVersion":"v1","metadata":{` + meta + `},"spec":{` + spec + `},"status":{` + status + `}}}`
}

const (
	okMeta   = `"name":"a","namespace":"ns","uid":"u1","resourceVersion":"7","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"a"}`
	okSpec   = `"nodeName":"n1","containers":[{"name":"c","ports":[{"containerPort":80,"name":"http"}]}]`
	okStatus = `"phase":"Running","podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.1"}],"conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:09Z"}]`
)

// fastCases are inputs at each point where the parser must refuse or must agree with
// encoding/json on a subtle rule.
var fastCases = map[string]string{
	"plain":              podEvent("ADDED", okMeta, okSpec, okStatus),
	"two":                podEvent("ADDED", okMeta, okSpec, okStatus) + "\n" + podEvent("MODIFIED", okMeta, okSpec, okStatus),
	"recorded":           `{"time":"2026-01-02T03:04:05.5Z",` + podEvent("ADDED", okMeta, okSpec, okStatus)[1:],
	"nulls":              podEvent("ADDED", `"name":null,"labels":null,"deletionTimestamp":null,"annotations":null,"ownerReferences":null`, `"containers":null,"initContainers":[null]`, `"conditions":[null,{"type":"Ready","status":null}],"podIPs":[null]`),
	"null label":         podEvent("ADDED", `"labels":{"a":null,"b":"c"}`, ``, ``),
	"empty label map":    podEvent("ADDED", `"labels":{}`, ``, ``),
	"escapes":            podEvent("ADDED", `"name":"a\u0062\n","labels":{"k\"":"v\\"},"annotations":{"x":"\ud800"}`, `"nodeName":"\u00e9"`, ``),
	"invalid utf8":       podEvent("ADDED", "\"name\":\"a\xff\",\"labels\":{\"a\xfe\":\"b\"}", ``, ``),
	"utf8":               podEvent("ADDED", `"name":"pödé"`, ``, ``),
	"escaped key":        podEvent("ADDED", `"n\u0061me":"x"`, ``, ``),
	"folded key":         podEvent("ADDED", `"Name":"x","NAMESPACE":"y"`, ``, ``),
	"kelvin key":         podEvent("ADDED", `"name":"x"`, ``, `"phaſe":"Running"`),
	"duplicate":          podEvent("ADDED", `"name":"x","name":"y"`, ``, ``),
	"duplicate object":   `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"},"metadata":{"uid":"b"}}}`,
	"duplicate type":     `{"type":"ADDED","type":"DELETED","object":{"kind":"Pod"}}`,
	"duplicate labels":   podEvent("ADDED", `"labels":{"a":"1"},"labels":{"b":"2"}`, ``, ``),
	"duplicate array":    podEvent("ADDED", ``, ``, `"podIPs":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],"podIPs":[{"ip":"10.0.0.3"}]`),
	"escaped bracket":    podEvent("ADDED", `"name":"a\"}]{[\\","labels":{"x":"\"{"}`, ``, ``),
	"unknown keys":       podEvent("ADDED", okMeta+`,"finalizers":["x"],"x":{"y":[1,2.5e3,-0,true,false,null,"s"]}`, okSpec+`,"volumes":[{}]`, okStatus+`,"hostIP":"1.2.3.4"`),
	"port float":         podEvent("ADDED", ``, `"containers":[{"ports":[{"containerPort":80.0}]}]`, ``),
	"port big":           podEvent("ADDED", ``, `"containers":[{"ports":[{"containerPort":2147483648}]}]`, ``),
	"port string":        podEvent("ADDED", ``, `"containers":[{"ports":[{"containerPort":"80"}]}]`, ``),
	"port negative zero": podEvent("ADDED", ``, `"containers":[{"ports":[{"containerPort":-0}]}]`, ``),
	"generation":         podEvent("ADDED", `"generation":9223372036854775807`, ``, ``),
	"generation big":     podEvent("ADDED", `"generation":9223372036854775808`, ``, ``),
	"grace":              podEvent("DELETED", okMeta+`,"deletionTimestamp":"2026-01-02T03:05:05Z","deletionGracePeriodSeconds":30`, okSpec, okStatus),
	"bad time":           podEvent("ADDED", `"creationTimestamp":"yesterday"`, ``, ``),
	"time number":        podEvent("ADDED", `"creationTimestamp":5`, ``, ``),
	"probe time bad":     podEvent("ADDED", ``, ``, `"conditions":[{"lastProbeTime":"x"}]`),
	"sidecar":            podEvent("ADDED", okMeta, `"initContainers":[{"name":"s","restartPolicy":"Always","ports":[{"containerPort":9000,"protocol":"UDP"}]}]`, okStatus),
	"resources":          podEvent("ADDED", ``, `"containers":[{"resources":{"limits":{"cpu":"1"}}}]`, ``),
	"resources string":   podEvent("ADDED", ``, `"containers":[{"resources":"x"}]`, ``),
	"owners":             podEvent("ADDED", `"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u","controller":true,"blockOwnerDeletion":null}]`, ``, ``),
	"owner bad bool":     podEvent("ADDED", `"ownerReferences":[{"controller":"yes"}]`, ``, ``),
	"managed fields":     podEvent("ADDED", `"managedFields":[{"manager":"kubelet","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{".":{}}}}]`, ``, ``),
	"metadata string":    `{"type":"ADDED","object":{"kind":"Pod","metadata":"x"}}`,
	"metadata null":      `{"type":"ADDED","object":{"kind":"Pod","metadata":null}}`,
	"service":            `{"type":"ADDED","object":{"kind":"Service","metadata":{"name":"s"}}}`,
	"no kind":            `{"type":"ADDED","object":{"metadata":{"name":"s"}}}`,
	"object null":        `{"type":"ADDED","object":null}`,
	"object array":       `{"type":"ADDED","object":[]}`,
	"no object":          `{"type":"ADDED"}`,
	"bookmark":           `{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}}`,
	"no type":            `{"object":{"kind":"Pod"}}`,
	"type number":        `{"type":5,"object":{"kind":"Pod"}}`,
	"bare pod":           `{"kind":"Pod","metadata":{"name":"a"}}`,
	"list":               `{"kind":"PodList","items":[]}`,
	"truncated":          podEvent("ADDED", okMeta, okSpec, okStatus)[:100],
	"truncated string":   `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a\`,
	"syntax":             `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a",}}}`,
	"syntax after type":  `{"type":5,"object":{"kind":"Pod","metadata":{"name":"a" "b"}}}`,
	"bad escape":         `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"\x"}}}`,
	"control char":       "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\tb\"}}}",
	"bad number":         podEvent("ADDED", `"generation":01`, ``, ``),
	"bad literal":        podEvent("ADDED", `"labels":nul`, ``, ``),
	"trailing":           podEvent("ADDED", okMeta, okSpec, okStatus) + ` x`,
	"extra bracket":      podEvent("ADDED", okMeta, okSpec, okStatus) + `}`,
	"mismatched":         `{"type":"ADDED","object":{"kind":"Pod"]}`,
	"array":              `[` + podEvent("ADDED", okMeta, okSpec, okStatus) + `]`,
	"string value":       `"x"`,
	"whitespace":         " \t\r\n",
	"empty":              ``,
	"mixed times":        `{"time":"2026-01-02T03:04:05Z",` + podEvent("ADDED", okMeta, okSpec, okStatus)[1:] + podEvent("ADDED", okMeta, okSpec, okStatus),
	"bad recorded time":  `{"time":"x",` + podEvent("ADDED", okMeta, okSpec, okStatus)[1:],
	"time null":          `{"time":null,` + podEvent("ADDED", okMeta, okSpec, okStatus)[1:],
	"after an error":     podEvent("ADDED", okMeta, okSpec, okStatus) + `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":1}}}` + podEvent("ADDED", okMeta, okSpec, okStatus),
	"deep":               podEvent("ADDED", `"x":`+strings.Repeat("[", 300)+strings.Repeat("]", 300), ``, ``),
	"deeper":             podEvent("ADDED", `"x":`+strings.Repeat("[", 600)+strings.Repeat("]", 600), ``, ``),
	"too deep":           podEvent("ADDED", `"x":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001), ``, ``),
	"bad ip":             podEvent("ADDED", okMeta, okSpec, `"podIPs":[{"ip":"10.0.0.300"}]`) + podEvent("ADDED", okMeta, okSpec, okStatus),
	// Longer than the stream's buffer, a backslash every third byte, the closing quote far:
	// framed in one pass (it took seconds when each backslash looked for the quote again).
	"long escaped string": podEvent("ADDED", okMeta+`,"annotations":{"x":"`+strings.Repeat(`a\n`, 200000)+`"}`, okSpec, okStatus),
	// One value a line is framed by the line (jsonStream.nextLine), and by brackets when the
	// line holds more, or less, than one value.
	"lines":                podEvent("ADDED", okMeta, okSpec, okStatus) + "\n" + podEvent("MODIFIED", okMeta, okSpec, okStatus) + "\n",
	"crlf lines":           podEvent("ADDED", okMeta, okSpec, okStatus) + " \r\n\r\n" + podEvent("DELETED", okMeta, okSpec, okStatus) + "\t\r\n",
	"two on a line":        podEvent("ADDED", okMeta, okSpec, okStatus) + " " + podEvent("MODIFIED", okMeta, okSpec, okStatus) + "\n" + podEvent("DELETED", okMeta, okSpec, okStatus) + "\n",
	"two on a line, tight": podEvent("ADDED", okMeta, okSpec, okStatus) + podEvent("MODIFIED", okMeta, okSpec, okStatus) + "\n",
	"line then garbage":    podEvent("ADDED", okMeta, okSpec, okStatus) + "\n" + podEvent("MODIFIED", okMeta, okSpec, okStatus) + " {}\n",
	"line then bracket":    podEvent("ADDED", okMeta, okSpec, okStatus) + "}\n" + podEvent("MODIFIED", okMeta, okSpec, okStatus) + "\n",
	"value across lines":   podEvent("ADDED", okMeta, okSpec, okStatus)[:40] + "\n" + podEvent("ADDED", okMeta, okSpec, okStatus)[40:] + "\n",
	"newline in string":    `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a}` + "\n" + `b"}}}` + "\n" + podEvent("ADDED", okMeta, okSpec, okStatus) + "\n",
	"brace then more":      `{"type":"ADDED","object":{"kind":"Pod"}}` + "\n" + `{"type":"MODIFIED",` + "\n" + `"object":{"kind":"Pod"}}` + "\n",
}

func TestFastPathSameAsDecoder(t *testing.T) {
	for name, in := range fastCases {
		t.Run(name, func(t *testing.T) {
			checkSameAsDecoder(t, []byte(in))
			// Ended by a newline, a value is framed as its line (jsonStream.nextLine).
			checkSameAsDecoder(t, []byte(in+"\n"))
		})
	}
	checkSamplesAndCuts(t, []string{"replay-trace.jsonl", "replay-watch.json"}, checkSameAsDecoder)
}

// checkSamplesAndCuts runs check on each sample file, whole and cut at four places: cut
// anywhere, a stream reads the same up to its end or its error.
func checkSamplesAndCuts(t *testing.T, names []string, check func(*testing.T, []byte)) {
	for _, name := range names {
		data, err := os.ReadFile(sampleDir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			check(t, data)
			for _, n := range []int{1, 517, len(data) / 3, len(data) - 2} {
				check(t, data[:n])
			}
		})
	}
}

// TestFastPathReadsInSmallPieces reads a sample a byte at a time, and across a read
// error: framing across reads, and an I/O error told as before.
func TestFastPathReadsInSmallPieces(t *testing.T) {
	data, err := os.ReadFile(sampleDir + "/replay-watch.json")
	if err != nil {
		t.Fatal(err)
	}
	data = data[:min(len(data), 200000)]
	fast := readAll(t, iotest.OneByteReader(bytes.NewReader(data)), true)
	slow := readAll(t, bytes.NewReader(data), false)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("read a byte at a time: %d results, %d with the decoder", len(fast), len(slow))
	}
	broken := func() io.Reader {
		return io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(errors.New("disk on fire")))
	}
	fast, slow = readAll(t, broken(), true), readAll(t, broken(), false)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("read error: fast ends %v, decoder %v", fast[len(fast)-2:], slow[len(slow)-2:])
	}
	if msg := fast[len(fast)-2].(string); !strings.Contains(msg, "disk on fire") {
		t.Fatalf("read error not told: %q", msg)
	}
}

// TestFastPathTakesSamples checks that the parser decodes, rather than hands on, every
// event of both samples (the kubectl output has managedFields, owners, unknown fields and
// null probe times), and refuses what it must.
func TestFastPathTakesSamples(t *testing.T) {
	for _, name := range []string{"replay-trace.jsonl", "replay-watch.json"} {
		f, err := os.Open(sampleDir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		s := newFramedStream(f, name)
		n := 0
		for {
			raw, err := s.nextRaw()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, ok := decodePodEvent(raw, newDecodeCache(), &podJSON{}); !ok {
				t.Fatalf("%s: event %d refused: %.200s", name, n+1, raw)
			}
			n++
		}
		f.Close()
		if n < 100 {
			t.Fatalf("%s: %d events", name, n)
		}
	}
	for _, name := range []string{"plain", "recorded", "nulls", "null label", "empty label map", "escapes", "invalid utf8", "utf8",
		"unknown keys", "port negative zero", "generation", "grace", "sidecar", "resources", "owners", "managed fields",
		"metadata null", "deep", "escaped bracket", "long escaped string"} {
		s := newFramedStream(strings.NewReader(fastCases[name]), name)
		raw, err := s.nextRaw()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := decodePodEvent(raw, newDecodeCache(), &podJSON{}); !ok {
			t.Errorf("%s: refused, want taken", name)
		}
	}
	for _, name := range []string{"duplicate", "duplicate labels", "duplicate array", "folded key", "kelvin key", "escaped key",
		"port float", "port big", "generation big", "bad time", "service", "bookmark", "object null", "deeper", "too deep"} {
		if _, ok := decodePodEvent([]byte(fastCases[name]), nil, &podJSON{}); ok {
			t.Errorf("%s: taken, want refused", name)
		}
	}
}

// FuzzPodFastPath compares a fast PodReader with one decoding every event with
// encoding/json, on any input.
func FuzzPodFastPath(f *testing.F) {
	seeds(f, "replay-watch.json", "replay-trace.jsonl")
	for _, in := range fastCases {
		if len(in) < 4000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSameAsDecoder(t, data) })
}

// TestNextLineFramesOneValueALine: a recorded trace (one event a line) is framed by its
// lines, each line the value nextRaw frames by its brackets; kubectl's pretty-printed
// output is never framed by line.
func TestNextLineFramesOneValueALine(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines bool
	}{{"replay-trace.jsonl", true}, {"replay-watch.json", false}} {
		data, err := os.ReadFile(sampleDir + "/" + c.name)
		if err != nil {
			t.Fatal(err)
		}
		byLine, byBrackets := newFramedStream(bytes.NewReader(data), c.name), newFramedStream(bytes.NewReader(data), c.name)
		n, framedByLine := 0, 0
		for {
			got, line, err := byLine.nextLine()
			want, werr := byBrackets.nextRaw()
			if err != nil || werr != nil {
				if err != werr {
					t.Fatalf("%s: value %d: error %v, by brackets %v", c.name, n+1, err, werr)
				}
				break
			}
			n++
			if line {
				framedByLine++
			}
			if !bytes.Equal(got, want) || byLine.valueStart != byBrackets.valueStart || byLine.off != byBrackets.off {
				t.Fatalf("%s: value %d framed at %d+%d, by brackets %d+%d", c.name, n, byLine.valueStart, len(got), byBrackets.valueStart, len(want))
			}
		}
		// The first value, and one at the end of each buffer read (64 KB), are framed by
		// brackets: no line is whole in the buffer yet.
		unframed := n - framedByLine
		if n < 100 || c.lines && unframed > 1+len(data)/(64<<10) || !c.lines && framedByLine > 0 {
			t.Fatalf("%s: %d of %d values framed by line", c.name, framedByLine, n)
		}
	}
}

// TestLineOfTwoValuesKeepsFraming: a line that holds two events is framed again by its
// brackets, and the stream goes on framing (and decoding fast) after it, rather than
// handing the rest of the input to encoding/json.
func TestLineOfTwoValuesKeepsFraming(t *testing.T) {
	ev := podEvent("ADDED", okMeta, okSpec, okStatus)
	// The first line is framed by brackets (nothing is read yet), the second by line.
	in := ev + "\n" + ev + " " + ev + "\n" + ev + "\n"
	pr := newPodReader(strings.NewReader(in), "input", true)
	for i := range 4 {
		if _, err := pr.Next(); err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		if pr.w.s.dec != nil {
			t.Fatalf("after event %d, the stream is decoded by encoding/json", i+1)
		}
	}
}

// TestRefusedLineParsedOnce: an event on a line of its own that the fast parser refuses (a
// bookmark) is handed to encoding/json after one try, not parsed again once framed by its
// brackets.
func TestRefusedLineParsedOnce(t *testing.T) {
	ev := podEvent("ADDED", okMeta, okSpec, okStatus)
	in := ev + "\n" + `{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}}` + "\n" + ev + "\n"
	pr := newPodReader(strings.NewReader(in), "input", true)
	fast, tries := pr.w.fast, 0
	pr.w.fast = func(raw []byte) (wireEvent, decoded, bool) { tries++; return fast(raw) }
	for i := range 2 {
		if _, err := pr.Next(); err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
	}
	if tries != 3 {
		t.Fatalf("the parser was tried %d times on three events", tries)
	}
}
