package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"epsim/internal/yamlscalar"
	"epsim/sim"
)

// Effective writes sc as a scenario file with every default applied: every field the
// schema has, with the value the run uses. Loading the text gives the same sim.Config
// (budgets under expect: are kept as written only in the original file and are listed as a
// comment).
func Effective(sc *Scenario) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# The effective scenario of %s: every default applied.\n", sc.File)
	if len(sc.Expect) > 0 {
		w("# Its %d expect: budgets are not repeated here.\n", len(sc.Expect))
	}
	w("name: %s\n", yamlscalar.Quote(sc.Name))
	if sc.Description != "" {
		w("description: %s\n", yamlscalar.Quote(sc.Description))
	}
	writeEffective(&b, &sc.Config, false)
	return []byte(b.String())
}

// EffectiveSettings writes the settings of cfg, every default applied, as a scenario file
// without a name, cluster, Services or timeline: what 'sim replay --scenario' takes, whose
// cluster, Services and pods come from a recording. from names where the settings came from
// (a file, or the defaults) in the first comment. Loading the text with LoadSettings gives
// the same settings.
func EffectiveSettings(cfg *sim.Config, from string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# The effective settings of %s: every default applied.\n", from)
	writeEffective(&b, cfg, true)
	return []byte(b.String())
}

