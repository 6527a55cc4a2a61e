package model

// Differential and property tests of the size model against the real apimachinery v0.37.2
// serializers. Reference: DESIGN.md "Wire sizes"; UPSTREAM.md §7.2, §7.3.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestJSONStringMatchesEncodingJSON checks jsonString against encoding/json on random strings
// built from awkward fragments and random bytes.
func TestJSONStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			if r.IntN(2) == 0 {
				b.WriteString(awkward[r.IntN(len(awkward))])
			} else {
				b.WriteByte(byte(r.IntN(256)))
			}
		}
		s := b.String()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonString(s); got != int64(len(want)) {
			t.Fatalf("case %d: jsonString(%q) = %d, encoding/json wrote %d (%s)", i, s, got, len(want), want)
		}
		if w := quotedJSON(s); w != string(want) {
			t.Fatalf("case %d: appendJSONEscaped(%q) quoted = %s, encoding/json wrote %s", i, s, w, want)
		}
	}
}

// quotedJSON is s escaped by appendJSONEscaped, in quotes.
func quotedJSON(s string) string { return `"` + string(appendJSONEscaped(nil, s)) + `"` }

// FuzzJSONString: jsonString and appendJSONEscaped (after other bytes too) agree with
// encoding/json on any string.
func FuzzJSONString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := jsonString(s); got != int64(len(want)) {
			t.Fatalf("jsonString(%q) = %d, encoding/json wrote %d", s, got, len(want))
		}
		if w := quotedJSON(s); w != string(want) {
			t.Fatalf("appendJSONEscaped(%q) quoted = %s, want %s", s, w, want)
		}
		if w := appendJSONEscaped([]byte(`x"`), s); string(w)+`"` != "x"+string(want) {
			t.Fatalf("appendJSONEscaped(x, %q) = %s, want x%s", s, w, want)
		}
	})
}

// TestJSONIntMatchesEncodingJSON checks the decimal lengths at the edges.
func TestJSONIntMatchesEncodingJSON(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, -1, -9, -10, 99, 100, 1<<31 - 1, -1 << 31, 1<<63 - 1, -1 << 63} {
		want, _ := json.Marshal(v)
		if got := jsonInt(v); got != int64(len(want)) {
			t.Errorf("jsonInt(%d) = %d, want %d", v, got, len(want))
		}
	}
}

// TestJSONRawCompactMatchesEncodingJSON: a json.Marshaler's output is compacted and
// HTML-escaped by encoding/json (the FieldsV1 path).
func TestJSONRawCompactMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`{}`,
		` { "a" : { } , "b<>&" : {"\"x\\" : {}} } `,
		"{\"\u2028\u2029\":{}}\n",
		`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`,
	} {
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonRawCompact(raw); got != int64(len(want)) {
			t.Errorf("jsonRawCompact(%q) = %d, encoding/json wrote %d (%s)", raw, got, len(want), want)
		}
	}
}

// TestEndpointSliceSizeMatchesSerializers is the byte-exact differential test: random
// slices, converted to discovery/v1 and encoded by the real serializers and watch encoder.
func TestEndpointSliceSizeMatchesSerializers(t *testing.T) {
	mix := objectMix{objects: 3000, big: 4, small: 12, mid: 150, large: 1000}
	if testing.Short() {
		mix.objects, mix.big = 400, 2
	}
	oracles := newOracles(t)
	sweepObjects(t, 42, "slices", mix, func(g *objectGen, seed uint64, i, maxEndpoints int) {
		s := g.slice(maxEndpoints)
		label := fmt.Sprintf("seed %d slice %d (%d endpoints)", seed, i, len(s.Endpoints))
		if !checkSliceSizes(t, oracles, s, label) {
			t.Fatalf("first mismatch at seed %d slice %d: %s", seed, i, shrinkSlice(t, oracles, s))
		}
	})
}

