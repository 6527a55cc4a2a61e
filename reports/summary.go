package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"epsim/sim"
)

// Summary is the content of summary.json, the stable machine interface of a run (DESIGN.md
// "Results contract"). Field order is the JSON order. A mode that did not run is omitted
// (nil), and so is every ratio whose denominator is zero.
type Summary struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Nodes    int    `json:"nodes"`
	// Watchers is the number of watchers per mode (kube-proxies plus extra watchers) at the
	// end of the run; each mode's "watchers" has the most one of its writes went to.
	Watchers int `json:"watchers"`
	// Modes lists the modes that ran, Endpoints first.
	Modes []sim.Mode `json:"modes"`
	// Events is the number of events the engine processed.
	Events int64 `json:"events"`
	// EndTime is the virtual time of the run's last event, as a Go duration and in seconds.
	// Deliveries to watchers may go on after it: total.end is when the last one arrived.
	EndTime        string  `json:"endTime"`
	EndTimeSeconds float64 `json:"endTimeSeconds"`
	// LastWrite is the virtual time of the last API write.
	LastWrite        string  `json:"lastWrite"`
	LastWriteSeconds float64 `json:"lastWriteSeconds"`
	// SLOSeconds is the propagation p99 objective each phase is judged against.
	SLOSeconds float64 `json:"sloSeconds,omitempty"`
	// NetworkModel is true when latencies include bandwidth (the fluid network model).
	NetworkModel bool `json:"networkModel"`
	// EgressCapacityBytesPerSec is all API servers' egress bandwidth (0: unlimited).
	EgressCapacityBytesPerSec int64 `json:"egressCapacityBytesPerSec,omitempty"`
	// Phases are the scenario's timeline actions in order.
	Phases []PhaseSummary `json:"phases"`
	// Total sums every phase.
	Total PhaseSummary `json:"total"`
	// Services is the whole run per Service that some mode wrote for, in creation order.
	Services []ServiceSummary `json:"services,omitempty"`
}

// ServiceSummary is one Service's figures over the whole run, per mode that ran.
type ServiceSummary struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Replicas is the Service's size in the scenario (0 when unknown).
	Replicas       int                 `json:"replicas,omitempty"`
	Endpoints      *ServiceModeSummary `json:"endpoints,omitempty"`
	EndpointSlices *ServiceModeSummary `json:"endpointslices,omitempty"`
}

// Mode returns the summary of mode m, or nil when m did not run.
func (s *ServiceSummary) Mode(m sim.Mode) *ServiceModeSummary {
	if m == sim.ModeEndpoints {
		return s.Endpoints
	}
	return s.EndpointSlices
}

// ServiceModeSummary is what one mode's controller wrote for one Service.
type ServiceModeSummary struct {
	Writes                int64   `json:"writes"`
	FailedWrites          int64   `json:"failedWrites"`
	FanoutBytes           int64   `json:"fanoutBytes"`
	MaxObjectBytes        int64   `json:"maxObjectBytes"`
	PropagationP99Seconds float64 `json:"propagationP99Seconds"`
}

// PhaseSummary is one phase (or the total) for every mode that ran.
type PhaseSummary struct {
	Name         string  `json:"name"`
	Start        string  `json:"start"`
	End          string  `json:"end"`
	StartSeconds float64 `json:"startSeconds"`
	EndSeconds   float64 `json:"endSeconds"`
	// Endpoints and EndpointSlices are nil when the mode did not run.
	Endpoints      *ModeSummary `json:"endpoints,omitempty"`
	EndpointSlices *ModeSummary `json:"endpointslices,omitempty"`
	// Ratio is Endpoints / EndpointSlices; nil unless both modes ran.
	Ratio *RatioSummary `json:"ratio,omitempty"`
	// PendingPods counts the pods still Pending at the phase's end (the total's: the run's)
	// because no node had room for them or was ready (sim.PhaseResult.PendingPods).
	PendingPods int64 `json:"pendingPods,omitempty"`
}

// Mode returns the summary of mode m, or nil when m did not run.
func (p *PhaseSummary) Mode(m sim.Mode) *ModeSummary {
	if m == sim.ModeEndpoints {
		return p.Endpoints
	}
	return p.EndpointSlices
}

