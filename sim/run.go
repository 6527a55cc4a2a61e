package sim

// Observer receives progress callbacks during a run. Implementations must be cheap; they are
// called from the event loop at most once per virtual second. A nil Observer is allowed.
type Observer interface {
	// Progress reports the virtual time reached and the phase index being run.
	Progress(now Time, phase int, phases int)
}

// WriteLogger is an optional Observer extension that takes the API-write log as the run
// goes, each record once, in the order Results.Writes would hold them, instead of
// Results.Writes holding them (it is then empty). A day of a large cluster makes millions
// of writes: 160 bytes a record, held to the end of the run otherwise (and up to twice
// that while the log grows). It is used only when the log is kept (Config.NoWriteLog
// false). An error stops the run, which returns it: a full disk fails a long run at once,
// not at its end.
type WriteLogger interface {
	LogWrite(rec WriteRecord) error
}

// PodCounter is an optional Observer extension told, just before each progress report, how
// many pods the run holds: created and not yet gone from the API, terminating ones included
// (of a replay, the recorded pods that some Service selects). A rollout holds more pods
// than its replicas, its surge and the old pods still terminating: memory a pod is read
// against this count.
type PodCounter interface {
	PodsHeld(n int)
}
