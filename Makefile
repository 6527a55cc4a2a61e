# epsim — see README.md. Every target works on a fresh machine with only Go installed.
GO ?= go

.PHONY: build test bench lint run check baselines

build:
	$(GO) build -o bin/sim ./cmd/sim

test: lint
	$(GO) test ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

run: build
	./bin/sim run scenarios/5000-nodes.yaml

# The shipped scenarios that run in a few seconds, checked against their committed
# baselines (many-services takes over 20 s and is left out). `make baselines`
# rewrites the baselines after an intended change of figures.
CHECK_SCENARIOS = scenarios/quick.yaml scenarios/zone-outage.yaml scenarios/dual-stack.yaml \
                  scenarios/truncation.yaml scenarios/5000-nodes.yaml

check: build
	./bin/sim check $(CHECK_SCENARIOS) --baseline-dir scenarios/baselines --quiet

baselines: build
	./bin/sim check $(CHECK_SCENARIOS) --baseline-dir scenarios/baselines --quiet --update-baseline
