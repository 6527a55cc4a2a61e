package sim

import (
	"time"

	"epsim/model"
)

// endpointsSyncer adapts the model's legacy Endpoints builder to the engine.
type endpointsSyncer struct {
	e *Engine
}

func newEndpointsSyncer(e *Engine) *endpointsSyncer { return &endpointsSyncer{e: e} }

func (y *endpointsSyncer) serviceAdded(*serviceState)          {}
func (y *endpointsSyncer) serviceChanged(*serviceState)        {}
func (y *endpointsSyncer) nodeChanged(*serviceState, string)   {}
func (y *endpointsSyncer) staleGuard() bool                    { return false }
func (y *endpointsSyncer) applied(*serviceState, *write, bool) {}

// backoff is client-go's default controller limiter: 5 ms doubling to 1000 s.
func (y *endpointsSyncer) backoff(n int) Time {
	return exponentialBackoff(Time(5*time.Millisecond), Time(1000*time.Second), n)
}

func (y *endpointsSyncer) podChanged(p *podState, old *model.Pod, deleted bool) bool {
	if old == nil || deleted {
		return true
	}
	return podEndpointsChanged(old, p.pod)
}

func (y *endpointsSyncer) sync(*serviceState, model.Timestamp) ([]write, error) { return nil, nil }

func (y *endpointsSyncer) commit(s *serviceState, w *write, meta apiMeta) committed {
	return committed{kind: "Endpoints"}
}
