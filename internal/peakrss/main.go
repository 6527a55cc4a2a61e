// Command peakrss compares the peak resident set size of two builds of one command: it runs
// them in turn, base then new, RUNS times, and prints each run's peak RSS and, per build,
// the spread, the median, the mean and how many runs stayed within a limit.
//
//	go run ./internal/peakrss -runs 20 -limit 250 -base bin/sim.base -new bin/sim -- run scenarios/many-services.yaml --quiet
//
// A run's peak RSS is the kernel's count for the process (getrusage's ru_maxrss, in KiB on
// Linux), printed in MB of 10^6 bytes. A Go program's peak RSS depends on when its
// collections fall, which differs from run to run of one binary by 10% and more, in two or
// more modes: compare distributions of many interleaved runs, not single runs. -gogc off
// runs both without the collector, so that they hold the same heap: what is left of the
// difference is memory outside the heap (the binary's pages, the runtime's own).
//
// make rss-compare builds the two binaries (BASE and the working tree) and runs this.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"

	"epsim/internal/rusage"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("peakrss", flag.ContinueOnError)
	runs := fs.Int("runs", 20, "runs of each build")
	limit := fs.Float64("limit", 0, "count the runs whose peak RSS is at most `MB` (0: none)")
	base := fs.String("base", "", "the base build's binary")
	newBin := fs.String("new", "", "the new build's binary")
	gogc := fs.String("gogc", "", "GOGC for both (off: no collector, so that both hold the same heap)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: peakrss [flags] -base BIN -new BIN -- ARGS...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *base == "" || *newBin == "" || fs.NArg() == 0 || *runs < 1 {
		fs.Usage()
		return errors.New("want -base, -new, -runs ≥ 1 and the command's arguments after --")
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("peak RSS is read in KiB, as Linux gives it; this is %s", runtime.GOOS)
	}
	env := os.Environ()
	if *gogc != "" {
		env = append(env, "GOGC="+*gogc)
	}
	builds := []struct{ name, bin string }{{"base", *base}, {"new", *newBin}}
	peaks := map[string][]float64{}
	for i := range *runs {
		for _, b := range builds {
			mb, err := peakMB(b.bin, fs.Args(), env)
			if err != nil {
				return err
			}
			peaks[b.name] = append(peaks[b.name], mb)
			fmt.Printf("run %d %s %.1f MB\n", i+1, b.name, mb)
		}
	}
	for _, b := range builds {
		fmt.Println(summary(b.name, peaks[b.name], *limit))
	}
	b, n := peaks["base"], peaks["new"]
	d := mean(n) - mean(b)
	se := math.Sqrt(variance(n)/float64(len(n)) + variance(b)/float64(len(b)))
	fmt.Printf("new − base: %+.1f MB in the mean (standard error %.1f MB)\n", d, se)
	return nil
}

// peakMB runs bin with args and returns its peak RSS in MB (10^6 bytes).
func peakMB(bin string, args, env []string) (float64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = nil, os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w", bin, err)
	}
	kib, ok := rusage.MaxRSSKiB(cmd.ProcessState)
	if !ok {
		return 0, fmt.Errorf("%s: no resource usage", bin)
	}
	return float64(kib) * 1024 / 1e6, nil
}

// summary describes one build's runs.
func summary(bin string, v []float64, limit float64) string {
	s := slices.Sorted(slices.Values(v))
	median := s[len(s)/2]
	if len(s)%2 == 0 {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	out := fmt.Sprintf("%s: %d runs, %.1f–%.1f MB, median %.1f, mean %.1f", bin, len(s), s[0], s[len(s)-1], median, mean(s))
	if limit > 0 {
		within := 0
		for _, x := range s {
			if x <= limit {
				within++
			}
		}
		out += fmt.Sprintf(", %d at most %g MB", within, limit)
	}
	return out
}

func mean(v []float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

func variance(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	m, sum := mean(v), 0.0
	for _, x := range v {
		sum += (x - m) * (x - m)
	}
	return sum / float64(len(v)-1)
}
