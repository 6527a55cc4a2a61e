package main

// The glue to the scenarios package lives here alone, so that following its API is a
// one-file change.

import (
	"errors"
	"fmt"

	"epsim/sim"
)

// loadedScenario is what the CLI needs from a loaded scenario.
type loadedScenario struct {
	// File is where the scenario came from, for messages.
	File   string
	Config sim.Config
}

// loadScenario resolves nameOrPath (a file path, or the name of an embedded scenario) and
// applies the --set path=value overrides.
func loadScenario(nameOrPath string, sets []string) (*loadedScenario, error) {
	// TODO(#2): call scenarios.Load once it lands.
	return nil, fmt.Errorf("%s: %w", nameOrPath, errLoaderMissing)
}

// scenarioNames lists the embedded scenarios, sorted.
func scenarioNames() []string {
	// TODO(#2): scenarios.Names().
	return nil
}

var errLoaderMissing = errors.New("the scenario loader is not built yet")