// WritesSummary counts committed API writes by verb, with their total (no-op and failed
// writes are counted apart).
type WritesSummary struct {
	Create int64 `json:"create"`
	Update int64 `json:"update"`
	Delete int64 `json:"delete"`
	Total  int64 `json:"total"`
}

// ModeSummary is one mode's accounting over a phase. Bytes are exact integers.
type ModeSummary struct {
	Writes WritesSummary `json:"writes"`
	// Watchers is the most watchers one write of this mode went to in the phase.
	Watchers              int64          `json:"watchers"`
	NoopWrites            int64          `json:"noopWrites"`
	FailedWrites          int64          `json:"failedWrites"`
	Conflicts             int64          `json:"conflicts"`
	Syncs                 int64          `json:"syncs"`
	StaleSyncs            int64          `json:"staleSyncs"`
	Objects               int64          `json:"objects"`
	EtcdBytes             int64          `json:"etcdBytes"`
	RequestBytes          int64          `json:"requestBytes"`
	WatchEvents           int64          `json:"watchEvents"`
	FanoutBytes           int64          `json:"fanoutBytes"`
	PerNodeBytes          int64          `json:"perNodeBytes"`
	MaxObjectBytes        int64          `json:"maxObjectBytes"`
	PeakEgressBytesPerSec int64          `json:"peakEgressBytesPerSec"`
	TruncatedObjects      int64          `json:"truncatedObjects"`
	HiddenAddresses       int64          `json:"hiddenAddresses"`
	Propagation           LatencySummary `json:"propagation"`
	WatcherTerminations   int64          `json:"watcherTerminations"`
	Relists               int64          `json:"relists"`
	ResentBytes           int64          `json:"resentBytes"`
	// WithinSLO says whether propagation p99 met the SLO (absent when nothing propagated).
	WithinSLO *bool `json:"withinSLO,omitempty"`
	// MaxWithinSLO says whether the slowest propagation met the SLO too: a p99 within it
	// can hide a much longer delay.
	MaxWithinSLO *bool `json:"maxWithinSLO,omitempty"`
	// Programming is network programming latency: trigger → rules in place on a node
	// (kubeproxy_network_programming_duration_seconds), as the representative kube-proxy
	// observes it: its samples stand for every healthy node's, and count is that node's
	// samples, not all nodes' together (README "Results contract").
	Programming LatencySummary `json:"programming"`
	// ProgrammingWithinSLO says whether programming p99 met the SLO (absent when nothing
	// was programmed).
	ProgrammingWithinSLO *bool `json:"programmingWithinSLO,omitempty"`
	// KubeProxyCPUSeconds is one kube-proxy's CPU (decoding and syncing), in seconds.
	KubeProxyCPUSeconds float64 `json:"kubeProxyCPUSeconds"`
	// KubeProxyDecodeCPUSeconds is the part of it spent decoding watch events.
	KubeProxyDecodeCPUSeconds float64 `json:"kubeProxyDecodeCPUSeconds"`
	KubeProxySyncs            int64   `json:"kubeProxySyncs"`
	KubeProxyFullSyncs        int64   `json:"kubeProxyFullSyncs"`
	PeakSyncSeconds           float64 `json:"peakSyncSeconds"`
	KubeProxyBusyFraction     float64 `json:"kubeProxyBusyFraction"`
	// APIServerCPUSeconds is the API servers' watch-path CPU (serialization, per-watcher
	// framing and TLS, relists serialized and gzipped), in seconds.
	APIServerCPUSeconds float64 `json:"apiserverCPUSeconds"`
}

// LatencySummary is a latency distribution: each quantile as a Go duration string and in
// seconds.
type LatencySummary struct {
	Count      int64   `json:"count"`
	P50        string  `json:"p50"`
	P50Seconds float64 `json:"p50Seconds"`
	P90        string  `json:"p90"`
	P90Seconds float64 `json:"p90Seconds"`
	P99        string  `json:"p99"`
	P99Seconds float64 `json:"p99Seconds"`
	Max        string  `json:"max"`
	MaxSeconds float64 `json:"maxSeconds"`
}

