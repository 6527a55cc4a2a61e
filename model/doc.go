// Package model is the Kubernetes domain of epsim, pure and clock-free: Pods, Services, Nodes,
// EndpointSlices and Endpoints; the EndpointSlice reconciler (a faithful, incremental port of
// upstream k8s.io/endpointslice v0.37.2); the legacy Endpoints builder; the mirroring rules;
// and the exact wire sizes of every object and watch event.
//
// It must not read a clock, draw random numbers (choices come from an explicit source passed
// in), do I/O, log or start goroutines. It imports nothing of epsim's. Functions return plans
// (toCreate/toUpdate/toDelete) and never apply them; the caller (the sim engine) does.
//
// Ported behaviour carries an "upstream: file.go func" comment naming its origin.
package model
