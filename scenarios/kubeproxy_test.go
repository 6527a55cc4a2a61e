package scenarios

import (
	"testing"
	"time"

	"epsim/sim"
)

// TestKubeProxySettings: kubeProxy.mode brings that backend's defaults, then the other
// fields override them; a scenario without the section gets iptables, upstream's default
// (pkg/proxy/apis/config/v1alpha1/defaults.go), and the API server's cost defaults.
func TestKubeProxySettings(t *testing.T) {
	sc, err := Parse("x.yaml", []byte(minimal), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sc.Config.KubeProxy, sim.DefaultKubeProxy(sim.KubeProxyIPTables); got != want {
		t.Errorf("default kubeProxy = %+v, want %+v", got, want)
	}
	if got, want := sc.Config.APIServer.Costs, sim.DefaultAPIServerCosts(); got != want {
		t.Errorf("default apiServer.costs = %+v, want %+v", got, want)
	}
	doc := minimal + "kubeProxy:\n  mode: ipvs\n  minSyncPeriod: 2s\n  cpu: 0.5\n  costs: {syncBase: 1ms, writeNanosPerRule: 5000}\n" +
		"apiServer:\n  costs: {perEventNanos: 2500}\n"
	sc, err = Parse("x.yaml", []byte(doc), []string{"kubeProxy.syncPeriod=1m"})
	if err != nil {
		t.Fatal(err)
	}
	want := sim.DefaultKubeProxy(sim.KubeProxyIPVS)
	want.MinSyncPeriod, want.SyncPeriod, want.CPU = 2*time.Second, time.Minute, 0.5
	want.Costs.SyncBase, want.Costs.WriteNanosPerRule = time.Millisecond, 5000
	if got := sc.Config.KubeProxy; got != want {
		t.Errorf("kubeProxy = %+v, want %+v", got, want)
	}
	if got := sc.Config.APIServer.Costs.PerEventNanos; got != 2500 {
		t.Errorf("apiServer.costs.perEventNanos = %g, want 2500", got)
	}
}
