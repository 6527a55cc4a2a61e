package model

// Test-only conversions between model types and the real Kubernetes API types, and a harness
// that drives upstream's k8s.io/endpointslice v0.37.2 reconciler through the fake clientset.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/endpointslice"
	"k8s.io/endpointslice/topologycache"
	endpointsliceutil "k8s.io/endpointslice/util"
)

func toK8sService(s *Service) *corev1.Service {
	out := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.Namespace, Name: s.Name, UID: types.UID(s.UID),
			Labels: s.Labels, Annotations: s.Annotations,
		},
		Spec: corev1.ServiceSpec{
			Selector:                 s.Selector.Map(),
			ClusterIP:                s.ClusterIP,
			PublishNotReadyAddresses: s.PublishNotReadyAddresses,
		},
	}
	if s.Deleting {
		out.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	}
	if s.TrafficDistribution != "" {
		out.Spec.TrafficDistribution = Ptr(s.TrafficDistribution)
	}
	for _, f := range s.IPFamilies {
		out.Spec.IPFamilies = append(out.Spec.IPFamilies, corev1.IPFamily(f))
	}
	for _, p := range s.Ports {
		tp := intstr.FromInt32(p.TargetPort.IntVal)
		if p.TargetPort.IsString {
			tp = intstr.FromString(p.TargetPort.StrVal)
		}
		out.Spec.Ports = append(out.Spec.Ports, corev1.ServicePort{
			Name: p.Name, Protocol: corev1.Protocol(p.Protocol), Port: p.Port, TargetPort: tp, AppProtocol: p.AppProtocol,
		})
	}
	return out
}

func toK8sPod(p *Pod) *corev1.Pod {
	out := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: types.UID(p.UID), Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{NodeName: p.NodeName, Hostname: p.Hostname, Subdomain: p.Subdomain},
		Status:     corev1.PodStatus{Phase: corev1.PodPhase(p.Phase.String())},
	}
	if p.Terminating {
		out.DeletionTimestamp = &metav1.Time{Time: time.Unix(2, 0)}
	}
	for i, ip := range p.IPs {
		if i == 0 {
			out.Status.PodIP = ip
		}
		out.Status.PodIPs = append(out.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	st := corev1.ConditionFalse
	if p.Ready {
		st = corev1.ConditionTrue
	}
	out.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	c := corev1.Container{Name: "app"}
	for _, cp := range p.ContainerPorts {
		c.Ports = append(c.Ports, corev1.ContainerPort{Name: cp.Name, ContainerPort: cp.ContainerPort, Protocol: corev1.Protocol(cp.Protocol)})
	}
	out.Spec.Containers = []corev1.Container{c}
	if len(p.SidecarPorts) > 0 {
		sc := corev1.Container{Name: "sidecar", RestartPolicy: Ptr(corev1.ContainerRestartPolicyAlways)}
		for _, cp := range p.SidecarPorts {
			sc.Ports = append(sc.Ports, corev1.ContainerPort{Name: cp.Name, ContainerPort: cp.ContainerPort, Protocol: corev1.Protocol(cp.Protocol)})
		}
		// A non-restartable init container with the same port names must be ignored.
		ic := corev1.Container{Name: "init"}
		for _, cp := range p.SidecarPorts {
			ic.Ports = append(ic.Ports, corev1.ContainerPort{Name: cp.Name, ContainerPort: cp.ContainerPort + 1, Protocol: corev1.Protocol(cp.Protocol)})
		}
		out.Spec.InitContainers = []corev1.Container{ic, sc}
	}
	return out
}

func toK8sNode(n *Node) *corev1.Node {
	out := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{}}}
	if n.Zone != "" {
		out.Labels[LabelZone] = n.Zone
	}
	if n.ControlPlane {
		out.Labels["node-role.kubernetes.io/control-plane"] = ""
	}
	st := corev1.ConditionFalse
	if n.Ready {
		st = corev1.ConditionTrue
	}
	out.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}}
	out.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(n.AllocatableMilliCPU, resource.DecimalSI)}
	return out
}