// RatioSummary is Endpoints / EndpointSlices for each figure, rounded to 3 decimal places. A
// field is nil (omitted) when the EndpointSlices figure is zero.
type RatioSummary struct {
	Writes                    *float64 `json:"writes,omitempty"`
	EtcdBytes                 *float64 `json:"etcdBytes,omitempty"`
	WatchEvents               *float64 `json:"watchEvents,omitempty"`
	FanoutBytes               *float64 `json:"fanoutBytes,omitempty"`
	PerNodeBytes              *float64 `json:"perNodeBytes,omitempty"`
	MaxObjectBytes            *float64 `json:"maxObjectBytes,omitempty"`
	PeakEgressBytesPerSec     *float64 `json:"peakEgressBytesPerSec,omitempty"`
	KubeProxyCPUSeconds       *float64 `json:"kubeProxyCPUSeconds,omitempty"`
	KubeProxyDecodeCPUSeconds *float64 `json:"kubeProxyDecodeCPUSeconds,omitempty"`
	APIServerCPUSeconds       *float64 `json:"apiserverCPUSeconds,omitempty"`
}

// AllModes is both modes in report order.
var AllModes = []sim.Mode{sim.ModeEndpoints, sim.ModeEndpointSlices}

// NewSummary builds the summary of res for the modes that ran (nil means both).
func NewSummary(res *sim.Results, modes []sim.Mode) *Summary {
	modes = normalizeModes(modes)
	s := &Summary{
		Scenario:       res.Scenario,
		Seed:           res.Seed,
		Nodes:          res.Nodes,
		Watchers:       res.Watchers,
		Modes:          modes,
		Events:         res.Events,
		EndTime:        res.EndTime.String(),
		EndTimeSeconds: res.EndTime.Seconds(),

		LastWrite:        res.LastWrite.String(),
		LastWriteSeconds: res.LastWrite.Seconds(),
		SLOSeconds:       res.SLOSeconds,
		NetworkModel:     res.NetworkModel,

		EgressCapacityBytesPerSec: res.EgressCapacityBytesPerSec,
		Phases:                    make([]PhaseSummary, 0, len(res.Phases)),
	}
	for i := range res.Phases {
		s.Phases = append(s.Phases, newPhaseSummary(&res.Phases[i], modes))
	}
	s.Total = newPhaseSummary(&res.Total, modes)
	for i := range res.Services {
		sr := &res.Services[i]
		ss := ServiceSummary{Namespace: sr.Namespace, Name: sr.Name, Replicas: sr.Replicas}
		for _, m := range modes {
			r := sr.Mode(m)
			ms := &ServiceModeSummary{Writes: r.Writes, FailedWrites: r.FailedWrites, FanoutBytes: r.FanoutBytes,
				MaxObjectBytes: r.MaxObjectBytes, PropagationP99Seconds: r.Propagation.P99Seconds}
			if m == sim.ModeEndpoints {
				ss.Endpoints = ms
			} else {
				ss.EndpointSlices = ms
			}
		}
		s.Services = append(s.Services, ss)
	}
	if res.SLOSeconds > 0 {
		for _, p := range append(slices.Clone(s.Phases), s.Total) {
			for _, m := range modes {
				if ms := p.Mode(m); ms != nil && ms.Propagation.Count > 0 {
					ok := ms.Propagation.P99Seconds <= res.SLOSeconds
					ms.WithinSLO = &ok
					maxOK := ms.Propagation.MaxSeconds <= res.SLOSeconds
					ms.MaxWithinSLO = &maxOK
				}
				if ms := p.Mode(m); ms != nil && ms.Programming.Count > 0 {
					ok := ms.Programming.P99Seconds <= res.SLOSeconds
					ms.ProgrammingWithinSLO = &ok
				}
			}
		}
	}
	return s
}

// normalizeModes returns modes deduplicated in report order (Endpoints first); nil or empty
// means both.
func normalizeModes(modes []sim.Mode) []sim.Mode {
	var out []sim.Mode
	for _, m := range AllModes {
		if len(modes) == 0 || slices.Contains(modes, m) {
			out = append(out, m)
		}
	}
	return out
}

func newPhaseSummary(p *sim.PhaseResult, modes []sim.Mode) PhaseSummary {
	ps := PhaseSummary{
		Name:         p.Name,
		Start:        p.Start.String(),
		End:          p.End.String(),
		StartSeconds: p.Start.Seconds(),
		EndSeconds:   p.End.Seconds(),
		PendingPods:  p.PendingPods,
	}
	if slices.Contains(modes, sim.ModeEndpoints) {
		ps.Endpoints = newModeSummary(&p.Endpoints)
	}
	if slices.Contains(modes, sim.ModeEndpointSlices) {
		ps.EndpointSlices = newModeSummary(&p.EndpointSlices)
	}
	if ps.Endpoints != nil && ps.EndpointSlices != nil {
		ps.Ratio = newRatioSummary(ps.Endpoints, ps.EndpointSlices)
	}
	return ps
}

