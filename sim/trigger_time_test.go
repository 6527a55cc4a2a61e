package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	endpointsliceutil "k8s.io/endpointslice/util"

	"epsim/model"
)

// TestTriggerTimeMatchesUpstream drives the controllers' trigger time tracking (readyChange
// at pod events, triggerTime at syncs) and upstream's TriggerTimeTracker, which lists the
// Service's pods at each sync, through the same random pod histories: pods added with and
// without a Ready condition, Ready transitions (several between two syncs, some back to an
// earlier time), deletions and re-creations under the same name. Every sync's trigger time must be the same.
// upstream: k8s.io/endpointslice util/trigger_time_tracker.go ComputeEndpointLastChangeTriggerTime.
func TestTriggerTimeMatchesUpstream(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 77))
		e, err := newEngine(testConfig(3, 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, s := e.ctls[0], e.services[0]
		s.svc.CreationTimestamp = model.Timestamp(time.Second)
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: s.svc.Name,
			CreationTimestamp: metav1.NewTime(time.Unix(0, int64(s.svc.CreationTimestamp)))}}
		tracker := endpointsliceutil.NewTriggerTimeTracker()
		k := &c.keys[s.idx]
		live := map[string]*podState{} // by name
		// history holds each pod's earlier transition times: a kubelet whose node was back
		// restores the one it kept (nodelifecycle.go podBack).
		history := map[*podState][]model.Timestamp{}
		now := model.Timestamp(2 * time.Second)
		newPod := func(name string, rt model.Timestamp) *podState {
			return &podState{owner: e.replayOwnerOf(s), pod: &model.Pod{PodIdentity: model.NewPodIdentity("default", name, name+"-uid"), ReadyTransition: rt}}
		}
		for step := range 300 {
			now += model.Timestamp(rng.IntN(3)) * model.Timestamp(time.Millisecond)
			name := fmt.Sprintf("p%d", rng.IntN(6))
			p := live[name]
			switch op := rng.IntN(10); {
			case op < 2 && p == nil: // added, with a Ready condition or not
				var rt model.Timestamp
				if rng.IntN(2) == 0 {
					rt = now
				}
				p = newPod(name, rt)
				live[name] = p
				if !rt.IsZero() {
					c.readyChange(p, 0)
				}
			case op < 6 && p != nil: // a Ready transition now, or one of its times before back
				next := *p.pod
				next.ReadyTransition = now
				if h := history[p]; len(h) > 0 && rng.IntN(3) == 0 {
					next.ReadyTransition = h[rng.IntN(len(h))]
				}
				old := p.pod
				history[p] = append(history[p], old.ReadyTransition)
				p.pod = &next
				c.readyUpdated(p, old)
			case op < 7 && p != nil: // deleted
				p.stage = stageGone
				delete(live, name)
			case op >= 7: // a sync
				var pods []*corev1.Pod
				for n, lp := range live {
					pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: n}}
					if rt := lp.pod.ReadyTransition; !rt.IsZero() {
						pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, LastTransitionTime: metav1.NewTime(time.Unix(0, int64(rt)))}}
					}
					pods = append(pods, pod)
				}
				want := tracker.ComputeEndpointLastChangeTriggerTime("default", svc, pods)
				got := c.triggerTime(s, k)
				var wantTS model.Timestamp
				if !want.IsZero() {
					wantTS = model.Timestamp(want.UnixNano())
				}
				if got != wantTS {
					t.Fatalf("seed %d step %d: trigger time %v, upstream %v", seed, step, time.Duration(got), time.Duration(wantTS))
				}
			}
		}
	}
}

// TestNewPodDatedFromItsKubeletsFirstStatus checks the trigger time of a new pod's first
// endpoint: the kubelet writes the pod's first status, Ready=False with its
// lastTransitionTime, when it first syncs the pod, before it creates the sandbox (upstream:
// pkg/kubelet/kubelet.go SyncPod, SetPodStatus before containerRuntime.SyncPod;
// status_manager.go updateLastTransitionTime). So the write that adds the pod's address,
// seconds later, is dated from the pod's binding, not from its IP.
func TestNewPodDatedFromItsKubeletsFirstStatus(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.Services[0].Timing.Schedule = Fixed(1500 * time.Millisecond)
	cfg.Services[0].Timing.Start = Fixed(4 * time.Second)
	cfg.Timeline = cfg.Timeline[:1]
	cfg.RunEndpoints = false
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	var bound, addressed model.Timestamp
	runEngine(t, e, func() {
		if len(s.pods) == 0 {
			return
		}
		p := s.pods[0]
		if bound == 0 && p.node >= 0 {
			bound = timestamp(e.now)
			if p.pod.ReadyTransition != bound {
				t.Errorf("bound at %v with Ready transition %v, want the binding's time", e.now, p.pod.ReadyTransition)
			}
		}
		if addressed == 0 && len(p.pod.IPs) > 0 {
			addressed = timestamp(e.now)
		}
	})
	if bound == 0 || addressed-bound < model.Timestamp(3*time.Second) {
		t.Fatalf("bound at %v, IP at %v: want the IP seconds later", bound, addressed)
	}
	// The write adding the address is programmed after the IP (1 s of minSyncPeriod at
	// most, plus a sync), dated from the binding: its programming latency is 4 s and more.
	// Dated from the IP, it would be under 1.1 s, and the Ready write's too.
	prog := e.stats.results(e.stats.finishRun()).Phases[0].EndpointSlices.Programming
	if lo, hi := time.Duration(addressed-bound).Seconds(), time.Duration(addressed-bound).Seconds()+1.1; prog.MaxSeconds < lo || prog.MaxSeconds > hi {
		t.Errorf("longest programming latency %.3fs, want the address's, dated from the binding: %.3fs to %.3fs", prog.MaxSeconds, lo, hi)
	}
}