func toK8sSlice(s *EndpointSlice) *discovery.EndpointSlice {
	out := &discovery.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: s.Name, GenerateName: s.GenerateName, Namespace: s.Namespace, UID: types.UID(s.UID),
			ResourceVersion: s.ResourceVersion, Labels: s.Labels.Map(), Annotations: s.Annotations.Map(),
		},
		AddressType: discovery.AddressType(s.AddressType),
		Endpoints:   []discovery.Endpoint{},
		Ports:       []discovery.EndpointPort{},
	}
	for _, o := range s.OwnerReferences {
		out.OwnerReferences = append(out.OwnerReferences, metav1.OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: types.UID(o.UID),
			Controller: o.Controller, BlockOwnerDeletion: o.BlockOwnerDeletion,
		})
	}
	for _, p := range s.Ports {
		kp := discovery.EndpointPort{Name: p.Name, Port: p.Port, AppProtocol: p.AppProtocol}
		if p.Protocol != nil {
			kp.Protocol = Ptr(corev1.Protocol(*p.Protocol))
		}
		out.Ports = append(out.Ports, kp)
	}
	for _, e := range s.Endpoints {
		ke := discovery.Endpoint{
			Addresses: slices.Clone(e.Addresses),
			Conditions: discovery.EndpointConditions{
				Ready: e.Conditions.Ready.Ptr(), Serving: e.Conditions.Serving.Ptr(), Terminating: e.Conditions.Terminating.Ptr(),
			},
			Hostname: e.Hostname, NodeName: e.NodeName, Zone: e.Zone,
		}
		if e.TargetRef != nil {
			ke.TargetRef = &corev1.ObjectReference{Kind: e.TargetRef.Kind, Namespace: e.TargetRef.Namespace, Name: e.TargetRef.Name, UID: types.UID(e.TargetRef.UID)}
		}
		if e.Hints != nil {
			ke.Hints = &discovery.EndpointHints{}
			for _, z := range e.Hints.ForZones {
				ke.Hints.ForZones = append(ke.Hints.ForZones, discovery.ForZone{Name: z})
			}
			for _, n := range e.Hints.ForNodes {
				ke.Hints.ForNodes = append(ke.Hints.ForNodes, discovery.ForNode{Name: n})
			}
		}
		out.Endpoints = append(out.Endpoints, ke)
	}
	return out
}

func fromK8sSlice(k *discovery.EndpointSlice) *EndpointSlice {
	out := &EndpointSlice{
		ObjectMeta: ObjectMeta{
			Name: k.Name, GenerateName: k.GenerateName, Namespace: k.Namespace, UID: string(k.UID),
			ResourceVersion: k.ResourceVersion, Labels: StringMapOf(k.Labels), Annotations: StringMapOf(k.Annotations),
		},
		AddressType: AddressType(k.AddressType),
	}
	for _, o := range k.OwnerReferences {
		out.OwnerReferences = append(out.OwnerReferences, OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: string(o.UID),
			Controller: o.Controller, BlockOwnerDeletion: o.BlockOwnerDeletion,
		})
	}
	for _, p := range k.Ports {
		mp := EndpointPort{Name: p.Name, Port: p.Port, AppProtocol: p.AppProtocol}
		if p.Protocol != nil {
			mp.Protocol = Ptr(Protocol(*p.Protocol))
		}
		out.Ports = append(out.Ports, mp)
	}
	for _, e := range k.Endpoints {
		me := Endpoint{
			Addresses: slices.Clone(e.Addresses),
			Conditions: EndpointConditions{
				Ready:       ConditionFromPtr(e.Conditions.Ready),
				Serving:     ConditionFromPtr(e.Conditions.Serving),
				Terminating: ConditionFromPtr(e.Conditions.Terminating),
			},
			Hostname: e.Hostname, NodeName: e.NodeName, Zone: e.Zone,
		}
		if e.TargetRef != nil {
			me.TargetRef = &ObjectReference{Kind: e.TargetRef.Kind, Namespace: e.TargetRef.Namespace, Name: e.TargetRef.Name, UID: string(e.TargetRef.UID)}
		}
		if e.Hints != nil {
			me.Hints = &EndpointHints{}
			for _, z := range e.Hints.ForZones {
				me.Hints.ForZones = append(me.Hints.ForZones, z.Name)
			}
			for _, n := range e.Hints.ForNodes {
				me.Hints.ForNodes = append(me.Hints.ForNodes, n.Name)
			}
		}
		out.Endpoints = append(out.Endpoints, me)
	}
	return out
}

