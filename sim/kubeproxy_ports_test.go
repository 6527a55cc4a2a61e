package sim

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// twoPorts is a Service's ports, http and metrics, both TCP.
var twoPorts = []model.ServicePort{{Name: "http", Protocol: model.ProtocolTCP, Port: 80}, {Name: "metrics", Port: 9090}}

func slicePort(name string, port int32, proto model.Protocol) model.EndpointPort {
	p := model.EndpointPort{Name: model.Ptr(name), Port: model.Ptr(port)}
	if proto != "" {
		p.Protocol = model.Ptr(proto)
	}
	return p
}

// TestUnlistedSlicePorts checks which Service ports a slice's ports give kube-proxy
// endpoints for, as pkg/proxy/endpointslicecache.go endpointInfoByServicePort reads them:
// by name and protocol, with a port number; a port of no name, or of port nil or 0, ignored.
func TestUnlistedSlicePorts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ports []model.EndpointPort
		want  uint64
	}{
		{"both, in order", []model.EndpointPort{slicePort("http", 8080, "TCP"), slicePort("metrics", 9090, "TCP")}, 0},
		{"both, reversed", []model.EndpointPort{slicePort("metrics", 9090, "TCP"), slicePort("http", 8080, "TCP")}, 0},
		{"protocol unset reads as TCP", []model.EndpointPort{slicePort("http", 8080, ""), slicePort("metrics", 9090, "")}, 0},
		{"and one the Service lacks", []model.EndpointPort{slicePort("http", 8080, "TCP"), slicePort("other", 1, "TCP"), slicePort("metrics", 9090, "TCP")}, 0},
		{"metrics only", []model.EndpointPort{slicePort("metrics", 9090, "TCP")}, 0b01},
		{"none", nil, 0b11},
		{"http of port 0", []model.EndpointPort{slicePort("http", 0, "TCP"), slicePort("metrics", 9090, "TCP")}, 0b01},
		{"http of no port", []model.EndpointPort{{Name: model.Ptr("http"), Protocol: model.Ptr(model.ProtocolTCP)}, slicePort("metrics", 9090, "TCP")}, 0b01},
		{"http of no name", []model.EndpointPort{{Port: model.Ptr(int32(8080))}, slicePort("metrics", 9090, "TCP")}, 0b01},
		{"metrics over UDP", []model.EndpointPort{slicePort("http", 8080, "TCP"), slicePort("metrics", 9090, "UDP")}, 0b10},
	} {
		if got := unlistedSlicePorts(twoPorts, tc.ports); got != tc.want {
			t.Errorf("%s: unlisted %02b, want %02b", tc.name, got, tc.want)
		}
	}
}

// TestSubsetsByPort checks an Endpoints object's counts by port as kube-proxy before 1.19
// read them (pkg/proxy/endpoints.go endpointsToEndpointsMap): each subset's ready addresses
// for each port it lists with a port number, by name and protocol.
func TestSubsetsByPort(t *testing.T) {
	http := model.EndpointsPort{Name: "http", Port: 8080, Protocol: model.ProtocolTCP}
	metrics := model.EndpointsPort{Name: "metrics", Port: 9090, Protocol: model.ProtocolTCP}
	uniform := []model.SubsetSize{{Ports: []model.EndpointsPort{metrics, http}, Addresses: 3, NotReadyAddresses: 1}}
	if got := subsetsByPort(twoPorts, uniform); got != nil {
		t.Errorf("a subset of every port: by port %+v, want nil (counted whole)", got)
	}
	mixed := []model.SubsetSize{
		{Ports: []model.EndpointsPort{http}, Addresses: 3, NotReadyAddresses: 1},
		{Ports: []model.EndpointsPort{http, metrics}, Addresses: 2},
		{Ports: []model.EndpointsPort{{Name: "metrics", Protocol: model.ProtocolTCP}}, Addresses: 7}, // port 0
	}
	// The not-ready address is not mapped: it is no endpoint at all.
	want := []objectEndpoints{{ready: 5, all: 5}, {ready: 2, all: 2}}
	if got := subsetsByPort(twoPorts, mixed); !reflect.DeepEqual(got, want) {
		t.Errorf("mixed subsets: by port %+v, want %+v", got, want)
	}
	manual := []model.EndpointSubset{
		{Ports: []model.EndpointsPort{http}, Addresses: make([]model.EndpointAddress, 3), NotReadyAddresses: make([]model.EndpointAddress, 1)},
		{Ports: []model.EndpointsPort{http, metrics}, Addresses: make([]model.EndpointAddress, 2)},
		{Ports: []model.EndpointsPort{{Name: "metrics", Protocol: model.ProtocolTCP}}, Addresses: make([]model.EndpointAddress, 7)},
	}
	if got := manualSubsetsByPort(twoPorts, manual); !reflect.DeepEqual(got, want) {
		t.Errorf("a user's mixed subsets: by port %+v, want %+v", got, want)
	}
}

