package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"epsim/sim"
)

var cmdScenarios = &command{
	name:  "scenarios",
	usage: "scenarios",
	short: "list the scenarios built into sim",
	long: `Scenarios lists the scenarios embedded in the sim binary with their size (nodes,
Services, pods), their phases (the timeline's actions, in order) and their description. Each
can be run by name ('sim run 5000-nodes') as well as by path ('sim run
scenarios/5000-nodes.yaml').

Examples:

    sim scenarios`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usageErrorf("scenarios", "scenarios takes no arguments")
			}
			for i, n := range e.names() {
				sc, err := e.load(n, nil)
				if err != nil {
					return fmt.Errorf("scenario %s: %w", n, err)
				}
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				cfg := sc.Config
				services, pods := size(cfg)
				var phases []string
				for _, a := range cfg.Timeline {
					phases = append(phases, a.Name)
				}
				fmt.Fprintf(e.stdout, "%s: %s, %s, %s\n", n, plural(cfg.Cluster.Nodes, "node"), plural(services, "Service"), plural(pods, "pod"))
				fmt.Fprintf(e.stdout, "  phases: %s\n", strings.Join(phases, ", "))
				if sc.Description != "" {
					for _, line := range wrap(sc.Description, 88) {
						fmt.Fprintf(e.stdout, "  %s\n", line)
					}
				}
			}
			return nil
		}
	},
}

// size counts a scenario's Services and pods (a DaemonSet has one pod per node).
func size(cfg sim.Config) (services, pods int) {
	for _, s := range cfg.Services {
		n := max(s.Count, 1)
		services += n
		if s.WorkloadKind == sim.KindDaemonSet {
			pods += n * cfg.Cluster.Nodes
		} else {
			pods += n * s.Replicas
		}
	}
	return services, pods
}

// thousands formats n with thousands separators ("10,000").
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural is "1 Service" or "2 Services".
func plural(n int, noun string) string { return counted(int64(n), noun, noun+"s") }

// counted is n, with thousands separators, followed by one when n is 1 and by many
// otherwise: "1 entry", "3 entries", "1 figure is". Messages count things that are often
// one, and "1 pods" reads as a bug.
func counted(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

// agree is one when n is 1 and many otherwise, for the words that follow a counted noun
// ("it was", "they were").
func agree(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

var cmdValidate = &command{
	name:  "validate",
	usage: "validate [--effective] FILE...",
	short: "check scenario and plan files without running them",
	long: `Validate loads each FILE (or embedded scenario or plan name) as 'sim run' or 'sim plan'
would, and reports every problem with its file, line and field. It prints "FILE: ok" for
each valid scenario (with its size) or plan (with its grid points, each of them checked) and
exits 2 if any is invalid. A scenario whose Services ask for more pods than its nodes take
(cluster.nodes × cluster.maxPodsPerNode) is valid, with a warning on stderr: the rest would
stay Pending. A file is a plan when its top level has grid: or scenario: and no cluster:,
services: or timeline:.

--effective prints each scenario instead, with every default applied, as a scenario file
that loads back to the same run (the same as 'sim run --print-scenario').

Examples:

    sim validate scenarios/5000-nodes.yaml
    sim validate --set controlPlane.maxEndpointsPerSlice=500 scenarios/*.yaml
    sim validate scenarios/plans/kep-752.yaml
    sim validate --effective quick`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		var sets stringList
		var effective bool
		fs.Var(&sets, "set", "override a scenario field, `path=value` (repeatable)")
		fs.BoolVar(&effective, "effective", false, "print each scenario with every default applied")
		return func(e *env, args []string) error {
			if len(args) == 0 {
				return usageErrorf("validate", "validate needs at least one scenario file")
			}
			var errs []error
			for _, a := range args {
				if isPlan(a) {
					if len(sets) > 0 {
						errs = append(errs, fmt.Errorf("%s is a plan: --set applies to scenarios (a plan has its own set:)", a))
						continue
					}
					if effective {
						// It printed nothing and passed, as if the plan had been printed.
						errs = append(errs, fmt.Errorf("%s is a plan: --effective prints scenarios (a grid point's: sim run BASE --set PATH=VALUE… --print-scenario)", a))
						continue
					}
					what, err := validatePlan(a)
					if err != nil {
						errs = append(errs, err)
						continue
					}
					fmt.Fprintf(e.stdout, "%s: ok (%s)\n", a, what)
					continue
				}
				sc, err := e.load(a, sets)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if effective {
					text, err := effectiveScenario(sc, sc.Config)
					if err != nil {
						return err
					}
					e.stdout.Write(text)
					continue
				}
				services, pods := size(sc.Config)
				warnCapacity(e.stderr, "validate "+a, sc.Config)
				fmt.Fprintf(e.stdout, "%s: ok (%s, %s, %s, %s)\n", a, plural(sc.Config.Cluster.Nodes, "node"), plural(services, "Service"), plural(pods, "pod"), plural(len(sc.Config.Timeline), "phase"))
			}
			if len(errs) > 0 {
				return badInput(errors.Join(errs...))
			}
			return nil
		}
	},
}