func newModeSummary(m *sim.ModeResult) *ModeSummary {
	return &ModeSummary{
		Writes: WritesSummary{
			Create: m.Writes.Create,
			Update: m.Writes.Update,
			Delete: m.Writes.Delete,
			Total:  m.Writes.Total(),
		},
		Watchers:                  m.Watchers,
		NoopWrites:                m.NoopWrites,
		FailedWrites:              m.FailedWrites,
		Conflicts:                 m.Conflicts,
		Syncs:                     m.Syncs,
		StaleSyncs:                m.StaleSyncs,
		Objects:                   m.Objects,
		EtcdBytes:                 m.EtcdBytes,
		RequestBytes:              m.RequestBytes,
		WatchEvents:               m.WatchEvents,
		FanoutBytes:               m.FanoutBytes,
		PerNodeBytes:              m.PerNodeBytes,
		MaxObjectBytes:            m.MaxObjectBytes,
		PeakEgressBytesPerSec:     m.PeakEgressBytesPerSec,
		TruncatedObjects:          m.TruncatedObjects,
		HiddenAddresses:           m.HiddenAddresses,
		Propagation:               newLatencySummary(m.Propagation),
		WatcherTerminations:       m.WatcherTerminations,
		Relists:                   m.Relists,
		ResentBytes:               m.ResentBytes,
		Programming:               newLatencySummary(m.Programming),
		KubeProxyCPUSeconds:       microRound(m.KubeProxyCPUSeconds),
		KubeProxyDecodeCPUSeconds: microRound(m.KubeProxyDecodeCPUSeconds),
		KubeProxySyncs:            m.KubeProxySyncs,
		KubeProxyFullSyncs:        m.KubeProxyFullSyncs,
		PeakSyncSeconds:           microRound(m.PeakSyncSeconds),
		KubeProxyBusyFraction:     math.Round(m.KubeProxyBusyFraction*1e4) / 1e4,
		APIServerCPUSeconds:       microRound(m.APIServerCPUSeconds),
	}
}

func newLatencySummary(l sim.Latency) LatencySummary {
	return LatencySummary{
		Count:      l.Count,
		P50:        secondsDuration(l.P50Seconds).String(),
		P50Seconds: l.P50Seconds,
		P90:        secondsDuration(l.P90Seconds).String(),
		P90Seconds: l.P90Seconds,
		P99:        secondsDuration(l.P99Seconds).String(),
		P99Seconds: l.P99Seconds,
		Max:        secondsDuration(l.MaxSeconds).String(),
		MaxSeconds: l.MaxSeconds,
	}
}

func newRatioSummary(e, s *ModeSummary) *RatioSummary {
	return &RatioSummary{
		Writes:                    roundedRatio(e.Writes.Total, s.Writes.Total),
		EtcdBytes:                 roundedRatio(e.EtcdBytes, s.EtcdBytes),
		WatchEvents:               roundedRatio(e.WatchEvents, s.WatchEvents),
		FanoutBytes:               roundedRatio(e.FanoutBytes, s.FanoutBytes),
		PerNodeBytes:              roundedRatio(e.PerNodeBytes, s.PerNodeBytes),
		MaxObjectBytes:            roundedRatio(e.MaxObjectBytes, s.MaxObjectBytes),
		PeakEgressBytesPerSec:     roundedRatio(e.PeakEgressBytesPerSec, s.PeakEgressBytesPerSec),
		KubeProxyCPUSeconds:       roundedFloatRatio(e.KubeProxyCPUSeconds, s.KubeProxyCPUSeconds),
		KubeProxyDecodeCPUSeconds: roundedFloatRatio(e.KubeProxyDecodeCPUSeconds, s.KubeProxyDecodeCPUSeconds),
		APIServerCPUSeconds:       roundedFloatRatio(e.APIServerCPUSeconds, s.APIServerCPUSeconds),
	}
}