// upstreamHarness drives the real reconciler through the fake clientset. Its create reactor
// assigns names as the apiserver does (generateName + a counter).
type upstreamHarness struct {
	client  *fake.Clientset
	indexer cache.Indexer
	rec     *endpointslice.Reconciler
	topo    *topologycache.TopologyCache
	nameSeq int
	// recorder gets the Reconciler's Events; events counts those of the last reconcile.
	recorder *record.FakeRecorder
	events   SyncEvents
}

func newUpstreamHarness(max int, nodes []*Node, withTopology, disablePreferSame bool) *upstreamHarness {
	h := &upstreamHarness{client: fake.NewSimpleClientset()}
	h.client.PrependReactor("create", "endpointslices", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj := a.(k8stesting.CreateAction).GetObject().(*discovery.EndpointSlice)
		if obj.Name == "" && obj.GenerateName != "" {
			h.nameSeq++
			obj.Name = fmt.Sprintf("%s%05d", obj.GenerateName, h.nameSeq)
		}
		return false, nil, nil
	})
	f := informers.NewSharedInformerFactory(h.client, 0)
	h.indexer = f.Core().V1().Nodes().Informer().GetIndexer()
	var knodes []*corev1.Node
	for _, n := range nodes {
		kn := toK8sNode(n)
		knodes = append(knodes, kn)
		_ = h.indexer.Add(kn)
	}
	if withTopology {
		h.topo = topologycache.NewTopologyCache()
		h.topo.SetNodes(logr.Discard(), knodes)
	}
	h.recorder = record.NewFakeRecorder(1000)
	h.rec = endpointslice.NewReconciler(h.client, corelisters.NewNodeLister(h.indexer), int32(max),
		endpointsliceutil.NewEndpointSliceTracker(), h.topo, h.recorder, ControllerName,
		endpointslice.WithPreferSameTrafficDistributionEnabled(!disablePreferSame))
	return h
}

func (h *upstreamHarness) setNode(n *Node, exists bool) {
	kn := toK8sNode(n)
	if exists {
		_ = h.indexer.Update(kn)
	} else {
		_ = h.indexer.Delete(kn)
	}
}

