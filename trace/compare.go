package trace

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"epsim/model"
	"epsim/sim"
)

// Writes counts EndpointSlice writes by the watch event they produce, and the bytes they fan
// out to watchers.
type Writes struct {
	Added       int64 `json:"added"`
	Modified    int64 `json:"modified"`
	Deleted     int64 `json:"deleted"`
	FanoutBytes int64 `json:"fanoutBytes"`
}

// Total returns all writes.
func (w Writes) Total() int64 { return w.Added + w.Modified + w.Deleted }

func (w *Writes) add(t model.EventType, fanout int64) {
	switch t {
	case model.EventAdded:
		w.Added++
	case model.EventModified:
		w.Modified++
	case model.EventDeleted:
		w.Deleted++
	}
	w.FanoutBytes += fanout
}

// ServiceComparison is one Service's real and simulated EndpointSlice writes.
type ServiceComparison struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Real      Writes `json:"real"`
	Simulated Writes `json:"simulated"`
}

// Unattributed is the real and simulated writes of slices whose Service could not be told.
type Unattributed struct {
	Real      Writes `json:"real"`
	Simulated Writes `json:"simulated"`
}

// Comparison sets the EndpointSlice writes a cluster really made beside the simulated ones.
type Comparison struct {
	// Watchers is what each real event's bytes are multiplied by: the simulation's watchers
	// (one kube-proxy per node, plus configured extra watchers).
	Watchers int64  `json:"watchers"`
	Real     Writes `json:"real"`
	// Simulated counts the replay's committed EndpointSlice writes (no-ops and failures
	// excluded), the bytes being kube-proxy's event size times the write's watchers.
	Simulated Writes `json:"simulated"`
	// Services are sorted by namespace and name.
	Services []ServiceComparison `json:"services"`
	// Unattributed counts the writes (in Real and Simulated too) of slices whose Service
	// could not be told: without a service-name label, and named after a generateName two
	// Services share (or none has). Nil when there were none.
	Unattributed *Unattributed `json:"unattributed,omitempty"`
	// OtherManagers counts real events of slices not written by the EndpointSlice
	// controller (mirrored or custom slices), which the simulation does not model.
	OtherManagers int64 `json:"otherManagers"`
	// ListingSkipped counts the real stream's initial listing, left out of Real when the
	// replay started warm (the slices the cluster had, which its controllers did not write
	// during the recording).
	ListingSkipped int64 `json:"listingSkipped,omitempty"`
	// Stream describes the real stream as read.
	Stream *Stats `json:"stream"`
	// Pods is the pod recording's span, the window Real counts the real writes of (nil:
	// none given, every write counted); StreamSpan is the real stream's, from its start
	// (its listing) to its last event.
	Pods       *Span `json:"podSpan,omitempty"`
	StreamSpan *Span `json:"streamSpan,omitempty"`
	// Before and After count the real events dated before and after Pods: left out of Real,
	// Services, Unattributed and OtherManagers.
	Before int64 `json:"realBeforeSpan,omitempty"`
	After  int64 `json:"realAfterSpan,omitempty"`
	// TailSeconds is how long after Pods.End real writes still count: as long as the
	// simulated ones went on after the recording's last event (its controllers settling),
	// so that the real writes its last changes caused count as the simulated ones do.
	TailSeconds float64 `json:"tailSeconds,omitempty"`
}

// Span is a stretch of wall-clock time, from Start to End.
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// SpanSource passes on the events of a pod recording (a sim.TraceSource) and notes the
// time of its last, for the window CompareSlices counts real writes in.
type SpanSource struct {
	src  sim.TraceSource
	last sim.Time
}

// NewSpanSource returns a SpanSource reading src.
func NewSpanSource(src sim.TraceSource) *SpanSource { return &SpanSource{src: src} }

// Next implements sim.TraceSource.
func (s *SpanSource) Next() (sim.TraceEvent, error) {
	ev, err := s.src.Next()
	if err == nil && ev.At > s.last {
		s.last = ev.At
	}
	return ev, err
}

// Last returns the time of the recording's last event read so far (sim.TraceEvent.At).
func (s *SpanSource) Last() sim.Time { return s.last }

// Span returns the recording's span once it has been read: from start, the wall-clock
// instant its time 0 stands for (its reader's Stats.Start), to its last event, on the same
// clock as its events' times (sim.TraceEvent.At counts from start).
func (s *SpanSource) Span(start time.Time) Span {
	return Span{Start: start, End: start.Add(time.Duration(s.last))}
}

// minOverlap is the share of the pod recording's span the real stream's must cover, below
// which SpanWarning warns.
const minOverlap = 0.5

