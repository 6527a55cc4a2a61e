package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"epsim/model"
)

// TestManualEndpointsMirrored: a selector-less Service backed by a user-written Endpoints
// object costs, in the Endpoints mode, the user's one Endpoints write (what kube-proxies
// watch there), and in the EndpointSlice mode the mirroring controller's slices: one per
// address type, at most 1000 addresses each (UPSTREAM.md §4: reconcile,
// --mirroring-max-endpoints-per-subset). Neither legacy nor EndpointSlice controller writes
// anything else for it.
func TestManualEndpointsMirrored(t *testing.T) {
	tests := []struct {
		name       string
		addresses  int
		families   []string
		wantSlices int
		wantEPs    int // endpoints across the mirrored slices
	}{
		{"three addresses", 3, []string{"IPv4"}, 1, 3},
		{"dual-stack", 4, []string{"IPv4", "IPv6"}, 2, 4},
		{"over the per-subset cap", 1500, []string{"IPv4"}, 1, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(10, 4)
			ext := cfg.Services[0]
			ext.Name, ext.Replicas, ext.ManualEndpoints, ext.IPFamilies = "external-db", 0, tc.addresses, tc.families
			cfg.Services = append(cfg.Services, ext)
			cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "rollout", Kind: ActionRollout, ServiceStrategy: true}}
			res, err := Run(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			var epWrites, sliceCreates, sliceOther, eps int
			for _, w := range res.Writes {
				if w.Name != "external-db" && w.Kind == "Endpoints" {
					continue
				}
				switch {
				case w.Mode == ModeEndpoints && w.Name == "external-db":
					epWrites++
					if w.Kind != "Endpoints" || w.Verb != "create" || w.Endpoints != tc.addresses || w.Watchers != 10 {
						t.Errorf("Endpoints-mode write %+v", w)
					}
				case w.Mode == ModeEndpointSlices && len(w.Name) > len("external-db-") && w.Name[:len("external-db-")] == "external-db-":
					if w.Verb == "create" {
						sliceCreates++
						eps += w.Endpoints
					} else {
						sliceOther++
					}
				}
			}
			if epWrites != 1 {
				t.Errorf("%d Endpoints writes for the selector-less Service, want the user's 1", epWrites)
			}
			if sliceCreates != tc.wantSlices || sliceOther != 0 || eps != tc.wantEPs {
				t.Errorf("mirrored: %d creates (%d endpoints), %d other writes; want %d creates with %d endpoints", sliceCreates, eps, sliceOther, tc.wantSlices, tc.wantEPs)
			}
		})
	}
}

// TestManualEndpointsUpdated: the user rewriting the Endpoints object (a scale action on a
// selector-less Service) is one Endpoints update in the Endpoints mode and the mirrored
// slices' update in the EndpointSlice mode; shrinking it to nothing deletes them
// (upstream reconcile: an address type with no endpoints has its slices deleted).
func TestManualEndpointsUpdated(t *testing.T) {
	cfg := testConfig(10, 0)
	cfg.Services[0].Name, cfg.Services[0].ManualEndpoints = "ext", 3
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "grow", Kind: ActionScale, Replicas: 5}, {Name: "empty", Kind: ActionScale, Replicas: 0}}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, w := range res.Writes {
		got[w.Phase] = append(got[w.Phase], fmt.Sprintf("%s %s %s %d", w.Mode, w.Kind, w.Verb, w.Endpoints))
	}
	want := map[string][]string{
		"create": {"endpoints Endpoints create 3", "endpointslices EndpointSlice create 3"},
		"grow":   {"endpoints Endpoints update 5", "endpointslices EndpointSlice update 5"},
		"empty":  {"endpoints Endpoints update 0", "endpointslices EndpointSlice delete 5"},
	}
	checkPhaseWrites(t, "writes", got, want)
}

