package trace

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"epsim/model"
	"epsim/sim"
)

// protobufSize is the real API server encoding of slice (versioning codec + protobuf
// serializer, apimachinery v0.37.2): the oracle for SliceFromAPI + model.EndpointSliceSize.
func protobufSize(t *testing.T, s *discoveryv1.EndpointSlice) int64 {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := discoveryv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	f := serializer.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(f.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	var buf bytes.Buffer
	if err := f.EncoderForVersion(info.Serializer, discoveryv1.SchemeGroupVersion).Encode(s, &buf); err != nil {
		t.Fatal(err)
	}
	return int64(buf.Len())
}

// realSlice is an EndpointSlice as the controller writes it, with n endpoints.
func realSlice(name, service string, n int, extraLabels map[string]string) *discoveryv1.EndpointSlice {
	ctrl := true
	proto := "TCP"
	port := int32(8080)
	pname := "http"
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC))
	s := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: service + "-", Namespace: "shop", UID: "1b4e28ba-2fa1-41d2-883f-0016d3cca427",
			ResourceVersion: "12345", Generation: 3, CreationTimestamp: at,
			Labels: map[string]string{model.LabelServiceName: service, model.LabelManagedBy: model.ControllerName,
				"endpointslice.kubernetes.io/managed-by-setup": "x"},
			Annotations: map[string]string{model.AnnotationTriggerTime: "2026-01-01T00:00:05Z"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: service,
				UID: "7d3c9b1a-2e4f-4a6b-8c0d-9e8f7a6b5c4d", Controller: &ctrl, BlockOwnerDeletion: &ctrl}},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &pname, Protocol: (*corev1.Protocol)(&proto), Port: &port}},
	}
	delete(s.Labels, "endpointslice.kubernetes.io/managed-by-setup")
	for k, v := range extraLabels {
		s.Labels[k] = v
	}
	for i := range n {
		ready := i%3 != 0
		node := "ip-10-0-1.ec2.internal"
		zone := "zone-a"
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{"10.1.0." + string(rune('1'+i))},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &ready, Terminating: new(bool)},
			NodeName:   &node, Zone: &zone,
		})
	}
	return s
}

// TestSliceSizeMatchesSerializer: a real slice converted with SliceFromAPI is sized by the
// model exactly as the API server's protobuf serializer encodes it, once the managedFields
// kubectl hides are given back.
func TestSliceSizeMatchesSerializer(t *testing.T) {
	s := realSlice("web-abcde", "web", 5, nil)
	m := SliceFromAPI(s)
	if len(m.ManagedFields) != 1 {
		t.Fatalf("managedFields not restored: %+v", m.ManagedFields)
	}
	// Give the API object the same managedFields, then both must agree byte for byte.
	mf := m.ManagedFields[0]
	ft := metav1.NewTime(mf.Time.Time())
	s.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: mf.Manager, Operation: metav1.ManagedFieldsOperationType(mf.Operation),
		APIVersion: mf.APIVersion, Time: &ft, FieldsType: mf.FieldsType, FieldsV1: &metav1.FieldsV1{Raw: []byte(mf.FieldsV1)}}}
	if got, want := model.EndpointSliceSize(SliceFromAPI(s), model.Protobuf), protobufSize(t, s); got != want {
		t.Errorf("model size %d, protobuf serializer %d", got, want)
	}
}

