package main

// The glue to the scenarios package lives here alone, so that following its API is a
// one-file change.

import (
	"errors"
	"fmt"

	"epsim/scenarios"
	"epsim/sim"
)

// loadedScenario is what the CLI needs from a loaded scenario.
type loadedScenario struct {
	// File is where the scenario came from, for messages.
	File   string
	Config sim.Config
	// Description is the scenario's description: field.
	Description string
	// Scenario is the loaded scenario (nil from test fakes).
	Scenario *scenarios.Scenario
}

// loadScenario resolves nameOrPath (a file path, or the name of an embedded scenario) and
// applies the --set path=value overrides. Every problem in the scenario is in the error.
func loadScenario(nameOrPath string, sets []string) (*loadedScenario, error) {
	sc, cfg, err := scenarios.Load(nameOrPath, sets)
	if err != nil {
		return nil, err
	}
	return &loadedScenario{File: sc.File, Config: cfg, Description: sc.Description, Scenario: sc}, nil
}

// loadSettings loads a scenario file for its settings alone ('sim replay --scenario'):
// the name, cluster, services and timeline, which replay takes from the recording, may be
// left out.
func loadSettings(nameOrPath string, sets []string) (sim.Config, error) {
	_, cfg, err := scenarios.LoadSettings(nameOrPath, sets)
	return cfg, err
}

// effectiveScenario prints sc with cfg (the configuration after flag overrides) as a
// scenario file with every default applied.
func effectiveScenario(sc *loadedScenario, cfg sim.Config) ([]byte, error) {
	if sc.Scenario == nil {
		return nil, errors.New("no scenario to print")
	}
	c := *sc.Scenario
	c.Config = cfg
	return scenarios.Effective(&c), nil
}

// isPlan reports whether nameOrPath names a capacity plan rather than a scenario.
func isPlan(nameOrPath string) bool { return scenarios.IsPlan(nameOrPath) }

// validatePlan loads a plan with its base scenario and every grid point, and describes it.
func validatePlan(nameOrPath string) (string, error) {
	p, err := scenarios.LoadPlan(nameOrPath)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("plan %s: %s of %s", p.Name, plural(len(p.Points), "grid point"), p.ScenarioFile), nil
}

// scenarioNames lists the embedded scenarios, sorted.
func scenarioNames() []string { return scenarios.Names() }
