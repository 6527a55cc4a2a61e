package model

// Test oracle for the size model: conversion of model objects to the real k8s.io/api types,
// and the real apimachinery v0.37.2 serializers and watch encoder that the API server uses.

import (
	"bytes"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	restwatch "k8s.io/client-go/rest/watch"
)

// wireOracle encodes objects and watch events exactly as the API server does for one media
// type: the negotiated serializer behind a versioning codec (which sets apiVersion/kind) for
// the object, and the stream serializer plus framer for the watch event.
type wireOracle struct {
	object  runtime.Encoder // envelope + object (protobuf) or object (JSON)
	info    runtime.SerializerInfo
	factory serializer.CodecFactory
}

// apiScheme is a scheme of the API types the model sizes: core/v1 and discovery/v1.
func apiScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := discoveryv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

func newWireOracle(t testing.TB, enc Encoding) *wireOracle {
	t.Helper()
	scheme := apiScheme(t)
	factory := serializer.NewCodecFactory(scheme)
	mediaType := runtime.ContentTypeProtobuf
	if enc == JSON {
		mediaType = runtime.ContentTypeJSON
	}
	info, ok := runtime.SerializerInfoForMediaType(factory.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil {
		t.Fatalf("no stream serializer for %s", mediaType)
	}
	return &wireOracle{info: info, factory: factory}
}

func (o *wireOracle) encoder(gv schema.GroupVersion) runtime.Encoder {
	return o.factory.EncoderForVersion(o.info.Serializer, gv)
}

// objectBytes is what the serializer writes for obj. For JSON the trailing "\n" of
// json.Encoder is cut, by the size model's convention (EndpointSliceSize doc).
func (o *wireOracle) objectBytes(t testing.TB, obj runtime.Object, gv schema.GroupVersion) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := o.encoder(gv).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if o.info.MediaType == runtime.ContentTypeJSON {
		if len(b) == 0 || b[len(b)-1] != '\n' {
			t.Fatalf("JSON serializer output does not end in a newline")
		}
		b = b[:len(b)-1]
	}
	return b
}

