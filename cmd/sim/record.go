package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"epsim/trace"
)

var cmdRecord = &command{
	name:  "record",
	usage: "record [--out FILE] < live watch stream",
	short: "record pod churn from a cluster for replay",
	long: `Record reads a live kubectl watch stream on stdin and writes a trace for 'sim replay':
one event per line with the time it arrived, the only honest clock for a watch stream
(objects carry timestamps of second precision, and only for some changes). Pods are trimmed
to what epsim reads: names, uids, labels, node, hostname and subdomain, container ports,
phase, IPs, conditions and creation and deletion times; no annotations, images, env or
volumes, so traces are small and hold no secrets. EndpointSlices (for 'sim replay
--endpointslices') are kept whole. Other kinds are skipped.

Record refuses a file (as an argument or redirected to stdin): a file carries no arrival
times, and reading it would stamp every event with the moment it was read, squeezing the
recording into milliseconds. Replay such a file directly ('sim replay --pods watch.json':
times from the objects' own timestamps), or pipe the live stream into record.

With --out, the trace is written to a temporary file next to FILE and renamed to FILE when
the recording ends, so a recording that fails before its first event never destroys an
existing FILE; --out must not be the input, nor a directory, nor a file other than an
earlier trace (or an empty one), and its directory must exist (all checked before recording
starts). Input record cannot read after some events (an event cut off, then kubectl's error
message) ends the recording: FILE holds every complete event before it, and record exits 2
saying so; a last event cut off where the input ends (kubectl stopped mid-write) is left
out with a warning, and record exits 0. Input with no event to record (empty: kubectl did
not start, or its output was not piped in; or only kinds record skips) is no recording:
record exits 2 and says so, leaving FILE as it was, so that a script stops before replaying
nothing. A recording that cannot be renamed to FILE is kept under its temporary name, which
the error gives.

Each event is written as it arrives, so stopping kubectl (Ctrl-C reaches both) leaves a
complete trace: record ignores the first interrupt and ends when its input does (a second
interrupt ends it at once, keeping what was recorded). The trace format is described in
'go doc epsim/trace'.

Examples:

    kubectl get pods -A --watch --output-watch-events -o json | sim record --out trace.jsonl
    kubectl get endpointslices -A --watch --output-watch-events -o json | sim record --out slices.jsonl`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		var out string
		fs.StringVar(&out, "out", "", "write the trace to `FILE` (default: stdout)")
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usageErrorf("record", "record reads the live watch stream on stdin, not %s: %s", args[0], fileRefusal)
			}
			in, name := e.stdin, "stdin"
			if f, ok := in.(*os.File); ok {
				if err := checkLiveInput(f, out); err != nil {
					return err
				}
				stopOnSecondInterrupt(e)
			}
			if out == "" {
				return record(e, in, e.stdout, name, "")
			}
			return recordTo(e, in, out, name)
		}
	},
}

// fileRefusal tells what to do instead of recording a file.
const fileRefusal = "a file has no arrival times, and recording it would stamp every event with the moment it was read. " +
	"Replay the file directly ('sim replay --pods FILE …', times from the objects' timestamps), " +
	"or pipe the live stream: kubectl get pods -A --watch --output-watch-events -o json | sim record --out trace.jsonl"

// checkLiveInput refuses a stdin that is a regular file (a redirected file, not a live
// stream) and one that is the --out file itself.
func checkLiveInput(f *os.File, out string) error {
	fi, err := f.Stat()
	if err != nil {
		return nil // not a file we can inspect: treat it as a stream
	}
	if out != "" {
		if ofi, err := os.Stat(out); err == nil && os.SameFile(fi, ofi) {
			return usageErrorf("record", "--out %s is the input: recording would destroy it", out)
		}
	}
	if fi.Mode().IsRegular() {
		return usageErrorf("record", "stdin is a file, not a live stream: %s", fileRefusal)
	}
	return nil
}

// recordTo records into a temporary file beside out and renames it to out at the end; on
// an error before any event was recorded the temporary file is removed and out is left as
// it was. Input the recorder cannot read after some events (kubectl killed mid-write in a
// restart loop, then its error message) ends the recording with those events kept in out,
// and the error says so. out is checked before recording starts (a directory or a special
// file cannot be replaced by the trace), and a recording that cannot be renamed to out
// (something took its place meanwhile) is kept under its temporary name, which the error
// gives.
func recordTo(e *env, in io.Reader, out, name string) (err error) {
	if err := checkOutFile("record", out); err != nil {
		return err
	}
	if err := traceOutput.replaceable(out); err != nil {
		return badInput(fmt.Errorf("--out %s: %w", out, err))
	}
	tmp, err := createBeside(out)
	if err != nil {
		return badInput(fmt.Errorf("--out %s: cannot create a file beside it: %w", out, plainPathError(err)))
	}
	recording.Store(tmp.Name() + "\x00" + out)
	defer func() {
		recording.Store("")
		if cerr := tmp.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--out %s: %w", out, plainPathError(cerr))
		}
		var partial *partialRecording
		if err != nil && !errors.As(err, &partial) {
			os.Remove(tmp.Name())
			return
		}
		if rerr := os.Rename(tmp.Name(), out); rerr != nil {
			// The recording is complete, or all that could be read: keep it, and say where.
			rerr = fmt.Errorf("--out %s: cannot replace it with the recording: %w; the recording is kept in %s",
				out, plainPathError(errors.Unwrap(rerr)), tmp.Name())
			if err != nil {
				rerr = fmt.Errorf("%w; %w", err, rerr)
			}
			err = rerr
			return
		}
		if partial != nil {
			err = fmt.Errorf("%w; the %s before it %s kept in %s", err, counted(int64(partial.events), "event", "events"), agree(int64(partial.events), "is", "are"), out)
		}

	}()
	return record(e, in, tmp, name, out)
}

