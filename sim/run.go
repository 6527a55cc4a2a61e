package sim

import "errors"

// Observer receives progress callbacks during a run. Implementations must be cheap; they are
// called from the event loop. A nil Observer is allowed.
type Observer interface {
	// Progress reports the virtual time reached and the phase index being run.
	Progress(now Time, phase int, phases int)
}

// ErrNotImplemented is returned while the engine is being built.
var ErrNotImplemented = errors.New("sim: engine not implemented yet")

// Run executes cfg and returns its results. It is deterministic in cfg (and cfg.Seed).
func Run(cfg Config, obs Observer) (*Results, error) {
	return nil, ErrNotImplemented
}