// shrinkSlice reports the smallest failing variant found by dropping endpoints one by one.
func shrinkSlice(t *testing.T, oracles [numEncodings]*wireOracle, s *EndpointSlice) string {
	quiet := &testing.T{}
	for len(s.Endpoints) > 1 {
		smaller := *s
		smaller.Endpoints = s.Endpoints[1:]
		if checkSliceSizes(quiet, oracles, &smaller, "") {
			break
		}
		s = &smaller
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// TestEndpointsSizeMatchesSerializers is the differential test for legacy Endpoints: random
// objects with up to a few dozen addresses, some with hundreds, and a few with 10,000.
func TestEndpointsSizeMatchesSerializers(t *testing.T) {
	mix := objectMix{objects: 2000, big: 2, small: 20, mid: 600, large: 10000}
	if testing.Short() {
		mix.objects, mix.big = 400, 1
	}
	oracles := newOracles(t)
	sweepObjects(t, 7, "Endpoints objects", mix, func(g *objectGen, seed uint64, i, maxAddresses int) {
		e := g.endpoints(maxAddresses)
		if !checkEndpointsSizes(t, oracles, e, fmt.Sprintf("seed %d endpoints %d", seed, i)) {
			t.Fatalf("first mismatch at seed %d Endpoints %d", seed, i)
		}
	})
}

// objectMix is the random objects of one seed of a size differential test: objects ones of
// up to small endpoints (every fiftieth up to mid), then big ones of up to large.
type objectMix struct{ objects, big, small, mid, large int }

// maxAt returns the most endpoints the seed's object i may have.
func (m objectMix) maxAt(i int) int {
	switch {
	case i >= m.objects:
		return m.large
	case i%50 == 0:
		return m.mid
	}
	return m.small
}

// sweepObjects calls check with the generator of each seed (def alone, or EPSIM_DIFF_SEEDS's
// range when set: make diff-sizes) for each object of mix, logging a sweep's progress every
// hundredth seed and its outcome at the last.
func sweepObjects(t *testing.T, def uint64, what string, mix objectMix, check func(g *objectGen, seed uint64, i, max int)) {
	t.Helper()
	first, last, err := diffSeedsOr(def, def)
	if err != nil {
		t.Fatal(err)
	}
	perSeed := mix.objects + mix.big
	for seed := first; seed <= last; seed++ {
		g := newObjectGen(seed)
		for i := range perSeed {
			check(g, seed, i, mix.maxAt(i))
		}
		switch {
		case seed == last:
			t.Logf("seeds %d-%d, %d %s: byte-exact in protobuf and JSON, object and watch event",
				first, last, (last-first+1)*uint64(perSeed), what)
		case seed%100 == 0:
			t.Logf("through seed %d", seed)
		}
	}
}

// TestSizesAcrossVarintBoundaries sweeps object sizes across the 1→2 and 2→3 byte length
// varints of the nested messages (the object inside runtime.Unknown, the RawExtension inside
// WatchEvent) by growing an annotation one byte at a time.
func TestSizesAcrossVarintBoundaries(t *testing.T) {
	oracles := newOracles(t)
	for _, n := range []int{0, 1, 114} { // ~0.4 KiB, ~0.55 KiB, ~16.2 KiB
		base := realisticSlice(n, false, n == 114)
		for extra := range 300 {
			s := *base
			s.Annotations = StringMapOf(map[string]string{"pad": strings.Repeat("p", extra)})
			if n == 0 {
				s.ObjectMeta = ObjectMeta{Annotations: s.Annotations}
				s.Ports = nil
			}
			if !checkSliceSizes(t, oracles, &s, fmt.Sprintf("n=%d pad=%d", n, extra)) {
				t.FailNow()
			}
		}
	}
	e := realisticEndpoints(0, false)
	e.ObjectMeta = ObjectMeta{}
	for extra := range 200 {
		e.Name = strings.Repeat("n", extra)
		if !checkEndpointsSizes(t, oracles, e, fmt.Sprintf("endpoints name=%d", extra)) {
			t.FailNow()
		}
	}
}

// TestSliceSizerIncremental: after every random add, remove and replace, the sizer's size
// equals the from-scratch size (and, every 25 edits, the serializer's).
func TestSliceSizerIncremental(t *testing.T) {
	oracles := newOracles(t)
	for seed := range uint64(20) {
		g := newObjectGen(seed)
		s := g.slice(30)
		z := NewSliceSizer(s.Endpoints)
		for step := range 300 {
			applySliceEdit(g, s, &z, g.r.IntN(3))
			for enc := range numEncodings {
				if got, want := z.Size(s, enc), EndpointSliceSize(s, enc); got != want {
					t.Fatalf("seed %d step %d: SliceSizer.Size(%v) = %d, from scratch %d", seed, step, enc, got, want)
				}
			}
			if step%25 == 0 && !checkSliceSizes(t, oracles, s, fmt.Sprintf("seed %d step %d", seed, step)) {
				t.FailNow()
			}
		}
	}
}

// applySliceEdit applies one edit to s and reports it to z: 0 add, 1 remove, 2 replace.
func applySliceEdit(g *objectGen, s *EndpointSlice, z *SliceSizer, op int) {
	switch {
	case op == 0 || len(s.Endpoints) == 0:
		ep := g.endpoint(s.AddressType)
		s.Endpoints = append(s.Endpoints, ep)
		z.Add(&ep)
	case op == 1:
		i := g.r.IntN(len(s.Endpoints))
		z.Remove(&s.Endpoints[i])
		s.Endpoints = append(s.Endpoints[:i], s.Endpoints[i+1:]...)
	default:
		i := g.r.IntN(len(s.Endpoints))
		ep := g.endpoint(s.AddressType)
		z.Replace(&s.Endpoints[i], &ep)
		s.Endpoints[i] = ep
	}
	if g.chance(0.05) { // metadata changes too, e.g. a new trigger time
		s.Annotations = StringMapOf(map[string]string{AnnotationTriggerTime: g.timestamp().RFC3339Nano()})
	}
}

// FuzzSliceSizeIncremental: no sequence of edits makes the incremental size drift from the
// from-scratch size.
func FuzzSliceSizeIncremental(f *testing.F) {
	f.Add(uint64(1), []byte{0, 0, 0, 2, 1, 2, 1, 1})
	f.Add(uint64(99), []byte{0, 1, 0, 1, 0, 0, 2, 2, 2})
	f.Fuzz(func(t *testing.T, seed uint64, ops []byte) {
		g := newObjectGen(seed)
		s := g.slice(5)
		z := NewSliceSizer(s.Endpoints)
		for step, op := range ops {
			applySliceEdit(g, s, &z, int(op%3))
			for enc := range numEncodings {
				if got, want := z.Size(s, enc), EndpointSliceSize(s, enc); got != want {
					t.Fatalf("step %d: SliceSizer.Size(%v) = %d, from scratch %d", step, enc, got, want)
				}
			}
		}
	})
}

// TestSubsetSizeIncremental: random address additions and removals across subsets keep
// EndpointsSizeFrom equal to the from-scratch EndpointsSize.
func TestSubsetSizeIncremental(t *testing.T) {
	for seed := range uint64(20) {
		g := newObjectGen(seed)
		e := g.endpoints(20)
		if len(e.Subsets) == 0 {
			e.Subsets = []EndpointSubset{{Ports: []EndpointsPort{{Port: 80}}}}
		}
		sizes := make([]SubsetSize, len(e.Subsets))
		for i := range e.Subsets {
			sizes[i] = NewSubsetSize(&e.Subsets[i])
		}
		for step := range 300 {
			i := g.r.IntN(len(e.Subsets))
			sub := &e.Subsets[i]
			notReady := g.chance(0.3)
			list := &sub.Addresses
			if notReady {
				list = &sub.NotReadyAddresses
			}
			if len(*list) > 0 && g.chance(0.45) {
				j := g.r.IntN(len(*list))
				sizes[i].RemoveAddress(&(*list)[j], notReady)
				*list = append((*list)[:j], (*list)[j+1:]...)
			} else {
				a := g.address(AddressTypeIPv4)
				*list = append(*list, a)
				sizes[i].AddAddress(&a, notReady)
			}
			for enc := range numEncodings {
				if got, want := EndpointsSizeFrom(&e.ObjectMeta, sizes, enc), EndpointsSize(e, enc); got != want {
					t.Fatalf("seed %d step %d: EndpointsSizeFrom(%v) = %d, from scratch %d", seed, step, enc, got, want)
				}
			}
		}
	}
}

// TestManagedFieldsMatchesStructuredMergeDiff: the helpers' FieldsV1 is byte-identical to
// structured-merge-diff's serialization of the same field set.
func TestManagedFieldsMatchesStructuredMergeDiff(t *testing.T) {
	s := realisticSlice(3, false, false)
	s.Labels.Set("app.kubernetes.io/name", "web")
	want := fieldpath.NewSet(
		fieldpath.MakePathOrDie("addressType"),
		fieldpath.MakePathOrDie("endpoints"),
		fieldpath.MakePathOrDie("ports"),
		fieldpath.MakePathOrDie("metadata", "generateName"),
		fieldpath.MakePathOrDie("metadata", "annotations"),
		fieldpath.MakePathOrDie("metadata", "annotations", AnnotationTriggerTime),
		fieldpath.MakePathOrDie("metadata", "labels"),
		fieldpath.MakePathOrDie("metadata", "labels", LabelServiceName),
		fieldpath.MakePathOrDie("metadata", "labels", LabelManagedBy),
		fieldpath.MakePathOrDie("metadata", "labels", "app.kubernetes.io/name"),
		fieldpath.MakePathOrDie("metadata", "ownerReferences"),
		fieldpath.MakePathOrDie("metadata", "ownerReferences", fieldpath.KeyByFields("uid", realisticServiceUID)),
	)
	checkFieldsV1(t, "EndpointSlice", EndpointSliceManagedFields(s, realisticTime).FieldsV1, want)

	e := realisticEndpoints(2, false)
	wantEndpoints := fieldpath.NewSet(
		fieldpath.MakePathOrDie("subsets"),
		fieldpath.MakePathOrDie("metadata", "annotations"),
		fieldpath.MakePathOrDie("metadata", "annotations", AnnotationTriggerTime),
		fieldpath.MakePathOrDie("metadata", "labels"),
		fieldpath.MakePathOrDie("metadata", "labels", "app"),
	)
	checkFieldsV1(t, "Endpoints", EndpointsManagedFields(e, realisticTime).FieldsV1, wantEndpoints)

	empty := &Endpoints{ObjectMeta: ObjectMeta{Name: "web"}}
	checkFieldsV1(t, "empty Endpoints", EndpointsManagedFields(empty, realisticTime).FieldsV1, fieldpath.NewSet())
}

func checkFieldsV1(t *testing.T, what, got string, want *fieldpath.Set) {
	t.Helper()
	b, err := want.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	if got != string(b) {
		t.Errorf("%s FieldsV1:\n got %s\nwant %s", what, got, b)
	}
}

// TestEmptyVersusNilLists pins the JSON nil/empty distinctions against the serializer.
func TestEmptyVersusNilLists(t *testing.T) {
	oracles := newOracles(t)
	nilSlice := &EndpointSlice{AddressType: AddressTypeIPv4}
	emptySlice := &EndpointSlice{AddressType: AddressTypeIPv4, Endpoints: []Endpoint{}, Ports: []EndpointPort{}}
	for _, s := range []*EndpointSlice{nilSlice, emptySlice} {
		checkSliceSizes(t, oracles, s, "empty/nil")
	}
	if d := EndpointSliceSize(nilSlice, JSON) - EndpointSliceSize(emptySlice, JSON); d != 4 {
		t.Errorf(`"endpoints":null,"ports":null is %d bytes longer than [] and [], want 4`, d)
	}
	if EndpointSliceSize(nilSlice, Protobuf) != EndpointSliceSize(emptySlice, Protobuf) {
		t.Error("nil and empty lists differ in protobuf")
	}
	obj := oracles[JSON].objectBytes(t, k8sSlice(nilSlice), discoveryGV)
	if !bytes.Contains(obj, []byte(`"endpoints":null`)) {
		t.Errorf("JSON of a slice with nil endpoints: %s", obj)
	}
}

// TestProtobufSizePairs checks the object and request sizes computed together against
// sizing the object and the request body (the object with a create's or an update's
// request metadata) apart, on random objects (with and without managedFields, across
// varint boundaries of the metadata's length).
func TestProtobufSizePairs(t *testing.T) {
	g := newObjectGen(31)
	for i := range 300 {
		s := g.slice(40)
		if i%3 == 0 {
			s.ManagedFields = nil
		}
		var sum int64
		for j := range s.Endpoints {
			sum += EndpointSize(&s.Endpoints[j], Protobuf)
		}
		meta := CreateRequestMeta(s.ObjectMeta, true)
		if i%2 == 1 {
			meta = UpdateRequestMeta(s.ObjectMeta, "98765", int64(i))
		}
		req := *s
		req.ObjectMeta = meta
		object, request := EndpointSliceProtobufSizesFrom(s, &meta, sum)
		if want, wantReq := EndpointSliceSize(s, Protobuf), EndpointSliceSize(&req, Protobuf); object != want || request != wantReq {
			t.Fatalf("slice %d: sizes %d/%d, want %d/%d", i, object, request, want, wantReq)
		}
		e := g.endpoints(30)
		if i%3 == 1 {
			e.ManagedFields = nil
		}
		subsets := make([]SubsetSize, len(e.Subsets))
		for j := range e.Subsets {
			subsets[j] = NewSubsetSize(&e.Subsets[j])
		}
		reqMeta := CreateRequestMeta(e.ObjectMeta, false)
		if i%2 == 1 {
			reqMeta = UpdateRequestMeta(e.ObjectMeta, "1", 0)
		}
		object, request = EndpointsProtobufSizesFrom(&e.ObjectMeta, &reqMeta, subsets)
		if want, wantReq := EndpointsSize(e, Protobuf), EndpointsSizeFrom(&reqMeta, subsets, Protobuf); object != want || request != wantReq {
			t.Fatalf("Endpoints %d: sizes %d/%d, want %d/%d", i, object, request, want, wantReq)
		}
	}
}

// TestEndpointSizeKnown: the size an endpoint of the reconciler's carries is the size its
// fields make, and one with hints, or built elsewhere, gives none.
func TestEndpointSizeKnown(t *testing.T) {
	s, _, _ := syncedBenchService(benchService(), ReconcilerOptions{}, 300)
	topology := NewTopologyCache()
	checked := 0
	for _, sl := range s.Stored() {
		for i := range sl.Endpoints {
			ep := &sl.Endpoints[i]
			n, ok := EndpointSizeKnown(ep)
			if !ok {
				t.Fatalf("endpoint %d of %s carries no size", i, sl.Name)
			}
			fields := *ep
			fields.pbBase = 0 // sized from its fields
			if want := EndpointSize(&fields, Protobuf); n != want {
				t.Fatalf("endpoint %d of %s: known size %d, its fields make %d", i, sl.Name, n, want)
			}
			if _, ok := EndpointSizeKnown(&fields); ok {
				t.Fatal("an endpoint without a carried size gave one")
			}
			fields.pbBase, fields.Hints = ep.pbBase, &EndpointHints{ForZones: []string{"zone-a"}}
			if _, ok := EndpointSizeKnown(&fields); ok {
				t.Fatal("an endpoint with hints of its own gave its size without them")
			}
			// Hints shared by the controller carry their size: the endpoint's is known,
			// and is what the same hints make unshared.
			zone, node := fmt.Sprint("zone-", i%7), fmt.Sprint("node-", i)
			var close closeHints
			withHints := *ep
			withHints.Conditions.Ready, withHints.Zone, withHints.NodeName = ConditionTrue, &zone, &node
			close.update(&EndpointSlice{Endpoints: []Endpoint{withHints}}, i%2 == 0, false)
			key := closeHintKey{zone: zone, hasZone: true}
			if i%2 == 0 {
				key.node, key.hasNode = node, true
			}
			for _, h := range []*EndpointHints{topology.hintFor(zone), close[key]} {
				fields.Hints = h
				n, ok := EndpointSizeKnown(&fields)
				unshared := fields
				unshared.pbBase, unshared.Hints = 0, &EndpointHints{ForZones: h.ForZones, ForNodes: h.ForNodes}
				if want := EndpointSize(&unshared, Protobuf); !ok || n != want || EndpointSize(&fields, Protobuf) != want {
					t.Fatalf("endpoint %d of %s with shared hints %v: known size %d (%v), sized %d; its fields make %d", i, sl.Name, *h, n, ok, EndpointSize(&fields, Protobuf), want)
				}
			}
			checked++
		}
	}
	if checked != 300 {
		t.Fatalf("checked %d endpoints, want 300", checked)
	}
}
