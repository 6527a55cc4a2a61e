package sim

import (
	"testing"
	"time"
)

// TestInternalTrafficPolicyLocal: kube-proxy programs a Service of internal traffic policy
// Local with its own node's endpoints only (upstream: pkg/proxy/topology.go
// CategorizeEndpoints), so the representative kube-proxy of the EndpointSlice mode counts
// the ready pods on its node; one that watches Endpoints (before 1.19, which had no such
// policy) counts them all, as does either for policy Cluster.
func TestInternalTrafficPolicyLocal(t *testing.T) {
	for _, policy := range []string{"", "Cluster", "Local"} {
		t.Run("policy="+policy, func(t *testing.T) {
			cfg := testConfig(3, 30)
			cfg.Services[0].InternalTrafficPolicy = policy
			cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate, Settle: time.Minute}}
			e, _, _, _ := recordedRun(t, cfg)
			local, ready := 0, 0
			for _, p := range e.services[0].pods {
				if p.stage != stageGone && p.pod.Ready {
					ready++
					if p.pod.NodeName == e.proxyAt.node {
						local++
					}
				}
			}
			if local == 0 || local == ready {
				t.Fatalf("%d of %d ready pods on the kube-proxy's node %s: the test needs some elsewhere too", local, ready, e.proxyAt.node)
			}
			want := map[Mode]int{ModeEndpoints: ready, ModeEndpointSlices: ready}
			if policy == "Local" {
				want[ModeEndpointSlices] = local
			}
			for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
				k := e.kubeProxies[modeIndex(m)].proxier(0)
				if got := k.programmed(0); got != want[m] {
					t.Errorf("%s: kube-proxy programs %d endpoints, want %d (%d ready, %d on its node)", m, got, want[m], ready, local)
				}
			}
		})
	}
}