// checkPhaseWrites compares the writes of each phase of want (as "mode kind verb
// endpoints", in any order) with got's; what names them in a failure.
func checkPhaseWrites(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	for phase, w := range want {
		g := got[phase]
		slices.Sort(g)
		if !slices.Equal(g, w) {
			t.Errorf("phase %s: %s %q, want %q", phase, what, g, w)
		}
	}
}

// TestManualEndpointsProgrammed: kube-proxy programs a user-written Endpoints object's
// addresses (not its notReadyAddresses) in the Endpoints mode, and the mirrored slices'
// endpoints in the EndpointSlice mode (at most 1000 per subset: UPSTREAM.md §4).
func TestManualEndpointsProgrammed(t *testing.T) {
	for _, addresses := range []int{3, 1500} {
		cfg := testConfig(10, 4)
		ext := cfg.Services[0]
		ext.Name, ext.Replicas, ext.ManualEndpoints = "external-db", 0, addresses
		cfg.Services = append(cfg.Services, ext)
		cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.run(); err != nil {
			t.Fatal(err)
		}
		i := len(cfg.Services) - 1
		for _, tc := range []struct {
			mode Mode
			want int
		}{{ModeEndpoints, addresses}, {ModeEndpointSlices, min(addresses, 1000)}} {
			k := e.kubeProxies[modeIndex(tc.mode)].proxier(0)
			if got := int(k.services[i].endpoints); got != tc.want {
				t.Errorf("%d addresses, %s: kube-proxy programs %d endpoints, want %d", addresses, tc.mode, got, tc.want)
			}
		}
	}
}

// TestManualEndpointsEmptiedHasNoSubsets: a user who rewrites a selector-less Service's
// Endpoints object with no address writes it without subsets, since the API server refuses
// a subset that has neither addresses nor notReadyAddresses (upstream: pkg/apis/core/validation
// ValidateEndpointSubsets); rewritten with addresses again, it has one subset with the
// Service's target ports.
func TestManualEndpointsEmptiedHasNoSubsets(t *testing.T) {
	cfg := testConfig(10, 0)
	cfg.Services[0].Name, cfg.Services[0].ManualEndpoints = "ext", 3
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "empty", Kind: ActionScale, Replicas: 0}}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	if len(s.manual.Subsets) != 0 {
		t.Fatalf("emptied Endpoints object has subsets %+v, want none", s.manual.Subsets)
	}
	e.setManualAddresses(s, 2)
	if len(s.manual.Subsets) != 1 || len(s.manual.Subsets[0].Addresses) != 2 {
		t.Fatalf("refilled Endpoints object has subsets %+v, want one with 2 addresses", s.manual.Subsets)
	}
	ports := s.manual.Subsets[0].Ports
	if len(ports) != len(s.svc.Ports) || ports[0].Port != s.svc.Ports[0].TargetPort.IntVal {
		t.Errorf("refilled subset's ports %+v, want the Service's target ports %+v", ports, s.svc.Ports)
	}
}

// A selector-less Service's size in the results is its addresses: summary.json's
// services[].replicas ("its size in the scenario") was left out for it, and sim plan's
// "Per size of your Services" put it in an "unknown size" group.
func TestManualEndpointsServiceSize(t *testing.T) {
	cfg := testConfig(10, 4)
	ext := cfg.Services[0]
	ext.Name, ext.Replicas, ext.ManualEndpoints = "external-db", 0, 7
	cfg.Services = append(cfg.Services, ext)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Services {
		if s.Name == "external-db" {
			if s.Replicas != 7 {
				t.Errorf("external-db: size %d, want its 7 addresses", s.Replicas)
			}
			return
		}
	}
	t.Error("external-db not among the results' Services")
}