// TestKubeProxyCountsByPort checks the proxier's totals over a Service whose slices list
// different ports: each port programs the endpoints of the slices that give it, and the
// Service is counted as a whole again once no such slice is left.
func TestKubeProxyCountsByPort(t *testing.T) {
	k := newKubeProxyNode(DefaultKubeProxy(KubeProxyIPTables), 1, 1, false).proxier(0)
	at := Time(0)
	receive := func(name string, deleted bool, counts objectEndpoints) {
		at += Time(time.Minute)
		k.receive(name, kubeProxyChange{svc: 0, delivered: at}, 2, 100, false, deleted, counts)
		k.flush(at)
	}
	receive("both", false, objectEndpoints{ready: 3, all: 4})
	receive("metrics-only", false, objectEndpoints{ready: 2, fallback: 1, all: 3}.forPorts(0b01, 2))
	ports, programmed, all := k.portTotals(0)
	if ports != 2 || programmed != 3+(3+2) || all != 4+(4+3) {
		t.Errorf("with a slice of metrics only: %d ports, %d endpoints programmed, %d in all; want 2, 8, 11", ports, programmed, all)
	}
	if n, _ := k.programmedPort(0, 0); n != 3 {
		t.Errorf("http programs %d endpoints, want 3", n)
	}
	if k.servicePorts != 2 || k.portEndpoints != 8 || k.allPortEndpoints != 11 {
		t.Errorf("totals: %d ports, %d endpoints, %d in all; want 2, 8, 11", k.servicePorts, k.portEndpoints, k.allPortEndpoints)
	}
	// The slice that gave http goes: http falls back to nothing, metrics keeps its own.
	receive("both", true, objectEndpoints{})
	if ports, programmed, _ := k.portTotals(0); ports != 1 || programmed != 2 {
		t.Errorf("metrics only left: %d ports, %d endpoints programmed; want 1, 2", ports, programmed)
	}
	receive("metrics-only", true, objectEndpoints{})
	if k.services[0].partial || k.byPort[0] != nil {
		t.Errorf("no slice left: partial %v, by port %+v; want the Service counted whole", k.services[0].partial, k.byPort[0])
	}
	if k.servicePorts != 0 || k.portEndpoints != 0 || k.allPortEndpoints != 0 {
		t.Errorf("no slice left: totals %d, %d, %d; want 0", k.servicePorts, k.portEndpoints, k.allPortEndpoints)
	}
}

