package sim

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/endpointslice"
	endpointsliceutil "k8s.io/endpointslice/util"

	"epsim/model"
)

// encodeReal encodes obj with the API server's real serializer for enc (protobuf: envelope
// and object; JSON without json.Encoder's trailing newline).
func encodeReal(t *testing.T, obj runtime.Object, gv schema.GroupVersion, enc model.Encoding) []byte {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := discoveryv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	factory := serializer.NewCodecFactory(scheme)
	mediaType := runtime.ContentTypeProtobuf
	if enc == model.JSON {
		mediaType = runtime.ContentTypeJSON
	}
	info, ok := runtime.SerializerInfoForMediaType(factory.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	var buf bytes.Buffer
	if err := factory.EncoderForVersion(info.Serializer, gv).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func apiManagedFields(m []model.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	var out []metav1.ManagedFieldsEntry
	for _, e := range m {
		t := metav1.NewTime(e.Time.Time())
		out = append(out, metav1.ManagedFieldsEntry{Manager: e.Manager, Operation: metav1.ManagedFieldsOperationType(e.Operation),
			APIVersion: e.APIVersion, Time: &t, FieldsType: e.FieldsType, FieldsV1: &metav1.FieldsV1{Raw: []byte(e.FieldsV1)}})
	}
	return out
}

// emptyObjectsEngine is an engine with one Service (labelled, two ports) and no pods.
func emptyObjectsEngine(t *testing.T) (*Engine, *serviceState) {
	t.Helper()
	cfg := testConfig(3, 1)
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	svc := *s.svc
	svc.Labels = map[string]string{"app": "web", "team": "payments"}
	svc.CreationTimestamp = timestamp(0)
	s.svc = &svc
	return e, s
}

func upstreamService(svc *model.Service) *corev1.Service {
	out := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: svc.Name, UID: types.UID(svc.UID), Labels: svc.Labels,
			CreationTimestamp: metav1.NewTime(svc.CreationTimestamp.Time())},
		Spec: corev1.ServiceSpec{Selector: svc.Selector.Map(), ClusterIP: svc.ClusterIP, Type: corev1.ServiceTypeClusterIP},
	}
	for _, f := range svc.IPFamilies {
		out.Spec.IPFamilies = append(out.Spec.IPFamilies, corev1.IPFamily(f))
	}
	for _, p := range svc.Ports {
		out.Spec.Ports = append(out.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: corev1.Protocol(p.Protocol), Port: p.Port,
			TargetPort: intstr.FromInt32(p.TargetPort.IntVal)})
	}
	return out
}

