package scenarios

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"epsim/sim"
)

// Memory a run needs, per thing it holds, calibrated on the peak RSS of sim run --out (more
// than without: the report and charts are drawn while the results are held), 2 cores, Go's
// default GOGC, fourteen shapes (2026-12-03). Measured (the more of two runs) and
// estimated, in MiB: 5000-nodes 57 / 107; many-services 205 / 398; cluster-day 317 / 647;
// one Service of 100,000 pods 181 / 349; 10,000 and 50,000 Services of 10 pods, all rolled
// out at once, 262 / 408 and 1,181 / 1,716; 20,000 Services of one pod 124 / 240; four
// DaemonSets on 5,000 nodes, rolled and drained, 103 / 135; 100,000 nodes 38 / 87; 300
// phases 43 / 90. The estimate is to refuse what cannot fit before it starts, not to
// predict: it is 1.3 to 2.4 times what was measured, as the heap a run takes varies with
// the garbage collector's timing and the machine (a busy machine starves the collector:
// peaks grow by up to 60%). cmd/sim's TestMemoryEstimateFollowsPeakRSS holds it within 0.75
// to 3 times the peak of five smaller shapes.
const (
	memBase       = 80 << 20 // the binary, runtime, shipped data, drawing a long run's charts
	memPerNode    = 64       // node object, name, placement
	memPerPod     = 2 << 10  // pod state, both controllers' endpoints and indexes
	memPerService = 6 << 10  // service, both controllers' state, objects, informers
	memPerPhase   = 16 << 10 // phase results and latency samples
	// memPerTouch is charged per pod an action changes (a rollout replaces each pod: three
	// touches; a node failing or drained, its pods): the latency samples and per-Service
	// accounting of the churn. (The write log is not held: sim run --out writes it as the
	// run goes.)
	memPerTouch = 192
)

// EstimateMemory returns about how many bytes a run of cfg needs at its peak, from what the
// whole timeline can reach (scale actions included): footprintOf's counts at the rates above.
func EstimateMemory(cfg *sim.Config) int64 { return footprintOf(cfg).bytes() }

// footprint is what a run holds at its peak, counted in the units EstimateMemory charges.
type footprint struct {
	nodes, pods, services, phases int64
	// touched is the number of pod changes the actions make (see memPerTouch).
	touched int64
}

// bytes is the footprint's memory at the calibrated rates.
func (f footprint) bytes() int64 {
	return memBase + memPerNode*f.nodes + memPerPod*f.pods + memPerService*f.services +
		memPerPhase*f.phases + memPerTouch*f.touched
}

// footprintOf counts what a run of cfg holds: pods at each Service entry's peak over the
// timeline (a DaemonSet's one per node; a scale's replicas or percent, as the engine computes
// them), and the pods each action changes.
func footprintOf(cfg *sim.Config) footprint {
	f := footprint{nodes: int64(cfg.Cluster.Nodes), phases: int64(len(cfg.Timeline))}
	refs := newServiceIndex(cfg.Services)
	peak := make([]int64, len(cfg.Services))
	for k := range cfg.Services {
		s := &cfg.Services[k]
		peak[k] = int64(podsOf(s, cfg.Cluster.Nodes))
		f.services += int64(s.Count)
	}
	// targets returns the entries an action names (every entry when it names none).
	targets := func(a *sim.Action) []int {
		var out []int
		if len(a.Services) == 0 {
			for k := range cfg.Services {
				out = append(out, k)
			}
		}
		for _, ref := range a.Services {
			for _, m := range refs.resolve(ref) {
				out = append(out, m.entry)
			}
		}
		return out
	}
	for i := range cfg.Timeline {
		a := &cfg.Timeline[i]
		if a.Kind == sim.ActionScale {
			for _, k := range targets(a) {
				if s := &cfg.Services[k]; s.WorkloadKind != sim.KindDaemonSet {
					peak[k] = max(peak[k], int64(scaledReplicas(a, s)))
				}
			}
		}
	}
	for k, s := range cfg.Services {
		f.pods += int64(s.Count) * peak[k]
	}
	for i := range cfg.Timeline {
		a := &cfg.Timeline[i]
		switch a.Kind {
		case sim.ActionFailNodes, sim.ActionDrainNodes:
			// The pods of the nodes taken out change (not ready, or evicted and made again
			// elsewhere): the share of the cluster's nodes, or a zone's.
			share := 0.0
			switch {
			case a.Zone != "" && len(cfg.Cluster.Zones) > 0:
				share = 1 / float64(len(cfg.Cluster.Zones))
			case cfg.Cluster.Nodes > 0:
				share = min(1, float64(a.Nodes)/float64(cfg.Cluster.Nodes))
			}
			f.touched += int64(share * float64(f.pods))
			continue
		}
		for _, k := range targets(a) {
			s := &cfg.Services[k]
			count, pods := int64(s.Count), peak[k]
			switch a.Kind {
			case sim.ActionScale:
				if s.WorkloadKind != sim.KindDaemonSet {
					f.touched += count * int64(scaledReplicas(a, s))
				}
			case sim.ActionRollout:
				f.touched += 3 * count * pods
			case sim.ActionRestartPods, sim.ActionFlipReadiness:
				f.touched += count * min(int64(a.Pods), pods)
			case sim.ActionCreate, sim.ActionLabelService:
				f.touched += count * pods
			}
		}
	}
	return f
}

// MachineMemory returns the memory this process may use: the machine's (MemTotal), or the
// lowest of its cgroup's limit, its address-space rlimit and GOMEMLIMIT; 0 when unknown.
// Tests replace it.
var MachineMemory = machineMemory

func machineMemory() int64 {
	var total int64
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(p); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
				total = v
			}
		}
	}
	for _, v := range []int64{addressSpaceLimit(), debug.SetMemoryLimit(-1)} {
		if v > 0 && v < 1<<62 && (total == 0 || v < total) {
			total = v
		}
	}
	return total
}

// DefaultMaxMemory is guards.maxMemory when the scenario does not set it: three quarters of
// what MachineMemory reports (0, no limit, when that is unknown).
func DefaultMaxMemory() int64 { return MachineMemory() / 4 * 3 }

// checkMemory refuses a scenario whose estimated memory exceeds guards.maxMemory, naming
// the figure and the knob. at is the guards.maxMemory node (nil when not set).
func (d *decoder) checkMemory(sc *Scenario, at *yaml.Node) {
	fp := footprintOf(&sc.Config)
	sc.MemoryEstimate = fp.bytes()
	limit, how := sc.MaxMemory, "guards.maxMemory"
	if limit == 0 {
		limit = DefaultMaxMemory()
		how = fmt.Sprintf("guards.maxMemory (default: 3/4 of what this process may use, %s)", formatBytesIEC(MachineMemory()))
		if limit == 0 {
			return
		}
	}
	if sc.MemoryEstimate > limit {
		d.errorf(at, "guards.maxMemory", "the run would need about %s of memory (estimate for %s, %s at the timeline's peak, %s, %s), more than %s = %s; make the scenario smaller or raise guards.maxMemory",
			formatBytesIEC(sc.MemoryEstimate), counted(fp.nodes, "node", "nodes"), counted(fp.pods, "pod", "pods"), counted(fp.services, "service", "services"), counted(fp.phases, "phase", "phases"), how, formatBytesIEC(limit))
	}
}

// formatBytesIEC prints a memory size in GiB/MiB with one decimal.
func formatBytesIEC(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d B", b)
}
