package model

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
	"k8s.io/client-go/applyconfigurations"
)

// The managedFields entries the model builds, against apimachinery's own field manager run
// as the API server runs it for kube-controller-manager's writes: an Update by that manager
// of the object as decoded from its protobuf request body (where an empty list is nil),
// against the live object (an empty one for a create).

// realFieldManager is the API server's field manager for one kind.
type realFieldManager struct {
	fm   *managedfields.FieldManager
	gvk  schema.GroupVersionKind
	live runtime.Object
}

func newRealFieldManager(t *testing.T, gvk schema.GroupVersionKind, empty runtime.Object) *realFieldManager {
	t.Helper()
	empty.GetObjectKind().SetGroupVersionKind(gvk)
	return &realFieldManager{
		fm:   managedfieldstest.NewFakeFieldManager(applyconfigurations.NewTypeConverter(apiScheme(t)), gvk),
		gvk:  gvk,
		live: empty,
	}
}

// protoMessage is what the API types' generated protobuf code provides.
type protoMessage interface {
	runtime.Object
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// write updates the live object with obj as the API server receives it over protobuf and
// returns the FieldsV1 of kube-controller-manager's entry ("" if it has none).
func (r *realFieldManager) write(t *testing.T, obj protoMessage, decoded protoMessage) string {
	t.Helper()
	data, err := obj.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := decoded.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	decoded.GetObjectKind().SetGroupVersionKind(r.gvk)
	out, err := r.fm.Update(r.live, decoded, KubeControllerManager)
	if err != nil {
		t.Fatalf("field manager: %v", err)
	}
	r.live = out
	acc, err := meta.Accessor(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range acc.GetManagedFields() {
		if e.Manager == KubeControllerManager && e.FieldsV1 != nil {
			return e.FieldsV1.String()
		}
	}
	return ""
}

func TestManagedFieldsMatchFieldManager(t *testing.T) {
	seeds := uint64(4)
	if testing.Short() {
		seeds = 2
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		g := newObjectGen(seed)
		for i := range 150 {
			s := g.slice(3)
			s.ManagedFields = nil
			fm := newRealFieldManager(t, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), &discoveryv1.EndpointSlice{})
			want := fm.write(t, k8sSlice(s), &discoveryv1.EndpointSlice{})
			if got := EndpointSliceManagedFields(s, 1).FieldsV1; got != want {
				t.Fatalf("seed %d slice %d: FieldsV1\n got %q\nwant %q", seed, i, got, want)
			}
			var memo FieldsMemo
			if got, want := memo.EndpointSlice(s, 1).FieldsV1, EndpointSliceManagedFields(s, 1).FieldsV1; len(got) != len(want) {
				t.Fatalf("seed %d slice %d: the memo's FieldsV1 %q is not the size of %q", seed, i, got, want)
			}

			e := g.endpoints(3)
			e.ManagedFields = nil
			fm = newRealFieldManager(t, corev1.SchemeGroupVersion.WithKind("Endpoints"), &corev1.Endpoints{})
			want = fm.write(t, k8sEndpoints(e), &corev1.Endpoints{})
			if got := EndpointsManagedFields(e, 1).FieldsV1; got != want && !(got == EmptyFieldSet && want == "") {
				t.Fatalf("seed %d endpoints %d: FieldsV1\n got %q\nwant %q", seed, i, got, want)
			}
		}
	}
}

// TestSliceListsFollowTheFieldManager: which of a slice's spec fields the entry lists over a
// history of writes (the placeholder's create, a list given items, a list emptied).
func TestSliceListsFollowTheFieldManager(t *testing.T) {
	ports := []EndpointPort{{Name: Ptr("http"), Protocol: Ptr(ProtocolTCP), Port: Ptr(int32(80))}}
	endpoints := []Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: EndpointConditions{Ready: ConditionTrue}}}
	for _, history := range [][]struct{ endpoints, ports bool }{
		{{false, false}},                             // the placeholder
		{{false, true}, {true, true}},                // a slice with ports, then endpoints
		{{true, true}, {false, true}, {false, true}}, // emptied: the leaf stays
		{{true, false}, {false, false}, {true, false}},
		{{false, false}, {false, true}, {true, false}, {false, false}},
	} {
		fm := newRealFieldManager(t, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), &discoveryv1.EndpointSlice{})
		var lists SliceLists
		for i, w := range history {
			s := &EndpointSlice{ObjectMeta: ObjectMeta{Name: "web-abc", Namespace: "ns",
				Labels: StringMapFrom(LabelServiceName, "web")}, AddressType: AddressTypeIPv4}
			s.Endpoints, s.Ports = []Endpoint{}, []EndpointPort{}
			if w.endpoints {
				s.Endpoints = endpoints
			}
			if w.ports {
				s.Ports = ports
			}
			lists = SliceListsAfter(lists, s)
			want := fm.write(t, k8sSlice(s), &discoveryv1.EndpointSlice{})
			if got := EndpointSliceManagedFieldsWith(s, 1, lists).FieldsV1; got != want {
				t.Errorf("%v, write %d: FieldsV1\n got %s\nwant %s", history, i, got, want)
			}
		}
	}
}

// TestFieldNamesAsStructuredMergeDiffWritesThem: keys and owner UIDs with characters JSON
// escapes, which the API server's validation keeps out of real objects (the random objects
// of TestManagedFieldsMatchFieldManager have them too).
func TestFieldNamesAsStructuredMergeDiffWritesThem(t *testing.T) {
	for _, key := range []string{"a<b", "a&b>", "a\xffb", "a\u2028b", "a\bb\fc", "a\"b\\c", "a\nb\x01", "ü"} {
		s := &EndpointSlice{ObjectMeta: ObjectMeta{Name: "web-abc", Namespace: "ns",
			Labels:          StringMapFrom(key, "x"),
			OwnerReferences: []OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: "u" + key}}},
			AddressType: AddressTypeIPv4, Endpoints: []Endpoint{}, Ports: []EndpointPort{}}
		fm := newRealFieldManager(t, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), &discoveryv1.EndpointSlice{})
		want := fm.write(t, k8sSlice(s), &discoveryv1.EndpointSlice{})
		if got := EndpointSliceManagedFields(s, 1).FieldsV1; got != want {
			t.Errorf("key %q: FieldsV1\n got %s\nwant %s", key, got, want)
		}
	}
}

func ExampleSliceListsAfter() {
	placeholder := &EndpointSlice{AddressType: AddressTypeIPv4, Endpoints: []Endpoint{}, Ports: []EndpointPort{}}
	lists := SliceListsAfter(0, placeholder)
	fmt.Println(lists&ListsEndpoints != 0, lists&ListsPorts != 0)
	withEndpoints := &EndpointSlice{AddressType: AddressTypeIPv4, Endpoints: []Endpoint{{Addresses: []string{"10.0.0.1"}}}}
	lists = SliceListsAfter(lists, withEndpoints)
	fmt.Println(lists&ListsEndpoints != 0, lists&ListsPorts != 0)
	// Output:
	// false false
	// true false
}
