# kubectl-chart build, test and benchmark entry points.
# `make test` is the project's test command (README.md); CI runs it through .ci/run.

GO        ?= go
BIN       := bin/kubectl-chart
PKG       := github.com/kubectl-chart/kubectl-chart
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
CONFORMANCE ?= ../shared/conformance
GOLANGCI_VERSION ?= v2.6.2
TOOLS_BIN := $(CURDIR)/.cache/tools

.PHONY: peers
## peers: build what unit tests compare with or run into the cache, once: the Helm peers
## (v4.3.1, v3.22.0) and kubectl (hack/tool-peer.sh). In CI ($CI=true) a test missing one fails.
peers:
	@hack/helm-peer.sh v4.3.1 >/dev/null && hack/helm-peer.sh v3.22.0 >/dev/null && hack/tool-peer.sh kubectl >/dev/null

.PHONY: all build test test-unit test-conformance test-fuzz test-e2e lint bench clean dev-cluster dev-cluster-down

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kubectl-chart

## test: unit tests (with the dependency rule), short fuzzing, render conformance, then end-to-end tests.
test: test-unit test-fuzz test-conformance test-difftest test-e2e krew-test

## test-unit: every package but those under test/, under the race detector (needs cgo and gcc).
## The peers are built first: unit tests compare with them (and fail in CI without them).
## The conformance corpus is needed too (CONFORMANCE): the tests reading it fail in CI without it.
test-unit: peers
	@test -d $(CONFORMANCE)/corpus || { echo "conformance corpus not found at $(CONFORMANCE)"; exit 1; }
	CONFORMANCE=$(abspath $(CONFORMANCE)) CGO_ENABLED=1 $(GO) test -race -count=1 $$($(GO) list ./... | grep -v '/test/')

test-fuzz:
	@hack/fuzz.sh

test-conformance: build
	@test -d $(CONFORMANCE) || { echo "conformance corpus not found at $(CONFORMANCE)"; exit 1; }
	hack/conformance.sh $(CONFORMANCE) ./$(BIN)

## test-difftest: a bounded, deterministic differential run (seed 7, 250 cases per dialect, about
## 1-2 minutes); the Helm peers are built or found by hack/helm-peer.sh, as the end-to-end tests do.
.PHONY: test-difftest
test-difftest: build
	@DIFFTEST_SEED=7 DIFFTEST_CASES=250 DIFFTEST_DIALECT=both DIFFTEST_WRITE= hack/difftest.sh

## difftest: the differential tester against Helm v3.22.0 and v4.3.1 (hack/difftest.sh):
## DIFFTEST_CASES, DIFFTEST_SEED (default fresh, printed), DIFFTEST_DIALECT=helm3|helm4|both.
## Prints `difftest DIALECT: N cases, M differences` per dialect; fails when M > 0.
.PHONY: difftest
difftest: build
	@hack/difftest.sh

## test-e2e: every package under test/ (build tag e2e), each on a control plane of its own; among them the bounded
## fault suite (test/e2e/chaos, about 3 minutes), whose summary table is printed at the end.
CHAOS_SUMMARY := $(CURDIR)/.cache/chaos-summary.txt
test-e2e:
	@mkdir -p $(dir $(CHAOS_SUMMARY)) && rm -f $(CHAOS_SUMMARY)
	@KUBECTL_CHART_CHAOS_SUMMARY=$(CHAOS_SUMMARY) hack/e2e.sh; status=$$?; cat $(CHAOS_SUMMARY) 2>/dev/null; exit $$status

## chaos: the full fault suite (KUBECTL_CHART_CHAOS=full; KUBECTL_CHART_CHAOS_SEED=N repeats a run):
## kill -9 at 120 points of install/upgrade/rollback/uninstall/test, API server restarts mid-upgrade,
## a proxy failing 10% of requests, 4x25 racing upgrades, Helm v4 racing us, bbolt writers killed.
.PHONY: chaos
chaos:
	@CHAOS_SUMMARY=$(CHAOS_SUMMARY) hack/chaos.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet -tags e2e ./...
	@test -x $(TOOLS_BIN)/golangci-lint || GOBIN=$(TOOLS_BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	$(TOOLS_BIN)/golangci-lint run ./...

bench: build
	@hack/bench.sh

dev-cluster:
	@hack/dev-cluster.sh up

dev-cluster-down:
	@hack/dev-cluster.sh down

clean:
	rm -rf bin dist

# --- distribution and extension: Krew archives, Krew install test, demo ---
.PHONY: dist krew-test demo

## dist: reproducible release archives and dist/chart.yaml (the Krew manifest with URIs and sha256).
dist:
	@hack/dist.sh

## krew-test: build krew v0.5.0, validate dist/chart.yaml, install through Krew (archive and a local index), run it through kubectl.
krew-test:
	@CONFORMANCE=$(CONFORMANCE) hack/krew-test.sh

## demo: build, start the local control plane, install an example chart with the bbolt store, show list/status/history.
demo: build
	@hack/demo.sh

# --- sharing: create, lint, package, repositories, OCI registries, dependencies, provenance ---
.PHONY: test-sharing
## test-sharing: the sharing packages' unit tests and end-to-end round trips (part of test-unit and test-e2e).
test-sharing:
	$(GO) test -tags e2e -count=1 ./domain/chart/archive/... ./domain/create/... ./domain/lint/... ./domain/repo/... \
		./domain/show/... ./adapters/repo/... ./adapters/oci/... ./adapters/provenance/... ./adapters/chartsource/... \
		./test/e2e/sharing/...
