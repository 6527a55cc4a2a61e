# epsim — see README.md. Every target works on a fresh machine with only Go installed.
GO ?= go

.PHONY: build test bench bench-compare rss-compare instr-compare goals lint cross run check baselines fuzz pgo upstream-endpoints upstream-mirroring upstream-deployment upstream-daemonset upstream-statefulset upstream-replicaset upstream-proxy diff-slices diff-sizes

build:
	$(GO) build -o bin/sim ./cmd/sim

test: lint
	$(GO) test ./...

# The benchmarks build with the profile that `go build ./cmd/sim` uses (cmd/sim/default.pgo),
# so that they time the code users run; `go test` alone applies it only to cmd/sim's tests.
bench:
	$(GO) test -pgo=$(CURDIR)/cmd/sim/default.pgo -run '^$$' -bench . -benchmem ./...

# A paired comparison of one BenchmarkScale row between revision BASE and the working tree:
# PAIRS times, BASE's run then the working tree's, back to back. The machine's speed can drift
# by 10% within minutes, so only runs side by side compare. Each side is built with its own
# cmd/sim/default.pgo (if it has one) and runs its own scenario files. Prints each pair's CPU
# seconds and peak live heap, and the median of new/base.
#   make bench-compare BASE=HEAD~3 ROW=many-services PAIRS=8
BASE ?= HEAD
ROW ?= many-services
PAIRS ?= 6
bench-compare:
	@set -e; tmp=$$(mktemp -d); \
	trap 'git worktree remove --force '"$$tmp"'/base >/dev/null 2>&1 || true; rm -rf '"$$tmp" EXIT; \
	git worktree add --quiet --detach $$tmp/base $(BASE); \
	build() { pgo=off; [ -f $$1/cmd/sim/default.pgo ] && pgo=$$1/cmd/sim/default.pgo; \
		(cd $$1 && $(GO) test -c -pgo=$$pgo -o $$2 ./scenarios); }; \
	build $$tmp/base $$tmp/base.test; build $(CURDIR) $$tmp/new.test; \
	run() { (cd $$1/scenarios && $$2 -test.run '^$$' -test.bench 'Scale/$(ROW)$$' -test.benchtime 1x) | \
		awk '/cpu-s\/run/ { for (i = 2; i < NF; i++) { if ($$(i+1) == "cpu-s/run") c = $$i; if ($$(i+1) == "peak-heap-MB") h = $$i } } \
			END { if (c == "") exit 1; print c, h }'; }; \
	echo "$(ROW): BASE=$(BASE) against the working tree, $(PAIRS) pairs (CPU s, peak live heap MB)"; \
	for i in $$(seq $(PAIRS)); do \
		b=$$(run $$tmp/base $$tmp/base.test); n=$$(run $(CURDIR) $$tmp/new.test); \
		echo "$$b $$n" | awk '{ printf "pair %d: base %s s %s MB, new %s s %s MB, new/base %.3f\n", '"$$i"', $$1, $$2, $$3, $$4, $$3 / $$1 }'; \
	done | tee $$tmp/pairs; \
	if [ $$(wc -l < $$tmp/pairs) -ne $(PAIRS) ]; then echo "bench-compare: a run of Scale/$(ROW) failed (is ROW a row of BenchmarkScale?)" >&2; exit 1; fi; \
	awk '{ print $$NF }' $$tmp/pairs | sort -n | awk '{ r[NR] = $$1 } \
		END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2; printf "median new/base %.3f (from %.3f to %.3f)\n", m, r[1], r[NR] }'

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The binary and every package but the tests, built for Windows and macOS (the tests need a
# Unix). Not in CI: a first build for another system compiles the standard library for it,
# about two minutes on 2 cores.
cross:
	GOOS=windows GOARCH=amd64 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(GO) build ./...

# The Endpoints builders against the real Endpoints controller of Kubernetes, on random
# Services and pods, and MirrorEndpoints against the real EndpointSlice mirroring controller,
# on random Endpoints objects (model/testdata/upstream/run.sh says how). Not in CI: the first
# run downloads k8s.io/kubernetes and compiles part of it, minutes on an empty build cache.
# STEPS is the syncs of a sequence (20 unless set).
#   make upstream-endpoints SEEDS=1-1000 STEPS=40
SEEDS ?= 1-200
STEPS ?=
diff_steps = $(if $(STEPS),EPSIM_DIFF_STEPS=$(STEPS))
upstream-endpoints:
	EPSIM_DIFF_SEEDS=$(SEEDS) $(diff_steps) GO=$(GO) bash model/testdata/upstream/run.sh endpoints

upstream-mirroring:
	EPSIM_DIFF_SEEDS=$(SEEDS) $(diff_steps) GO=$(GO) bash model/testdata/upstream/run.sh mirroring

# The Deployment controller's sync (pkg/controller/deployment) against the model's plan of
# it, one sync from each random state of a Deployment and its ReplicaSets (STEPS states a
# seed): `make upstream-deployment SEEDS=1-3000`.
upstream-deployment:
	EPSIM_DIFF_SEEDS=$(SEEDS) $(diff_steps) GO=$(GO) bash model/testdata/upstream/run.sh deployment

# The DaemonSet, StatefulSet and ReplicaSet controllers' syncs (pkg/controller/daemon,
# statefulset, replicaset) against every plan of the model's in random timelines (SEEDS: a
# timeline each, 1-20 unless set): `make upstream-daemonset SEEDS=1-100`.
upstream-daemonset:
	EPSIM_DIFF_SEEDS=$(if $(filter command line environment,$(origin SEEDS)),$(SEEDS),1-20) GO=$(GO) bash model/testdata/upstream/run.sh daemonset

upstream-statefulset:
	EPSIM_DIFF_SEEDS=$(if $(filter command line environment,$(origin SEEDS)),$(SEEDS),1-20) GO=$(GO) bash model/testdata/upstream/run.sh statefulset

upstream-replicaset:
	EPSIM_DIFF_SEEDS=$(if $(filter command line environment,$(origin SEEDS)),$(SEEDS),1-20) GO=$(GO) bash model/testdata/upstream/run.sh replicaset

# What the representative kube-proxy programs against the real kube-proxy's endpoint handling
# (pkg/proxy: its change trackers and CategorizeEndpoints), on random EndpointSlices of one
# Service: `make upstream-proxy SEEDS=1-20000`.
upstream-proxy:
	EPSIM_DIFF_SEEDS=$(SEEDS) $(diff_steps) GO=$(GO) bash model/testdata/upstream/run.sh proxy

# The EndpointSlice reconciler against k8s.io/endpointslice's on more random sequences than
# make test's (TestReconcileFullMatchesUpstreamLong: seeds 100001-100200 of 60 syncs, unless
# SEEDS or STEPS is set), logging every thousandth sequence. WORLDS=topology runs only the
# seeds whose world has a topology cache (every fourth), which the hints annotation uses.
#   make diff-slices SEEDS=300001-320000 STEPS=30
#   make diff-slices SEEDS=400001-440000 STEPS=60 WORLDS=topology
diff-slices:
	$(if $(filter command line environment,$(origin SEEDS)),EPSIM_DIFF_SEEDS=$(SEEDS)) $(diff_steps) \
		$(if $(WORLDS),EPSIM_DIFF_WORLDS=$(WORLDS)) \
		$(GO) test ./model -run '^TestReconcileFullMatchesUpstreamLong$$' -count=1 -v -timeout 0

# The wire sizes against the real serializers on more random objects than make test's: each
# seed of SEEDS (1-200 unless set) is 3,004 EndpointSlices and 2,002 Endpoints objects, each
# encoded in protobuf and JSON, as an object and as every kind of watch event, logging every
# hundredth seed.
#   make diff-sizes SEEDS=1-1000
diff-sizes:
	EPSIM_DIFF_SEEDS=$(SEEDS) $(GO) test ./model \
		-run '^Test(EndpointSlice|Endpoints)SizeMatchesSerializers$$' -count=1 -v -timeout 0

run: build
	./bin/sim run scenarios/5000-nodes.yaml

# The shipped scenarios, checked against their committed baselines (about a minute in all on
# 2 cores, most of it many-services and cluster-day). `make baselines` rewrites the baselines
# after an intended change of figures.
CHECK_SCENARIOS = scenarios/quick.yaml scenarios/zone-outage.yaml scenarios/dual-stack.yaml \
                  scenarios/truncation.yaml scenarios/5000-nodes.yaml \
                  scenarios/many-services.yaml scenarios/cluster-day.yaml

check: build
	./bin/sim check $(CHECK_SCENARIOS) --baseline-dir scenarios/baselines --quiet

baselines: build
	./bin/sim check $(CHECK_SCENARIOS) --baseline-dir scenarios/baselines --quiet --update-baseline

# cmd/sim/default.pgo is the CPU profile the Go compiler optimizes sim with (profile-guided
# optimization: `go build` and `go run` of ./cmd/sim apply it by themselves). `make pgo` makes
# it again from runs of the shipped scenarios, two of them with --out; do it when the hot
# code has moved (about a minute). A stale profile still builds, with less of the gain.
PGO_DIR = bin/pgo
pgo: build
	@rm -rf $(PGO_DIR) && mkdir -p $(PGO_DIR)
	@set -e; for s in $(CHECK_SCENARIOS); do \
		n=$$(basename $$s .yaml); echo "profile $$n"; \
		./bin/sim run $$s --quiet --cpuprofile $(PGO_DIR)/$$n.cpu >/dev/null; \
	done; \
	for n in 5000-nodes many-services; do \
		echo "profile $$n --out"; \
		./bin/sim run scenarios/$$n.yaml --quiet --out $(PGO_DIR)/out --cpuprofile $(PGO_DIR)/$$n-out.cpu >/dev/null; \
		rm -rf $(PGO_DIR)/out; \
	done
	$(GO) tool pprof -proto $(PGO_DIR)/*.cpu > cmd/sim/default.pgo
	@rm -rf $(PGO_DIR)

# Peak RSS of `sim run SCENARIO --quiet` (a shipped scenario, each build its own copy) built at
# revision BASE and from the working tree: RUNS runs of each, interleaved, in MB of 10^6 bytes,
# with how many stayed within LIMIT MB. A run's peak RSS moves by 10% and more with when its
# collections fall, so read the distributions. RSS_GOGC=off runs both without the collector,
# holding the same heap, to compare the memory outside it (internal/peakrss).
#   make rss-compare BASE=HEAD~1 SCENARIO=many-services RUNS=20 LIMIT=250
SCENARIO ?= many-services
RUNS ?= 20
LIMIT ?= 0
RSS_GOGC ?=
rss-compare:
	@set -e; tmp=$$(mktemp -d); \
	trap 'git worktree remove --force '"$$tmp"'/base >/dev/null 2>&1 || true; rm -rf '"$$tmp" EXIT; \
	git worktree add --quiet --detach $$tmp/base $(BASE); \
	(cd $$tmp/base && $(GO) build -o $$tmp/sim.base ./cmd/sim); \
	$(GO) build -o $$tmp/sim.new ./cmd/sim; \
	$(GO) build -o $$tmp/peakrss ./internal/peakrss; \
	echo "$(SCENARIO): BASE=$(BASE) against the working tree, $(RUNS) runs each"; \
	$$tmp/peakrss -runs $(RUNS) -limit $(LIMIT) $(if $(RSS_GOGC),-gogc $(RSS_GOGC)) \
		-base $$tmp/sim.base -new $$tmp/sim.new -- run $(SCENARIO) --quiet

# Issue 15's scale goals as users meet them (internal/goals): `sim run --quiet` of 5000-nodes,
# many-services, one Service of 100k pods, 50,000 Services of 10 pods and cluster-day, each
# in a process of its own, ROUNDS rounds of every goal once (so that the machine's drift
# falls on all alike), with each goal's CPU seconds and peak RSS against its limits: the
# spread, the median and how many runs stayed within; each round also times a fixed
# workload (reference), the machine's speed of the moment. About 35 s a round on 2 cores.
# GOALS=many-services,cluster-day runs some of them.
#   make goals ROUNDS=5 GOALS=many-services
ROUNDS ?= 3
GOALS ?=
goals: build
	$(GO) run ./internal/goals -sim bin/sim -rounds $(ROUNDS) $(if $(GOALS),-only $(GOALS))

# Instructions executed by `sim run SCENARIO --quiet` (a shipped scenario or a file) built at
# revision BASE and from the working tree, each with its own default.pgo, counted by
# valgrind's callgrind on one thread (GOMAXPROCS=1, GOGC=off, no asynchronous preemption),
# the runtime kept off RDTSCP (cpu.rdtscp=off), which valgrind 3.19 cannot decode: with it,
# Go 1.26's cputicks stops the run at once with SIGILL.
# Unlike CPU time, which drifts by 10% and more within minutes on a shared machine, the count
# repeats to within 0.1%: a change of half a percent shows in one run of each. It counts
# instructions, not cache misses or the collector's work: confirm a gain in time with
# bench-compare. Needs valgrind (Debian: apt-get install valgrind); under it many-services
# takes about 5 minutes, quick a few seconds.
#   make instr-compare BASE=HEAD~1 SCENARIO=quick
instr-compare:
	@set -e; command -v valgrind >/dev/null || { echo "instr-compare: needs valgrind" >&2; exit 1; }; \
	tmp=$$(mktemp -d); \
	trap 'git worktree remove --force '"$$tmp"'/base >/dev/null 2>&1 || true; rm -rf '"$$tmp" EXIT; \
	git worktree add --quiet --detach $$tmp/base $(BASE); \
	build() { pgo=off; [ -f $$1/cmd/sim/default.pgo ] && pgo=$$1/cmd/sim/default.pgo; \
		(cd $$1 && $(GO) build -pgo=$$pgo -o $$2 ./cmd/sim); }; \
	build $$tmp/base $$tmp/sim.base; build $(CURDIR) $$tmp/sim.new; \
	count() { GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 GOGC=off valgrind --tool=callgrind \
		--callgrind-out-file=$$tmp/out --log-file=$$tmp/log $$1 run $(SCENARIO) --quiet >/dev/null 2>$$tmp/err || \
		{ cat $$tmp/err >&2; return 1; }; \
		awk '/refs:/ { gsub(",", "", $$NF); n = $$NF } END { if (n == "") exit 1; print n }' $$tmp/log; }; \
	b=$$(count $$tmp/sim.base) || { echo "instr-compare: the base run failed" >&2; exit 1; }; \
	n=$$(count $$tmp/sim.new) || { echo "instr-compare: the working tree's run failed" >&2; exit 1; }; \
	echo "$$b $$n" | awk '{ printf "$(SCENARIO): BASE=$(BASE) %.1f M instructions, working tree %.1f M, new/base %.4f\n", $$1 / 1e6, $$2 / 1e6, $$2 / $$1 }'

# Every fuzz target of FUZZ_PKGS for FUZZTIME each (CI: 4s each, about 2 minutes in all with
# the instrumented build). The default packages parse user input: scenarios, plans, units,
# sim plot's CSV and JSON, and the JSON parser under the trace readers (internal/jsonparse).
# model and trace fuzz targets run their seed corpora in `make test`;
# fuzzing them (FUZZ_PKGS=./...) first builds their tests' Kubernetes dependencies with
# fuzzing instrumentation, which takes over ten minutes on 2 cores.
FUZZTIME ?= 4s
FUZZ_PKGS ?= ./scenarios ./reports ./cmd/sim ./internal/jsonparse
#
# A target that fails is shown and run again, up to FUZZTRIES runs in all: a failing input
# the fuzzer found is written to the package's testdata/fuzz and fails every rerun too. A
# failure that does not come back (a bare "context deadline exceeded" at the end of
# FUZZTIME with no input recorded: Go's fuzz coordinator can report its own -fuzztime
# deadline as a failure, golang/go#75804, fixed in Go 1.27) is reported as such and does
# not fail the build. That race fails a run once in 11 to 25, loaded machine or not (three
# of the 34 runs of the 17 targets in two CI runs of 2026-12-05; once in two or three dozen
# before): with one rerun, the race hitting a target twice would redden one CI run in 7 to
# 40; with two reruns, one in 80 to 900.
FUZZTRIES ?= 3
#
# FUZZMINIMIZE caps the time spent shrinking each new input that widens coverage (Go's
# -fuzzminimizetime, 60s unless set): on a fresh machine FuzzParse's first such input, a
# shipped scenario, took all of a 4s FUZZTIME to shrink, and the target ran 18 inputs
# where it runs some 20,000 with 1s (2026-12-07). A failing input is recorded whole or
# shrunk within the cap.
FUZZMINIMIZE ?= 1s
fuzz:
	@set -e; out=$$(mktemp); trap 'rm -f $$out' EXIT; \
	for pkg in $$($(GO) list $(FUZZ_PKGS)); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$f"; \
			try=1; \
			until $(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) >$$out 2>&1; do \
				cat $$out; \
				if [ $$try -ge $(FUZZTRIES) ]; then echo "fuzz $$pkg $$f failed $$try times"; exit 1; fi; \
				try=$$((try + 1)); echo "fuzz $$pkg $$f failed; running it again"; \
			done; \
			if [ $$try -gt 1 ]; then \
				echo "warning: fuzz $$pkg $$f failed, above, and passed again with no failing input recorded"; \
			fi; \
		done; \
	done
