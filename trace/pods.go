package trace

import (
	"encoding/json"
	"io"
	"net/netip"

	"epsim/model"
	"epsim/sim"
)

// PodReader reads a pod watch stream — kubectl's 'get pods -A --watch --output-watch-events
// -o json' output, or a trace written by Record — incrementally, one event per Next. It is a
// sim.TraceSource. Events of other kinds and BOOKMARK events are skipped and counted in
// Stats.
type PodReader struct {
	w *watchReader
}

// NewPodReader returns a reader of the pod watch stream r; name (a file name, or "stdin")
// prefixes error messages.
func NewPodReader(r io.Reader, name string) *PodReader {
	return newPodReader(r, name, true)
}

// newPodReader returns a PodReader that decodes events with decodePodEvent where it can
// when fast is set, and with encoding/json alone when not (for tests).
func newPodReader(r io.Reader, name string, fast bool) *PodReader {
	p := &PodReader{}
	decode := func(raw []byte) (decoded, error) {
		var pod podJSON
		if err := json.Unmarshal(raw, &pod); err != nil || pod.Kind != "Pod" {
			return decoded{kind: pod.Kind}, err
		}
		return podDecoded(&pod), nil
	}
	if !fast {
		p.w = newWatchReader(r, name, "Pod", decode)
		return p
	}
	p.w = &watchReader{s: newFramedStream(r, name), kind: "Pod", decode: decode, leading: true}
	cache := newDecodeCache()
	var pod podJSON // each event's, reused: podDecoded keeps nothing of it
	p.w.fast = func(raw []byte) (wireEvent, decoded, bool) {
		ev, ok := decodePodEvent(raw, cache, &pod)
		if !ok {
			return wireEvent{}, decoded{}, false
		}
		return ev, podDecoded(&pod), true
	}
	return p
}

// podDecoded is what a PodReader takes from a pod.
func podDecoded(pod *podJSON) decoded {
	return decoded{kind: pod.Kind, obj: podFromJSON(pod), labels: pod.Metadata.Labels, resourceVersion: pod.Metadata.ResourceVersion,
		at: podTime(pod), created: pod.Metadata.CreationTimestamp.Time}
}

// Next returns the next pod event, or io.EOF at the end of the stream. Malformed input gives
// an *InputError naming the event number and byte offset. An event whose pod has an IP that
// is not an IP address (no API server accepts one) is rejected: skipped and counted in
// Stats.InvalidIPs, with its event number in Stats.InvalidIPEvents. Events of pods with the
// same labels may share one Labels map, and their pods the same strings: read them, do not
// change them.
func (p *PodReader) Next() (sim.TraceEvent, error) {
	for {
		it, err := p.w.next()
		if err != nil {
			return sim.TraceEvent{}, err
		}
		pod := it.obj.(*model.Pod)
		if !validIPs(pod.IPs) {
			st := &p.w.stats
			st.Events--
			if it.listed {
				st.Listed--
			}
			st.InvalidIPs++
			if len(st.InvalidIPEvents) < maxInvalidIPEvents {
				st.InvalidIPEvents = append(st.InvalidIPEvents, it.event)
			}
			continue
		}
		ev := sim.TraceEvent{At: it.at, Type: it.typ, Pod: pod, Labels: it.labels, ResourceVersion: it.resourceVersion, Listed: it.listed}
		if start := p.w.start; !start.IsZero() {
			ev.Origin = model.Timestamp(start.UnixNano())
		}
		return ev, nil
	}
}

// validIPs reports whether every IP parses as an IPv4 or IPv6 address.
func validIPs(ips []string) bool {
	for _, ip := range ips {
		if _, err := netip.ParseAddr(ip); err != nil {
			return false
		}
	}
	return true
}

// Stats describes what has been read so far.
func (p *PodReader) Stats() *Stats { return &p.w.stats }