// writeEffective writes cfg's fields from seed: on, leaving out the cluster, Services and
// timeline when settingsOnly.
func writeEffective(b *strings.Builder, cfg *sim.Config, settingsOnly bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("seed: %d\n", cfg.Seed)
	if !settingsOnly {
		c := cfg.Cluster
		w("cluster:\n  nodes: %d\n  zones: [%s]\n  region: %s\n  nodeNameFormat: %s\n  nodeMilliCPU: %d\n  maxPodsPerNode: %d\n",
			c.Nodes, joinQ(c.Zones), yamlscalar.Quote(c.Region), yamlscalar.Quote(c.NodeNameFormat), c.NodeMilliCPU, c.MaxPodsPerNode)
	}
	cp := cfg.ControlPlane
	w("controlPlane:\n")
	for _, x := range []struct {
		name string
		c    sim.ControllerConfig
	}{{"endpointSlice", cp.EndpointSlice}, {"endpoints", cp.Endpoints}} {
		w("  %s:\n    workers: %d\n    batchPeriod: %s\n    qps: %s\n    burst: %d\n    apiLatency: {%s}\n",
			x.name, x.c.Workers, x.c.BatchPeriod, fnum(x.c.QPS), x.c.Burst, FormatDistribution(x.c.APILatency))
	}
	w("  mirroringWorkers: %d\n", cp.MirroringWorkers)
	w("  maxEndpointsPerSlice: %d\n  endpointsTruncation: %t\n  informerLag: %s\n", cp.MaxEndpointsPerSlice, cp.EndpointsTruncation, cp.InformerLag)
	w("  endpointsBuildPerPod: %s\n  endpointSliceSyncPerPod: %s\n  podMapPerService: %s\n  minResyncPeriod: %s\n",
		cp.EndpointsBuildPerPod, cp.EndpointSliceSyncPerPod, cp.PodMapPerService, cp.MinResyncPeriod)
	wl := cp.Workloads
	w("  workloads:\n")
	for _, x := range []struct {
		name string
		c    sim.ControllerConfig
	}{{"replicaSet", wl.ReplicaSet}, {"deployment", wl.Deployment}, {"statefulSet", wl.StatefulSet}, {"daemonSet", wl.DaemonSet}} {
		w("    %s:\n      workers: %d\n      qps: %s\n      burst: %d\n      apiLatency: {%s}\n", x.name, x.c.Workers, fnum(x.c.QPS), x.c.Burst, FormatDistribution(x.c.APILatency))
	}
	w("    burstReplicas: %d\n    scheduler: {qps: %s, burst: %d}\n    podCreateFailureRate: %s\n", wl.BurstReplicas, fnum(wl.SchedulerQPS), wl.SchedulerBurst, fnum(wl.PodCreateFailureRate))
	a := cfg.APIServer
	w("apiServer:\n  replicas: %d\n  kubeProxyEncoding: %s\n  objectSizeLimit: %d\n  egressBandwidth: %s\n", a.Replicas, a.KubeProxyEncoding, a.ObjectSizeLimitBytes, bandwidth(a.EgressBitsPerSec))
	ac := a.Costs
	w("  costs: {encodeProtobufNanosPerByte: %s, encodeJSONNanosPerByte: %s, tlsNanosPerByte: %s, gzipNanosPerByte: %s, perEventNanos: %s}\n",
		fnum(ac.EncodeProtobufNanosPerByte), fnum(ac.EncodeJSONNanosPerByte), fnum(ac.TLSNanosPerByte), fnum(ac.GzipNanosPerByte), fnum(ac.PerEventNanos))
	if len(a.Watchers) > 0 {
		w("  watchers:\n")
		for _, x := range a.Watchers {
			var res []string
			if x.EndpointSlices {
				res = append(res, "endpointslices")
			}
			if x.Endpoints {
				res = append(res, "endpoints")
			}
			w("    - {name: %s, count: %d, resources: [%s], encoding: %s, includeHeadless: %t}\n", yamlscalar.Quote(x.Name), x.Count, strings.Join(res, ", "), x.Encoding, x.IncludeHeadless)
		}
	}
	n := cfg.Network
	ratio := measuredRatio
	if n.ListCompressionRatio > 0 {
		ratio = fnum(n.ListCompressionRatio)
	}
	w("network:\n  enabled: %t\n  nodeIngressBandwidth: %s\n  transportOverhead: %t\n  listCompressionRatio: %s\n", n.Enabled, bandwidth(n.NodeIngressBitsPerSec), n.TransportOverhead, ratio)
	kp := cfg.KubeProxy
	kc := kp.Costs
	w("kubeProxy:\n  mode: %s\n  minSyncPeriod: %s\n  syncPeriod: %s\n  cpu: %s\n", kp.Mode, kp.MinSyncPeriod, kp.SyncPeriod, fnum(kp.CPU))
	w("  costs:\n    syncBase: %s\n    walkNanosPerServicePort: %s\n    generateNanosPerRule: %s\n    writeNanosPerRule: %s\n    rulesPerServicePort: %s\n    rulesPerEndpoint: %s\n    decodeProtobufNanosPerByte: %s\n    decodeJSONNanosPerByte: %s\n",
		kc.SyncBase, fnum(kc.WalkNanosPerServicePort), fnum(kc.GenerateNanosPerRule), fnum(kc.WriteNanosPerRule), fnum(kc.RulesPerServicePort), fnum(kc.RulesPerEndpoint),
		fnum(kc.DecodeProtobufNanosPerByte), fnum(kc.DecodeJSONNanosPerByte))
	if !settingsOnly {
		writeServicesAndTimeline(w, cfg)
	}
	mode := "both"
	switch {
	case cfg.RunEndpoints && !cfg.RunEndpointSlices:
		mode = "endpoints"
	case !cfg.RunEndpoints && cfg.RunEndpointSlices:
		mode = "endpointslices"
	}
	w("modes: %s\nguards:\n  maxEvents: %d\n  endTime: %s\nslo: %s\n", mode, cfg.MaxEvents, cfg.EndTime, cfg.SLO)
}