// roundedFloatRatio is roundedRatio for figures in seconds.
func roundedFloatRatio(num, den float64) *float64 {
	if den <= 0 {
		return nil
	}
	r := math.Round(num/den*1000) / 1000
	return &r
}

// microRound rounds seconds to the microsecond, which keeps summary.json short and stable.
func microRound(s float64) float64 { return math.Round(s*1e6) / 1e6 }

// roundedRatio returns num/den rounded to 3 decimal places, or nil when den is 0. Rounding
// keeps summary.json short and stable; the exact figures are the integers beside it.
func roundedRatio(num, den int64) *float64 {
	r, ok := ratio(num, den)
	if !ok {
		return nil
	}
	r = math.Round(r*1000) / 1000
	return &r
}

// WriteSummaryJSON writes s as indented JSON with a trailing newline. It fails (writing
// nothing) if s holds a NaN or infinite number.
func WriteSummaryJSON(w io.Writer, s *Summary) error {
	return writeIndentedJSON(w, s, "summary.json")
}

// writeIndentedJSON writes v as two-space indented JSON and a newline, or nothing if v
// cannot be encoded (a NaN, say); what names it in the error.
func writeIndentedJSON(w io.Writer, v any, what string) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("reports: %s: %w", what, err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadSummaryJSON decodes a summary.json written by WriteSummaryJSON. Its errors describe
// the content (line:column, the field and the JSON kind it wants): the caller names the file.
func ReadSummaryJSON(r io.Reader) (*Summary, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, readSummaryError(data, err)
	}
	if err := s.checkModes(); err != nil {
		if len(s.Modes) == 0 && hasKeys(data, "version", "figures") {
			return nil, errors.New("a baseline of 'sim check', not a summary.json: give the --out directory of a 'sim run' (or its summary.json)")
		}
		return nil, err
	}
	return &s, nil
}

// readError says what an empty or cut-off file is: the decoders' bare "EOF" and
// "unexpected EOF" (what 'sim plot' and 'sim diff' printed for an empty summary.json) do not.
func readError(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("the file is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the file ends before its content does (cut off?)")
	}
	return err
}

// readSummaryError is readError for a summary.json read whole, and says where a file that
// is not a summary.json goes wrong, in JSON's words rather than Go's types.
func readSummaryError(data []byte, err error) error {
	var se *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return readError(io.EOF)
	case errors.As(err, &se) && se.Offset >= int64(len(data)) && strings.HasPrefix(se.Error(), "unexpected end"):
		return readError(io.ErrUnexpectedEOF)
	}
	return describeJSONError(data, err, "a summary.json")
}

// checkModes reports a summary whose modes disagree with its figures: no mode, an unknown
// or repeated one, or a phase, the total or a Service whose figures are not of exactly the
// modes listed. Reports read the figures of every mode listed, and only of those, so such a
// file (edited by hand, or not written by 'sim run') is refused here rather than
// half-rendered.
func (s *Summary) checkModes() error {
	if len(s.Modes) == 0 {
		return fmt.Errorf("modes: none listed (not a summary.json of 'sim run')")
	}
	for i, m := range s.Modes {
		if !slices.Contains(AllModes, m) {
			return fmt.Errorf("modes: unknown mode %q (want %q or %q)", m, sim.ModeEndpoints, sim.ModeEndpointSlices)
		}
		if slices.Contains(s.Modes[:i], m) {
			return fmt.Errorf("modes: %q is listed twice", m)
		}
	}
	for _, m := range AllModes {
		ran := slices.Contains(s.Modes, m)
		mismatch := func() string {
			if ran {
				return fmt.Sprintf("has no %s figures, though %q is in modes", m, m)
			}
			return fmt.Sprintf("has %s figures, though %q is not in modes", m, m)
		}
		for i := range s.Phases {
			if (s.Phases[i].Mode(m) != nil) != ran {
				return fmt.Errorf("phase %d (%s) %s", i+1, s.Phases[i].Name, mismatch())
			}
		}
		if (s.Total.Mode(m) != nil) != ran {
			return fmt.Errorf("total %s", mismatch())
		}
		for i := range s.Services {
			if (s.Services[i].Mode(m) != nil) != ran {
				return fmt.Errorf("service %s/%s %s", s.Services[i].Namespace, s.Services[i].Name, mismatch())
			}
		}
	}
	return nil
}
