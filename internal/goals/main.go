// Command goals measures issue 15's scale goals as a user meets them: `sim run --quiet` of
// each goal's workload in a process of its own, with the CPU seconds (user and system) and
// the peak RSS the kernel counted for it, against the goal's limits. It runs -rounds rounds,
// each of every goal once, so that the machine's drift (10-40% within minutes on a shared
// virtual machine: docs/performance.md) falls on all the goals alike, and prints for each
// goal the spread, the median and how many runs stayed within each limit.
//
//	go run ./internal/goals -sim bin/sim -rounds 3
//	go run ./internal/goals -sim bin/sim -rounds 10 -only many-services
//
// Each round also times, first and in a process of its own, a fixed workload (reference:
// sorting and map updates, the same work every time, about 0.6 s on the project's machine),
// so that the table shows how fast the machine was while the goals ran: on a shared virtual
// machine the goals' CPU moves with it.
//
// make goals builds sim and runs this. A run's peak RSS is getrusage's ru_maxrss, in MB of
// 10^6 bytes (the goals' unit); where no getrusage gives it (not Unix), only the CPU is
// measured.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"epsim/internal/rusage"
	"epsim/scenarios"
)

func main() {
	if os.Getenv(referenceEnv) != "" {
		reference()
		return
	}
	// An interrupt stops the run under way and still removes the scenario files.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		stop()
		fmt.Fprintln(os.Stderr, "goals:", err)
		os.Exit(2)
	}
}

// goal is one of issue 15's goals: a workload sim runs and the limits its run must stay
// within.
type goal struct {
	// name is the goal's name for -only and in the table.
	name string
	// what says what the workload is.
	what string
	// args follow "sim run": a shipped scenario and its --set flags. With scenario set, the
	// path of the file it is written to comes first.
	args     []string
	scenario string
	// cpu is the limit in CPU seconds, rssMB in MB of peak RSS (0: none).
	cpu, rssMB float64
	// bin and env, when set, run another program than sim (the reference workload).
	bin string
	env []string
}

// goals are issue 15's goals that a run of sim measures, in the issue's words: "5000-nodes
// stays ≤ 1 s and ≤ 100 MB", "one Service of 100k pods ≤ 5 s", "many-services ≤ 250 MB peak
// RSS and ≤ 3 s; 50,000 Services of 10 pods ≤ 20 s and ≤ 1.5 GB", "cluster-day runs in ≤ 60
// s and ≤ 1 GB". (The per-event cost and the bytes a pod are BenchmarkScale's, sim plan's
// use of the cores BenchmarkPlanParallel's.)
var goals = []goal{
	{name: "5000-nodes", what: "the headline scenario", args: []string{"5000-nodes"}, cpu: 1, rssMB: 100},
	{name: "many-services", what: "10,000 Services, ~99k pods", args: []string{"many-services"}, cpu: 3, rssMB: 250},
	{name: "one-service-100k", what: "5000-nodes with one Service of 100k pods", args: []string{"5000-nodes", "--set", "services[0].replicas=100000"}, cpu: 5},
	{name: "services-50k", what: "50,000 Services of 10 pods", scenario: scenarios.ServicesOf10(50000), cpu: 20, rssMB: 1500},
	{name: "cluster-day", what: "24 h of a 5,000-node cluster", args: []string{"cluster-day"}, cpu: 60, rssMB: 1000},
}

// measurement is one run's CPU seconds and peak RSS (MB; 0 when unknown).
type measurement struct{ cpu, rssMB float64 }

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("goals", flag.ContinueOnError)
	sim := fs.String("sim", "", "the sim binary to measure (make goals builds bin/sim)")
	rounds := fs.Int("rounds", 3, "rounds to run, each running every goal once")
	only := fs.String("only", "", "run only these goals (comma-separated: "+strings.Join(goalNames(), ", ")+")")
	withReference := fs.Bool("reference", true, "time the fixed reference workload once a round too (the machine's speed)")
	pause := fs.Duration("pause", 0, "wait this long before each run (a machine that takes freed memory back charges\na run after idle more page faults: docs/performance.md)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: goals -sim BIN [-rounds N] [-only NAMES] [-reference=false] [-pause D]")
		fmt.Fprintln(fs.Output(), "Runs issue 15's scale goals with sim run --quiet and prints CPU seconds and peak RSS against their limits.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *sim == "" || *rounds < 1 || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("want -sim, -rounds ≥ 1 and no arguments")
	}
	chosen, err := choose(*only)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "goals")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	runArgs := make([][]string, len(chosen))
	for i, g := range chosen {
		runArgs[i] = append([]string{"run"}, g.args...)
		if g.scenario != "" {
			path := filepath.Join(dir, g.name+".yaml")
			if err := os.WriteFile(path, []byte(g.scenario), 0o644); err != nil {
				return err
			}
			runArgs[i] = append([]string{"run", path}, g.args...)
		}
		runArgs[i] = append(runArgs[i], "--quiet")
	}
	if *withReference {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("the reference workload: %w", err)
		}
		chosen = append([]goal{referenceGoal(self)}, chosen...)
		runArgs = append([][]string{nil}, runArgs...)
	}
	got := make([][]measurement, len(chosen))
	for r := range *rounds {
		for i, g := range chosen {
			select {
			case <-time.After(*pause):
			case <-ctx.Done():
				return ctx.Err()
			}
			bin := *sim
			if g.bin != "" {
				bin = g.bin
			}
			m, err := measure(ctx, bin, runArgs[i], g.env)
			if err != nil {
				return fmt.Errorf("%s: %w", g.name, err)
			}
			got[i] = append(got[i], m)
			line := fmt.Sprintf("round %d/%d %s: %.2f CPU-s", r+1, *rounds, g.name, m.cpu)
			if m.rssMB > 0 {
				line += fmt.Sprintf(", %.1f MB peak RSS", m.rssMB)
			}
			fmt.Fprintln(stdout, line)
		}
	}
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, table(chosen, got))
	return nil
}