// TestEmptyEndpointsMatchesUpstream: the Endpoints object the Endpoints controller creates for
// a Service without pods, built as upstream's syncService builds it (endpoints_controller.go:
// the object for a NotFound Endpoints — name and the Service's labels —, then an empty
// subsets list, the trigger-time annotation, the headless label removed and the managed-by
// label set), completed with the API server's fields and encoded with the real serializers,
// is byte for byte as large as the one epsim stores.
func TestEmptyEndpointsMatchesUpstream(t *testing.T) {
	e, s := emptyObjectsEngine(t)
	y := newEndpointsSyncer(e)
	y.serviceAdded(s)
	writes, err := y.sync(s, s.svc.CreationTimestamp, nil)
	if err != nil || len(writes) != 1 || writes[0].verb != model.EndpointsCreate {
		t.Fatalf("writes %+v, err %v", writes, err)
	}
	now := timestamp(Time(3 * time.Second))
	meta := apiMeta{uid: "6c1f7a52-3f0e-4f63-9d0a-0123456789ab", resourceVersion: "123456", created: now, now: now}
	e.api.needJSON = true
	cm := y.commit(s, &writes[0], meta)

	svc := upstreamService(s.svc)
	// upstream: syncService, for a Service whose Endpoints the lister does not find.
	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: svc.Name, Labels: svc.Labels}}
	ep = ep.DeepCopy()
	ep.Subsets = []corev1.EndpointSubset{}
	ep.Labels = svc.Labels
	ep.Annotations = map[string]string{corev1.EndpointsLastChangeTriggerTime: svc.CreationTimestamp.UTC().Format(time.RFC3339Nano)}
	labels := map[string]string{}
	for k, v := range ep.Labels {
		if k != corev1.IsHeadlessService {
			labels[k] = v
		}
	}
	labels["endpoints.kubernetes.io/managed-by"] = "endpoint-controller"
	ep.Labels = labels
	// The API server's part: namespace from the request path, uid, resourceVersion,
	// creationTimestamp, and the managedFields of an Update by kube-controller-manager.
	ep.Namespace = svc.Namespace
	ep.UID = types.UID(meta.uid)
	ep.ResourceVersion = meta.resourceVersion
	ep.CreationTimestamp = metav1.NewTime(meta.created.Time())
	mf := model.EndpointsManagedFields(&model.Endpoints{ObjectMeta: model.ObjectMeta{Labels: model.StringMapOf(ep.Labels), Annotations: model.StringMapOf(ep.Annotations)}}, now)
	ep.ManagedFields = apiManagedFields([]model.ManagedFieldsEntry{mf})

	for _, enc := range []model.Encoding{model.Protobuf, model.JSON} {
		real := encodeReal(t, ep, corev1.SchemeGroupVersion, enc)
		if got := cm.objectBytes[enc]; got != int64(len(real)) {
			t.Errorf("%s: epsim stores %d B, upstream's empty Endpoints is %d B:\n%s", enc, got, len(real), encodeReal(t, ep, corev1.SchemeGroupVersion, model.JSON))
		}
	}
}

// sliceFieldsOf is the managedFields entry the API server records for upstream slice k,
// created as it is, derived from the object itself (model.EndpointSliceManagedFields: the
// field set, checked against apimachinery's field manager in the model's tests). Only
// whether its lists have items counts, not the items.
func sliceFieldsOf(k *discoveryv1.EndpointSlice, at model.Timestamp) []metav1.ManagedFieldsEntry {
	m := model.ObjectMeta{GenerateName: k.GenerateName, Labels: model.StringMapOf(k.Labels), Annotations: model.StringMapOf(k.Annotations)}
	for _, r := range k.OwnerReferences {
		m.OwnerReferences = append(m.OwnerReferences, model.OwnerReference{UID: string(r.UID)})
	}
	s := &model.EndpointSlice{ObjectMeta: m, AddressType: model.AddressType(k.AddressType),
		Endpoints: make([]model.Endpoint, len(k.Endpoints)), Ports: make([]model.EndpointPort, len(k.Ports))}
	return apiManagedFields([]model.ManagedFieldsEntry{model.EndpointSliceManagedFields(s, at)})
}

