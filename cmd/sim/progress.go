package main

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"epsim/sim"
)

// progress is the sim.Observer behind the stderr progress bar. The bar counts phases and its
// description shows the virtual time reached. Wall-clock time exists only here (the bar's
// throttle and rate), and only on stderr.
type progress struct {
	bar     *progressbar.ProgressBar
	phase   int
	second  int64
	started bool
}

func newProgress(w io.Writer, scenario string, phases int) *progress {
	return &progress{bar: newBar(w, scenario, int64(max(phases, 1)), progressbar.OptionShowCount())}
}

// newBar draws a bar of total units (-1: unknown, a spinner) on w with the options every
// bar of sim has, and opts.
func newBar(w io.Writer, description string, total int64, opts ...progressbar.Option) *progressbar.ProgressBar {
	return progressbar.NewOptions64(total, append([]progressbar.Option{
		progressbar.OptionSetWriter(w), // the library defaults to stdout, which would corrupt piped output
		progressbar.OptionSetDescription(description),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
	}, opts...)...)
}

// Progress implements sim.Observer. It is called from the event loop, so it only touches the
// bar when the phase or the virtual second changes.
func (p *progress) Progress(now sim.Time, phase, phases int) {
	second := int64(now / sim.Time(time.Second))
	if p.started && phase == p.phase && second == p.second {
		return
	}
	p.started, p.phase, p.second = true, phase, second
	p.bar.Describe(fmt.Sprintf("phase %d/%d, virtual %s", min(phase+1, phases), phases, time.Duration(second)*time.Second))
	p.bar.Set(phase)
}

func (p *progress) finish() {
	p.bar.Finish()
}

// lineEvery is how often, at most, a progress line is printed when stderr is not a terminal:
// seldom enough that a short run (and a test) prints none.
const lineEvery = 10 * time.Second

// lineProgress is the progress of a run when stderr is not a terminal (CI, a pipe to tee),
// where a bar would print a stream of carriage returns and a long run nothing readable: one
// plain line at most once every interval of wall time, none in the first, as
//
//	sim: 5000-nodes: phase 3/4 rolling-update, virtual 1h52m10s, 10,000 pods, 1m0s elapsed
//
// It only reads the run (virtual time, phase, pods held) and writes only to stderr. The
// engine calls it at most once a virtual second, so a virtual second that takes longer
// than interval delays the line.
type lineProgress struct {
	w        io.Writer
	clock    func() time.Time // wall time (a test's fake)
	interval time.Duration
	started  time.Time
	next     time.Time // no line before
	scenario string
	phases   []string // the timeline's names
	pods     int      // from PodsHeld; -1 until told
}

// newLineProgress starts the wall clock of a run of the named scenario; e's clock and
// interval default to the real clock and lineEvery.
func newLineProgress(e *env, scenario string, timeline []sim.Action) *lineProgress {
	clock, interval := e.wallClock, e.progressEvery
	if clock == nil {
		clock = time.Now
	}
	if interval <= 0 {
		interval = lineEvery
	}
	p := &lineProgress{w: e.stderr, clock: clock, interval: interval, scenario: scenario, pods: -1}
	for _, a := range timeline {
		p.phases = append(p.phases, a.Name)
	}
	p.started = clock()
	p.next = p.started.Add(interval)
	return p
}

// PodsHeld implements sim.PodCounter.
func (p *lineProgress) PodsHeld(n int) { p.pods = n }

// Progress implements sim.Observer.
func (p *lineProgress) Progress(now sim.Time, phase, phases int) {
	t := p.clock()
	if t.Before(p.next) {
		return
	}
	p.next = t.Add(p.interval)
	line := "sim: " + p.scenario + ": "
	if phases > 0 {
		i := min(phase, phases-1)
		line += fmt.Sprintf("phase %d/%d", i+1, phases)
		if i < len(p.phases) {
			line += " " + p.phases[i]
		}
		line += ", "
	}
	line += "virtual " + (time.Duration(now) / time.Second * time.Second).String()
	if p.pods >= 0 {
		line += ", " + thousands(int64(p.pods)) + " pods"
	}
	fmt.Fprintf(p.w, "%s, %s elapsed\n", line, t.Sub(p.started).Round(time.Second))
}

// pointLines is the progress of runs side by side (a plan's points, a check's scenarios)
// when stderr is not a terminal: as lineProgress, one plain line at most once every
// interval of wall time, none in the first, as
//
//	sim: plan growth: 3/12 points done, 1m0s elapsed
//
// A nil *pointLines prints nothing.
type pointLines struct {
	w          io.Writer
	clock      func() time.Time
	interval   time.Duration
	started    time.Time
	next       time.Time
	what, unit string // "plan growth", "points"
	total, ran int
}

// newPointLines starts the wall clock of what (as "plan growth" or "check"), total runs
// counted in unit ("points", "scenarios"); e's clock and interval default to the real clock
// and lineEvery.
func newPointLines(e *env, what, unit string, total int) *pointLines {
	clock, interval := e.wallClock, e.progressEvery
	if clock == nil {
		clock = time.Now
	}
	if interval <= 0 {
		interval = lineEvery
	}
	p := &pointLines{w: e.stderr, clock: clock, interval: interval, what: what, unit: unit, total: total}
	p.started = clock()
	p.next = p.started.Add(interval)
	return p
}

// done counts a run done, and prints a line when one is due (not for the last run).
func (p *pointLines) done() {
	if p == nil {
		return
	}
	p.ran++
	t := p.clock()
	if t.Before(p.next) || p.ran >= p.total {
		return // the last run's line would come just before the report
	}
	p.next = t.Add(p.interval)
	fmt.Fprintf(p.w, "sim: %s: %s/%s %s done, %s elapsed\n", p.what, thousands(int64(p.ran)), thousands(int64(p.total)), p.unit, t.Sub(p.started).Round(time.Second))
}

// replayProgress is the progress bar of a replay: the share of the pod stream read (a
// spinner when its size is unknown, as on stdin) and the virtual time reached.
type replayProgress struct {
	bar     *progressbar.ProgressBar
	read    *countingReader
	second  int64
	started bool
}

// newReplayProgress draws a bar of size bytes (-1: unknown) read through read.
func newReplayProgress(w io.Writer, name string, size int64, read *countingReader) *replayProgress {
	return &replayProgress{bar: newBar(w, name, size, progressbar.OptionShowBytes(true)), read: read}
}

// Progress implements sim.Observer: at most once a virtual second, the bytes read so far.
func (p *replayProgress) Progress(now sim.Time, _, _ int) {
	second := int64(now / sim.Time(time.Second))
	if p.started && second == p.second {
		return
	}
	p.started, p.second = true, second
	p.bar.Describe(fmt.Sprintf("replay, virtual %s", time.Duration(second)*time.Second))
	p.bar.Set64(p.read.n.Load())
}

func (p *replayProgress) finish() {
	p.bar.Finish()
}

// countingReader counts the bytes read through it; the count may be read while another
// goroutine reads (the replay reads its recording ahead, trace.ReadAhead).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}