// SpanWarning returns a warning when the real stream's span covers less than half of the
// pod recording's (or, a recording of one instant, misses it): most of the simulated
// writes then have no real ones to be compared with. "" when they overlap enough, or when
// c has no window.
func (c *Comparison) SpanWarning() string {
	if c.Pods == nil || c.StreamSpan == nil {
		return ""
	}
	p, r := *c.Pods, *c.StreamSpan
	end, start := p.End, p.Start
	if r.End.Before(end) {
		end = r.End
	}
	if r.Start.After(start) {
		start = r.Start
	}
	overlap := max(0, end.Sub(start))
	span := p.End.Sub(p.Start)
	if span > 0 && float64(overlap) >= minOverlap*float64(span) ||
		span == 0 && !p.Start.Before(r.Start) && !p.Start.After(r.End) {
		return ""
	}
	share := 0.0
	if span > 0 {
		share = 100 * float64(overlap) / float64(span)
	}
	const layout = "2006-01-02T15:04:05.000Z07:00"
	return fmt.Sprintf("its events span %s to %s and the pod recording's %s to %s: they overlap for %s, %.0f%% of the pod recording; "+
		"unless the slices were quiet for the rest, most simulated writes have no real ones to compare with (record both streams together, as 'sim record' does)",
		r.Start.Format(layout), r.End.Format(layout), p.Start.Format(layout), p.End.Format(layout), overlap, share)
}

// kubeProxySelects is kube-proxy's EndpointSlice label selector: no headless label
// (upstream: cmd/kube-proxy/app/server.go labelSelectorNoHeadlessEndpoints,
// "!service.kubernetes.io/headless"). The service-proxy-name filter is on its Service
// informer only: it still receives the slices of Services it does not serve.
func kubeProxySelects(labels model.StringMap) bool {
	return !labels.Has(model.LabelHeadless)
}

// SliceTally counts a replay's committed EndpointSlice writes per Service as the replay
// makes them (Add, from a sim.WriteLogger), for CompareSlices: a day of a large cluster
// makes millions of writes, which a write log would hold to the end.
type SliceTally struct {
	// byName maps a slice the run began with (namespace, name) to its Service, by its
	// service-name label: the simulated writes' records name the slice only.
	byName map[[2]string]string
	// byPrefix maps a generateName (namespace, prefix) to its Service, for slices without a
	// label or created by the run; "" marks a prefix two Services share (names of 58 or more
	// characters alike in their first 57), whose slices cannot be told apart.
	byPrefix map[[2]string]string
	services map[[2]string]*Writes
	// unattributed counts the writes of slices whose Service could not be told.
	unattributed Writes
	total        Writes
	// last is when the latest write Add counted was made (the run's virtual time).
	last sim.Time
}

// Last returns when the latest write Add counted was made, on the run's clock (0 if none).
func (t *SliceTally) Last() sim.Time { return t.last }

// NewSliceTally returns an empty tally of the replay of services, which begins from the
// slices listed (the real stream's listing; nil for none).
func NewSliceTally(services []*model.Service, listed []*model.EndpointSlice) *SliceTally {
	t := &SliceTally{byName: map[[2]string]string{}, byPrefix: map[[2]string]string{}, services: map[[2]string]*Writes{}}
	for _, svc := range services {
		key := [2]string{svc.Namespace, slicePrefix(svc.Name)}
		if other, ok := t.byPrefix[key]; ok && other != svc.Name {
			t.byPrefix[key] = "" // shared: ambiguous
			continue
		}
		t.byPrefix[key] = svc.Name
	}
	for _, s := range listed {
		if name := s.Labels.Get(model.LabelServiceName); name != "" {
			t.byName[[2]string{s.Namespace, s.Name}] = name
		}
	}
	return t
}

// serviceOf returns the Service of the slice namespace/name: by its service-name label when
// it has one (as the controller always sets it), else by the generateName its name was made
// from. ok is false when neither tells: no label, and a prefix of no Service or of two.
func (t *SliceTally) serviceOf(namespace, name string, labels model.StringMap) (service string, ok bool) {
	if s := labels.Get(model.LabelServiceName); s != "" {
		return s, true
	}
	if len(name) <= generatedSuffix {
		return "", false
	}
	s := t.byPrefix[[2]string{namespace, name[:len(name)-generatedSuffix]}]
	return s, s != ""
}