// TestMirroringHasItsOwnClient: the EndpointSlice mirroring controller is a controller of its
// own in kube-controller-manager, with its own clientset and so its own token bucket: its
// writes of a selector-less Service's slices, and the TooManyAddressesToMirror Warning it
// records about the Endpoints object at each sync that leaves addresses out, take tokens of
// its client (one per sync of more than 1000 addresses, written or not), never of the
// EndpointSlice controller's, whose client makes only that controller's writes.
// upstream: cmd/kube-controller-manager/app/discovery.go newEndpointSliceMirroringController
// (NewClient("endpointslicemirroring-controller")); endpointslicemirroring reconciler.go
// reconcile (eventRecorder.Eventf when addressesSkipped > numInvalidAddresses).
func TestMirroringHasItsOwnClient(t *testing.T) {
	cfg := testConfig(10, 4)
	cfg.RunEndpoints = false
	ext := cfg.Services[0]
	ext.Name, ext.Replicas, ext.ManualEndpoints = "ext", 0, 1500
	cfg.Services = append(cfg.Services, ext)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate},
		{Name: "shrink", Kind: ActionScale, Services: []string{"ext"}, Replicas: 1200},
		{Name: "shrink-more", Kind: ActionScale, Services: []string{"ext"}, Replicas: 1100},
		{Name: "under-the-cap", Kind: ActionScale, Services: []string{"ext"}, Replicas: 900}}
	e, res := runEngineOf(t, cfg, nil)
	var mirrored, other int64
	for _, w := range res.Writes {
		if strings.HasPrefix(w.Name, "ext-") {
			mirrored++
		} else {
			other++
		}
	}
	// The first 1000 addresses stay as they were until the last shrink: a create, then one
	// update.
	if mirrored != 2 {
		t.Fatalf("%d mirrored writes, want a create and an update", mirrored)
	}
	c := e.ctls[0]
	// One Warning for each of the three syncs of more than 1000 addresses.
	if got, want := c.mirror.bucket.taken, mirrored+3; got != want {
		t.Errorf("mirroring client: %d calls, want %d (%d writes + 3 Events)", got, want, mirrored)
	}
	if got := c.bucket.taken; got != other {
		t.Errorf("EndpointSlice client: %d calls, want its %d writes", got, other)
	}
}

// TestMirroringBackoff: a failing mirroring sync is retried after 1 s doubling to the
// mirroring controller's cap of 100 s; an EndpointSlice sync's doubles to 1000 s.
// upstream: endpointslicemirroring_controller.go and endpointslice_controller.go
// defaultSyncBackOff, maxSyncBackOff.
func TestMirroringBackoff(t *testing.T) {
	y := &sliceSyncer{}
	manual, selected := &serviceState{manual: &model.Endpoints{}}, &serviceState{}
	for _, tc := range []struct {
		s    *serviceState
		n    int
		want time.Duration
	}{
		{manual, 1, time.Second}, {manual, 7, 64 * time.Second}, {manual, 8, 100 * time.Second}, {manual, 15, 100 * time.Second},
		{selected, 1, time.Second}, {selected, 8, 128 * time.Second}, {selected, 15, 1000 * time.Second},
	} {
		if got := y.backoff(tc.s, tc.n); got != Time(tc.want) {
			t.Errorf("manual=%v, failure %d: backoff %v, want %v", tc.s.manual != nil, tc.n, time.Duration(got), tc.want)
		}
	}
}