// createBeside creates a new temporary file beside out, named as sim's per-file
// temporaries are (".NAME.tmp-N", swept by isTemporary). It is created with mode 0666, so
// that the umask makes its mode the one a plain create of out would have (0644 under umask
// 022); os.CreateTemp's 0600 would stay with the trace after the rename.
func createBeside(out string) (*os.File, error) {
	dir, base := filepath.Dir(out), filepath.Base(out)
	var err error
	for i := range 10000 {
		name := filepath.Join(dir, fmt.Sprintf(".%s%s%d%d", base, tmpInfix, os.Getpid(), i))
		var f *os.File
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, err
}

// checkOutFile fails (bad input) when --out cannot become the file cmd writes: it is a
// directory or a special file, or its directory is missing. Commands that write one file
// (record, import) check it before their work, not when they rename their result to it.
func checkOutFile(cmd, out string) error {
	if strings.HasSuffix(out, "/") {
		return usageErrorf(cmd, "--out %s: names a directory; %s writes a file", out, cmd)
	}
	st, err := os.Stat(out)
	switch {
	case err == nil && st.IsDir():
		return usageErrorf(cmd, "--out %s: is a directory; %s writes a file", out, cmd)
	case err == nil && !st.Mode().IsRegular():
		return usageErrorf(cmd, "--out %s: exists and is not a regular file", out)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return usageErrorf(cmd, "--out %s: %v", out, plainPathError(err))
	}
	if dst, err := os.Stat(filepath.Dir(out)); err != nil || !dst.IsDir() {
		return usageErrorf(cmd, "--out %s: directory %s does not exist", out, filepath.Dir(out))
	}
	return nil
}

// recording holds "TEMP\x00OUT" while recordTo writes TEMP, for a second interrupt to keep
// what was recorded.
var recording atomic.Value

// record copies the stream and reports on stderr. A last event cut short (kubectl stopped
// mid-write) is a warning: every complete event is in the trace. No event at all is an
// error (errNothingRecorded); out, the --out file ("" for stdout), is named in it as left
// as it was (recordTo removes the empty recording).
func record(e *env, in io.Reader, w io.Writer, name, out string) error {
	stats, err := trace.Record(in, w, name, time.Now)
	var ie *trace.InputError
	if errors.As(err, &ie) && ie.Truncated {
		fmt.Fprintf(e.stderr, "sim: record: warning: %v; the trace ends before it\n", err)
		err = nil
	}
	if err == nil && stats != nil && stats.Events == 0 {
		// An empty trace is no recording: replay would have nothing to replay, and with
		// --out an existing trace would be replaced by it.
		what := "stdin ended without a single watch event: was kubectl's output piped in, and did kubectl start (its errors go to its own stderr)?"
		if keys := stats.SkippedKeys(); len(keys) > 0 {
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s: %d", k, stats.Skipped[k]))
			}
			what = "the input held no Pod or EndpointSlice event, only what record skips (" + strings.Join(parts, ", ") + "): was it a watch of pods?"
		}
		if out != "" {
			what += fmt.Sprintf(" --out %s is left as it was.", out)
		}
		return badInput(fmt.Errorf("record: %w: %s Record like this: "+
			"kubectl get pods -A --watch --output-watch-events -o json | sim record --out trace.jsonl", errNothingRecorded, what))
	}
	if stats != nil {
		fmt.Fprintf(e.stderr, "sim: record: %s recorded", counted(int64(stats.Events), "event", "events"))
		for _, k := range stats.SkippedKeys() {
			fmt.Fprintf(e.stderr, ", %d skipped (%s)", stats.Skipped[k], k)
		}
		fmt.Fprintln(e.stderr)
	}
	if err != nil {
		if errors.Is(err, trace.ErrFormat) {
			if stats != nil && stats.Events > 0 {
				err = &partialRecording{events: stats.Events, err: err}
			}
			return badInput(fmt.Errorf("record: %w", err))
		}
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// errNothingRecorded is an input that held no event to record: exit 2 (bad input), as
// for input record cannot read, so that "kubectl … | sim record --out t.jsonl && sim
// replay --pods t.jsonl" stops there, and --out is left as it was.
var errNothingRecorded = errors.New("nothing recorded")

// partialRecording is input the recorder could not read after events it recorded: the
// trace holds every one of them, complete.
type partialRecording struct {
	events int64
	err    error
}

func (p *partialRecording) Error() string { return p.err.Error() }
func (p *partialRecording) Unwrap() error { return p.err }

// stopOnSecondInterrupt lets the first Ctrl-C stop kubectl (the same terminal process group)
// while record drains what kubectl wrote; a second one exits at once, keeping the events
// recorded so far under the --out name.
func stopOnSecondInterrupt(e *env) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt)
	go func() {
		<-ch
		fmt.Fprintln(e.stderr, "sim: record: interrupted; finishing when the input ends (interrupt again to stop now)")
		<-ch
		if v, _ := recording.Load().(string); v != "" {
			tmp, out, _ := strings.Cut(v, "\x00")
			os.Rename(tmp, out)
		}
		os.Exit(130)
	}()
}