// watchEventBytes is one watch event carrying obj, through client-go's watch encoder (the
// same construction as the API server's watch handler) and the stream framer.
func (o *wireOracle) watchEventBytes(t testing.TB, obj runtime.Object, gv schema.GroupVersion, et EventType) []byte {
	t.Helper()
	var buf bytes.Buffer
	stream := o.info.StreamSerializer
	enc := restwatch.NewEncoder(streaming.NewEncoder(stream.Framer.NewFrameWriter(&buf), stream.Serializer), o.encoder(gv))
	if err := enc.Encode(&watch.Event{Type: watch.EventType(et), Object: obj}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func k8sTime(ts Timestamp) metav1.Time {
	if ts.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(time.Unix(0, int64(ts)))
}

func k8sMeta(m *ObjectMeta) metav1.ObjectMeta {
	out := metav1.ObjectMeta{
		Name:              m.Name,
		GenerateName:      m.GenerateName,
		Namespace:         m.Namespace,
		UID:               types.UID(m.UID),
		ResourceVersion:   m.ResourceVersion,
		Generation:        m.Generation,
		CreationTimestamp: k8sTime(m.CreationTimestamp),
		Labels:            m.Labels.Map(),
		Annotations:       m.Annotations.Map(),
	}
	for _, r := range m.OwnerReferences {
		out.OwnerReferences = append(out.OwnerReferences, metav1.OwnerReference{
			APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: types.UID(r.UID),
			Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion,
		})
	}
	for _, e := range m.ManagedFields {
		me := metav1.ManagedFieldsEntry{
			Manager:    e.Manager,
			Operation:  metav1.ManagedFieldsOperationType(e.Operation),
			APIVersion: e.APIVersion,
			FieldsType: e.FieldsType,
		}
		if !e.Time.IsZero() {
			tm := k8sTime(e.Time)
			me.Time = &tm
		}
		if e.FieldsV1 != "" {
			me.FieldsV1 = metav1.NewFieldsV1(e.FieldsV1)
		}
		out.ManagedFields = append(out.ManagedFields, me)
	}
	return out
}

func k8sObjectReference(r *ObjectReference) *corev1.ObjectReference {
	if r == nil {
		return nil
	}
	return &corev1.ObjectReference{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: types.UID(r.UID)}
}

// k8sSlice converts s, keeping nil and empty lists apart. TypeMeta is left for the versioning
// codec to set, as in the API server.
func k8sSlice(s *EndpointSlice) *discoveryv1.EndpointSlice {
	out := &discoveryv1.EndpointSlice{
		ObjectMeta:  k8sMeta(&s.ObjectMeta),
		AddressType: discoveryv1.AddressType(s.AddressType),
	}
	if s.Endpoints != nil {
		out.Endpoints = make([]discoveryv1.Endpoint, 0, len(s.Endpoints))
	}
	for _, ep := range s.Endpoints {
		k := discoveryv1.Endpoint{
			Addresses: ep.Addresses,
			Conditions: discoveryv1.EndpointConditions{
				Ready: ep.Conditions.Ready.Ptr(), Serving: ep.Conditions.Serving.Ptr(), Terminating: ep.Conditions.Terminating.Ptr(),
			},
			Hostname:  ep.Hostname,
			TargetRef: k8sObjectReference(ep.TargetRef),
			NodeName:  ep.NodeName,
			Zone:      ep.Zone,
		}
		if ep.Hints != nil {
			k.Hints = &discoveryv1.EndpointHints{}
			for _, z := range ep.Hints.ForZones {
				k.Hints.ForZones = append(k.Hints.ForZones, discoveryv1.ForZone{Name: z})
			}
			for _, n := range ep.Hints.ForNodes {
				k.Hints.ForNodes = append(k.Hints.ForNodes, discoveryv1.ForNode{Name: n})
			}
		}
		out.Endpoints = append(out.Endpoints, k)
	}
	if s.Ports != nil {
		out.Ports = make([]discoveryv1.EndpointPort, 0, len(s.Ports))
	}
	for _, p := range s.Ports {
		kp := discoveryv1.EndpointPort{Name: p.Name, Port: p.Port, AppProtocol: p.AppProtocol}
		if p.Protocol != nil {
			kp.Protocol = Ptr(corev1.Protocol(*p.Protocol))
		}
		out.Ports = append(out.Ports, kp)
	}
	return out
}

func k8sAddresses(in []EndpointAddress) []corev1.EndpointAddress {
	if in == nil {
		return nil
	}
	out := make([]corev1.EndpointAddress, 0, len(in))
	for _, a := range in {
		out = append(out, corev1.EndpointAddress{
			IP: a.IP, Hostname: a.Hostname, NodeName: a.NodeName, TargetRef: k8sObjectReference(a.TargetRef),
		})
	}
	return out
}

// k8sEndpoints converts e; TypeMeta is left for the versioning codec.
func k8sEndpoints(e *Endpoints) *corev1.Endpoints {
	out := &corev1.Endpoints{ObjectMeta: k8sMeta(&e.ObjectMeta)}
	for _, s := range e.Subsets {
		ks := corev1.EndpointSubset{
			Addresses:         k8sAddresses(s.Addresses),
			NotReadyAddresses: k8sAddresses(s.NotReadyAddresses),
		}
		for _, p := range s.Ports {
			ks.Ports = append(ks.Ports, corev1.EndpointPort{
				Name: p.Name, Port: p.Port, Protocol: corev1.Protocol(p.Protocol), AppProtocol: p.AppProtocol,
			})
		}
		out.Subsets = append(out.Subsets, ks)
	}
	return out
}

var discoveryGV = discoveryv1.SchemeGroupVersion

var allEventTypes = []EventType{EventAdded, EventModified, EventDeleted}

// checkSliceSizes asserts every size of s against the oracles; it returns false on a mismatch.
func checkSliceSizes(t testing.TB, oracles [numEncodings]*wireOracle, s *EndpointSlice, label string) bool {
	t.Helper()
	ok := true
	for enc := range numEncodings {
		obj := oracles[enc].objectBytes(t, k8sSlice(s), discoveryv1.SchemeGroupVersion)
		got := EndpointSliceSize(s, enc)
		if got != int64(len(obj)) {
			t.Errorf("%s: EndpointSliceSize(%v) = %d, serializer wrote %d", label, enc, got, len(obj))
			ok = false
			continue
		}
		for _, et := range allEventTypes {
			ev := oracles[enc].watchEventBytes(t, k8sSlice(s), discoveryv1.SchemeGroupVersion, et)
			if w := WatchEventSize(got, et, enc); w != int64(len(ev)) {
				t.Errorf("%s: WatchEventSize(%d, %s, %v) = %d, encoder wrote %d", label, got, et, enc, w, len(ev))
				ok = false
			}
		}
	}
	return ok
}

// checkEndpointsSizes is checkSliceSizes for a legacy Endpoints object.
func checkEndpointsSizes(t testing.TB, oracles [numEncodings]*wireOracle, e *Endpoints, label string) bool {
	t.Helper()
	ok := true
	for enc := range numEncodings {
		k := k8sEndpoints(e)
		obj := oracles[enc].objectBytes(t, k, corev1.SchemeGroupVersion)
		got := EndpointsSize(e, enc)
		if got != int64(len(obj)) {
			t.Errorf("%s: EndpointsSize(%v) = %d, serializer wrote %d", label, enc, got, len(obj))
			ok = false
			continue
		}
		for _, et := range allEventTypes {
			ev := oracles[enc].watchEventBytes(t, k, corev1.SchemeGroupVersion, et)
			if w := WatchEventSize(got, et, enc); w != int64(len(ev)) {
				t.Errorf("%s: WatchEventSize(%d, %s, %v) = %d, encoder wrote %d", label, got, et, enc, w, len(ev))
				ok = false
			}
		}
	}
	return ok
}

func newOracles(t testing.TB) [numEncodings]*wireOracle {
	return [numEncodings]*wireOracle{Protobuf: newWireOracle(t, Protobuf), JSON: newWireOracle(t, JSON)}
}

// TestRequestBodySizes checks the request metadata of creates and updates against the
// bodies upstream's controllers send, built as they build them and marshalled by the real
// serializer (protobuf), on random objects:
//   - an EndpointSlice create is newEndpointSlice's object: generateName, namespace, labels,
//     owner references, and the trigger-time annotation the reconciler adds; no name, uid,
//     resourceVersion, creationTimestamp or generation, which the API server assigns;
//   - an Endpoints create is syncService's new object: name, labels and annotations (the
//     namespace is the URL's);
//   - an update is the informer's copy, changed: the stored object's metadata with the
//     resourceVersion and generation it had before the write, without managedFields.
//
// upstream: k8s.io/endpointslice utils.go newEndpointSlice, reconciler.go
// (setEndpointSliceLabels, the trigger-time annotation); pkg/controller/endpoint
// endpoints_controller.go syncService.
func TestRequestBodySizes(t *testing.T) {
	o := newWireOracle(t, Protobuf)
	g := newObjectGen(57)
	for i := range 200 {
		s := g.slice(20)
		created := k8sSlice(s)
		created.ObjectMeta = metav1.ObjectMeta{
			GenerateName: s.GenerateName, Namespace: s.Namespace,
			Labels: s.Labels.Map(), Annotations: s.Annotations.Map(),
			OwnerReferences: k8sMeta(&s.ObjectMeta).OwnerReferences,
		}
		if created.GenerateName == "" {
			created.Name = s.Name // a name of its own, kept
		}
		req := CreateRequestMeta(s.ObjectMeta, true)
		if _, got := EndpointSliceProtobufSizesFrom(s, &req, sliceEndpointBytes(s)); got != int64(len(o.objectBytes(t, created, discoveryGV))) {
			t.Errorf("slice %d create: request %d B, the controller's body %d B", i, got, len(o.objectBytes(t, created, discoveryGV)))
		}
		updated := k8sSlice(s)
		updated.ManagedFields = nil
		updated.ResourceVersion, updated.Generation = "4711", s.Generation/2
		req = UpdateRequestMeta(s.ObjectMeta, "4711", s.Generation/2)
		if _, got := EndpointSliceProtobufSizesFrom(s, &req, sliceEndpointBytes(s)); got != int64(len(o.objectBytes(t, updated, discoveryGV))) {
			t.Errorf("slice %d update: request %d B, the controller's body %d B", i, got, len(o.objectBytes(t, updated, discoveryGV)))
		}

		e := g.endpoints(10)
		e.GenerateName, e.OwnerReferences = "", nil // the Endpoints controller sets neither
		subsets := make([]SubsetSize, len(e.Subsets))
		for j := range e.Subsets {
			subsets[j] = NewSubsetSize(&e.Subsets[j])
		}
		ke := k8sEndpoints(e)
		ke.ObjectMeta = metav1.ObjectMeta{Name: e.Name, Labels: e.Labels.Map(), Annotations: e.Annotations.Map()}
		ereq := CreateRequestMeta(e.ObjectMeta, false)
		if _, got := EndpointsProtobufSizesFrom(&e.ObjectMeta, &ereq, subsets); got != int64(len(o.objectBytes(t, ke, corev1.SchemeGroupVersion))) {
			t.Errorf("Endpoints %d create: request %d B, the controller's body %d B", i, got, len(o.objectBytes(t, ke, corev1.SchemeGroupVersion)))
		}
	}
}

// sliceEndpointBytes sums the protobuf sizes of s's endpoints.
func sliceEndpointBytes(s *EndpointSlice) int64 {
	var n int64
	for j := range s.Endpoints {
		n += EndpointSize(&s.Endpoints[j], Protobuf)
	}
	return n
}
