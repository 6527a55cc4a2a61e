# epsim — see README.md. Every target works on a fresh machine with only Go installed.
GO ?= go

.PHONY: build test bench lint run check

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

check: build
	./bin/sim check scenarios/*.yaml --baseline-dir scenarios/baselines
