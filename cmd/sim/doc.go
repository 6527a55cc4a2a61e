/*
Sim is the command-line interface of epsim, a discrete-event simulator of what an endpoint
change costs in a Kubernetes cluster — API writes, bytes written to etcd, watch events and
bytes fanned out to every kube-proxy — with legacy Endpoints and with EndpointSlices, side
by side on the same pod timeline.

Usage:

	sim <command> [flags] [arguments]

The commands are:

	run        run a scenario and compare Endpoints with EndpointSlices
	validate   check scenario files without running them
	scenarios  list the scenarios built into sim
	explain    describe a field of the scenario format
	help       explain a command, its flags and examples
	version    print the version of sim, its VCS revision and Go's
	completion print a shell completion script (bash, zsh, fish)
	plot       redraw the charts of a run from its --out directory
	check      fail when update volume regresses past a baseline or budget
	diff       compare two runs figure by figure
	plan       capacity-planning report over a grid of cluster shapes
	import     make a scenario from kubectl output of a real cluster
	replay     account recorded pod churn (kubectl get pods --watch -o json)
	record     record pod churn from a cluster for replay

Flags may come before or after the arguments, as --flag value or --flag=value; a boolean
flag takes the words true and false either way (--charts false, --charts=false). -o is
short for --format. 'sim help COMMAND' lists a command's flags with their defaults.

	$ sim completion bash
	$ sim version

# Running a scenario

A scenario is a YAML file describing a cluster, its Services and a timeline of actions
(rollouts, scaling, node failures…); each action is a phase of the results. The scenarios
shipped with epsim are built into the binary and can be run by name:

	$ sim scenarios
	$ sim run scenarios/5000-nodes.yaml
	$ sim run 5000-nodes

Run prints one block per phase and one for the whole run. Each block starts with a headline
and then compares the two modes figure by figure:

	phase 2/4: one-endpoint-not-ready (2m10s → 2m41s)
	  Endpoints fan out 7.0 GB, EndpointSlices 84.5 MB (83×)
	                           Endpoints   EndpointSlices   ratio
	  API writes                       2                2    1.0×
	  bytes fanned out            7.0 GB          84.5 MB     83×
	  …

Bytes are in SI units (1 KB = 1000 B). The ratio is Endpoints / EndpointSlices; "-" means
the EndpointSlices figure is zero.

The same scenario and seed give the same output byte for byte. Change the seed, the modes
or any scenario field from the command line:

	$ sim run 5000-nodes --seed 7
	$ sim run 5000-nodes --mode endpointslices
	$ sim run 5000-nodes --set cluster.nodes=1000 --set controlPlane.maxEndpointsPerSlice=500

# Outputs

--out DIR writes the machine-readable results next to the table:

	$ sim run 5000-nodes --out results/5000-nodes
	$ sim run 5000-nodes --out results/5000-nodes --charts=false --quiet

	summary.json            per phase and in total, per mode: writes {create, update, delete,
	                        total}, failedWrites, etcdBytes, watchEvents, fanoutBytes,
	                        perNodeBytes, maxObjectBytes, peakEgressBytesPerSec,
	                        truncatedObjects, propagation {p50, p90, p99, max}; and ratio
	                        (Endpoints / EndpointSlices) for each figure; services: per
	                        Service and mode over the whole run, writes, failedWrites,
	                        fanoutBytes, maxObjectBytes, propagationP99Seconds (the table
	                        lists the top 10 by bytes when there is more than one)
	timeseries.csv          one row per second of virtual time: each mode's writes,
	                        fanoutBytes, etcdBytes, largest latency and resentBytes in that
	                        second, and the row's width in seconds (1; coarser, 2, 4, …
	                        when a run spans more than 65,536 seconds)
	writes.jsonl            one JSON object per API write (time, mode, verb, object, sizes,
	                        watchers, outcome, and latency for a committed write only)
	layout.csv              EndpointSlice layout samples: slices, endpoints, and min, median
	                        and max endpoints per slice
	phases-bytes.*          the headline: bytes fanned out per phase, both modes, the ratio
	cumulative-fanout.*     bytes fanned out over time, log scale, phases numbered
	egress-rate.*           API server egress per second, with the capacity (a long run:
	                        each column's mean over a band of its least to greatest second)
	propagation-latency.*   largest propagation latency per second, with the SLO (a long
	                        run: each column's largest over a band of its seconds)
	phases-writes.*         API writes per phase, with the ratio
	slice-layout.*          EndpointSlice count and endpoints per slice over time
	report.md, report.html  the run's report: the headline (the answer in one sentence and
	                        the ratio), the phase table, the charts, the assumptions in
	                        force (truncation, slice size, batch periods, informer lag,
	                        encoding, bandwidths, SLO) and what to try next; the HTML page
	                        is self-contained (charts embedded as data: URIs)
	effective-scenario.yaml the scenario as it ran, every default and override applied:
	                        'sim run' it to repeat the run; 'sim diff' lists the settings
	                        two runs differ in

Charts are written as PNG and SVG. --out is all or nothing: it is checked (a writable
directory) and locked before the run, the files are staged in a directory beside it, and
the staged directory replaces it in one rename, so a reader sees the earlier result or the
new one, never a mix. Being replaced as a whole, --out may not be the working directory
or contain it (--out . is refused). Outputs of an earlier run this one does not produce
(charts after --charts=false) go; files that are not sim's stay (.sim-outputs lists
sim's), and one under an output's name (your own report.md) is bad input, exit 2, before
the run, not replaced. A failed write, SIGINT, SIGTERM or SIGHUP leave --out as it was,
and a second sim writing into the same --out at the same time fails at once (not on
Windows, which has no lock on a directory). Then a line on stderr says which files and
charts were written into --out (not with --quiet, which leaves stderr to warnings and
errors).

Plot redraws the charts from those files without running the simulation again, and says
on stderr which charts it wrote and where:

	$ sim plot results/5000-nodes
	$ sim plot results/5000-nodes --out charts

--format json prints summary.json on stdout instead of the table:

	$ sim run 5000-nodes --format json --quiet

# Capacity planning

Plan runs a scenario over a grid of --set overrides (any scenario field) and writes a report
that answers budgets — per-node ingress per day, peak API server egress, writes per second
against the controllers' QPS — recommends, per service size, the maxEndpointsPerSlice that
fans out the fewest bytes within them, and lists every limit a layout hits (Endpoints over
the etcd request limit, truncation at 1000, egress saturation, writes at the QPS). With
several Services in the base scenario, the advice is also split by the size of those
Services; a grid over maxEndpointsPerSlice alone also gets a per-phase cost table (create,
single endpoint update, rolling update). Plans shipped with sim run by name: slice-size and
cluster-size (seconds), kep-752 (KEP-752's cost table: many minutes).

	$ sim plan slice-size --out results/slice-size
	$ sim plan scenarios/plans/cluster-size.yaml --jobs 2

	report.md, report.html  the report; the HTML is self-contained (charts embedded)
	results.csv             one row per grid point: axis values, limits hit and every
	                        summary figure as phase.mode.figure
	plan.json               every point's results (what the report is built from)
	bytes-per-rollout.*     bytes per rolling update vs endpoints per service, one line
	                        for Endpoints and one per maxEndpointsPerSlice
	per-node-ingress.*      bytes per kube-proxy (per day with churn) vs nodes
	writes-vs-batch-period.* API writes vs the controllers' batch period
	bytes-per-phase.*       bytes per phase for Endpoints and each slice size, when the
	                        grid varies only the slice size (kep-752)

Points run in parallel (--jobs) and are placed by grid index: the same plan gives the same
files byte for byte. While they run, the shared heap is not collected below the floor sim
run keeps, one per point running, with a soft limit at 3/4 of the machine's memory, so that
collecting it does not take the cores the points need; set GOGC or GOMEMLIMIT to choose
otherwise. A point whose run fails is listed in the report, not fatal. A plan too
big for one machine runs in shards, each a partial, merged into the same report
(docs/plan.md runs the shards as a Kubernetes Indexed Job):

	$ sim plan kep-752 --shard 0/2 --out results/kep/0
	$ sim plan kep-752 --shard 1/2 --out results/kep/1
	$ sim plan --merge results/kep/0 results/kep/1 --out results/kep

# Checking scenarios

Validate reports every problem of a scenario (or plan) at once, with file, line and field:

	$ sim validate scenarios/5000-nodes.yaml scenarios/quick.yaml
	$ sim validate --set cluster.nodes=100 scenarios/quick.yaml
	$ sim validate scenarios/plans/kep-752.yaml

The scenario format is described field by field by explain (and in docs/scenario.md);
validate --effective (or run --print-scenario) prints a scenario with every default applied:

	$ sim explain services.maxSurge
	$ sim explain actions
	$ sim validate --effective quick
	$ sim run quick --set cluster.nodes=50 --print-scenario

# Your own cluster

Import makes a scenario from what kubectl prints: nodes and zones, each Service with the
workloads it selects, Services alike grouped with count:, and a default timeline (create, a
rollout of the largest Services, a rollout of all of them, a node drain):

	kubectl get nodes -o json > nodes.json
	kubectl get services -A -o json > services.json
	kubectl get deployments,statefulsets,daemonsets -A -o json > workloads.json
	kubectl get endpoints -A -o json > endpoints.json

	$ sim import nodes.json services.json workloads.json endpoints.json --out my-cluster.yaml
	$ sim run my-cluster.yaml
	$ sim run my-cluster.yaml --set controlPlane.maxEndpointsPerSlice=500

What it could not map is listed at the top of the file and on stderr; --anonymize renames
everything so the file can be shared. Selector-less Services backed by hand-made Endpoints
become services with manualEndpoints: their Endpoints object is the user's write in the
Endpoints mode, and the EndpointSlice mirroring controller's slices in the EndpointSlice mode.

# Replaying pod churn recorded from a cluster

Record the pod watch stream of a real cluster while something happens (a rollout, a
scale-up, a node drain), and the Services and Nodes once:

	kubectl get pods -A --watch --output-watch-events -o json | sim record --out trace.jsonl
	kubectl get services -A -o json > services.json
	kubectl get nodes -o json > nodes.json

Record stamps each event with the time it arrived and keeps only what epsim reads (no
annotations, images or env); input with no event to record (kubectl's output not piped in)
is an error, exit 2. Replay runs the recording through both control planes:

	$ sim replay --pods trace.jsonl --services services.json --nodes nodes.json
	$ sim replay --pods trace.jsonl --services services.json --set controlPlane.maxEndpointsPerSlice=500 --out results/replay

kubectl's output can be replayed directly (--pods watch.json), with event times taken from
the pods' own timestamps (second precision; replay says so on stderr). Without --nodes the
nodes are those the pods name, without zones. Control-plane settings are the defaults, a
scenario's (--scenario FILE) or --set overrides. Recording the real EndpointSlice stream as
well adds a comparison of real and simulated EndpointSlice writes and bytes per Service:

	kubectl get endpointslices -A --watch --output-watch-events -o json | sim record --out slices.jsonl
	$ sim replay --pods trace.jsonl --services services.json --nodes nodes.json --endpointslices slices.jsonl

Replay's table ends with what was read: pod events, those no Service selects, events out of
time order, and objects of other kinds skipped. --out adds replay.json with the same and
the comparison. The trace format: 'go doc epsim/trace'.

# CI checks

Check runs scenarios and fails when a figure breaks a budget of the scenario's expect:
section, or grows past --tolerance (default 2%) of a baseline written by an earlier run:

	$ sim check quick --baseline-dir scenarios/baselines
	$ sim check scenarios/quick.yaml --baseline quick.json --tolerance 5% --junit check.xml
	$ sim check quick --baseline-dir scenarios/baselines --update-baseline
	$ sim check my-cluster.yaml --baseline my-cluster.json --format json --strict

--update-baseline writes the baselines instead of comparing with them, but still checks the
budgets: a broken budget fails the check (exit 1) although the baselines were written.

Budgets and baselines name figures as summary.json does, <phase|total>.<mode>.<figure>:

	expect:
	  rolling-update.endpointslices.fanoutBytes: {max: 2TB}
	  one-endpoint-not-ready.ratio.fanoutBytes: {min: 50}
	  total.endpointslices.propagation.p99Seconds: {max: 30s}

A budget can be given on the command line too, its bound after the key's dots:

	$ sim check quick --set expect.total.endpointslices.fanoutBytes.max=2TB

'sim help check' lists every figure. Check prints the failing figures (verdict, expected,
actual, change in percent) and a one-line outcome, every figure with --verbose. Tolerances
and absolute floors can be set per figure or kind, and a baseline can name the figures it
gates ("gates": ["*.endpointslices.*"]):

	$ sim check quick --baseline-dir scenarios/baselines --tolerance 'writes.*=10%' --floor count=2

It exits 1 on a regression or broken budget
(and, with --strict, on an improvement), 2 on bad input: a scenario error, a missing or
malformed baseline, or an unknown figure name (with the closest valid names). Baselines are
written atomically and only when their content changes.

The scenarios of one check run side by side, one per core (--jobs N to choose), the
largest first, as many at once as fit together in guards.maxMemory's default; the report
keeps the order they were given in, byte for byte the one of --jobs 1.

# Comparing two runs

Diff compares two --out directories (or two summary.json files) figure by figure, per phase
and mode, largest relative change first, in the table style of check. --fail-on makes it a
gate: exit 1 when a figure moved by more than that (--floor N ignores changes of at most N);
--services compares every Service's figures too:

	$ sim run quick --out results/a --quiet
	$ sim run quick --out results/b --quiet --set controlPlane.maxEndpointsPerSlice=500
	$ sim diff results/a results/b
	$ sim diff results/a results/b --fail-on 5% --floor 10

# Profiling

	$ sim run 5000-nodes --quiet --cpuprofile cpu.out
	$ sim replay --pods trace.jsonl --services services.json --quiet --cpuprofile cpu.out
	$ sim run many-services --quiet --memprofile heap.out
	$ sim replay --pods trace.jsonl --services services.json --quiet --memprofile heap.out
	$ sim plan slice-size --quiet --cpuprofile cpu.out --memprofile heap.out
	$ go tool pprof -sample_index=inuse_space -top heap.out

--memprofile takes the heap profile near the run's (or replay's) largest live heap (checked
once per virtual second), which is what a memory budget is about. It collects before each
profile it takes (the runtime's profile is otherwise of the collection before the last), so
a profiled run collects more often than one that is not. Check and plan, which run several
simulations in one process, take both flags too: a CPU profile of the whole command, and a
heap profile near the largest live heap of their runs together (side by side, the sum of
theirs); a plan --merge, which runs none, takes --cpuprofile only. A profile is written
over an earlier profile only: a flag that names another file (the scenario, a recording,
an output --out writes) is refused, and the file left as it is.

Run, check and replay let the Go heap grow to 192 MiB (an eighth of the memory the process
may use, if less; once per run going, where several go side by side) before its first
collection, and collect at twice the live heap from there: a run whose live heap is small
collects far less often (5000-nodes never does, and peaks at about 53 MB), for the same
peak as before in a large one. Set GOGC or GOMEMLIMIT to choose otherwise.

On Linux, where transparent huge pages are given on request (the kernel's "madvise"
setting), run and a check of one scenario ask for them for the heap the run is estimated
to fill, and replay for twice the bytes of its recordings (none when --pods is stdin): it
faults 2 MiB at a time instead of 4 KiB (many-services: 4 thousand page faults instead of
56 thousand). GODEBUG=disablethp=1 turns this off.

# Exit status

0 success; 1 the run failed (or its outputs could not be written), or 'sim check' or 'sim
diff --fail-on' found a figure out of bounds; 2 bad input: an unknown
command or flag, a bad flag value, an unusable --out, or an invalid or missing scenario,
including one whose estimated memory is over guards.maxMemory, or input 'sim record' cannot
read or that has no event to record; 3 an internal error (a bug in
sim: please report it with the command line, the scenario and its seed). Errors are printed
once on stderr, prefixed "sim: ", lists of problems capped at 20 lines. Progress (a bar when stderr is a terminal, otherwise a plain
line at most every 10 s of wall time, so that a short run prints none; neither with --quiet)
and anything measured in wall-clock time go to stderr only; stdout carries the results.
*/
package main
