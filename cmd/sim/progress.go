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
