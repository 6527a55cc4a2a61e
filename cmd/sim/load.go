package main

// The glue to the scenarios package lives here alone, so that following its API is a
// one-file change.

import (
	"epsim/scenarios"
	"epsim/sim"
)

// loadedScenario is what the CLI needs from a loaded scenario.
type loadedScenario struct {
	// File is where the scenario came from, for messages.
	File   string
	Config sim.Config
}

// loadScenario resolves nameOrPath (a file path, or the name of an embedded scenario) and
// applies the --set path=value overrides. Every problem in the scenario is in the error.
func loadScenario(nameOrPath string, sets []string) (*loadedScenario, error) {
	sc, cfg, err := scenarios.Load(nameOrPath, sets)
	if err != nil {
		return nil, err
	}
	return &loadedScenario{File: sc.File, Config: cfg}, nil
}

// scenarioNames lists the embedded scenarios, sorted.
func scenarioNames() []string { return scenarios.Names() }