// writeServicesAndTimeline writes the services: and timeline: of an effective scenario.
func writeServicesAndTimeline(w func(string, ...any), cfg *sim.Config) {
	w("services:\n")
	for _, s := range cfg.Services {
		w("  - name: %s\n    namespace: %s\n    count: %d\n", yamlscalar.Quote(s.Name), yamlscalar.Quote(s.Namespace), s.Count)
		if s.Namespaces > 1 {
			w("    namespaces: %d\n", s.Namespaces)
		}
		if s.ManualEndpoints > 0 {
			w("    manualEndpoints: %d\n", s.ManualEndpoints)
		} else {
			w("    kind: %s\n    replicas: %d\n    maxSurge: %s\n    maxUnavailable: %s\n    minReadySeconds: %s\n",
				s.WorkloadKind, s.Replicas, yamlscalar.Quote(FormatIntOrPercent(s.MaxSurge)), yamlscalar.Quote(FormatIntOrPercent(s.MaxUnavailable)), s.MinReady)
			if s.ServiceName != "" {
				w("    serviceName: %s\n", s.ServiceName)
			}
			if s.WorkloadKind == sim.KindStatefulSet {
				w("    podManagementPolicy: %s\n", cmp.Or(s.PodManagementPolicy, sim.PodManagementOrderedReady))
			}
		}
		w("    headless: %t\n    ipFamilies: [%s]\n    publishNotReadyAddresses: %t\n", s.Headless, joinQ(s.IPFamilies), s.PublishNotReadyAddresses)
		if s.TrafficDistribution != "" {
			w("    trafficDistribution: %s\n", s.TrafficDistribution)
		}
		if s.InternalTrafficPolicy == "Local" {
			w("    internalTrafficPolicy: Local\n")
		}
		if s.TopologyMode != "" {
			w("    topologyMode: %s\n", s.TopologyMode)
		}
		if len(s.Labels) > 0 {
			w("    labels: {%s}\n", labels(s.Labels))
		}
		w("    ports:")
		if len(s.Ports) == 0 {
			w(" []")
		}
		w("\n")
		for _, p := range s.Ports {
			w("      - {")
			if p.Name != "" {
				w("name: %s, ", yamlscalar.Quote(p.Name))
			}
			w("protocol: %s, port: %d, targetPort: %d", p.Protocol, p.Port, p.TargetPort)
			if p.AppProtocol != "" {
				w(", appProtocol: %s", yamlscalar.Quote(p.AppProtocol))
			}
			w("}\n")
		}
		t := s.Timing
		w("    timing:\n")
		for _, x := range []struct {
			name string
			d    sim.Distribution
		}{{"schedule", t.Schedule}, {"start", t.Start}, {"ready", t.Ready}, {"stop", t.Stop}, {"gracePeriod", t.GracePeriod}} {
			w("      %s: {%s}\n", x.name, FormatDistribution(x.d))
		}
	}
	w("timeline:\n")
	for _, x := range cfg.Timeline {
		w("  - name: %s\n    action: %s\n", yamlscalar.Quote(x.Name), x.Kind)
		if len(x.Services) > 0 {
			w("    services: [%s]\n", joinQ(x.Services))
		}
		switch x.Kind {
		case sim.ActionRollout:
			if !x.ServiceStrategy {
				w("    maxSurge: %s\n    maxUnavailable: %s\n", yamlscalar.Quote(FormatIntOrPercent(x.MaxSurge)), yamlscalar.Quote(FormatIntOrPercent(x.MaxUnavailable)))
			}
		case sim.ActionScale:
			if x.Percent > 0 {
				w("    percent: %d\n", x.Percent)
			} else {
				w("    replicas: %d\n", x.Replicas)
			}
		case sim.ActionRestartPods:
			w("    pods: %d\n", x.Pods)
		case sim.ActionFlipReadiness:
			w("    pods: %d\n    notReadyFor: %s\n", x.Pods, x.NotReadyFor)
		case sim.ActionFailNodes, sim.ActionDrainNodes:
			if x.Zone != "" {
				w("    zone: %s\n", yamlscalar.Quote(x.Zone))
			} else {
				w("    nodes: %d\n", x.Nodes)
			}
			if x.Kind == sim.ActionFailNodes && x.Duration > 0 {
				w("    duration: %s\n", x.Duration)
			}
			if x.Kind == sim.ActionDrainNodes && x.Waves > 0 {
				w("    waves: %d\n    spread: %s\n", x.Waves, x.Spread)
			}
		case sim.ActionLabelService:
			w("    labels: {%s}\n", labels(x.Labels))
		case sim.ActionWait:
			w("    duration: %s\n", x.Duration)
		}
		switch x.Kind {
		case sim.ActionRollout, sim.ActionScale, sim.ActionRestartPods:
			if x.Spread > 0 {
				w("    spread: %s\n", x.Spread)
				if x.Curve != "" {
					w("    curve: %s\n", x.Curve)
				}
			}
		}
		w("    settle: %s\n", x.Settle)
	}
}

func joinQ(vals []string) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = yamlscalar.Quote(v)
	}
	return strings.Join(out, ", ")
}

func labels(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = yamlscalar.Quote(k) + ": " + strconv.Quote(m[k])
	}
	return strings.Join(parts, ", ")
}

// fnum writes a float so that YAML reads it back exactly.
func fnum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// bandwidth writes bits per second as the loader reads them ("10000000000bit"; 0 is
// unlimited).
func bandwidth(bits float64) string {
	if bits == 0 {
		return "0"
	}
	return strconv.Quote(fnum(bits) + "bit")
}
