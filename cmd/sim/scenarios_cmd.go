package main

import (
	"errors"
	"flag"
	"fmt"
)

var cmdScenarios = &command{
	name:  "scenarios",
	usage: "scenarios",
	short: "list the scenarios built into sim",
	long: `Scenarios lists the scenarios embedded in the sim binary. Each can be run by name
('sim run 5000-nodes') as well as by path ('sim run scenarios/5000-nodes.yaml').

Examples:

    sim scenarios`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usageErrorf("scenarios", "scenarios takes no arguments")
			}
			for _, n := range e.names() {
				fmt.Fprintln(e.stdout, n)
			}
			return nil
		}
	},
}

var cmdValidate = &command{
	name:  "validate",
	usage: "validate FILE...",
	short: "check scenario files without running them",
	long: `Validate loads each FILE (or embedded scenario name) as 'sim run' would, and reports
every problem with its file, line and field. It prints "FILE: ok" for each valid scenario
and exits 2 if any is invalid.

Examples:

    sim validate scenarios/5000-nodes.yaml
    sim validate --set cluster.nodes=100 scenarios/*.yaml`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		var sets stringList
		fs.Var(&sets, "set", "override a scenario field, `path=value` (repeatable)")
		return func(e *env, args []string) error {
			if len(args) == 0 {
				return usageErrorf("validate", "validate needs at least one scenario file")
			}
			var errs []error
			for _, a := range args {
				if _, err := e.load(a, sets); err != nil {
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(e.stdout, "%s: ok\n", a)
			}
			if len(errs) > 0 {
				return badInput(errors.Join(errs...))
			}
			return nil
		}
	},
}
