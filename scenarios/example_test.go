package scenarios_test

import (
	"fmt"

	"epsim/scenarios"
)

// Load a shipped scenario by name, overriding one field as `sim run --set` does.
func ExampleLoad() {
	sc, cfg, err := scenarios.Load("5000-nodes", []string{"controlPlane.maxEndpointsPerSlice=500"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Name, sc.File)
	fmt.Println(cfg.Cluster.Nodes, "nodes,", cfg.Services[0].Replicas, "pods,", cfg.ControlPlane.MaxEndpointsPerSlice, "endpoints per slice")
	for _, a := range cfg.Timeline {
		fmt.Println(a.Name, a.Kind)
	}
	// Output:
	// 5000-nodes scenarios/5000-nodes.yaml
	// 5000 nodes, 10000 pods, 500 endpoints per slice
	// create create
	// one-endpoint-not-ready flipReadiness
	// one-pod-restart restartPods
	// rolling-update rollout
}

// Every problem in a scenario is reported at once, each with file, line, column and field.
func ExampleParse() {
	doc := `name: demo
cluster:
  nodes: 0
services:
  - name: web
    replicaz: 3
timeline:
  - name: create
    action: create
`
	_, err := scenarios.Parse("demo.yaml", []byte(doc), nil)
	fmt.Println(err)
	// Output:
	// demo.yaml:3:10: cluster.nodes: 0 out of range (1..1000000)
	// demo.yaml:6:5: services[0].replicaz: unknown field "replicaz" (did you mean "replicas"?); allowed: name, namespace, namespaces, count, replicas, ports, ipFamilies, headless, publishNotReadyAddresses, trafficDistribution, internalTrafficPolicy, topologyMode, labels, minReadySeconds, kind, serviceName, podManagementPolicy, maxSurge, maxUnavailable, manualEndpoints, timing
}

func ExampleParseBytes() {
	for _, s := range []string{"1.5MiB", "10KB", "2TB", "1572864"} {
		n, _ := scenarios.ParseBytes(s)
		fmt.Println(s, "=", n, "bytes")
	}
	// Output:
	// 1.5MiB = 1572864 bytes
	// 10KB = 10000 bytes
	// 2TB = 2000000000000 bytes
	// 1572864 = 1572864 bytes
}

func ExampleParseBandwidth() {
	for _, s := range []string{"10Gbit", "1Gbps", "100MB/s"} {
		bits, _ := scenarios.ParseBandwidth(s)
		fmt.Printf("%s = %.0f bit/s\n", s, bits)
	}
	// Output:
	// 10Gbit = 10000000000 bit/s
	// 1Gbps = 1000000000 bit/s
	// 100MB/s = 800000000 bit/s
}

func ExampleParseDistribution() {
	d, _ := scenarios.ParseDistribution("lognormal: {median: 8s, p99: 40s}")
	fmt.Println(d.Kind, d.Median, d.P99)
	// Output:
	// lognormal 8s 40s
}