// TestPlaceholderSliceMatchesUpstream: the placeholder EndpointSlices the real reconciler
// (k8s.io/endpointslice Reconcile, for a Service without pods) creates, completed with the
// API server's fields and encoded with the real serializers, are byte for byte as large as
// the ones epsim stores: for a Service with and without labels, dual-stack, and a sync with
// no trigger time.
func TestPlaceholderSliceMatchesUpstream(t *testing.T) {
	for _, tc := range []struct {
		name      string
		labels    map[string]string
		families  []model.IPFamily
		noTrigger bool
	}{
		{name: "no labels"},
		{name: "labelled", labels: map[string]string{"app": "web", "team": "payments"}},
		{name: "dual-stack", labels: map[string]string{"app": "web"}, families: []model.IPFamily{model.IPv4, model.IPv6}},
		{name: "no trigger time", noTrigger: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, s := emptyObjectsEngine(t)
			e.api.needJSON = true
			svc := *s.svc
			svc.Labels = tc.labels
			if tc.families != nil {
				svc.IPFamilies = tc.families
			}
			s.svc = &svc
			trigger := svc.CreationTimestamp
			if tc.noTrigger {
				trigger = 0
			}
			y := newSliceSyncer(e)
			y.serviceAdded(s)
			writes, err := y.sync(s, trigger, nil)
			if err != nil || len(writes) != len(svc.IPFamilies) {
				t.Fatalf("writes %+v, err %v", writes, err)
			}
			now := timestamp(Time(3 * time.Second))
			meta := apiMeta{uid: "6c1f7a52-3f0e-4f63-9d0a-0123456789ab", resourceVersion: "123456", created: now, now: now, generation: 1}

			client := fake.NewSimpleClientset()
			seq := 0
			client.PrependReactor("create", "endpointslices", func(a k8stesting.Action) (bool, runtime.Object, error) {
				obj := a.(k8stesting.CreateAction).GetObject().(*discoveryv1.EndpointSlice)
				seq++
				obj.Name = fmt.Sprintf("%s%05d", obj.GenerateName, seq)
				return false, nil, nil
			})
			f := informers.NewSharedInformerFactory(client, 0)
			rec := endpointslice.NewReconciler(client, corelisters.NewNodeLister(f.Core().V1().Nodes().Informer().GetIndexer()),
				int32(model.DefaultMaxEndpointsPerSlice), endpointsliceutil.NewEndpointSliceTracker(), nil, record.NewFakeRecorder(10),
				model.ControllerName)
			usvc := upstreamService(s.svc)
			var tt time.Time
			if !trigger.IsZero() {
				tt = trigger.Time()
			}
			if err := rec.Reconcile(logr.Discard(), usvc, nil, nil, tt); err != nil {
				t.Fatal(err)
			}
			var created []*discoveryv1.EndpointSlice
			for _, a := range client.Actions() {
				if a.GetVerb() == "create" {
					created = append(created, a.(k8stesting.CreateAction).GetObject().(*discoveryv1.EndpointSlice).DeepCopy())
				}
			}
			if len(created) != len(writes) {
				t.Fatalf("upstream created %d placeholders, epsim %d", len(created), len(writes))
			}
			for i := range writes {
				cm := y.commit(s, &writes[i], meta)
				stored := writes[i].slice
				// Upstream creates the families' placeholders in map order: match by type.
				var u *discoveryv1.EndpointSlice
				for _, c := range created {
					if string(c.AddressType) == string(stored.AddressType) {
						u = c
					}
				}
				if u == nil {
					t.Fatalf("upstream created no %s placeholder", stored.AddressType)
				}
				// The API server's part, as epsim assigned it.
				u.Name = stored.Name
				u.UID = types.UID(meta.uid)
				u.ResourceVersion = meta.resourceVersion
				u.Generation = 1
				u.CreationTimestamp = metav1.NewTime(meta.created.Time())
				u.ManagedFields = sliceFieldsOf(u, now)
				for _, enc := range []model.Encoding{model.Protobuf, model.JSON} {
					real := encodeReal(t, u, discoveryv1.SchemeGroupVersion, enc)
					if got := cm.objectBytes[enc]; got != int64(len(real)) {
						// The stored slice keeps no managedFields (they only count in its sizes).
						t.Errorf("%s %s: epsim stores %d B, upstream's placeholder is %d B:\nupstream %s\nepsim managedFields %s",
							u.AddressType, enc, got, len(real), encodeReal(t, u, discoveryv1.SchemeGroupVersion, model.JSON),
							model.EndpointSliceManagedFields(stored, now).FieldsV1)
					}
				}
				// Deleted at a resourceVersion one digit longer: the DELETED event carries the
				// object with the delete's. upstream: apiserver storage/etcd3/watcher.go
				// prepareObjects (decodeObj at the event's revision).
				y.applied(s, &writes[i], true)
				gone := y.commit(s, &write{verb: "delete", slice: stored}, apiMeta{resourceVersion: "1234567", now: now})
				u.ResourceVersion = "1234567"
				for _, enc := range []model.Encoding{model.Protobuf, model.JSON} {
					if real := encodeReal(t, u, discoveryv1.SchemeGroupVersion, enc); gone.goneBytes[enc] != int64(len(real)) {
						t.Errorf("%s %s: epsim's DELETED event carries %d B, upstream's %d B", u.AddressType, enc, gone.goneBytes[enc], len(real))
					}
				}
			}
		})
	}
}
