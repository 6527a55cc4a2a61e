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
// than without: the report and charts are made while the results are held), 2 cores, Go's
// default GOGC. Measured and estimated, in MiB: 5000-nodes 60 / 125; many-services 410 /
// 941; cluster-day 766 / 1,076; one Service of 100,000 pods 336 / 652; 10,000 and 50,000
// Services of 10 pods, all rolled out at once, 569 / 964 and 2,314 / 4,558; 100,000 nodes
// 52 / 118. The estimate is to refuse what cannot fit before it starts, not to predict: it
// is 1.4 to 2.3 times what was measured, as the heap a run takes varies with the garbage
// collector's timing and the machine.
const (
	memBase       = 64 << 20 // the binary, runtime, shipped data, the outputs' rendering
	memPerNode    = 512      // node object, name, placement
	memPerPod     = 4 << 10  // pod state, both controllers' endpoints and indexes
	memPerService = 32 << 10 // service, both controllers' state, objects, informers
	memPerPhase   = 8 << 10  // phase results and latency samples
	// memPerTouch is charged per pod an action changes (a rollout replaces each pod: three
	// touches): the latency samples and per-Service accounting of the churn. (The write
	// log is not held: sim run --out writes it as the run goes.)
	memPerTouch = 512
)

// EstimateMemory returns about how many bytes a run of cfg needs at its peak, from what the
// whole timeline can reach (scale actions included).
func EstimateMemory(cfg *sim.Config) int64 {
	peak := map[string]int64{}
	count := map[string]int64{}
	for _, s := range cfg.Services {
		peak[s.Name], count[s.Name] = int64(s.Replicas), int64(s.Count)
	}
	var pods, services int64
	touched := int64(0)
	counts := countsOf(cfg)
	for _, a := range cfg.Timeline {
		names := make([]string, 0, len(a.Services))
		for _, ref := range a.Services {
			if b, ok := resolveService(ref, counts); ok {
				names = append(names, b)
			}
		}
		if len(a.Services) == 0 {
			for _, s := range cfg.Services {
				names = append(names, s.Name)
			}
		}
		for _, b := range names {
			switch a.Kind {
			case sim.ActionScale:
				peak[b] = max(peak[b], int64(a.Replicas))
				touched += count[b] * int64(a.Replicas)
			case sim.ActionRollout:
				touched += 3 * count[b] * peak[b]
			case sim.ActionRestartPods, sim.ActionFlipReadiness:
				touched += count[b] * min(int64(a.Pods), peak[b])
			case sim.ActionCreate, sim.ActionLabelService:
				touched += count[b] * peak[b]
			}
		}
	}
	for _, s := range cfg.Services {
		services += int64(s.Count)
	}
	for n, c := range count {
		pods += c * peak[n]
	}
	return memBase + memPerNode*int64(cfg.Cluster.Nodes) + memPerPod*pods + memPerService*services +
		memPerPhase*int64(len(cfg.Timeline)) + memPerTouch*touched
}

func countsOf(cfg *sim.Config) map[string]int {
	counts := map[string]int{}
	for _, s := range cfg.Services {
		counts[s.Name] = max(counts[s.Name], s.Count)
	}
	return counts
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
	sc.MemoryEstimate = EstimateMemory(&sc.Config)
	limit, how := sc.MaxMemory, "guards.maxMemory"
	if limit == 0 {
		limit = DefaultMaxMemory()
		how = fmt.Sprintf("guards.maxMemory (default: 3/4 of what this process may use, %s)", formatBytesIEC(MachineMemory()))
		if limit == 0 {
			return
		}
	}
	if sc.MemoryEstimate > limit {
		d.errorf(at, "guards.maxMemory", "the run would need about %s of memory (estimate for %d nodes, %s pods at the timeline's peak, %d services, %d phases), more than %s = %s; make the scenario smaller or raise guards.maxMemory",
			formatBytesIEC(sc.MemoryEstimate), sc.Config.Cluster.Nodes, strconv.FormatInt(peakPods(&sc.Config), 10), totalServices(&sc.Config), len(sc.Config.Timeline), how, formatBytesIEC(limit))
	}
}

func peakPods(cfg *sim.Config) int64 {
	var pods int64
	counts := countsOf(cfg)
	peak := map[string]int64{}
	entries := map[string]*sim.ServiceConfig{}
	for i := range cfg.Services {
		s := &cfg.Services[i]
		peak[s.Name] = int64(podsOf(s, cfg.Cluster.Nodes))
		entries[s.Name] = s
	}
	scale := func(a *sim.Action, b string) {
		if s := entries[b]; s.WorkloadKind != sim.KindDaemonSet {
			peak[b] = max(peak[b], int64(scaledReplicas(a, s)))
		}
	}
	for i := range cfg.Timeline {
		a := &cfg.Timeline[i]
		if a.Kind != sim.ActionScale {
			continue
		}
		if len(a.Services) == 0 {
			for _, s := range cfg.Services {
				scale(a, s.Name)
			}
		}
		for _, ref := range a.Services {
			if b, ok := resolveService(ref, counts); ok {
				scale(a, b)
			}
		}
	}
	for _, s := range cfg.Services {
		pods += int64(s.Count) * peak[s.Name]
	}
	return pods
}

func totalServices(cfg *sim.Config) int64 {
	var n int64
	for _, s := range cfg.Services {
		n += int64(s.Count)
	}
	return n
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
