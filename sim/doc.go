// Package sim is epsim's discrete-event engine: a virtual clock, one event queue ordered by
// (time, sequence), seeded random streams, and the actors (workload, kubelet, the two
// controllers, the API server with its watch fan-out, and the network).
//
// A run is deterministic: the same Config and seed give identical Results. There is no wall
// clock, no goroutine and no map-ordered iteration inside a run. sim never writes files; it
// returns Results and reports progress through an Observer.
package sim
