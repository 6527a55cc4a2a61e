package scenarios

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"epsim/sim"
)

// minimal is the smallest valid scenario; bad inputs below change one thing in it.
const minimal = `name: t
cluster:
  nodes: 10
services:
  - name: web
    replicas: 20
timeline:
  - name: create
    action: create
  - name: roll
    action: rollout
`

// Reference: STYLE.md §7 "Errors": file:line:column: field.path: problem (what is allowed),
// every problem at once.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		sets []string
		want []string // every line of the error, in order
	}{
		{
			name: "unknown field with suggestion",
			doc:  strings.Replace(minimal, "  nodes: 10", "  nodes: 10\n  zonez: [a]", 1),
			want: []string{`x.yaml:4:3: cluster.zonez: unknown field "zonez" (did you mean "zones"?); allowed: nodes, zones, region, nodeNameFormat, nodeMilliCPU, maxPodsPerNode`},
		},
		{
			name: "unknown top-level field, case typo",
			doc:  minimal + "controlplane: {}\n",
			want: []string{`x.yaml:12:1: controlplane: unknown field "controlplane" (did you mean "controlPlane"?); allowed: name, description, seed, cluster, controlPlane, apiServer, network, kubeProxy, services, timeline, modes, guards, slo, expect`},
		},
		{
			// The one error: not also a count of zones (0) for what is not a list.
			name: "zones not a list",
			doc:  strings.Replace(minimal, "  nodes: 10", "  nodes: 10\n  zones: a", 1),
			want: []string{`x.yaml:4:10: cluster.zones: expected a list of zone names, got "a"`},
		},
		{
			name: "wrong type",
			doc:  strings.Replace(minimal, "nodes: 10", "nodes: ten", 1),
			want: []string{`x.yaml:3:10: cluster.nodes: expected an integer (1..1000000), got "ten"`},
		},
		{
			name: "serviceName of a Deployment",
			doc:  strings.Replace(minimal, "replicas: 20", "replicas: 20\n    serviceName: web", 1),
			want: []string{`x.yaml:7:5: services[0].serviceName: applies to kind StatefulSet only (a StatefulSet's spec.serviceName, its governing Service)`},
		},
		{
			name: "serviceName not a DNS label",
			doc:  strings.Replace(minimal, "replicas: 20", "replicas: 20\n    kind: StatefulSet\n    serviceName: Web_1", 1),
			want: []string{`x.yaml:8:18: services[0].serviceName: "Web_1" must be a DNS-1035 label (lowercase a-z, 0-9 and '-', starting with a letter, at most 63 characters), as a Service's name`},
		},
		{
			name: "negative replicas",
			doc:  strings.Replace(minimal, "replicas: 20", "replicas: -1", 1),
			want: []string{`x.yaml:6:15: services[0].replicas: -1 out of range (0..1000000)`},
		},
		{
			name: "port out of range",
			doc:  strings.Replace(minimal, "replicas: 20", "replicas: 20\n    ports: [{port: 70000}]", 1),
			want: []string{`x.yaml:7:20: services[0].ports[0].port: 70000 out of range (1..65535)`},
		},
		{
			name: "maxEndpointsPerSlice 0",
			doc:  minimal + "controlPlane:\n  maxEndpointsPerSlice: 0\n",
			want: []string{`x.yaml:13:25: controlPlane.maxEndpointsPerSlice: 0 out of range (1..1000)`},
		},
		{
			name: "maxEndpointsPerSlice 1001",
			doc:  minimal + "controlPlane:\n  maxEndpointsPerSlice: 1001\n",
			want: []string{`x.yaml:13:25: controlPlane.maxEndpointsPerSlice: 1001 out of range (1..1000)`},
		},
		{
			// upstream: cmd/kube-controller-manager/app/options/endpointslicemirroringcontroller.go
			// Validate (mirroring-concurrent-service-endpoint-syncs 1..50).
			name: "mirroringWorkers 0",
			doc:  minimal + "controlPlane:\n  mirroringWorkers: 0\n",
			want: []string{`x.yaml:13:21: controlPlane.mirroringWorkers: 0 out of range (1..50)`},
		},
		{
			name: "mirroringWorkers 51",
			doc:  minimal,
			sets: []string{"controlPlane.mirroringWorkers=51"},
			want: []string{`x.yaml: --set controlPlane.mirroringWorkers=51: controlPlane.mirroringWorkers: 51 out of range (1..50)`},
		},
		{
			// upstream: pkg/apis/apps/validation ValidateRollingUpdateDeployment.
			name: "maxSurge and maxUnavailable both 0",
			doc:  minimal + "    maxSurge: 0\n    maxUnavailable: 0%\n",
			want: []string{`x.yaml:13:21: timeline[1].maxUnavailable: may not be 0 when maxSurge is 0 (the rollout could never progress)`},
		},
		{
			// upstream: pkg/apis/apps/validation ValidateRollingUpdateDaemonSet.
			name: "a DaemonSet with both maxSurge and maxUnavailable",
			doc:  "name: t\ncluster:\n  nodes: 10\nservices:\n  - name: agent\n    kind: DaemonSet\n    maxSurge: 1\n    maxUnavailable: 1\ntimeline:\n  - name: create\n    action: create\n",
			want: []string{`x.yaml:7:15: services[0].maxSurge: a DaemonSet's maxSurge and maxUnavailable may not both be non-zero (set maxUnavailable: 0 to surge)`},
		},
		{
			// upstream: pkg/apis/apps/validation ValidateRollingUpdateDaemonSet: a rollout
			// giving maxSurge alone leaves maxUnavailable at 25%, both non-zero.
			name: "a DaemonSet rolled out with maxSurge alone",
			doc:  "name: t\ncluster:\n  nodes: 10\nservices:\n  - name: agent\n    kind: DaemonSet\ntimeline:\n  - name: create\n    action: create\n  - name: roll\n    action: rollout\n    maxSurge: 1\n",
			want: []string{`x.yaml:10:5: timeline[1].maxSurge: service "agent" is a DaemonSet, whose maxSurge and maxUnavailable may not both be non-zero (set maxUnavailable: 0 to surge, or maxSurge: 0)`},
		},
		{
			// upstream: pkg/apis/apps/validation validateRollingUpdateStatefulSet.
			// Beside a Deployment: a rollout of StatefulSets only is refused for its maxSurge.
			name: "a StatefulSet rolled out with maxUnavailable 0",
			doc:  "name: t\ncluster:\n  nodes: 10\nservices:\n  - name: web\n  - name: db\n    kind: StatefulSet\n    replicas: 3\ntimeline:\n  - name: create\n    action: create\n  - name: roll\n    action: rollout\n    maxSurge: 25%\n    maxUnavailable: 0\n",
			want: []string{`x.yaml:12:5: timeline[1].maxUnavailable: service "db" is a StatefulSet, whose maxUnavailable cannot be 0 (it has no maxSurge)`},
		},
		{
			name: "maxUnavailable over 100%",
			doc:  minimal + "    maxUnavailable: 120%\n",
			want: []string{`x.yaml:12:21: timeline[1].maxUnavailable: 120% out of range (0%..100%)`},
		},
		{
			name: "duplicate phase name",
			doc:  minimal + "  - name: create\n    action: wait\n    duration: 1s\n",
			want: []string{`x.yaml:12:5: timeline[2].name: duplicate action name "create" (first at line 8); each action is a phase and needs its own name`},
		},
		{
			name: "missing required fields",
			doc:  "name: t\ncluster: {}\n",
			want: []string{
				`x.yaml:1:1: services: required field is missing`,
				`x.yaml:1:1: timeline: required field is missing`,
				`x.yaml:2:10: cluster.nodes: required field is missing`,
			},
		},
		{
			name: "field that does not apply to the action",
			doc:  strings.Replace(minimal, "    action: create\n", "    action: create\n    replicas: 3\n", 1),
			want: []string{`x.yaml:10:5: timeline[0].replicas: field "replicas" does not apply to action create (its fields: name, action, settle, services)`},
		},
		{
			name: "curve without spread",
			doc:  minimal + "    curve: diurnal\n",
			want: []string{`x.yaml:12:5: timeline[1].curve: curve applies to a spread action; add spread (the window the starts follow the curve over)`},
		},
		{
			name: "unknown curve",
			doc:  minimal + "    spread: 1h\n    curve: weekly\n",
			want: []string{`x.yaml:13:12: timeline[1].curve: "weekly" is not allowed; allowed: uniform, diurnal`},
		},
		{
			name: "spread on an action without it",
			doc:  minimal + "  - name: flip\n    action: flipReadiness\n    spread: 1h\n",
			want: []string{`x.yaml:14:5: timeline[2].spread: field "spread" does not apply to action flipReadiness (its fields: name, action, settle, services, pods, notReadyFor)`},
		},
		{
			name: "scale with replicas and percent",
			doc:  minimal + "  - name: up\n    action: scale\n    replicas: 3\n    percent: 150\n",
			want: []string{`x.yaml:15:5: timeline[2].percent: give replicas or percent, not both`},
		},
		{
			// percent is of a selector-less Service's manualEndpoints: 200% of 600,000 addresses
			// in 10 copies is 12,000,000, over the limit (as replicas: 1200000 would be).
			name: "percent of manualEndpoints over the pod limit",
			doc: "name: t\ncluster: {nodes: 10}\nservices:\n  - {name: ext, count: 10, manualEndpoints: 600000, ports: [{port: 5432}]}\n  - {name: web, replicas: 4}\n" +
				"timeline:\n  - {name: create, action: create}\n  - {name: up, action: scale, percent: 200}\n",
			want: []string{
				`x.yaml:7:3: timeline: the Services reach 12000008 pods in total (sum of count × replicas, a DaemonSet's replicas being the node count), too many (at most 10000000)`,
				`x.yaml:8:5: timeline[1].percent: scaling to 1200000 replicas makes 12000008 pods in total (sum of count × replicas over the timeline), too many (at most 10000000)`,
			},
		},
		{
			name: "scale with neither replicas nor percent",
			doc:  minimal + "  - name: up\n    action: scale\n",
			want: []string{`x.yaml:12:5: timeline[2]: action scale needs replicas (how many) or percent (of each Service's configured replicas, or manualEndpoints)`},
		},
		{
			name: "waves without spread",
			doc:  minimal + "  - name: upgrade\n    action: drainNodes\n    nodes: 10\n    waves: 5\n",
			want: []string{`x.yaml:15:5: timeline[2].waves: waves need spread (the time over which the waves start)`},
		},
		{
			name: "drain spread without waves",
			doc:  minimal + "  - name: upgrade\n    action: drainNodes\n    nodes: 10\n    spread: 1h\n",
			want: []string{`x.yaml:15:5: timeline[2].spread: spread applies to drainNodes with waves; add waves`},
		},
		{
			name: "failNodes duration 0",
			doc:  minimal + "  - name: blip\n    action: failNodes\n    nodes: 1\n    duration: 0s\n",
			want: []string{`x.yaml:15:15: timeline[2].duration: must be > 0 (leave it out for nodes that never come back)`},
		},
		{
			name: "unknown action with suggestion",
			doc:  strings.Replace(minimal, "action: rollout", "action: rolout", 1),
			want: []string{`x.yaml:11:13: timeline[1].action: "rolout" is not allowed (did you mean "rollout"?); allowed: create, rollout, scale, restartPods, flipReadiness, failNodes, drainNodes, labelService, wait`},
		},
		{
			name: "unknown service and zone",
			doc:  minimal + "  - name: fail\n    action: failNodes\n    zone: zone-d\n  - name: s\n    action: scale\n    services: [wbe]\n    replicas: 3\n",
			want: []string{
				`x.yaml:14:11: timeline[2].zone: unknown zone "zone-d" (did you mean "zone-a"?); allowed: zone-a, zone-b, zone-c`,
				`x.yaml:17:16: timeline[3].services[0]: unknown service "wbe" (did you mean "web"?); allowed: web`,
			},
		},
		{
			// Named at the --set that gave it, not at the action's line in the file, which
			// does not hold it.
			name: "unknown service from --set",
			doc:  minimal + "  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n",
			sets: []string{"timeline[1].services=[wbe]"},
			want: []string{
				`x.yaml: --set timeline[1].services=[wbe]: timeline[1].services[0]: unknown service "wbe" (did you mean "web"?); allowed: web`,
			},
		},
		{
			name: "internal traffic policy",
			doc:  strings.Replace(minimal, "    replicas: 20\n", "    replicas: 20\n    internalTrafficPolicy: Locale\n", 1),
			want: []string{`x.yaml:7:28: services[0].internalTrafficPolicy: "Locale" is not allowed (did you mean "Local"?); allowed: Cluster, Local`},
		},
		// Actions and fields that would do nothing are refused, as "applies to kind
		// StatefulSet only" is, rather than run as a silent no-op.
		{
			name: "maxSurge of a StatefulSet",
			doc:  strings.Replace(minimal, "    replicas: 20\n", "    replicas: 20\n    kind: StatefulSet\n    maxSurge: 1\n", 1),
			want: []string{`x.yaml:8:15: services[0].maxSurge: a StatefulSet never surges (its rolling update has maxUnavailable only): maxSurge must be 0 or left out`},
		},
		{
			name: "rollout of StatefulSets with maxSurge",
			doc:  strings.Replace(minimal, "    replicas: 20\n", "    replicas: 20\n    kind: StatefulSet\n", 1) + "    maxSurge: 1\n",
			want: []string{`x.yaml:11:5: timeline[1].maxSurge: every service this rollout applies to is a StatefulSet, which never surges: maxSurge does not apply (give maxUnavailable)`},
		},
		{
			name: "scale of a DaemonSet",
			doc: strings.Replace(minimal, "    replicas: 20\n", "    replicas: 20\n  - {name: agent, kind: DaemonSet}\n", 1) +
				"  - {name: s, action: scale, services: [web, agent], replicas: 3}\n",
			want: []string{`x.yaml:13:5: timeline[2].services[1]: service "agent" is a DaemonSet, whose size is the node count (one pod per node): scale does not apply to it`},
		},
		{
			name: "scale of every service, all DaemonSets",
			doc:  strings.Replace(minimal, "    replicas: 20\n", "    kind: DaemonSet\n", 1) + "  - {name: s, action: scale, percent: 200}\n",
			want: []string{`x.yaml:12:5: timeline[2]: every service is a DaemonSet, whose size is the node count (one pod per node): scale does not apply`},
		},
		{
			// Not "1 pods is more than service "db" has (6 replicas)", its addresses after
			// the scale, nor "(0 replicas)" before it.
			name: "restartPods of a selector-less Service",
			doc: strings.Replace(minimal, "    replicas: 20\n", "    replicas: 20\n  - {name: db, manualEndpoints: 3}\n", 1) +
				"  - {name: s, action: scale, services: [db], percent: 200}\n  - {name: r, action: restartPods, services: [db]}\n  - {name: f, action: flipReadiness, services: [web, db]}\n",
			want: []string{
				`x.yaml:14:5: timeline[3].services[0]: service "db" is selector-less (manualEndpoints): it has no pods, so restartPods does not apply to it`,
				`x.yaml:15:5: timeline[4].services[1]: service "db" is selector-less (manualEndpoints): it has no pods, so flipReadiness does not apply to it`,
			},
		},
		{
			name: "restartPods of every service, all selector-less",
			doc:  strings.Replace(minimal, "    replicas: 20\n", "    manualEndpoints: 3\n    ports: [{port: 80}]\n", 1) + "  - {name: r, action: restartPods}\n",
			want: []string{`x.yaml:13:5: timeline[2]: every service is selector-less (manualEndpoints): none has pods, so restartPods does not apply`},
		},
		{
			// The service's own error, not its references as unknown too.
			name: "rejected service referenced",
			doc:  strings.Replace(minimal, "    replicas: 20\n", "    replicas: 20\n    podManagementPolicy: Parallel\n", 1) + "  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n",
			want: []string{`x.yaml:7:5: services[0].podManagementPolicy: applies to kind StatefulSet only (a StatefulSet's spec.podManagementPolicy)`},
		},
		{
			// A service left out with no valid name of its own: the timeline's reference to
			// it is not reported as unknown with an empty list of services.
			name: "unnamed rejected service referenced",
			doc:  strings.Replace(minimal, "name: web", "name: WEB", 1) + "  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n",
			want: []string{`x.yaml:5:11: services[0].name: "WEB" must be a DNS-1035 label (lowercase a-z, 0-9 and '-', starting with a letter)`},
		},
		{
			name: "empty services referenced",
			doc:  strings.Replace(minimal, "services:\n  - name: web\n    replicas: 20\n", "services: []\n", 1) + "  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n",
			want: []string{`x.yaml:4:11: services: need at least one service`},
		},
		{
			// Only the --set error: its services are gone, and so are the timeline's names.
			name: "--set replacing a referenced service",
			doc:  minimal + "  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n",
			sets: []string{"services[0]=x"},
			want: []string{`x.yaml: --set services[0]=x: services[0]: expected a mapping with fields name, namespace, namespaces, count, replicas, ports, ipFamilies, headless, publishNotReadyAddresses, trafficDistribution, internalTrafficPolicy, topologyMode, labels, minReadySeconds, kind, serviceName, podManagementPolicy, maxSurge, maxUnavailable, manualEndpoints, timing, got "x"`},
		},
		{
			name: "--set renaming a referenced service badly",
			doc:  minimal + "  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n",
			sets: []string{"services[0].name=WEB"},
			want: []string{`x.yaml: --set services[0].name=WEB: services[0].name: "WEB" must be a DNS-1035 label (lowercase a-z, 0-9 and '-', starting with a letter)`},
		},
		{
			name: "--set emptying the services",
			doc:  minimal + "  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n",
			sets: []string{"services=[]"},
			want: []string{`x.yaml: --set services=[]: services: need at least one service`},
		},
		{
			// The flag's error first, and the file's own, independent error still.
			name: "--set error before the file's",
			doc:  strings.Replace(minimal, "nodes: 10", "nodes: ten", 1),
			sets: []string{"services[0].replicas=-1"},
			want: []string{
				`x.yaml: --set services[0].replicas=-1: services[0].replicas: -1 out of range (0..1000000)`,
				`x.yaml:3:10: cluster.nodes: expected an integer (1..1000000), got "ten"`,
			},
		},
		{
			// A run that waits longer than guards.endTime can never finish.
			name: "wait past the default endTime",
			doc:  minimal + "  - name: w\n    action: wait\n    duration: 1000h\n",
			want: []string{`x.yaml:14:15: timeline[2].duration: wait of 1000h0m0s is longer than guards.endTime 24h0m0s: the run could never finish (raise guards.endTime or shorten the wait)`},
		},
		{
			name: "waits adding up past endTime",
			doc:  minimal + "  - name: w1\n    action: wait\n    duration: 2h\n  - name: w2\n    action: wait\n    duration: 2h\nguards:\n  endTime: 3h\n",
			want: []string{`x.yaml:17:15: timeline[3].duration: the timeline's waits up to here add up to 4h0m0s, longer than guards.endTime 3h0m0s: the run could never finish (raise guards.endTime or shorten the waits)`},
		},
		{
			name: "action before create",
			doc:  strings.Replace(minimal, "action: create", "action: wait\n    duration: 1s", 1),
			want: []string{`x.yaml:11:5: timeline[1]: action rollout comes before any create action; put a create action first`},
		},
		{
			// The one error: the first action's kind is refused, so whether it would have
			// created the Services is unknown, and the rollout is not said to come first.
			name: "unknown action kind, then an action that needs a create",
			doc:  strings.Replace(minimal, "action: create", "action: craete", 1),
			want: []string{`x.yaml:9:13: timeline[0].action: "craete" is not allowed (did you mean "create"?); allowed: create, rollout, scale, restartPods, flipReadiness, failNodes, drainNodes, labelService, wait`},
		},
		{
			// A second create of a Service was accepted and gave an empty phase.
			name: "created twice",
			doc:  minimal + "  - name: again\n    action: create\n  - name: again-web\n    action: create\n    services: [web]\n",
			want: []string{
				`x.yaml:12:5: timeline[2]: every service is already created by an earlier create action; a Service is created once`,
				`x.yaml:14:5: timeline[3]: every service is already created by an earlier create action; a Service is created once`,
			},
		},
		{
			name: "named service created twice",
			doc:  strings.Replace(minimal, "    action: create\n", "    action: create\n    services: [web]\n", 1) + "  - name: again\n    action: create\n    services: [web]\n",
			want: []string{`x.yaml:15:16: timeline[2].services[0]: service "web" is already created by an earlier create action; a Service is created once`},
		},
		{
			name: "bad distribution",
			doc:  strings.Replace(minimal, "replicas: 20", "replicas: 20\n    timing:\n      start: {lognormal: {median: 8s, p99: 4s}}", 1),
			want: []string{`x.yaml:8:44: services[0].timing.start.lognormal.p99: p99 4s is below median 8s (need p99 >= median)`},
		},
		{
			name: "minReadySeconds of a fraction",
			doc:  strings.Replace(minimal, "replicas: 20", "replicas: 20\n    minReadySeconds: 2500ms", 1),
			want: []string{`x.yaml:7:22: services[0].minReadySeconds: 2.5s is not whole seconds: the API's minReadySeconds is an integer of seconds (use 2s or 3s)`},
		},
		{
			name: "bad units",
			doc:  minimal + "apiServer:\n  objectSizeLimit: 1.5MB/s\n  egressBandwidth: 10GB\n",
			want: []string{
				`x.yaml:13:20: apiServer.objectSizeLimit: invalid byte size "1.5MB/s": unknown unit "MB/s" (B, KB, MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB)`,
				`x.yaml:14:20: apiServer.egressBandwidth: invalid bandwidth "10GB" (a rate like 10Gbit, 1Gbps, 500Mbit/s, 100MB/s; or 0 / unlimited)`,
			},
		},
		{
			name: "kube-proxy settings",
			doc:  minimal + "kubeProxy:\n  mode: ipvss\n  minSyncPeriod: 40s\n  cpu: 0\n  costs: {writeNanosPerRule: -1, rulesPerChain: 2}\n",
			want: []string{
				`x.yaml:13:3: kubeProxy.syncPeriod: 30s is shorter than minSyncPeriod 40s`,
				`x.yaml:13:9: kubeProxy.mode: "ipvss" is not allowed (did you mean "ipvs"?); allowed: iptables, nftables, ipvs`,
				`x.yaml:15:8: kubeProxy.cpu: 0 out of range (cpu must be at least 0.001 cores)`,
				`x.yaml:16:30: kubeProxy.costs.writeNanosPerRule: -1 out of range (0..1e+09)`,
				`x.yaml:16:34: kubeProxy.costs.rulesPerChain: unknown field "rulesPerChain"; allowed: syncBase, walkNanosPerServicePort, generateNanosPerRule, writeNanosPerRule, rulesPerServicePort, rulesPerEndpoint, decodeProtobufNanosPerByte, decodeJSONNanosPerByte`,
			},
		},
		{
			name: "stamped name clash",
			doc:  strings.Replace(minimal, "  - name: web\n", "  - name: web\n    count: 3\n  - name: web-2\n", 1),
			want: []string{`x.yaml:7:5: services[1].name: service default/web-2 clashes with copy 2 of "web" (count 3, line 5)`},
		},
		{
			name: "expect key",
			doc:  minimal + "expect:\n  roll.endpointslice.fanoutBytes: {max: 1s}\n",
			want: []string{
				`x.yaml:13:3: expect["roll.endpointslice.fanoutBytes"]: unknown mode "endpointslice" (did you mean "endpointslices"?); allowed: endpoints, endpointslices, ratio`,
				`x.yaml:13:41: expect["roll.endpointslice.fanoutBytes"].max: invalid byte size "1s": unknown unit "s" (B, KB, MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB)`,
			},
		},
		{
			name: "duplicate key",
			doc:  minimal + "seed: 1\nseed: 2\n",
			want: []string{`x.yaml:13:1: seed: duplicate field (first at line 12)`},
		},
		{
			name: "syntax error",
			doc:  "name: [\n",
			want: []string{`x.yaml:1: YAML syntax: did not find expected node content`},
		},
		{
			// The YAML library numbers its parser's errors from 0: this read "x.yaml:6".
			name: "syntax error in a flow mapping",
			doc:  "name: x\ncluster: {nodes: 10}\nservices:\n  - {name: web, replicas: 3}\ntimeline:\n  - {name: create, action: create}\n  - {name: r, action: rollout, services: web]}\n",
			want: []string{`x.yaml:7: YAML syntax: did not find expected ',' or '}' (a {…} or […] not closed, or a value inside one that holds [ ] { } or a comma: quote it, as "services[0].replicas")`},
		},
		{
			name: "syntax error in a block sequence",
			doc:  "name: x\ntimeline:\n  - a\n  b: c\n",
			want: []string{`x.yaml:3: YAML syntax: did not find expected '-' indicator`},
		},
		{
			// At least one pod; at most the addresses of a node's pod range (sim.NodePodAddresses).
			name: "maxPodsPerNode zero",
			doc:  strings.Replace(minimal, "  nodes: 10", "  nodes: 10\n  maxPodsPerNode: 0", 1),
			want: []string{`x.yaml:4:19: cluster.maxPodsPerNode: 0 out of range (1..250)`},
		},
		{
			name: "maxPodsPerNode above a node's pod addresses",
			doc:  minimal,
			sets: []string{"cluster.maxPodsPerNode=251"},
			want: []string{`x.yaml: --set cluster.maxPodsPerNode=251: cluster.maxPodsPerNode: 251 out of range (1..250)`},
		},
		{
			name: "maxPodsPerNode not a number",
			doc:  strings.Replace(minimal, "  nodes: 10", "  nodes: 10\n  maxPodsPerNode: many", 1),
			want: []string{`x.yaml:4:19: cluster.maxPodsPerNode: expected an integer (1..250), got "many"`},
		},
		{
			name: "empty",
			doc:  "",
			want: []string{`x.yaml: empty scenario (required fields: name, cluster, services, timeline)`},
		},
		{
			name: "not a mapping",
			doc:  "- a\n",
			want: []string{`x.yaml:1:1: expected a mapping with fields name, description, seed, cluster, controlPlane, apiServer, network, kubeProxy, services, timeline, modes, guards, slo, expect, got a list`},
		},
		{
			name: "bad --set path and values",
			doc:  minimal,
			sets: []string{"services[3].replicas=5", "cluster.nodes=-5", "cluster.nodez=5", "services[0]replicas=1", "nodes"},
			want: []string{
				`x.yaml: --set services[3].replicas=5: services[3]: index 3 out of range (the list has 1 item)`,
				`x.yaml: --set cluster.nodes=-5: cluster.nodes: -5 out of range (1..1000000)`,
				`x.yaml: --set cluster.nodez=5: cluster.nodez: unknown field "nodez" (did you mean "nodes"?); allowed: nodes, zones, region, nodeNameFormat, nodeMilliCPU, maxPodsPerNode`,
				`x.yaml: --set services[0]replicas=1: bad path "services[0]replicas": unexpected 'r' at offset 11 (a field name follows '.') (like services[0].replicas or controlPlane.maxEndpointsPerSlice)`,
				`x.yaml: --set nodes: expected path=value, like cluster.nodes=500`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("x.yaml", []byte(tc.doc), tc.sets)
			if err == nil {
				t.Fatalf("no error; scenario %+v", sc)
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T is not Errors: %v", err, err)
			}
			got := strings.Split(err.Error(), "\n")
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestWaitsWithinEndTime: waits that fit in guards.endTime, raised or not, are valid.
func TestWaitsWithinEndTime(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
	}{
		{"a day of waits", minimal + "  - name: w\n    action: wait\n    duration: 24h\n"},
		{"raised endTime", minimal + "  - name: w\n    action: wait\n    duration: 1000h\nguards:\n  endTime: 1000h\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse("x.yaml", []byte(tc.doc), nil); err != nil {
				t.Fatalf("Parse: %v", err)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.yaml")
	_, _, err := Load(p, nil)
	if err == nil || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Load(%q) error = %v; want ErrNotFound naming the path", p, err)
	}
	_, _, err = Load("5000-nodez", nil)
	if err == nil || !strings.Contains(err.Error(), "5000-nodez") || !strings.Contains(err.Error(), "5000-nodes") {
		t.Fatalf("Load(5000-nodez) error = %v; want it to name the input and list shipped scenarios", err)
	}
}

// TestShippedDescriptionsCountServices: a shipped scenario's description that says how many
// Services it has ("one Service", "10,000 Services") says the number sim scenarios lists
// beside it: the entries' copies (count) included.
func TestShippedDescriptionsCountServices(t *testing.T) {
	words := map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
	said := regexp.MustCompile(`\b(one|two|three|four|five|six|seven|eight|nine|ten|[0-9][0-9,]*) Services?\b`)
	for _, name := range Names() {
		sc, cfg, err := Load(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		services := 0
		for _, s := range cfg.Services {
			services += s.Count
		}
		for _, m := range said.FindAllStringSubmatch(sc.Description, -1) {
			n, ok := words[m[1]]
			if !ok {
				n, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			}
			if n != services {
				t.Errorf("%s: description says %q, but the scenario has %d Services", name, m[0], services)
			}
		}
	}
}

// Reference: DESIGN.md "Scenarios"; every shipped scenario loads and validates, by name and
// by path, and is described by comments.
func TestShippedScenarios(t *testing.T) {
	want := []string{"5000-nodes", "cluster-day", "dual-stack", "many-services", "quick", "truncation", "zone-outage"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range Names() {
		sc, cfg, err := Load(name, nil)
		if err != nil {
			t.Fatalf("Load(%q): %v", name, err)
		}
		if !sc.Embedded || sc.File != "scenarios/"+name+".yaml" || sc.Name != name || cfg.Name != name {
			t.Errorf("%s: File %q, Name %q, Embedded %v", name, sc.File, sc.Name, sc.Embedded)
		}
		if !reflect.DeepEqual(sc.Config, cfg) {
			t.Errorf("%s: Load's config differs from Scenario.Config", name)
		}
		data, err := os.ReadFile(name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("# ")) || sc.Description == "" {
			t.Errorf("%s: must open with an explaining comment and have a description", name)
		}
		fromDisk, _, err := Load(name+".yaml", nil)
		if err != nil || fromDisk.Embedded || !reflect.DeepEqual(fromDisk.Config, cfg) {
			t.Errorf("%s: loading from disk: %v", name, err)
		}
	}
}

// Reference: DESIGN.md "Quality bars": the headline figures come from 5000-nodes.yaml; its
// phase names are part of the contract (KEP-752's rows).
func TestFiveThousandNodes(t *testing.T) {
	_, cfg, err := Load("5000-nodes", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cluster.Nodes != 5000 || len(cfg.Cluster.Zones) != 3 || cfg.ControlPlane.EndpointsTruncation {
		t.Errorf("cluster %+v truncation %v", cfg.Cluster, cfg.ControlPlane.EndpointsTruncation)
	}
	if len(cfg.Services) != 1 || cfg.Services[0].Name != "web" || cfg.Services[0].Replicas != 10000 || cfg.Services[0].Count != 1 {
		t.Errorf("services %+v", cfg.Services)
	}
	wantPhases := []struct {
		name string
		kind sim.ActionKind
	}{{"create", sim.ActionCreate}, {"one-endpoint-not-ready", sim.ActionFlipReadiness}, {"one-pod-restart", sim.ActionRestartPods}, {"rolling-update", sim.ActionRollout}}
	if len(cfg.Timeline) != len(wantPhases) {
		t.Fatalf("timeline %+v", cfg.Timeline)
	}
	for i, w := range wantPhases {
		if a := cfg.Timeline[i]; a.Name != w.name || a.Kind != w.kind {
			t.Errorf("phase %d = %s/%s, want %s/%s", i, a.Name, a.Kind, w.name, w.kind)
		}
	}
	if a := cfg.Timeline[1]; a.Pods != 1 || a.NotReadyFor != 0 {
		t.Errorf("one-endpoint-not-ready: %+v", a)
	}
	pct25 := sim.IntOrPercent{Value: 25, IsPercent: true}
	if a := cfg.Timeline[3]; a.MaxSurge != pct25 || a.MaxUnavailable != pct25 {
		t.Errorf("rolling-update: %+v", a)
	}
	tr, trCfg, err := Load("truncation", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !trCfg.ControlPlane.EndpointsTruncation || trCfg.Cluster.Nodes != 5000 || trCfg.Services[0].Replicas != 10000 || len(tr.Expect) != 0 {
		t.Errorf("truncation: %+v", trCfg)
	}
	_, ms, err := Load("many-services", nil)
	if err != nil {
		t.Fatal(err)
	}
	services := 0
	for _, s := range ms.Services {
		services += s.Count
	}
	if services != 10000 || ms.Cluster.Nodes != 5000 {
		t.Errorf("many-services: %d services, %d nodes", services, ms.Cluster.Nodes)
	}
}

// Reference: UPSTREAM.md §1 and FACTS.md §4 (each value's source is cited in defaults.go).
func TestDefaultsAreUpstream(t *testing.T) {
	sc, err := Parse("x.yaml", []byte(minimal), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	ctl := sim.ControllerConfig{Workers: 5, BatchPeriod: 0, QPS: 20, Burst: 30, APILatency: sim.Fixed(5 * time.Millisecond)}
	if cfg.ControlPlane.EndpointSlice != ctl || cfg.ControlPlane.Endpoints != ctl {
		t.Errorf("controllers %+v", cfg.ControlPlane)
	}
	if cfg.ControlPlane.MaxEndpointsPerSlice != 100 || !cfg.ControlPlane.EndpointsTruncation {
		t.Errorf("control plane %+v", cfg.ControlPlane)
	}
	if a := cfg.APIServer; a.Replicas != 1 || a.KubeProxyEncoding != sim.EncodingProtobuf || a.ObjectSizeLimitBytes != 1572864 || len(a.Watchers) != 0 {
		t.Errorf("apiserver %+v", a)
	}
	if !slices.Equal(cfg.Cluster.Zones, []string{"zone-a", "zone-b", "zone-c"}) || cfg.Cluster.NodeNameFormat != "ip-10-0-%d.ec2.internal" {
		t.Errorf("cluster %+v", cfg.Cluster)
	}
	s := cfg.Services[0]
	if s.Namespace != "default" || s.Count != 1 || len(s.Ports) != 1 || s.Ports[0] != (sim.ServicePortConfig{Protocol: "TCP", Port: 80, TargetPort: 80}) || !slices.Equal(s.IPFamilies, []string{"IPv4"}) {
		t.Errorf("service %+v", s)
	}
	if s.Timing.GracePeriod != sim.Fixed(30*time.Second) {
		t.Errorf("grace period %+v", s.Timing.GracePeriod)
	}
	roll := cfg.Timeline[1]
	pct25 := sim.IntOrPercent{Value: 25, IsPercent: true}
	if roll.MaxSurge != pct25 || roll.MaxUnavailable != pct25 {
		t.Errorf("rollout %+v", roll)
	}
	if cfg.SLO != 30*time.Second || cfg.MaxEvents != 50_000_000 || !cfg.RunEndpoints || !cfg.RunEndpointSlices || cfg.Seed != 1 {
		t.Errorf("config %+v", cfg)
	}
}

func TestSetOverrides(t *testing.T) {
	sc, err := Parse("x.yaml", []byte(minimal), []string{
		"controlPlane.maxEndpointsPerSlice=500",
		"services[0].replicas=2000",
		"cluster.nodes=500",
		"cluster.zones=[a, b]",
		"controlPlane.endpointSlice.apiLatency={lognormal: {median: 5ms, p99: 50ms}}",
		"timeline[1].maxSurge=1",
		"modes=endpointslices",
		`expect["roll.ratio.fanoutBytes"].min=10`,
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	if cfg.ControlPlane.MaxEndpointsPerSlice != 500 || cfg.Services[0].Replicas != 2000 || cfg.Cluster.Nodes != 500 || !slices.Equal(cfg.Cluster.Zones, []string{"a", "b"}) {
		t.Errorf("config %+v", cfg)
	}
	if want := (sim.Distribution{Kind: sim.DistLognormal, Median: 5 * time.Millisecond, P99: 50 * time.Millisecond}); cfg.ControlPlane.EndpointSlice.APILatency != want {
		t.Errorf("apiLatency %+v", cfg.ControlPlane.EndpointSlice.APILatency)
	}
	if cfg.Timeline[1].MaxSurge != (sim.IntOrPercent{Value: 1}) || cfg.RunEndpoints || !cfg.RunEndpointSlices {
		t.Errorf("timeline %+v modes %v/%v", cfg.Timeline[1], cfg.RunEndpoints, cfg.RunEndpointSlices)
	}
	if len(sc.Expect) != 1 || sc.Expect[0].Figure != "fanoutBytes" || sc.Expect[0].Min.Value() != 10 || sc.Expect[0].Line != 0 {
		t.Errorf("expect %+v", sc.Expect)
	}
}

func TestExpect(t *testing.T) {
	doc := minimal + `expect:
  roll.endpoints.fanoutBytes: {max: 5GB, min: 1MiB}
  total.endpointslices.propagationP99: {max: 30s}
  roll.ratio.etcdBytes: {min: 50}
  create.endpoints.writes: {max: 3}
`
	sc, err := Parse("x.yaml", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Expect) != 4 {
		t.Fatalf("expect %+v", sc.Expect)
	}
	b := sc.Expect[0]
	if b.Key != "roll.endpoints.fanoutBytes" || b.Phase != "roll" || b.Mode != "endpoints" || b.Line != 13 || b.Column != 3 ||
		b.Max.Kind != KindBytes || b.Max.Bytes != 5e9 || b.Min.Bytes != 1<<20 || b.Max.Text != "5GB" {
		t.Errorf("budget 0 = %+v max %+v min %+v", b, b.Max, b.Min)
	}
	if q := sc.Expect[1].Max; q.Kind != KindDuration || q.Duration != 30*time.Second || q.Value() != 30 {
		t.Errorf("budget 1 max %+v", q)
	}
	if q := sc.Expect[2].Min; q.Kind != KindNumber || q.Number != 50 {
		t.Errorf("budget 2 min %+v", q)
	}
}

func TestValidate(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(minimal, "nodes: 10", "nodes: 0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := Validate([]string{"quick", bad}, nil, &out); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	want := "ok scenarios/quick.yaml: quick (100 nodes, 1 service, 200 pods, 4 phases)\n" + bad + ":3:10: cluster.nodes: 0 out of range (1..1000000)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if code := Validate(Names(), []string{"seed=7"}, &out); code != 0 {
		t.Errorf("shipped scenarios: exit code %d:\n%s", code, out.String())
	}
}

// FuzzParse checks the loader never panics: any bytes and any --set give a scenario or
// Errors, and a scenario it accepts is within the documented ranges.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		data, err := shipped.ReadFile(name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "cluster.nodes=7")
	}
	f.Add([]byte(minimal), "services[0].ports=[{port: 1}]")
	f.Add([]byte(minimal), "services[0].namespaces=1")
	f.Add([]byte("a: &a [*a, *a]\nname: *a\n"), "x[0].y=1")
	f.Add([]byte("name: &x\n  b: *x\n"), `expect["a.b.c"].max=1`)
	f.Add([]byte(minimal+"  - name: w\n    action: wait\n    duration: 20h\n  - name: w2\n    action: wait\n    duration: 5h\n"), "guards.endTime=1s")
	f.Add([]byte(minimal+"  - name: s\n    action: scale\n    services: [web]\n    replicas: 3\n"), "services=[]")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		sc, err := Parse("f.yaml", data, []string{set})
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a non-empty Errors: %v", err)
			}
			return
		}
		c := sc.Config
		if c.Cluster.Nodes < 1 || len(c.Services) == 0 || len(c.Timeline) == 0 ||
			c.ControlPlane.MaxEndpointsPerSlice < 1 || c.ControlPlane.MaxEndpointsPerSlice > 1000 {
			t.Fatalf("accepted an invalid config: %+v", c)
		}
		for _, s := range c.Services {
			if s.Count < 1 || s.Replicas < 0 || s.Name == "" || s.Namespaces < 1 || s.Namespaces > s.Count ||
				len(s.NamespaceOf(s.Namespaces-1)) > 63 {
				t.Fatalf("accepted an invalid service: %+v", s)
			}
		}
		var waits time.Duration
		for _, a := range c.Timeline {
			if a.Kind == sim.ActionWait {
				waits += a.Duration
			}
		}
		if c.EndTime > 0 && waits > c.EndTime {
			t.Fatalf("accepted waits of %v with guards.endTime %v: the run could never finish", waits, c.EndTime)
		}
		// The effective scenario (sim run --out's effective-scenario.yaml, which repeats the
		// run) loads back to the same run, and its settings to themselves.
		text := Effective(sc)
		again, err := Parse("effective.yaml", text, nil)
		if err != nil {
			t.Fatalf("the effective scenario does not load: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(again.Config, sc.Config) {
			t.Fatalf("the effective scenario loads to another run:\n got %+v\nwant %+v\n%s", again.Config, sc.Config, text)
		}
		if _, err := Settings(text); err != nil {
			t.Fatalf("the effective scenario's settings: %v\n%s", err, text)
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"quick", "5000-nodes", "many-services"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Load(name, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseBytes(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseBytes("1.5MiB"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFeatures(t *testing.T) {
	doc := `name: features
cluster:
  nodes: 30
  zones: [us-east-1a, us-east-1b]
  nodeNameFormat: node-%d
apiServer:
  kubeProxyEncoding: json
  egressBandwidth: 100MB/s
  watchers:
    - {name: coredns, count: 2, resources: [endpointslices], includeHeadless: true}
    - {name: legacy, resources: [endpoints, endpointslices], encoding: json}
network: {nodeIngressBandwidth: 1Gbps, transportOverhead: true}
timing: &slow
  start: {uniform: {min: 1s, max: 3s}}
  stop: 2s
services:
  - name: web
    count: 3
    replicas: 5
    ipFamilies: [IPv6, IPv4]
    labels: {app: web, example.com/tier: front}
    minReadySeconds: 10
    timing: *slow
    ports:
      - {name: http, port: 80, targetPort: 8080, appProtocol: http}
      - {name: dns, port: 53, protocol: UDP}
  - name: db
    headless: true
    ports: []
    minReadySeconds: 1m
timeline:
  - {name: create, action: create, services: [web]}
  - {name: make-db, action: create, services: [db]}
  - {name: scale, action: scale, services: [web-1], replicas: 0}
  - {name: flip, action: flipReadiness, pods: 2, notReadyFor: 10s}
  - {name: label, action: labelService, services: [db], labels: {x: "y"}, settle: 5s}
  - {name: drain, action: drainNodes, nodes: 3}
  - {name: pause, action: wait, duration: 1m}
modes: [endpoints]
guards: {maxEvents: 1000, endTime: 1h}
slo: 20s
`
	// timing: at the top level is not a field; use it to check the alias works inside
	// services once the stray key is gone.
	_, err := Parse("f.yaml", []byte(doc), nil)
	if err == nil || !strings.Contains(err.Error(), `f.yaml:13:1: timing: unknown field "timing"`) {
		t.Fatalf("stray top-level field: %v", err)
	}
	doc = strings.Replace(doc, "timing: &slow", "description: &slow", 1)
	doc = strings.Replace(doc, "description: &slow\n  start: {uniform: {min: 1s, max: 3s}}\n  stop: 2s\n", "", 1)
	doc = strings.Replace(doc, "    timing: *slow\n", "    timing: &slow\n      start: {uniform: {min: 1s, max: 3s}}\n      stop: 2s\n", 1)
	doc = strings.Replace(doc, "    minReadySeconds: 1m\n", "    minReadySeconds: 1m\n    timing: *slow\n", 1)
	sc, err := Parse("f.yaml", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Config
	if c.Cluster.NodeNameFormat != "node-%d" || c.APIServer.KubeProxyEncoding != sim.EncodingJSON || c.APIServer.EgressBitsPerSec != 800e6 {
		t.Errorf("cluster/apiserver %+v %+v", c.Cluster, c.APIServer)
	}
	wantW := []sim.WatcherConfig{
		{Name: "coredns", Count: 2, EndpointSlices: true, Encoding: sim.EncodingProtobuf, IncludeHeadless: true},
		{Name: "legacy", Count: 1, EndpointSlices: true, Endpoints: true, Encoding: sim.EncodingJSON},
	}
	if !reflect.DeepEqual(c.APIServer.Watchers, wantW) {
		t.Errorf("watchers %+v", c.APIServer.Watchers)
	}
	if c.Network != (sim.NetworkConfig{Enabled: true, NodeIngressBitsPerSec: 1e9, TransportOverhead: true}) {
		t.Errorf("network %+v", c.Network)
	}
	web, db := c.Services[0], c.Services[1]
	if web.Count != 3 || web.MinReady != 10*time.Second || !slices.Equal(web.IPFamilies, []string{"IPv6", "IPv4"}) ||
		web.Labels["example.com/tier"] != "front" || len(web.Ports) != 2 || web.Ports[1] != (sim.ServicePortConfig{Name: "dns", Protocol: "UDP", Port: 53, TargetPort: 53}) {
		t.Errorf("web %+v", web)
	}
	wantStart := sim.Distribution{Kind: sim.DistUniform, Min: time.Second, Max: 3 * time.Second}
	if web.Timing.Start != wantStart || db.Timing.Start != wantStart || db.Timing.Stop != sim.Fixed(2*time.Second) || db.Timing.Ready != DefaultPodTiming().Ready {
		t.Errorf("timing via alias: web %+v db %+v", web.Timing, db.Timing)
	}
	if !db.Headless || len(db.Ports) != 0 || db.MinReady != time.Minute {
		t.Errorf("db %+v", db)
	}
	if a := c.Timeline[3]; a.Pods != 2 || a.NotReadyFor != 10*time.Second || len(a.Services) != 0 {
		t.Errorf("flip %+v", a)
	}
	if a := c.Timeline[4]; a.Labels["x"] != "y" || a.Settle != 5*time.Second {
		t.Errorf("label %+v", a)
	}
	if c.Timeline[5].Nodes != 3 || c.Timeline[6].Duration != time.Minute {
		t.Errorf("drain/wait %+v %+v", c.Timeline[5], c.Timeline[6])
	}
	if !c.RunEndpoints || c.RunEndpointSlices || c.MaxEvents != 1000 || c.EndTime != time.Hour || c.SLO != 20*time.Second {
		t.Errorf("modes/guards %+v", c)
	}
	// --set can create fields the file leaves out, down several levels.
	sc, err = Parse("f.yaml", []byte(minimal), []string{"controlPlane.endpoints.batchPeriod=500ms", "services[0].labels.app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Config.ControlPlane.Endpoints.BatchPeriod != 500*time.Millisecond || sc.Config.Services[0].Labels["app"] != "web" {
		t.Errorf("--set created fields: %+v", sc.Config)
	}
}

func TestNotCreatedYet(t *testing.T) {
	doc := strings.Replace(minimal, "    replicas: 20\n", "    replicas: 20\n  - name: db\n", 1)
	doc = strings.Replace(doc, "    action: create\n", "    action: create\n    services: [web]\n", 1)
	doc += "    services: [nope, db]\n"
	_, err := Parse("x.yaml", []byte(doc), nil)
	want := []string{
		`x.yaml:14:16: timeline[1].services[0]: unknown service "nope"; allowed: db, web`,
		`x.yaml:14:22: timeline[1].services[1]: service "db" is not created by an earlier create action`,
	}
	if err == nil || !slices.Equal(strings.Split(err.Error(), "\n"), want) {
		t.Fatalf("got %v\nwant %s", err, strings.Join(want, "\n"))
	}
}

// TestLoadDirectoryIsNoScenario: a directory named like a shipped scenario does not hide
// it, and a directory named like none is refused as a directory, not read.
func TestLoadDirectoryIsNoScenario(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"quick", "mine"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	sc, _, err := Load("quick", nil)
	if err != nil || !sc.Embedded {
		t.Errorf("Load(quick) beside a directory quick: %v (embedded %v), want the shipped scenario", err, sc != nil && sc.Embedded)
	}
	_, _, err = Load("mine", nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "a directory, not a scenario file") {
		t.Errorf("Load(mine), a directory: %v", err)
	}
}

// TestListCompressionRatio: network.listCompressionRatio takes "measured" (the default: 0 in
// the config, the model's ratios) or a number in 0.01..1, and --effective writes what loads
// back.
func TestListCompressionRatio(t *testing.T) {
	for _, tt := range []struct {
		value string // "" leaves the field out
		want  float64
		err   string
	}{
		{"", 0, ""},
		{"measured", 0, ""},
		{"0.5", 0.5, ""},
		{"1", 1, ""},
		{"0", 0, "out of range (0.01..1)"},
		{"auto", 0, `expected a number (0.01..1) or measured, got "auto"`},
		{`"0.5"`, 0, `expected a number (0.01..1) or measured, got "0.5"`},
	} {
		doc := "name: ratio\ncluster: {nodes: 3}\nservices: [{name: web, replicas: 2}]\ntimeline: [{name: create, action: create}]\n"
		if tt.value != "" {
			doc += "network: {listCompressionRatio: " + tt.value + "}\n"
		}
		sc, err := Parse("r.yaml", []byte(doc), nil)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one saying %q", tt.value, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.value, err)
		}
		if got := sc.Config.Network.ListCompressionRatio; got != tt.want {
			t.Errorf("%s: ratio %g, want %g", tt.value, got, tt.want)
		}
		back, err := Parse("eff.yaml", Effective(sc), nil)
		if err != nil {
			t.Fatalf("%s: the effective scenario does not load: %v", tt.value, err)
		}
		if got := back.Config.Network.ListCompressionRatio; got != tt.want {
			t.Errorf("%s: the effective scenario's ratio %g, want %g", tt.value, got, tt.want)
		}
	}
}

// TestZonesWithoutLabel: "" in cluster.zones stands for nodes without a zone label (as sim
// import writes for a cluster whose nodes have none); other zones must be label values.
func TestZonesWithoutLabel(t *testing.T) {
	for _, tc := range []struct {
		zones, err string
	}{
		{`[""]`, ""},
		{`["", zone-a]`, ""},
		{`["", ""]`, `duplicate zone ""`},
		{`[-a]`, `zone "-a" must be a label value`},
	} {
		doc := "name: z\ncluster:\n  nodes: 3\n  zones: " + tc.zones + "\nservices:\n  - name: web\n    replicas: 3\ntimeline:\n  - name: create\n    action: create\n"
		sc, err := Parse("z.yaml", []byte(doc), nil)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("zones %s: %v", tc.zones, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("zones %s: error %v, want one saying %q", tc.zones, err, tc.err)
		case tc.err == "" && sc.Config.Cluster.Zones[0] != "":
			t.Errorf("zones %s: first zone %q, want \"\"", tc.zones, sc.Config.Cluster.Zones[0])
		}
	}
}

// TestStatefulSetRolloutMaxUnavailableAlone: a rollout of StatefulSets only that gives
// maxUnavailable alone is valid: the maxSurge it leaves at the default is never read.
func TestStatefulSetRolloutMaxUnavailableAlone(t *testing.T) {
	doc := "name: t\ncluster:\n  nodes: 10\nservices:\n  - name: db\n    kind: StatefulSet\n    replicas: 6\ntimeline:\n  - name: create\n    action: create\n  - name: roll\n    action: rollout\n    maxUnavailable: 2\n"
	if _, err := Parse("x.yaml", []byte(doc), nil); err != nil {
		t.Errorf("Parse: %v", err)
	}
}

// TestServiceLabelOwnName: a Service's label value may be $name (each stamped Service's own
// name); anywhere else, and any other value that is not a label value, is refused.
func TestServiceLabelOwnName(t *testing.T) {
	doc := "name: t\ncluster:\n  nodes: 10\nservices:\n  - name: web\n    count: 3\n    labels: {app.kubernetes.io/name: $name}\ntimeline:\n  - name: create\n    action: create\n"
	sc, err := Parse("x.yaml", []byte(doc), nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got := sc.Config.Services[0].Labels["app.kubernetes.io/name"]; got != sim.NameLabelValue {
		t.Errorf("label value %q, want %q", got, sim.NameLabelValue)
	}
	for _, bad := range []string{
		strings.Replace(doc, "$name", "$nam", 1),
		doc + "  - name: relabel\n    action: labelService\n    labels: {team: $name}\n",
	} {
		if _, err := Parse("x.yaml", []byte(bad), nil); err == nil || !strings.Contains(err.Error(), "label value") {
			t.Errorf("Parse accepted (or refused otherwise: %v):\n%s", err, bad)
		}
	}
}

// TestMaxPodsPerNode checks cluster.maxPodsPerNode: the kubelet's default, 110, unless the
// file or --set says otherwise (the extremes of its range included).
func TestMaxPodsPerNode(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		sets []string
		want int
	}{
		{"default", minimal, nil, 110},
		{"in the file", strings.Replace(minimal, "  nodes: 10", "  nodes: 10\n  maxPodsPerNode: 1", 1), nil, 1},
		{"--set", minimal, []string{"cluster.maxPodsPerNode=250"}, 250},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("x.yaml", []byte(tc.doc), tc.sets)
			if err != nil {
				t.Fatal(err)
			}
			if got := sc.Config.Cluster.MaxPodsPerNode; got != tc.want {
				t.Errorf("maxPodsPerNode %d, want %d", got, tc.want)
			}
		})
	}
}

// TestNotFoundSaysEachThingOnce: a missing or directory scenario's error names the kind and
// path once, without the sentinel's "scenarios:" prefix after "scenario NAME:" (the CLI
// printed "scenario adir.yaml: scenarios: no such scenario: a directory, …").
func TestNotFoundSaysEachThingOnce(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("adir.yaml", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"adir.yaml", "nope.yaml"} {
		_, _, err := Load(name, nil)
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("Load(%s) = %v, want ErrNotFound", name, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "scenarios:") || strings.Count(msg, "scenario "+name) != 1 || !strings.HasPrefix(msg, "scenario "+name+": ") {
			t.Errorf("Load(%s) error says a thing twice or not at all: %s", name, msg)
		}
	}
	_, err := LoadPlan("nope.yaml")
	if !errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "scenario") {
		t.Errorf("LoadPlan(nope.yaml) = %v, want ErrNotFound that speaks of a plan only", err)
	}
}

// TestCountsOfOne: a count of one takes the singular ("1 pod", "1 item", "1 node"), in
// problems and in Validate's summary line.
func TestCountsOfOne(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"services[0].replicas=0"}, `timeline[1].pods: 1 pod is more than service "web" has at this point of the timeline (0 replicas)`},
		{[]string{"services[0].replicas=1", "timeline[1].pods=2"}, `timeline[1].pods: 2 pods is more than service "web" has at this point of the timeline (1 replica)`},
		{[]string{"services[3].replicas=0"}, "index 3 out of range (the list has 1 item)"},
		{[]string{"guards.maxMemory=1MiB"}, "(estimate for 100 nodes, 200 pods at the timeline's peak, 1 service, 4 phases)"},
	} {
		_, _, err := Load("quick", tc.sets)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(quick, %q) = %v\nwant it to contain %q", tc.sets, err, tc.want)
		}
	}
	var out bytes.Buffer
	if code := Validate([]string{"quick"}, []string{"cluster.nodes=1", "services[0].replicas=1", "timeline=[{name: c, action: create}]"}, &out); code != 0 {
		t.Fatalf("Validate: exit %d: %s", code, out.String())
	}
	if want := "(1 node, 1 service, 1 pod, 1 phase)"; !strings.Contains(out.String(), want) {
		t.Errorf("Validate printed %q, want it to contain %q", out.String(), want)
	}
}

// 'sim replay --scenario FILE' takes a file's settings but not its name, cluster, services
// or timeline: a file of settings alone loads, with placeholders for those it leaves out,
// and is checked as Load checks it. It was refused for lacking the fields replay ignores.
func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, in string
		sets     []string
		want     string // an error, or "" for none
	}{
		{"settings only", "controlPlane:\n  maxEndpointsPerSlice: 50\n", nil, ""},
		{"settings and --set", "controlPlane: {maxEndpointsPerSlice: 50}\n", []string{"controlPlane.endpointSlice.qps=100"}, ""},
		{"whole scenario", "name: x\ncluster: {nodes: 3}\nservices: [{name: a}]\ntimeline: [{name: c, action: create}]\ncontrolPlane: {maxEndpointsPerSlice: 50}\n", nil, ""},
		{"bad setting", "controlPlane:\n  maxEndpointsPerSlice: 5000\n", nil, "cp.yaml:2:25: controlPlane.maxEndpointsPerSlice: 5000 out of range (1..1000)"},
		{"unknown field", "controlPlan:\n  maxEndpointsPerSlice: 50\n", nil, `cp.yaml:1:1: controlPlan: unknown field "controlPlan" (did you mean "controlPlane"?)`},
		{"empty", "", nil, "empty scenario"},
		{"not a mapping", "- a\n", nil, "cp.yaml:1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "cp.yaml")
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, cfg, err := LoadSettings(path, tc.sets)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if cfg.ControlPlane.MaxEndpointsPerSlice != 50 {
					t.Errorf("maxEndpointsPerSlice %d, want 50 (the file's)", cfg.ControlPlane.MaxEndpointsPerSlice)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want it to say %q", err, tc.want)
			}
		})
	}
}

// A file that is not UTF-8 text (saved as Latin-1, say) or holds a control character (a
// binary or compressed file) is named with the line and column of the first offending
// byte and what to do; the YAML library's words ("invalid trailing UTF-8 octet") named
// neither. The same for a --set value. Reference: DESIGN.md "Scenarios" (errors name the
// file, line and field).
func TestParseNotText(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		sets []string
		want string
	}{
		{"latin-1", "name: x\ncluster:\n  nodes: 1\nservices: [{name: caf\xe9}]\n", nil,
			"x.yaml:4:22: not UTF-8 text (byte 0xe9): save the file as UTF-8"},
		{"leading byte", "name: \xff\xfe\n", nil, "x.yaml:1:7: not UTF-8 text (byte 0xff): save the file as UTF-8"},
		{"control character", "name: x\ncluster: {nodes: 1\x00}\n", nil,
			"x.yaml:2:19: control character U+0000, which YAML does not allow: is this a text file?"},
		{"gzip", "\x1f\x8b\x08\x00", nil, "x.yaml:1:1: control character U+001F, which YAML does not allow: is this a text file?"},
		{"--set", minimal, []string{"name=\xff"}, `x.yaml: --set name=` + "\xff" + `: name: bad value "\xff": not UTF-8 text (byte 0xff)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.doc), tc.sets)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to say %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "octet") {
				t.Errorf("error %q has the YAML library's wording", err)
			}
		})
	}
}

// TestSetLabelKeyWithDots: a label key holds dots (app.kubernetes.io/name), so a --set path
// through labels takes the whole rest as the key, as expect takes a figure name: it read
// services[0].labels.app.kubernetes.io/name=x as nested mappings and failed with
// "services[0].labels.app: expected a string, got a mapping". A quoted key still works.
func TestSetLabelKeyWithDots(t *testing.T) {
	for _, set := range []string{
		"services[0].labels.app.kubernetes.io/name=x",
		`services[0].labels["app.kubernetes.io/name"]=x`,
	} {
		sc, err := Parse("x.yaml", []byte(minimal), []string{set, "services[0].labels.tier=web"})
		if err != nil {
			t.Errorf("%s: %v", set, err)
			continue
		}
		if got := sc.Config.Services[0].Labels; got["app.kubernetes.io/name"] != "x" || got["tier"] != "web" || len(got) != 2 {
			t.Errorf("%s: labels %v", set, got)
		}
	}
	// A labelService action's labels too.
	doc := minimal + "  - name: l\n    action: labelService\n    services: [web]\n    labels: {a: b}\n"
	sc, err := Parse("x.yaml", []byte(doc), []string{"timeline[2].labels.example.com/team=blue"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Config.Timeline[2].Labels; got["example.com/team"] != "blue" {
		t.Errorf("labelService labels %v", got)
	}
}