// TestCompareSlices reads a small real stream and compares it with hand-made simulated
// writes: counts per event type, bytes = watch event size × watchers for slices kube-proxy
// selects (a Service with a service-proxy-name label among them: kube-proxy receives its
// slices), nothing for headless Services, other managers counted apart.
func TestCompareSlices(t *testing.T) {
	var stream bytes.Buffer
	web := realSlice("web-abcde", "web", 4, nil)
	WriteWatchEvent(&stream, model.EventAdded, web)
	web2 := realSlice("web-abcde", "web", 5, nil)
	WriteWatchEvent(&stream, model.EventModified, web2)
	db := realSlice("db-xyz12", "db", 2, map[string]string{model.LabelHeadless: ""})
	WriteWatchEvent(&stream, model.EventAdded, db)
	mirrored := realSlice("legacy-q1w2e", "legacy", 1, map[string]string{model.LabelManagedBy: model.MirroringControllerName})
	WriteWatchEvent(&stream, model.EventAdded, mirrored)
	WriteWatchEvent(&stream, model.EventDeleted, web2)
	other := realSlice("other-p0o9i", "other", 3, map[string]string{model.LabelServiceProxyName: "other-proxy"})
	WriteWatchEvent(&stream, model.EventAdded, other)

	res := &sim.Results{Writes: []sim.WriteRecord{
		{Mode: sim.ModeEndpointSlices, Verb: "create", Kind: "EndpointSlice", Namespace: "shop", Name: "web-k9j8h", EventBytes: 100, Watchers: 10, Outcome: "ok"},
		{Mode: sim.ModeEndpointSlices, Verb: "update", Kind: "EndpointSlice", Namespace: "shop", Name: "web-k9j8h", EventBytes: 120, Watchers: 10, Outcome: "ok"},
		{Mode: sim.ModeEndpointSlices, Verb: "update", Kind: "EndpointSlice", Namespace: "shop", Name: "web-k9j8h", EventBytes: 120, Watchers: 10, Outcome: "noop"},
		{Mode: sim.ModeEndpoints, Verb: "update", Kind: "Endpoints", Namespace: "shop", Name: "web", EventBytes: 500, Watchers: 10, Outcome: "ok"},
	}}
	svcs := []*model.Service{{Namespace: "shop", Name: "web"}, {Namespace: "shop", Name: "db"}, {Namespace: "shop", Name: "other"}}
	tally := NewSliceTally(svcs, nil)
	for i := range res.Writes {
		tally.Add(&res.Writes[i])
	}
	raw := stream.Bytes()
	c, err := CompareSlices(NewSliceReader(bytes.NewReader(raw), "slices.json"), tally, 10, false, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	size := func(s *discoveryv1.EndpointSlice, typ model.EventType) int64 {
		return model.WatchEventSize(model.EndpointSliceSize(SliceFromAPI(s), model.Protobuf), typ, model.Protobuf) * 10
	}
	wantWeb := Writes{Added: 1, Modified: 1, Deleted: 1,
		FanoutBytes: size(web, model.EventAdded) + size(web2, model.EventModified) + size(web2, model.EventDeleted)}
	if len(c.Services) != 3 || c.Services[0].Name != "db" || c.Services[1].Name != "other" || c.Services[2].Name != "web" {
		t.Fatalf("services %+v", c.Services)
	}
	if got := c.Services[2].Real; got != wantWeb {
		t.Errorf("web real %+v, want %+v", got, wantWeb)
	}
	if got, want := c.Services[1].Real, (Writes{Added: 1, FanoutBytes: size(other, model.EventAdded)}); got != want {
		t.Errorf("proxy-named other real %+v, want %+v", got, want)
	}
	if got := c.Services[0].Real; got != (Writes{Added: 1}) {
		t.Errorf("headless db real %+v, want one ADDED and no bytes", got)
	}
	if got := c.Services[2].Simulated; got != (Writes{Added: 1, Modified: 1, FanoutBytes: 2200}) {
		t.Errorf("web simulated %+v", got)
	}
	if c.OtherManagers != 1 || c.Real.Total() != 5 {
		t.Errorf("other managers %d, real total %d", c.OtherManagers, c.Real.Total())
	}
	if c.Stream.RecordedTimes {
		t.Error("raw stream taken as recorded")
	}
	// A warm replay leaves out the initial listing: web's first ADDED, before its MODIFIED.
	warm, err := CompareSlices(NewSliceReader(bytes.NewReader(raw), "slices.json"), tally, 10, true, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWeb.Added, wantWeb.FanoutBytes = 0, wantWeb.FanoutBytes-size(web, model.EventAdded)
	if warm.ListingSkipped != 1 || warm.Real.Total() != 4 || warm.Services[2].Real != wantWeb {
		t.Errorf("skipping the listing: %d skipped, real total %d, web %+v; want 1, 4, %+v",
			warm.ListingSkipped, warm.Real.Total(), warm.Services[2].Real, wantWeb)
	}
	// The listing read first (a warm replay starts from it): the same comparison follows.
	src := NewSliceReader(bytes.NewReader(raw), "slices.json")
	listing, err := src.Listing()
	if err != nil || len(listing) != 1 || listing[0].Name != "web-abcde" || len(listing[0].Endpoints) != 4 {
		t.Fatalf("Listing: %v, %v; want web-abcde of 4 endpoints", listing, err)
	}
	after, err := CompareSlices(src, tally, 10, true, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if after.ListingSkipped != warm.ListingSkipped || after.Real != warm.Real || after.Services[2].Real != wantWeb {
		t.Errorf("after Listing: %d skipped, real %+v; want %d, %+v", after.ListingSkipped, after.Real, warm.ListingSkipped, warm.Real)
	}
}

// TestStreamErrors: malformed input names the event and byte offset and says what was
// expected; other kinds and BOOKMARKs are skipped and counted.
func TestStreamErrors(t *testing.T) {
	pod := `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","namespace":"n"}}}`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"truncated", pod + "\n" + pod[:40], "event 2 at byte 121: truncated input: the JSON value that starts at byte 81"},
		{"syntax", pod + "\n{\"type\": ADDED}", "event 2 at byte 90: malformed JSON"},
		{"bare pod", `{"kind":"Pod","metadata":{"name":"a"}}`, "a bare Pod object"},
		{"list", `{"kind":"List","items":[]}`, "a List, expected a watch event"},
		{"no type", `{"object":{"kind":"Pod"}}`, "without \"type\""},
		{"wrong field type", `{"type":"ADDED","object":{"kind":"Pod","metadata":{"labels":[1]}}}`, "Pod field \"metadata.labels\""},
		{"mixed times", `{"time":"2026-01-01T00:00:00Z",` + pod[1:] + pod, "has no \"time\" but the first one had one"},
		{"bad time", `{"time":"yesterday",` + pod[1:], "expected an RFC 3339 time"},
		// Times centuries away once saturated the replay clock and ran to the event budget.
		{"time centuries later", `{"time":"2026-01-01T00:00:00Z",` + pod[1:] + `{"time":"2400-01-01T00:00:00Z",` + pod[1:],
			`event 2 at byte 110: "time" 2400-01-01T00:00:00Z is more than 10 years after the first event's (2026-01-01T00:00:00Z)`},
		{"time centuries earlier", `{"time":"2026-01-01T00:00:00Z",` + pod[1:] + `{"time":"0001-01-01T00:00:00Z",` + pod[1:],
			`event 2 at byte 110: "time" 0001-01-01T00:00:00Z is more than 10 years before the first event's`},
		{"object time centuries later", `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","namespace":"n","creationTimestamp":"2026-01-01T00:00:00Z"}}}` +
			`{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"a","namespace":"n","creationTimestamp":"2026-01-01T00:00:00Z"},` +
			`"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2400-01-01T00:00:00Z"}]}}}`,
			`event 2 at byte 123: latest timestamp 2400-01-01T00:00:00Z is more than 10 years after`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewPodReader(strings.NewReader(tc.in), "pods.json")
			var err error
			for err == nil {
				_, err = r.Next()
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pods.json: event ") {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
	// A syntax error's offset is the byte found, whatever the white space between events;
	// a field's, where its event starts.
	for _, gap := range []string{"", "\n", "\n\n \t\r\n"} {
		for _, tc := range []struct{ in, at string }{
			{pod + gap + `{"type": ADDED}`, "A"},
			{gap + pod + gap + pod + gap + `{"type":"ADDED","object":{"kind":"Pod","metadata":{"labels":[1]}}}`, `{"type":"ADDED","object":{"kind":"Pod","metadata":{"labels":[1]`},
		} {
			var ie *InputError
			r := NewPodReader(strings.NewReader(tc.in), "pods.json")
			var err error
			for err == nil {
				_, err = r.Next()
			}
			if !errors.As(err, &ie) || ie.Offset >= int64(len(tc.in)) || !strings.HasPrefix(tc.in[ie.Offset:], tc.at) {
				t.Errorf("gap %q: %v: want the offset of %q", gap, err, tc.at)
			}
		}
	}
	in := `{"type":"BOOKMARK","object":{"kind":"Pod"}}` + pod + `{"type":"ADDED","object":{"kind":"Service"}}`
	r := NewPodReader(strings.NewReader(in), "pods.json")
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			break
		}
		n++
	}
	if s := r.Stats(); n != 1 || s.Skipped["type BOOKMARK"] != 1 || s.Skipped["kind Service"] != 1 {
		t.Errorf("read %d, skipped %v", n, s.Skipped)
	}
}

// podEventTimes reads the pod watch stream in and returns its events' replay times and the
// reader's stats.
func podEventTimes(in string) ([]time.Duration, *Stats) {
	r := NewPodReader(strings.NewReader(in), "pods.json")
	var got []time.Duration
	for {
		e, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, time.Duration(e.At))
	}
	return got, r.Stats()
}

// TestObjectTimesSkewedListing: a listed pod whose Ready time is two minutes ahead (its
// node's clock) does not move time 0: the first event after the listing happened after the
// watch started, so listing times later than it are skew, and time 0 is the latest listing
// time before it. The events keep the times they have without the skewed pod.
func TestObjectTimesSkewedListing(t *testing.T) {
	ev := func(typ, name, ready string) string {
		return `{"type":"` + typ + `","object":{"kind":"Pod","metadata":{"name":"` + name + `","namespace":"n","creationTimestamp":"2026-01-01T00:00:00Z"},` +
			`"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"` + ready + `"}]}}}` + "\n"
	}
	listing := ev("ADDED", "a", "2026-01-01T00:00:05Z") + ev("ADDED", "b", "2026-01-01T00:00:10Z")
	churn := ev("MODIFIED", "a", "2026-01-01T00:00:20Z") + ev("MODIFIED", "b", "2026-01-01T00:00:30Z")
	plain, ps := podEventTimes(listing + churn)
	skewed, ss := podEventTimes(listing + ev("ADDED", "c", "2026-01-01T00:02:10Z") + churn)
	want := []time.Duration{0, 0, 10 * time.Second, 20 * time.Second}
	if !slices.Equal(plain, want) || ps.AheadOfListing != 0 {
		t.Errorf("without skew: times %v (ahead %d), want %v", plain, ps.AheadOfListing, want)
	}
	if want := []time.Duration{0, 0, 0, 10 * time.Second, 20 * time.Second}; !slices.Equal(skewed, want) ||
		ss.AheadOfListing != 1 || ss.Clamped != 0 || !ss.Start.Equal(ps.Start) {
		t.Errorf("with a listed pod 2 min ahead: times %v, ahead %d, clamped %d, start %v; want %v, 1, 0, %v",
			skewed, ss.AheadOfListing, ss.Clamped, ss.Start, want, ps.Start)
	}
}

// TestObjectTimes: without recorded times the initial listing is time 0 at its latest
// timestamp, later events take their latest timestamp (deletion request = deletionTimestamp
// minus the grace period), and stream order wins over timestamps.
func TestObjectTimes(t *testing.T) {
	ev := func(typ, created, ready, deleted string) string {
		s := `{"type":"` + typ + `","object":{"kind":"Pod","metadata":{"name":"p","namespace":"n","creationTimestamp":"` + created + `"`
		if deleted != "" {
			s += `,"deletionTimestamp":"` + deleted + `","deletionGracePeriodSeconds":30`
		}
		s += `},"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"` + ready + `"}]}}}` + "\n"
		return s
	}
	in := ev("ADDED", "2025-12-01T00:00:00Z", "2025-12-01T00:00:09Z", "") + // old pod in the listing
		ev("ADDED", "2026-01-01T00:00:00Z", "2026-01-01T00:00:10Z", "") + // newest listed: time 0
		ev("MODIFIED", "2026-01-01T00:00:00Z", "2026-01-01T00:00:15Z", "") + // 5s
		ev("MODIFIED", "2026-01-01T00:00:00Z", "2026-01-01T00:00:15Z", "2026-01-01T00:00:50Z") + // deletion requested at 00:20: 10s
		ev("DELETED", "2025-12-01T00:00:00Z", "2025-12-01T00:00:09Z", "") // old timestamps: clamped to 10s, then spread over that second with the event before

	got, s := podEventTimes(in)
	want := []time.Duration{0, 0, 5 * time.Second, 10 * time.Second, 10*time.Second + 500*time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("times %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("times %v, want %v", got, want)
			break
		}
	}
	if s.RecordedTimes || s.Clamped != 1 || s.Listed != 2 || s.Spread != 2 || !s.Start.Equal(time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)) {
		t.Errorf("stats %+v", s)
	}
}