// TestLabellingASelectorLessServiceQueuesNoMirroring: a label change of a selector-less
// Service queues it for both endpoint controllers (whose syncs of it do nothing) but not for
// the mirroring controller, which queues one on a Service update only when its selector
// appears or goes; so no mirroring sync, and none of the Warnings a sync of more than 1000
// addresses records. The Endpoints mode syncs it (and writes nothing: the object is the
// user's).
// upstream: endpointslicemirroring_controller.go onServiceUpdate; endpoints_controller.go
// onServiceUpdate, syncService (no selector: return).
func TestLabellingASelectorLessServiceQueuesNoMirroring(t *testing.T) {
	cfg := testConfig(10, 0)
	cfg.Services[0].Name, cfg.Services[0].ManualEndpoints = "ext", 1500
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate},
		{Name: "label", Kind: ActionLabelService, Services: []string{"ext"}, Labels: map[string]string{"tier": "db"}}}
	e, res := runEngineOf(t, cfg, nil)
	label := res.Phases[1]
	if got := label.Mode(ModeEndpointSlices).Syncs; got != 0 {
		t.Errorf("EndpointSlice mode: %d syncs after the label change, want none", got)
	}
	if got := label.Mode(ModeEndpoints).Syncs; got != 1 {
		t.Errorf("Endpoints mode: %d syncs after the label change, want 1", got)
	}
	if got := e.ctls[0].mirror.bucket.taken; got != 2 {
		t.Errorf("mirroring client: %d calls, want the create's write and Warning", got)
	}
	for _, w := range res.Writes {
		if w.Phase == "label" {
			t.Errorf("write %+v after the label change", w)
		}
	}
}

// TestSelectorLessServiceNeverStaleForEndpointsController: the Endpoints controller returns
// from a sync of a selector-less Service before it reads its Endpoints lister, and the
// object's writes are the user's, which its stale tracker never recorded: a sync right after
// the user's update (within the informer lag) is no stale sync, and the next update of the
// user goes out at once, not after a retry.
// upstream: endpoints_controller.go syncService (Selector == nil: return nil before
// endpointsLister.Get and staleEndpointsTracker.IsStale).
func TestSelectorLessServiceNeverStaleForEndpointsController(t *testing.T) {
	cfg := testConfig(10, 0)
	cfg.RunEndpointSlices = false
	cfg.Services[0].Name, cfg.Services[0].ManualEndpoints = "ext", 3
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	e := ranEngine(t, cfg)
	s := e.services[0]
	y := e.ctls[0].syncer.(*endpointsSyncer)
	step := func() {
		it := e.q.pop()
		e.now = it.at
		it.ev.apply(e)
	}
	// The user rewrites the object twice, the second time as the first is stored.
	e.setManualAddresses(s, 5)
	for y.stored[0].manual != s.manual {
		step()
	}
	stored := e.now
	e.setManualAddresses(s, 7)
	for y.stored[0].manual != s.manual {
		step()
	}
	if d := e.now - stored; d > Time(10*time.Millisecond) {
		t.Errorf("second update stored %v after the first, want one API latency", time.Duration(d))
	}
	for e.q.Len() > 0 {
		step()
	}
	if got := e.stats.mode(ModeEndpoints).StaleSyncs; got != 0 {
		t.Errorf("%d stale syncs, want none", got)
	}
}

