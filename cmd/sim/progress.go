package main

import (
	"fmt"
	"io"
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
	bar := progressbar.NewOptions(max(phases, 1),
		progressbar.OptionSetWriter(w), // the library defaults to stdout, which would corrupt piped output
		progressbar.OptionSetDescription(scenario),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
	)
	return &progress{bar: bar}
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