// TestReplayCountsEndpointsByPort replays a Service whose http port targets a named port
// that only some of its pods have: the EndpointSlice controller puts those pods in slices
// of both ports and the others in slices of metrics only; the Endpoints controller, whose
// repacking groups ports by the addresses that have them, in a subset of http with the
// named pods and one of metrics with all of them. Both modes' kube-proxies must program
// http with the named pods only and metrics with every ready pod: in a replay of the churn
// (cold), in a warm one of the same pods listed at its start, whose objects the run begins
// with (seedExisting), and in one that begins with the cluster's slices (seedSlices).
func TestReplayCountsEndpointsByPort(t *testing.T) {
	cfg := testConfig(3, 20)
	cfg.Services[0].Ports = []ServicePortConfig{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: 8080}, {Name: "metrics", Protocol: "TCP", Port: 9090, TargetPort: 9090}}
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate, Settle: time.Minute}}
	recorded, _, rec, svcs := recordedRun(t, cfg)
	svc := *svcs[0]
	svc.Ports = slices.Clone(svc.Ports)
	svc.Ports[0].TargetPort = model.NamedPort("web")
	named := &model.PodSpecFields{ContainerPorts: []model.ContainerPort{{Name: "web", ContainerPort: 8080, Protocol: model.ProtocolTCP}, {Name: "metrics", ContainerPort: 9090, Protocol: model.ProtocolTCP}}}
	unnamed := &model.PodSpecFields{ContainerPorts: []model.ContainerPort{{Name: "metrics", ContainerPort: 9090, Protocol: model.ProtocolTCP}}}
	ids := map[string]*model.PodIdentity{}
	last := map[string]TraceEvent{} // each pod's last event, as listed
	gone := map[string]bool{}
	var order []string
	for i := range rec.events {
		ev := &rec.events[i]
		id := ids[ev.Pod.UID]
		if id == nil {
			spec := unnamed
			if len(ids)%3 != 0 {
				spec = named
			}
			id = model.NewPodIdentityWith(ev.Pod.Namespace, ev.Pod.Name, ev.Pod.UID, spec)
			id.CreationTimestamp = ev.Pod.CreationTimestamp
			ids[ev.Pod.UID] = id
			order = append(order, ev.Pod.UID)
		}
		p := *ev.Pod
		p.PodIdentity = id
		ev.Pod = &p
		listed := *ev
		listed.At, listed.Type, listed.Listed = 0, model.EventAdded, true
		last[ev.Pod.UID] = listed
		gone[ev.Pod.UID] = ev.Type == model.EventDeleted
	}
	var listing []TraceEvent
	for _, uid := range order {
		if !gone[uid] {
			listing = append(listing, last[uid])
		}
	}
	before := svc
	before.CreationTimestamp = timestamp(-48 * Time(time.Hour))

	check := func(t *testing.T, e *Engine) {
		t.Helper()
		ready, readyNamed := 0, 0
		for _, p := range e.services[0].pods {
			if p.stage != stageGone && p.pod.Ready {
				ready++
				if p.pod.PodSpecFields == named {
					readyNamed++
				}
			}
		}
		if readyNamed == 0 || readyNamed == ready {
			t.Fatalf("%d of %d ready pods have the named port: the test needs both kinds", readyNamed, ready)
		}
		for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
			k := e.kubeProxies[modeIndex(m)].proxier(0)
			http, _ := k.programmedPort(0, 0)
			metrics, _ := k.programmedPort(0, 1)
			if http != readyNamed || metrics != ready {
				t.Errorf("%s: kube-proxy programs %d endpoints for http and %d for metrics, want %d and %d", m, http, metrics, readyNamed, ready)
			}
			if _, programmed, _ := k.portTotals(0); programmed != readyNamed+ready || k.portEndpoints != programmed {
				t.Errorf("%s: %d endpoints programmed over the ports, totals %d; want %d", m, programmed, k.portEndpoints, readyNamed+ready)
			}
		}
	}
	replay := func(t *testing.T, opts ReplayOptions, s *model.Service, events []TraceEvent) *Engine {
		t.Helper()
		e, err := newReplay(opts, cfg, []*model.Service{s}, recorded.nodes, &recorder{events: events}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.runReplay(); err != nil {
			t.Fatal(err)
		}
		return e
	}
	var cold *Engine
	t.Run("cold", func(t *testing.T) {
		cold = replay(t, ReplayOptions{}, &svc, rec.events)
		check(t, cold)
	})
	t.Run("warm, objects seeded", func(t *testing.T) {
		check(t, replay(t, ReplayOptions{Warm: true}, &before, listing))
	})
	t.Run("warm, the cluster's slices", func(t *testing.T) {
		var found []*model.EndpointSlice
		for _, c := range cold.ctls {
			if y, ok := c.syncer.(*sliceSyncer); ok {
				for _, st := range y.stored[0].list {
					found = append(found, st.slice)
				}
			}
		}
		if len(found) < 2 {
			t.Fatalf("%d slices stored: the test needs the two port sets'", len(found))
		}
		check(t, replay(t, ReplayOptions{Warm: true, Slices: found}, &before, listing))
	})
}

