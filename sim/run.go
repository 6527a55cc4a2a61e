package sim

// Observer receives progress callbacks during a run. Implementations must be cheap; they are
// called from the event loop at most once per virtual second. A nil Observer is allowed.
type Observer interface {
	// Progress reports the virtual time reached and the phase index being run.
	Progress(now Time, phase int, phases int)
}