// Add counts w if it is a committed EndpointSlice write of the EndpointSlice controller
// (no-ops and failures are not), its bytes being its event size times its watchers. The
// write is the Service's of the slice the run began with of its name, else the Service
// whose generateName the name was made from; else (a prefix two Services share) it is
// counted unattributed.
func (t *SliceTally) Add(w *sim.WriteRecord) {
	if w.Mode != sim.ModeEndpointSlices || w.Kind != "EndpointSlice" || w.Outcome != "ok" {
		return
	}
	typ := model.EventModified
	switch w.Verb {
	case "create":
		typ = model.EventAdded
	case "delete":
		typ = model.EventDeleted
	}
	fanout := w.EventBytes * w.Watchers
	t.total.add(typ, fanout)
	t.last = max(t.last, w.At)
	name, ok := t.byName[[2]string{w.Namespace, w.Name}]
	if !ok {
		name, ok = t.serviceOf(w.Namespace, w.Name, model.StringMap{})
	}
	if !ok {
		t.unattributed.add(typ, fanout)
		return
	}
	key := [2]string{w.Namespace, name}
	s := t.services[key]
	if s == nil {
		s = &Writes{}
		t.services[key] = s
	}
	s.add(typ, fanout)
}

// CompareSlices reads the real EndpointSlice stream src to its end and compares it with the
// simulated EndpointSlice writes tallied in simulated, per Service: a real slice's is the
// one its service-name label names, in its namespace, or, without the label, the one whose
// generateName its name was made from (see SliceTally.Add). Each real event is sized exactly as the
// simulation sizes its own — model.EndpointSliceSize in protobuf (kube-proxy's default),
// wrapped in a watch event — times watchers, when kube-proxy's selector matches the slice.
// With skipListing (a warm replay, whose tally leaves out its start-up) the stream's initial
// listing is left out too, and so is a listing src.Listing has read before.
//
// With pods, the pod recording's span, only the real events within it, or up to tail after
// its end, are counted (the others in Before and After): each stream's times count from the
// wall-clock instant its time 0 stands for (Stats.Start), so a real event's instant is the
// stream's start plus its time, as the replay places both streams. tail is how long the
// simulated writes went on after the recording's last event.
func CompareSlices(src *SliceReader, simulated *SliceTally, watchers int64, skipListing bool, pods *Span, tail time.Duration) (*Comparison, error) {
	c := &Comparison{Watchers: watchers, Stream: src.Stats(), Simulated: simulated.total, ListingSkipped: src.taken, Pods: pods}
	var end time.Time
	if pods != nil {
		tail = max(tail, 0)
		c.TailSeconds = tail.Seconds()
		end = pods.End.Add(tail)
	}
	var last sim.Time // the stream's last event's time
	byKey := map[[2]string]*ServiceComparison{}
	service := func(key [2]string) *ServiceComparison {
		s := byKey[key]
		if s == nil {
			s = &ServiceComparison{Namespace: key[0], Name: key[1]}
			byKey[key] = s
		}
		return s
	}
	unattributed := func() *Unattributed {
		if c.Unattributed == nil {
			c.Unattributed = &Unattributed{}
		}
		return c.Unattributed
	}
	for {
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		last = max(last, ev.At)
		if skipListing && ev.Listed {
			c.ListingSkipped++
			continue
		}
		if pods != nil {
			at := src.Stats().Start.Add(time.Duration(ev.At))
			if at.Before(pods.Start) {
				c.Before++
				continue
			}
			if at.After(end) {
				c.After++
				continue
			}
		}
		s := ev.Slice
		if s.Labels.Get(model.LabelManagedBy) != model.ControllerName {
			c.OtherManagers++
			continue
		}
		var fanout int64
		if kubeProxySelects(s.Labels) {
			size := model.EndpointSliceSize(s, model.Protobuf)
			fanout = model.WatchEventSize(size, ev.Type, model.Protobuf) * watchers
		}
		c.Real.add(ev.Type, fanout)
		name, ok := simulated.serviceOf(s.Namespace, s.Name, s.Labels)
		if !ok {
			unattributed().Real.add(ev.Type, fanout)
			continue
		}
		service([2]string{s.Namespace, name}).Real.add(ev.Type, fanout)
	}
	if pods != nil {
		start := src.Stats().Start
		c.StreamSpan = &Span{Start: start, End: start.Add(time.Duration(last))}
	}
	for key, w := range simulated.services {
		service(key).Simulated = *w
	}
	if simulated.unattributed.Total() > 0 {
		unattributed().Simulated = simulated.unattributed
	}
	for _, s := range byKey {
		c.Services = append(c.Services, *s)
	}
	slices.SortFunc(c.Services, func(a, b ServiceComparison) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return c, nil
}

// generatedSuffix is the number of random characters the API server appends to a
// generateName (upstream: apiserver names.SimpleNameGenerator, randomLength 5).
const generatedSuffix = 5

// slicePrefix is the generateName of a Service's slices as the API server uses it: the
// Service name and "-" (upstream: utils.go getEndpointSlicePrefix), cut to 58 characters
// (names.SimpleNameGenerator maxGeneratedNameLength = 63 - 5).
func slicePrefix(service string) string {
	p := service + "-"
	if len(p) > 58 {
		p = p[:58]
	}
	return p
}
