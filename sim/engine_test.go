package sim

import (
	"testing"
	"time"
)

// testConfig is a small cluster: nodes nodes, one Service with replicas pods, and the four
// phases of the shipped scenarios.
func testConfig(nodes, replicas int) Config {
	ctl := ControllerConfig{Workers: 5, QPS: 20, Burst: 30, APILatency: Fixed(5 * time.Millisecond)}
	return Config{
		Name: "test",
		Seed: 1,
		Cluster: ClusterConfig{
			Nodes: nodes, Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"},
			NodeNameFormat: "ip-10-0-%d.ec2.internal", NodeMilliCPU: 4000,
		},
		ControlPlane: ControlPlaneConfig{EndpointSlice: ctl, Endpoints: ctl, MaxEndpointsPerSlice: 100},
		APIServer:    APIServerConfig{Replicas: 1, KubeProxyEncoding: EncodingProtobuf, ObjectSizeLimitBytes: 1572864},
		Services: []ServiceConfig{{
			Name: "web", Namespace: "default", Replicas: replicas,
			Ports: []ServicePortConfig{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: 8080}},
			Timing: PodTiming{
				Schedule:    Fixed(time.Second),
				Start:       Distribution{Kind: DistLognormal, Median: 3 * time.Second, P99: 10 * time.Second},
				Ready:       Distribution{Kind: DistUniform, Min: 2 * time.Second, Max: 5 * time.Second},
				Stop:        Fixed(2 * time.Second),
				GracePeriod: Fixed(30 * time.Second),
			},
		}},
		Timeline: []Action{
			{Name: "create", Kind: ActionCreate},
			{Name: "one-endpoint-not-ready", Kind: ActionFlipReadiness, Pods: 1},
			{Name: "one-pod-restart", Kind: ActionRestartPods, Pods: 1},
			{Name: "rolling-update", Kind: ActionRollout,
				MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
		},
		RunEndpoints: true, RunEndpointSlices: true,
	}
}

func TestRunSmoke(t *testing.T) {
	res, err := Run(testConfig(100, 250), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Phases {
		es := p.EndpointSlices
		t.Logf("%-24s %v..%v slices: writes %+v fanout %d syncs %d stale %d p99 %.2fs", p.Name, p.Start, p.End, es.Writes, es.FanoutBytes, es.Syncs, es.StaleSyncs, es.Propagation.P99Seconds)
	}
	if res.Total.EndpointSlices.Writes.Total() == 0 {
		t.Fatal("no EndpointSlice writes")
	}
}
