package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"epsim/internal/kubeimport"
	"epsim/scenarios"
)

var cmdImport = &command{
	name:  "import",
	usage: "import [FILE.json...]",
	short: "make a scenario from kubectl output of a real cluster",
	long: `Import reads what kubectl prints about a cluster — from the files given, or stdin ("-", or
no file) — and writes a scenario you can run and edit: the nodes and their zones, region
and CPU; each Service with the workloads its selector selects (replicas, kind, rolling
update strategy, minReadySeconds, a StatefulSet's serviceName), headless and dual-stack
Services, named ports (a named targetPort is resolved against the pods' container ports),
trafficDistribution and the topology-mode annotation, publishNotReadyAddresses, the
Service's labels (its Endpoints and slices copy them); and a default timeline: create, a
rollout of the three largest Services, a rollout of every Service at once, a node drain.
Services alike but for their names become one entry with count:, so a 10,000-Service
cluster gives a short file.

Inputs are kubectl's JSON, Lists of any mix of kinds:

    kubectl get nodes -o json > nodes.json
    kubectl get services -A -o json > services.json
    kubectl get deployments,statefulsets,daemonsets -A -o json > workloads.json
    kubectl get endpoints -A -o json > endpoints.json             # optional
    kubectl get endpointslices -A -o json > endpointslices.json   # optional

Endpoints give selector-less Services (hand-made Endpoints, which the EndpointSlice
mirroring controller mirrors) their addresses (without an Endpoints object, the slices
written for them directly do); EndpointSlices give the pod count of Services whose pods no
workload in the input explains (the EndpointSlice controller's slices; another manager's
only when there are none). A ReplicaSet no Deployment in the input owns is run as a
Deployment; one a Deployment in the input owns is left to it. Everything that could not be
mapped is listed at the top of the file and on stderr. --anonymize renames namespaces,
Services, ports, zones, the region, nodes, label values and label keys but Kubernetes' own
(deterministically, keeping lengths, so byte figures hold) so the file can be shared. --out
writes the file atomically; its directory must exist, it may not be an input, and a file
already there must be a scenario (one with cluster: and services:) or empty: another is
left as it is (all checked before the import's work). (-o means the output format in every
other command, so import has no -o.)

Examples:

    sim import nodes.json services.json workloads.json --out my-cluster.yaml
    kubectl get services -A -o json | sim import nodes.json - workloads.json
    sim import --anonymize --name prod nodes.json services.json workloads.json endpoints.json
    sim import --out my-cluster.yaml scenarios/testdata/import-nodes.json scenarios/testdata/import-services.json`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		var out, name string
		var anonymize bool
		fs.StringVar(&out, "out", "", "write the scenario to `FILE` (default: stdout)")
		fs.StringVar(&name, "name", "", "the scenario's `NAME` (default: --out's file name without .yaml, else imported)")
		fs.BoolVar(&anonymize, "anonymize", false, "rename namespaces, Services, ports, zones, nodes and labels so the file can be shared")
		return func(e *env, args []string) error {
			var inputs []kubeimport.Input
			if len(args) == 0 {
				inputs = append(inputs, kubeimport.Input{Name: "stdin", R: e.stdinReader()})
			}
			stdin := false
			for _, a := range args {
				if a == "-" {
					// "-" among files reads stdin there too: it was read only when alone,
					// so 'sim import nodes.json -' dropped what was piped in.
					if stdin {
						return usageErrorf("import", "- (stdin) given twice")
					}
					stdin = true
					inputs = append(inputs, kubeimport.Input{Name: "stdin", R: e.stdinReader()})
					continue
				}
				f, err := os.Open(a)
				if err != nil {
					return badInput(fmt.Errorf("import: %s: %w", a, plainPathError(err)))
				}
				defer f.Close()
				// Refused here, not when read ("cannot read D: read D: is a directory").
				if st, err := f.Stat(); err == nil && st.IsDir() {
					return badInput(fmt.Errorf("import: %s: is a directory, not a file", a))
				}
				inputs = append(inputs, kubeimport.Input{Name: a, R: f})
			}
			if out != "" {
				// Said before the import's work, and plainly: a rename onto a directory
				// fails only at the end, naming the temporary file.
				if fi, err := os.Stat(out); err == nil && fi.IsDir() {
					return usageErrorf("import", "--out %s is a directory: give the scenario file to write (e.g. %s)", out, filepath.Join(out, "imported.yaml"))
				}
				// A missing directory or a special file, as record checks its --out.
				if err := checkOutFile("import", out); err != nil {
					return err
				}
				// Nor an input: the scenario would replace the user's kubectl output.
				if ofi, err := os.Stat(out); err == nil {
					for _, in := range inputs {
						if f, ok := in.R.(*os.File); ok {
							if fi, err := f.Stat(); err == nil && os.SameFile(fi, ofi) {
								return usageErrorf("import", "--out %s is an input: importing would destroy it; give another file name", out)
							}
						}
					}
				}
				if err := scenarioOutput.replaceable(out); err != nil {
					return badInput(fmt.Errorf("import: --out %s: %w", out, err))
				}
			}
			if name == "" && out != "" {
				name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(out), ".yaml"), ".yml")
			}
			if len(name) > 253 || strings.ContainsAny(name, "\n\r\t") || (name != "" && strings.TrimSpace(name) == "") {
				return usageErrorf("import", "--name %q: a scenario name is 1..253 characters on one line", name)
			}
			return runImport(e, inputs, kubeimport.Options{Name: name, Anonymize: anonymize}, out)
		}
	},
}

// runImport imports, checks that the scenario loads, and writes it.
func runImport(e *env, inputs []kubeimport.Input, opts kubeimport.Options, out string) error {
	res, err := kubeimport.Import(inputs, opts)
	if err != nil {
		if errors.Is(err, kubeimport.ErrFormat) || errors.Is(err, kubeimport.ErrEmpty) || errors.Is(err, kubeimport.ErrRead) {
			return badInput(fmt.Errorf("import: %w", err))
		}
		return fmt.Errorf("import: %w", err)
	}
	// The file must load as it is; if it does not, that is the importer's bug, not the input's.
	if _, err := scenarios.Parse("imported scenario", res.YAML, nil); err != nil {
		return fmt.Errorf("import: the scenario written does not load (a bug; please report it): %w", err)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stderr, "sim: import: not mapped: %s\n", n)
	}
	fmt.Fprintf(e.stderr, "sim: import: %s, %s in %s, %s\n", plural(res.Nodes, "node"), plural(res.Services, "Service"),
		counted(int64(res.Entries), "entry", "entries"), plural(res.Pods, "pod"))
	if out == "" {
		_, err := e.stdout.Write(res.YAML)
		return err
	}
	if err := writeFileAtomic(out, func(w io.Writer) error { _, err := w.Write(res.YAML); return err }); err != nil {
		return fmt.Errorf("import: %s: %w", out, err)
	}
	return nil
}

// stdinReader is the standard input a "-" argument reads: the env's, or the process's when
// the env has none (a test env that sets no stdin).
func (e *env) stdinReader() io.Reader {
	if e.stdin != nil {
		return e.stdin
	}
	return os.Stdin
}