// TestMirroringHasItsOwnWorkers: the EndpointSlice mirroring controller runs its syncs on
// workers of its own (--mirroring-concurrent-service-endpoint-syncs, 5), apart from the
// EndpointSlice controller's (--concurrent-service-endpoint-syncs, 5), so that neither
// controller's backlog delays the other's syncs. Ten selector-less Services whose Endpoints
// the user rewrites and ten selector Services with a pod going not ready, all at one
// instant: with the other controller's five workers all held by long syncs, five syncs of
// each controller still start at that instant.
// upstream: cmd/kube-controller-manager/app/discovery.go (esc.Run and esmc.Run, each with
// its own worker count); endpointslicemirroring_controller.go NewController (its own
// queue), Run, processNextWorkItem; config/v1alpha1/defaults.go
// (MirroringConcurrentServiceEndpointSyncs 5).
func TestMirroringHasItsOwnWorkers(t *testing.T) {
	tests := []struct {
		name string
		// mirrorFirst queues the mirroring keys before the EndpointSlice ones.
		mirrorFirst bool
		// slowSync makes each EndpointSlice sync hold its worker for 10 s (1 s per pod);
		// slowClient makes both clients send one call a second, so that the mirroring
		// syncs hold theirs for seconds.
		slowSync, slowClient bool
		// mirroringWorkers is ControlPlaneConfig.MirroringWorkers (0: the default, 5), and
		// wantMirroring the mirroring syncs that start at once.
		mirroringWorkers, wantMirroring int
	}{
		{name: "EndpointSlice workers busy", slowSync: true, wantMirroring: 5},
		{name: "mirroring workers busy", mirrorFirst: true, slowClient: true, wantMirroring: 5},
		{name: "two mirroring workers", slowSync: true, mirroringWorkers: 2, wantMirroring: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(10, 0)
			cfg.RunEndpoints = false
			web, ext := cfg.Services[0], cfg.Services[0]
			web.Replicas = 10
			ext.ManualEndpoints = 3
			cfg.Services = nil
			for i := range 10 {
				web.Name, ext.Name = fmt.Sprintf("web-%d", i), fmt.Sprintf("ext-%d", i)
				cfg.Services = append(cfg.Services, web, ext)
			}
			cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
			cfg.ControlPlane.MirroringWorkers = tc.mirroringWorkers
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			runEngine(t, e, nil)
			c := e.ctls[0]
			if tc.slowSync {
				c.buildPerPod = Time(time.Second)
			}
			if tc.slowClient {
				c.bucket = newTokenBucket(1, 1)
				c.mirror.bucket = newTokenBucket(1, 1)
			}
			churn := func() {
				for _, s := range e.services {
					if s.manual == nil {
						e.setReady(s.pods[0], false)
					}
				}
			}
			rewrite := func() {
				for _, s := range e.services {
					if s.manual != nil {
						e.setManualAddresses(s, 5)
					}
				}
			}
			if tc.mirrorFirst {
				rewrite()
				churn()
			} else {
				churn()
				rewrite()
			}
			// Every event of this instant, and up to a millisecond after (before any API
			// call of these syncs returns).
			start := e.now
			marked := false
			e.q.schedule(start+Time(time.Millisecond), evTestMark{&marked})
			for !marked {
				it := e.q.pop()
				e.now = it.at
				it.ev.apply(e)
			}
			var mirroring, selector int
			for _, s := range e.services {
				if k := c.keys[s.idx]; !k.pending || k.processing {
					if s.manual != nil {
						mirroring++
					} else {
						selector++
					}
				}
			}
			if mirroring != tc.wantMirroring || selector != 5 {
				t.Errorf("syncs started at once: %d mirroring, %d EndpointSlice; want %d and 5 (each controller's own workers)", mirroring, selector, tc.wantMirroring)
			}
		})
	}
}

// evTestMark sets done when the event loop reaches it: a test steps the loop up to a time.
type evTestMark struct{ done *bool }

func (ev evTestMark) String() string  { return "test mark" }
func (ev evTestMark) apply(e *Engine) { *ev.done = true }

// TestBusySeesMirroringWorkers: a phase is not over while the mirroring controller has a key
// waiting for its workers or a worker syncing (Engine.quiescent asks controller.busy), as
// for the EndpointSlice controller's own workers.
func TestBusySeesMirroringWorkers(t *testing.T) {
	cfg := testConfig(10, 0)
	cfg.RunEndpoints = false
	cfg.Services[0].Name, cfg.Services[0].ManualEndpoints = "ext", 3
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	e := ranEngine(t, cfg)
	c := e.ctls[0]
	if c.busy() {
		t.Fatal("busy after the phase ended")
	}
	q := &c.mirror.pool
	for _, tc := range []struct {
		name       string
		set, reset func()
	}{
		{"a worker syncing", func() { q.idle-- }, func() { q.idle++ }},
		{"a key ready", func() { q.ready.push(0) }, func() { q.ready.drop(1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.set()
			defer tc.reset()
			if !c.busy() {
				t.Error("not busy")
			}
		})
	}
}