// TestSliceSizeOfKubectlOutput: a slice as kubectl prints it with --show-managed-fields
// (pretty-printed, fieldsV1 indented too) is sized as the API server encodes it, whose
// fieldsV1 is compact JSON.
func TestSliceSizeOfKubectlOutput(t *testing.T) {
	s := realSlice("web-abcde", "web", 3, nil)
	ft := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC))
	s.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "endpointslice-controller", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "discovery.k8s.io/v1", Time: &ft, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:addressType":{},"f:endpoints":{},"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/service-name":{}}},"f:ports":{}}`)}}}
	var stream bytes.Buffer
	if err := WriteWatchEvent(&stream, model.EventAdded, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stream.String(), "\"f:addressType\": {},\n") {
		t.Fatalf("fieldsV1 not pretty-printed:\n%s", stream.String())
	}
	ev, err := NewSliceReader(&stream, "slices.json").Next()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := model.EndpointSliceSize(ev.Slice, model.Protobuf), protobufSize(t, s); got != want {
		t.Errorf("model size %d, protobuf serializer %d", got, want)
	}
}

// TestSliceAttribution: a slice's writes, real and simulated, are its Service's by its
// service-name label (the slices the run began with lend theirs to the simulated writes of
// their names), else by the generateName its name was made from; a generateName two
// Services share (names of 60 characters alike in their first 58) is nobody's: counted
// unattributed, not given to the Service added last.
func TestSliceAttribution(t *testing.T) {
	long := strings.Repeat("a", 58)
	x, y := long+"x1", long+"y1" // generateName of both: the first 58 characters of "…x1-"
	shared := long + "k9j8h"     // a generated name of that prefix
	svcs := []*model.Service{{Namespace: "shop", Name: x}, {Namespace: "shop", Name: y}, {Namespace: "shop", Name: "web"}}
	const unattributed = "(unattributed)"
	for _, tc := range []struct {
		name   string
		slice  string // the slice's name
		label  string // its service-name label ("": none)
		listed bool   // among the slices the run began with (the real stream's listing)
		// real and sim are whom the real write (streamed after the listing) and a simulated
		// write of the slice's name are counted for.
		real, sim string
	}{
		{"labelled y, shared prefix", shared, y, false, y, unattributed},
		{"labelled x, shared prefix", shared, x, false, x, unattributed},
		{"listed x, shared prefix", shared, x, true, x, x},
		{"listed y, shared prefix", shared, y, true, y, y},
		{"no label, shared prefix", shared, "", false, unattributed, unattributed},
		{"no label, listed, shared prefix", shared, "", true, unattributed, unattributed},
		{"no label, unique prefix", "web-k9j8h", "", false, "web", "web"},
		{"no label, no Service's prefix", "stray-k9j8h", "", false, unattributed, unattributed},
		{"label of a Service not given", "gone-k9j8h", "gone", true, "gone", "gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := realSlice(tc.slice, tc.label, 2, nil)
			if tc.label == "" {
				delete(sl.Labels, model.LabelServiceName)
			}
			var listed []*model.EndpointSlice
			if tc.listed {
				listed = append(listed, SliceFromAPI(sl))
			}
			tally := NewSliceTally(svcs, listed)
			tally.Add(&sim.WriteRecord{Mode: sim.ModeEndpointSlices, Verb: "update", Kind: "EndpointSlice", Namespace: "shop",
				Name: tc.slice, EventBytes: 100, Watchers: 1, Outcome: "ok"})
			var stream bytes.Buffer
			WriteWatchEvent(&stream, model.EventModified, sl)
			c, err := CompareSlices(NewSliceReader(&stream, "slices.json"), tally, 1, false, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			real, simulated := map[string]int64{}, map[string]int64{}
			for _, s := range c.Services {
				if s.Namespace != "shop" {
					t.Errorf("Service %s/%s, want namespace shop", s.Namespace, s.Name)
				}
				real[s.Name], simulated[s.Name] = s.Real.Total(), s.Simulated.Total()
			}
			if u := c.Unattributed; u != nil {
				real[unattributed], simulated[unattributed] = u.Real.Total(), u.Simulated.Total()
			}
			for name, n := range real {
				if want := int64(b2i(name == tc.real)); n != want {
					t.Errorf("real writes of %s: %d, want %d (the real write is %s's)", name, n, want, tc.real)
				}
			}
			for name, n := range simulated {
				if want := int64(b2i(name == tc.sim)); n != want {
					t.Errorf("simulated writes of %s: %d, want %d (the simulated write is %s's)", name, n, want, tc.sim)
				}
			}
			if real[tc.real] != 1 || simulated[tc.sim] != 1 || c.Real.Total() != 1 || c.Simulated.Total() != 1 {
				t.Errorf("real %v, simulated %v, totals %d, %d; want the real write %s's, the simulated %s's, one each",
					real, simulated, c.Real.Total(), c.Simulated.Total(), tc.real, tc.sim)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCompareSlicesWindow: only the real writes within the pod recording's span, or the
// simulated writes' tail after it, are counted, the others counted before or after it (on
// the wall clock: each stream's start plus its events' times); SpanWarning warns when the
// real stream covers less than half of the pod recording.
func TestCompareSlicesWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var stream bytes.Buffer
	rec := NewWriter(&stream)
	web := realSlice("web-abcde", "web", 2, nil)
	for _, at := range []time.Duration{0, 5 * time.Second, 20 * time.Second, -10 * time.Second, time.Hour} {
		typ := model.EventModified
		if at == 0 {
			typ = model.EventAdded // the listing
		}
		if err := rec.Write(t0.Add(at), typ, web); err != nil {
			t.Fatal(err)
		}
	}
	span := func(from, to time.Duration) *Span { return &Span{Start: t0.Add(from), End: t0.Add(to)} }
	for _, tc := range []struct {
		name                string
		pods                *Span
		tail                time.Duration
		real, before, after int64
		warn                bool
	}{
		{"no window: every write", nil, 0, 4, 0, 0, false},
		{"recording from the listing", span(0, 30*time.Second), 0, 2, 1, 1, false},
		{"recording from 10s", span(10*time.Second, 30*time.Second), 0, 1, 2, 1, false},
		{"recording to 5s, its end included", span(0, 5*time.Second), 0, 1, 1, 2, false},
		{"recording to 4s, simulated writes to 6s", span(0, 4*time.Second), 2 * time.Second, 1, 1, 2, false},
		{"recording to 4s, simulated writes to 5s", span(0, 4*time.Second), time.Second, 1, 1, 2, false},
		{"recording to 4s, simulated writes to 4.5s", span(0, 4*time.Second), time.Second / 2, 0, 1, 3, false},
		{"recording to 5s, simulated writes end before", span(0, 5*time.Second), -time.Second, 1, 1, 2, false},
		{"recording of one instant within", span(10*time.Second, 10*time.Second), 0, 0, 2, 2, false},
		{"recording mostly after the stream", span(50*time.Minute, 3*time.Hour), 0, 1, 3, 0, true},
		{"recording before the stream", span(-time.Hour, -time.Minute), 0, 0, 0, 4, true},
		{"recording of one instant after", span(2*time.Hour, 2*time.Hour), 0, 0, 4, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := NewSliceReader(bytes.NewReader(stream.Bytes()), "slices.jsonl")
			if _, err := src.Listing(); err != nil {
				t.Fatal(err)
			}
			c, err := CompareSlices(src, NewSliceTally(nil, nil), 1, true, tc.pods, tc.tail)
			if err != nil {
				t.Fatal(err)
			}
			if c.Real.Modified != tc.real || c.Real.Total() != tc.real || c.Before != tc.before || c.After != tc.after {
				t.Errorf("real %+v, before %d, after %d; want %d modified, %d before, %d after", c.Real, c.Before, c.After, tc.real, tc.before, tc.after)
			}
			if len(c.Services) != min(1, int(tc.real)) {
				t.Errorf("Services %+v, want web's alone if it has writes in the window", c.Services)
			}
			w := c.SpanWarning()
			if (w != "") != tc.warn {
				t.Errorf("warning %q, want one: %v", w, tc.warn)
			}
			if tc.warn && !strings.Contains(w, "2026-01-01T01:00:00.000Z") {
				t.Errorf("warning %q does not say where the stream ends", w)
			}
			if tc.pods != nil && (c.StreamSpan == nil || !c.StreamSpan.Start.Equal(t0) || !c.StreamSpan.End.Equal(t0.Add(time.Hour))) {
				t.Errorf("stream span %+v, want %v to an hour later", c.StreamSpan, t0)
			}
		})
	}
}
