package trace

import (
	"encoding/json"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"

	"epsim/sim"
)

// PodReader reads a pod watch stream — kubectl's 'get pods -A --watch --output-watch-events
// -o json' output, or a trace written by Record — incrementally, one event per Next. It is a
// sim.TraceSource. Events of other kinds and BOOKMARK events are skipped and counted in
// Stats.
type PodReader struct {
	w   *watchReader
	pod *corev1.Pod
}

// NewPodReader returns a reader of the pod watch stream r; name (a file name, or "stdin")
// prefixes error messages.
func NewPodReader(r io.Reader, name string) *PodReader {
	p := &PodReader{}
	p.w = newWatchReader(r, name, "Pod", func(raw []byte) (string, time.Time, error) {
		p.pod = &corev1.Pod{}
		err := json.Unmarshal(raw, p.pod)
		return p.pod.Kind, podTime(p.pod), err
	})
	return p
}

// Next returns the next pod event, or io.EOF at the end of the stream. Malformed input gives
// an *InputError naming the event number and byte offset.
func (p *PodReader) Next() (sim.TraceEvent, error) {
	typ, at, err := p.w.next()
	if err != nil {
		return sim.TraceEvent{}, err
	}
	return sim.TraceEvent{At: at, Type: typ, Pod: PodFromAPI(p.pod)}, nil
}

// Stats describes what has been read so far.
func (p *PodReader) Stats() *Stats { return &p.w.stats }