// goalNames returns the names -only takes.
func goalNames() []string {
	var names []string
	for _, g := range goals {
		names = append(names, g.name)
	}
	return names
}

// choose returns the goals a -only value names, in the table's order (all when empty).
func choose(only string) ([]goal, error) {
	if only == "" {
		return goals, nil
	}
	want := map[string]bool{}
	for name := range strings.SplitSeq(only, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(goalNames(), name) {
			return nil, fmt.Errorf("-only: no goal %q (the goals: %s)", name, strings.Join(goalNames(), ", "))
		}
		want[name] = true
	}
	var chosen []goal
	for _, g := range goals {
		if want[g.name] {
			chosen = append(chosen, g)
		}
	}
	return chosen, nil
}

// measure runs sim with args and returns its CPU seconds and peak RSS. A failed run is an
// error that ends with the last of what it wrote on stderr.
func measure(ctx context.Context, sim string, args, env []string) (measurement, error) {
	cmd := exec.CommandContext(ctx, sim, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return measurement{}, ctx.Err()
		}
		tail := strings.TrimSpace(stderr.String())
		if len(tail) > 2000 {
			tail = "…" + tail[len(tail)-2000:]
		}
		if tail != "" {
			return measurement{}, fmt.Errorf("%s %s: %w\n%s", sim, strings.Join(args, " "), err, tail)
		}
		return measurement{}, fmt.Errorf("%s %s: %w", sim, strings.Join(args, " "), err)
	}
	ps := cmd.ProcessState
	m := measurement{cpu: (ps.UserTime() + ps.SystemTime()).Seconds()}
	if kib, ok := rusage.MaxRSSKiB(ps); ok {
		m.rssMB = float64(kib) * 1024 / 1e6
	}
	return m, nil
}

// table describes each goal's runs: the spread and median of its CPU seconds and of its
// peak RSS, and how many runs stayed within each limit, in aligned columns.
func table(chosen []goal, got [][]measurement) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "goal\tworkload\tCPU s: spread, median\tpeak RSS MB: spread, median")
	for i, g := range chosen {
		var cpu, rss []float64
		for _, m := range got[i] {
			cpu = append(cpu, m.cpu)
			if m.rssMB > 0 {
				rss = append(rss, m.rssMB)
			}
		}
		rssText := "not measured here"
		if len(rss) == len(cpu) {
			rssText = spread(rss, g.rssMB, "%.1f")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", g.name, g.what, spread(cpu, g.cpu, "%.2f"), rssText)
	}
	w.Flush()
	return b.String()
}

// spread formats values as "lo–hi, median m, k/n ≤ limit" (no count when limit is 0).
func spread(values []float64, limit float64, format string) string {
	s := slices.Sorted(slices.Values(values))
	median := s[len(s)/2]
	if len(s)%2 == 0 {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	f := func(x float64) string { return fmt.Sprintf(format, x) }
	out := f(s[0])
	if len(s) > 1 {
		out += "–" + f(s[len(s)-1]) + ", median " + f(median)
	}
	if limit > 0 {
		within := 0
		for _, x := range s {
			if x <= limit {
				within++
			}
		}
		out += fmt.Sprintf(", %d/%d ≤ %g", within, len(s), limit)
	}
	return out
}

// referenceEnv, set in its environment, makes this program the reference workload.
const referenceEnv = "EPSIM_GOALS_REFERENCE"

// referenceGoal is the reference workload as a goal without limits: self (this program)
// run with referenceEnv set.
func referenceGoal(self string) goal {
	return goal{name: "reference", what: "fixed sorting and map work (machine speed)", bin: self, env: []string{referenceEnv + "=1"}}
}

// referenceSink keeps the reference workload's result, so that no work is optimized away.
var referenceSink int

// reference is the fixed workload: it sorts 4 Mi seeded pseudo-random numbers and adds 1 Mi
// of them, picked at random, to a map. It is memory-bound as sim is (32 MiB sorted, a map
// of some 900,000 entries), so its time moves with the machine's as sim's does.
func reference() {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]uint64, 4<<20)
	for i := range v {
		v[i] = r.Uint64()
	}
	slices.Sort(v)
	m := make(map[uint64]int)
	for i := range 1 << 20 {
		m[v[r.IntN(len(v))]] += i
	}
	referenceSink = len(m)
}
