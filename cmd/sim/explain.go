package main

import (
	"flag"
	"fmt"

	"epsim/scenarios"
)

var cmdExplain = &command{
	name:  "explain",
	usage: "explain [FIELD.PATH | actions | distributions]",
	short: "describe a field of the scenario format",
	long: `Explain describes the scenario format, as 'kubectl explain' does for API objects: without
an argument the top-level fields; with a field path its type, unit, default, allowed values,
the upstream source of the default, what it means, an example, and its own fields. List
items may be written services[0], services[] or plain services. 'actions' and
'distributions' describe the timeline actions and the delay distributions. The same
reference, whole, is docs/scenario.md.

Examples:

    sim explain
    sim explain services
    sim explain services.ports.targetPort
    sim explain controlPlane.maxEndpointsPerSlice
    sim explain actions`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		return func(e *env, args []string) error {
			if len(args) > 1 {
				return usageErrorf("explain", "explain takes one field path, got %d", len(args))
			}
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			text, err := scenarios.Explain(path)
			if err != nil {
				return badInput(fmt.Errorf("explain: %w", err))
			}
			_, err = fmt.Fprint(e.stdout, text)
			return err
		}
	},
}
