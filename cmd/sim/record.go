package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"epsim/trace"
)

var cmdRecord = &command{
	name:  "record",
	usage: "record [--out FILE] [WATCH.json]",
	short: "record pod churn from a cluster for replay",
	long: `Record reads a kubectl watch stream — on stdin, or from WATCH.json — and writes a
trace for 'sim replay': one event per line with the time it arrived, the only honest clock
for a watch stream (objects carry timestamps of second precision, and only for some
changes). Pods are trimmed to what epsim reads: names, uids, labels, node, hostname and
subdomain, container ports, phase, IPs, conditions and creation and deletion times; no
annotations, images, env or volumes, so traces are small and hold no secrets.
EndpointSlices (for 'sim replay --endpointslices') are kept whole. Other kinds are skipped.

Each event is written as it arrives, so stopping kubectl (Ctrl-C reaches both) leaves a
complete trace: record ignores the first interrupt and ends when its input does. The trace
format is described in 'go doc epsim/trace'.

Examples:

    sim record --out trace.jsonl
    sim record --out slices.jsonl
    sim record --out trace.jsonl watch.json`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		var out string
		fs.StringVar(&out, "out", "", "write the trace to `FILE` (default: stdout)")
		return func(e *env, args []string) error {
			if len(args) > 1 {
				return usageErrorf("record", "record reads one watch stream, got %d files", len(args))
			}
			in, name := io.Reader(os.Stdin), "stdin"
			if len(args) == 1 {
				f, err := os.Open(args[0])
				if err != nil {
					return badInput(err)
				}
				defer f.Close()
				in, name = f, args[0]
			} else {
				stopOnSecondInterrupt(e)
			}
			w := e.stdout
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return fmt.Errorf("--out: %w", err)
				}
				defer f.Close()
				w = f
			}
			return record(e, in, w, name)
		}
	},
}

// record copies the stream and reports on stderr. A last event cut short (kubectl stopped
// mid-write) is a warning: every complete event is in the trace.
func record(e *env, in io.Reader, w io.Writer, name string) error {
	stats, err := trace.Record(in, w, name, time.Now)
	var ie *trace.InputError
	if errors.As(err, &ie) && ie.Truncated {
		fmt.Fprintf(e.stderr, "sim: record: warning: %v; the trace ends before it\n", err)
		err = nil
	}
	if stats != nil {
		fmt.Fprintf(e.stderr, "sim: record: %d events recorded", stats.Events)
		for _, k := range stats.SkippedKeys() {
			fmt.Fprintf(e.stderr, ", %d skipped (%s)", stats.Skipped[k], k)
		}
		fmt.Fprintln(e.stderr)
	}
	if err != nil {
		if errors.Is(err, trace.ErrFormat) {
			return badInput(fmt.Errorf("record: %w", err))
		}
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// stopOnSecondInterrupt lets the first Ctrl-C stop kubectl (the same terminal process group)
// while record drains what kubectl wrote; a second one exits at once.
func stopOnSecondInterrupt(e *env) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt)
	go func() {
		<-ch
		fmt.Fprintln(e.stderr, "sim: record: interrupted; finishing when the input ends (interrupt again to stop now)")
		<-ch
		os.Exit(130)
	}()
}