func (h *upstreamHarness) stored(t testing.TB, ns string) []*EndpointSlice {
	list, err := h.client.DiscoveryV1().EndpointSlices(ns).List(context.TODO(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*EndpointSlice
	for i := range list.Items {
		out = append(out, fromK8sSlice(&list.Items[i]))
	}
	slices.SortFunc(out, byName)
	return out
}

// seed replaces the stored slices with the given ones.
func (h *upstreamHarness) seed(t testing.TB, ns string, want []*EndpointSlice) {
	for _, s := range h.stored(t, ns) {
		if err := h.client.DiscoveryV1().EndpointSlices(ns).Delete(context.TODO(), s.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range want {
		if _, err := h.client.DiscoveryV1().EndpointSlices(ns).Create(context.TODO(), toK8sSlice(s), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	h.client.ClearActions()
}

// verbCounts is the number of writes by verb.
type verbCounts struct{ creates, updates, deletes int }

func (v verbCounts) String() string {
	return fmt.Sprintf("c%d u%d d%d", v.creates, v.updates, v.deletes)
}

// reconcile runs upstream's Reconcile on the stored slices and returns its writes (in call
// order, as "create"/"update"/"delete") and error.
func (h *upstreamHarness) reconcile(t testing.TB, svc *Service, pods []*Pod, trigger Timestamp) (verbCounts, []string, []*EndpointSlice, error) {
	existing := h.stored(t, svc.Namespace)
	var kexisting []*discovery.EndpointSlice
	for _, s := range existing {
		kexisting = append(kexisting, toK8sSlice(s))
	}
	var kpods []*corev1.Pod
	for _, p := range pods {
		kpods = append(kpods, toK8sPod(p))
	}
	tt := time.Time{}
	if !trigger.IsZero() {
		tt = trigger.Time()
	}
	h.client.ClearActions()
	err := h.rec.Reconcile(logr.Discard(), toK8sService(svc), kpods, kexisting, tt)
	h.events = SyncEvents{}
	for drained := false; !drained; {
		select {
		case ev := <-h.recorder.Events: // "Warning Reason message" or "Normal Reason message"
			switch {
			case strings.HasPrefix(ev, corev1.EventTypeWarning+" "):
				h.events.Warning++
			case strings.HasPrefix(ev, corev1.EventTypeNormal+" "):
				h.events.Normal++
			default:
				t.Fatalf("an Event of no known type: %q", ev)
			}
		default:
			drained = true
		}
	}
	var vc verbCounts
	var order []string
	var written []*EndpointSlice
	for _, a := range h.client.Actions() {
		switch a.GetVerb() {
		case "create":
			vc.creates++
			written = append(written, fromK8sSlice(a.(k8stesting.CreateAction).GetObject().(*discovery.EndpointSlice)))
		case "update":
			vc.updates++
			written = append(written, fromK8sSlice(a.(k8stesting.UpdateAction).GetObject().(*discovery.EndpointSlice)))
		case "delete":
			vc.deletes++
		default:
			continue
		}
		order = append(order, a.GetVerb())
	}
	h.client.ClearActions()
	return vc, order, written, err
}

// mapNodes is a NodeGetter over a map.
type mapNodes map[string]*Node

func (m mapNodes) Node(name string) (*Node, bool) { n, ok := m[name]; return n, ok }

// applyPlan applies a sync's plans to a stored set as the apiserver would (names for creates
// from the same counter scheme as the harness), and returns the new stored set.
func applyPlan(stored []*EndpointSlice, res SyncResult, nameSeq *int) []*EndpointSlice {
	byNameMap := map[string]*EndpointSlice{}
	for _, s := range stored {
		byNameMap[s.Name] = s
	}
	for _, p := range res.Plans {
		for _, c := range p.ToCreate {
			*nameSeq++
			cc := *c
			cc.Name = fmt.Sprintf("%s%05d", c.GenerateName, *nameSeq)
			byNameMap[cc.Name] = &cc
		}
		for _, u := range p.ToUpdate {
			uu := *u
			byNameMap[u.Name] = &uu
		}
		for _, d := range p.ToDelete {
			delete(byNameMap, d.Name)
		}
	}
	out := make([]*EndpointSlice, 0, len(byNameMap))
	for _, s := range byNameMap {
		out = append(out, s)
	}
	slices.SortFunc(out, byName)
	return out
}

func planCounts(res SyncResult) verbCounts {
	var v verbCounts
	for _, p := range res.Plans {
		v.creates += len(p.ToCreate)
		v.updates += len(p.ToUpdate)
		v.deletes += len(p.ToDelete)
	}
	return v
}

func planOrder(res SyncResult) []string {
	var out []string
	for _, p := range res.Plans {
		for range p.ToCreate {
			out = append(out, "create")
		}
		for range p.ToUpdate {
			out = append(out, "update")
		}
		for range p.ToDelete {
			out = append(out, "delete")
		}
	}
	return out
}

// endpointString renders every field of an endpoint (hints optional).
func endpointString(e *Endpoint, withHints bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v", e.Addresses)
	ps := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	pb := func(c Condition) string {
		if !c.IsSet() {
			return "<nil>"
		}
		return fmt.Sprint(c == ConditionTrue)
	}
	fmt.Fprintf(&b, " host=%s node=%s zone=%s r=%s s=%s t=%s", ps(e.Hostname), ps(e.NodeName), ps(e.Zone),
		pb(e.Conditions.Ready), pb(e.Conditions.Serving), pb(e.Conditions.Terminating))
	if e.TargetRef != nil {
		fmt.Fprintf(&b, " ref=%+v", *e.TargetRef)
	}
	if withHints && e.Hints != nil {
		fmt.Fprintf(&b, " hints=%v/%v", e.Hints.ForZones, e.Hints.ForNodes)
	}
	return b.String()
}

func mapString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s,", k, m[k])
	}
	return b.String()
}

// stateSummary renders the invariants upstream fixes for a stored set (UPSTREAM.md §2.12):
// the size multiset per (address type, port key), the union of endpoints with every field,
// and labels and owners per slice (as a multiset). Annotations are compared on the written
// objects (writtenSummary): which unwritten slice keeps which old trigger time is random. With looseHints, per-endpoint
// hints are replaced by the number of hinted endpoints per address type (mode A's
// reassignment depends on map order upstream: which zone gives and receives on ties).
func stateSummary(stored []*EndpointSlice, looseHints bool) string {
	var sizes, eps, metas, hints []string
	for _, s := range stored {
		// The ports in their order: upstream writes them sorted by hash (NewPortMapKey).
		sizes = append(sizes, fmt.Sprintf("%s|%s|%d", s.AddressType, portsString(s.Ports), len(s.Endpoints)))
		var owners []string
		for _, o := range s.OwnerReferences {
			owners = append(owners, fmt.Sprintf("%+v/%v/%v", o.UID, *o.Controller, *o.BlockOwnerDeletion))
		}
		metas = append(metas, fmt.Sprintf("%s|%s|%v|gen=%s|ns=%s", s.AddressType, mapString(s.Labels.Map()), owners, s.GenerateName, s.Namespace))
		for i := range s.Endpoints {
			e := &s.Endpoints[i]
			eps = append(eps, string(s.AddressType)+"|"+endpointString(e, !looseHints))
			if looseHints && e.Hints != nil {
				hints = append(hints, fmt.Sprintf("%s|hinted", s.AddressType))
			}
		}
	}
	for _, l := range [][]string{sizes, eps, metas, hints} {
		slices.Sort(l)
	}
	return fmt.Sprintf("sizes=%v\nmetas=%v\nhints=%v\nendpoints=\n  %s", sizes, metas, hints, strings.Join(eps, "\n  "))
}

// portsString renders ports in order.
func portsString(ports []EndpointPort) string {
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, "[%s %s %d %s]", optString(p.Name), optString((*string)(p.Protocol)), deref32(p.Port), optString(p.AppProtocol))
	}
	return b.String()
}

func optString(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return strconv.Quote(*s)
}

func deref32(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}

func (h *upstreamHarness) setTopologyNodes(nodes []*Node) {
	var kn []*corev1.Node
	for _, n := range nodes {
		kn = append(kn, toK8sNode(n))
	}
	h.topo.SetNodes(logr.Discard(), kn)
}

// writtenSummary renders the annotations and labels of the objects written in one sync.
func writtenSummary(written []*EndpointSlice) string {
	var out []string
	for _, s := range written {
		out = append(out, fmt.Sprintf("%s|%s|%s", s.AddressType, mapString(s.Labels.Map()), mapString(s.Annotations.Map())))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func plannedWrites(res SyncResult) []*EndpointSlice {
	var out []*EndpointSlice
	for _, p := range res.Plans {
		out = append(out, p.ToCreate...)
		out = append(out, p.ToUpdate...)
	}
	return out
}