// TestProxyEndpointsOfAnObject checks what kube-proxy counts of a committed object as a
// whole: every endpoint of a slice is in its endpoints map, ready or not (the iptables
// proxier's largeClusterMode counts them all); a kube-proxy of Endpoints maps the ready
// addresses only (v1.18 endpointsToEndpointsMap reads subset.Addresses).
func TestProxyEndpointsOfAnObject(t *testing.T) {
	for _, tc := range []struct {
		kind     string
		wantsAll int32
	}{{"EndpointSlice", 5}, {"Endpoints", 3}} {
		cm := committed{kind: tc.kind, endpoints: 5, ready: 3, fallback: 1}
		if got := cm.proxyEndpoints(); got.ready != 3 || got.fallback != 1 || got.all != tc.wantsAll {
			t.Errorf("%s of 3 ready endpoints in 5: counts %+v, want all %d", tc.kind, got, tc.wantsAll)
		}
	}
}

// TestIPTablesWritesRejectRules checks that an iptables sync writes a filter rule for each
// served port without endpoints, full or partial, as syncProxyRules does (REJECT in the
// filter table, which it writes whole), and the other proxiers none: a Service with an
// empty slice beside one with endpoints costs its walk and, for iptables alone, one rule
// generated and written.
func TestIPTablesWritesRejectRules(t *testing.T) {
	for _, mode := range []KubeProxyMode{KubeProxyIPTables, KubeProxyNFTables, KubeProxyIPVS} {
		lastSync := func(withEmpty bool) kubeProxySync {
			k := newKubeProxyNode(DefaultKubeProxy(mode), 2, 1, false).proxier(0)
			at := Time(time.Minute)
			k.receive("a", kubeProxyChange{svc: 0, delivered: at}, 1, 100, false, false, objectEndpoints{ready: 3, all: 3})
			if withEmpty {
				k.receive("b", kubeProxyChange{svc: 1, delivered: at}, 1, 100, false, false, objectEndpoints{})
			}
			k.flush(at)
			// A later change of a, a partial sync.
			at += Time(time.Minute)
			k.receive("a", kubeProxyChange{svc: 0, delivered: at}, 1, 100, false, false, objectEndpoints{ready: 4, all: 4})
			k.flush(at)
			s := k.syncs[len(k.syncs)-1]
			if s.full {
				t.Fatalf("%s: the last sync is full, want partial", mode)
			}
			return s
		}
		costs := DefaultKubeProxy(mode).Costs
		want := Time(costs.WalkNanosPerServicePort)
		if mode == KubeProxyIPTables {
			want += Time(costs.GenerateNanosPerRule + costs.WriteNanosPerRule)
		}
		if got := lastSync(true).cpu - lastSync(false).cpu; got != want {
			t.Errorf("%s: a Service without endpoints adds %v to a partial sync, want %v", mode, got, want)
		}
	}
}

// TestHideAndShowInOneWindowIsNoChange: a Service hidden from kube-proxy and shown again
// (its service-proxy-name label put on and taken off) before a sync checks the two out is
// no change upstream (servicechangetracker.go Update drops an item whose previous and
// current maps are equal): the sync they wake rewrites none of its rules, only the
// KUBE-SERVICES jumps every iptables sync writes. Shown after a sync that hid it, it is a
// change again.
func TestHideAndShowInOneWindowIsNoChange(t *testing.T) {
	k := flatProxy(KubeProxyIPTables, 0)
	k.cfg.Costs.WriteNanosPerRule = 1000 // 1 µs a rule
	deliver(k, "web", 0, 0, 10)
	deliver(k, "other", 1, 0, 1)
	k.flush(0)
	at := Time(10 * time.Second)
	deliver(k, "other", 1, at, 2) // a sync starts at once
	k.serviceEvent(0, 1, at+ms, 0, false)
	k.serviceEvent(0, 1, at+2*ms, 0, true)
	k.flush(at + 2*ms)
	last := k.syncs[len(k.syncs)-1]
	if want := 2 * Time(time.Microsecond); last.cpu != want {
		t.Errorf("the sync of the hide and the show wrote %v of rules, want %v (2 jumps, no Service's chains)", last.cpu, want)
	}
	// Hidden by one sync, shown by the next: the show rewrites web's rules.
	at += Time(10 * time.Second)
	k.serviceEvent(0, 1, at, 0, false)
	k.flush(at)
	k.serviceEvent(0, 1, at+Time(5*time.Second), 0, true)
	k.flush(at + Time(5*time.Second))
	last = k.syncs[len(k.syncs)-1]
	if want := Time(2+3+4*10) * Time(time.Microsecond); last.cpu != want {
		t.Errorf("the show after a sync that hid web wrote %v of rules, want %v", last.cpu, want)
	}
}
