# kubectl-chart build, test and benchmark entry points; `make help` lists them.
# `make test` is the project's test command (CONTRIBUTING.md); CI runs it through .ci/run.

GO        ?= go
BIN       := bin/kubectl-chart
PKG       := github.com/kubectl-chart/kubectl-chart
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
CONFORMANCE ?= ../shared/conformance
GOLANGCI_VERSION ?= v2.6.2
TOOLS_BIN := $(CURDIR)/.cache/tools
GOLANGCI  := $(TOOLS_BIN)/golangci-lint

.DEFAULT_GOAL := all

.PHONY: help
## help: list the targets with what they do (from the `## target:` comments of this Makefile).
help:
	@awk '/^## [a-z][a-z0-9-]*:/ { sub(/^## /, ""); n = index($$0, ":"); \
		printf "  %-18s %s\n", substr($$0, 1, n - 1), substr($$0, n + 2); next } \
		/^## / { sub(/^## /, ""); printf "  %-18s %s\n", "", $$0 }' $(firstword $(MAKEFILE_LIST))

.PHONY: peers
## peers: build what unit tests compare with or run into the cache, once: the Helm peers
## (v4.3.1, v3.22.0) and kubectl (hack/tool-peer.sh). In CI ($CI=true) a test missing one fails.
peers:
	@hack/helm-peer.sh v4.3.1 >/dev/null && hack/helm-peer.sh v3.22.0 >/dev/null && hack/tool-peer.sh kubectl >/dev/null

.PHONY: all build check test test-unit test-conformance test-fuzz test-e2e lint bench clean dev-cluster dev-cluster-down

## all: the default goal, build.
all: build

## build: bin/kubectl-chart, stamped with the version and commit, with wazero's package initialisers
## made lazy (hack/wazero-lazyinit.sh, hack/wazero-lazyinit).
build:
	gowork=$$(hack/wazero-lazyinit.sh) && GOWORK=$$gowork GOFLAGS="$(filter-out -mod=%,$(GOFLAGS))" CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kubectl-chart

## check: the fast loop before a commit (hack/check.sh, a minute or two with warm caches): gofmt, lint
## and go test -short of the changed files' packages, go build and go vet of all, the dependency
## rule; CHECK_PKGS=./domain/... checks those instead, CHECK_BASE=REV measures changes from REV.
check: $(GOLANGCI)
	@GO=$(GO) GOLANGCI=$(GOLANGCI) hack/check.sh

## test: the project's test command (CI): lint (gofmt, vet, golangci-lint, installed once when missing),
## unit tests with the dependency rule, short fuzzing, render conformance, a bounded difftest,
## end-to-end tests, the Krew install test.
test: lint test-unit test-fuzz test-conformance test-difftest test-e2e krew-test

## test-unit: every package but those under test/, under the race detector (needs cgo and gcc).
## The peers are built first: unit tests compare with them (and fail in CI without them).
## The conformance corpus is needed too (CONFORMANCE): the tests reading it fail in CI without it.
test-unit: peers
	@test -d $(CONFORMANCE)/corpus || { echo "conformance corpus not found at $(CONFORMANCE)"; exit 1; }
	CONFORMANCE=$(abspath $(CONFORMANCE)) CGO_ENABLED=1 $(GO) test -race -count=1 -timeout=30m $$($(GO) list ./... | grep -v '/test/')

## test-fuzz: every fuzz target briefly (FUZZTIME each, default 100000 executions; hack/fuzz.sh).
test-fuzz:
	@hack/fuzz.sh

## test-conformance: the render conformance corpus (CONFORMANCE=../shared/conformance) in both dialects, byte for byte.
test-conformance: build
	@test -d $(CONFORMANCE) || { echo "conformance corpus not found at $(CONFORMANCE)"; exit 1; }
	hack/conformance.sh $(CONFORMANCE) ./$(BIN)

## test-difftest: a bounded, deterministic differential run (seed 7, 250 cases per dialect, about
## 1-2 minutes, and 150 of the command-availability probes per dialect the seed draws, about 20
## seconds a dialect; DIFFTEST_CMDTREE=N for another number); the Helm peers are built or found by
## hack/helm-peer.sh, as the end-to-end tests do.
## Then the stack mode: 8 generated state files per dialect, stack template vs helmfile template
## (helmfile from hack/tool-peer.sh; DIFFTEST_STACKS=N for more).
## Then the release-command sequences of difftest-sequences (a real control plane, about 2-3 minutes).
.PHONY: test-difftest
test-difftest: build
	@DIFFTEST_SEED=7 DIFFTEST_CASES=250 DIFFTEST_DIALECT=both DIFFTEST_CMDTREE=$${DIFFTEST_CMDTREE:-150} DIFFTEST_WRITE= hack/difftest.sh
	@DIFFTEST_SEED=7 DIFFTEST_STACKS=$${DIFFTEST_STACKS:-8} $(GO) test -count=1 -run TestStacksLikeHelmfile ./test/difftest/stacks
	$(GO) test -tags sequences -count=1 -timeout=30m ./test/difftest/sequences

## difftest: the differential tester against Helm v3.22.0 and v4.3.1 (hack/difftest.sh):
## DIFFTEST_CASES, DIFFTEST_SEED (default fresh, printed), DIFFTEST_DIALECT=helm3|helm4|both;
## DIFFTEST_SEQUENCES=N runs N release-command sequences per dialect on a cluster instead
## ($KUBECTL_CHART_TEST_KUBECONFIG's, else one started for the run).
## Prints `difftest DIALECT: N cases, M differences` per dialect; fails when M > 0.
.PHONY: difftest
difftest: build
	@hack/difftest.sh

## difftest-cmdtree: the command-availability axis alone, every probe (both Helms' command trees and
## ours installed as helm: help, unknown flags and subcommands, every flag); `make test-difftest`
## runs a seed-drawn part of it.
.PHONY: difftest-cmdtree
difftest-cmdtree: build
	@DIFFTEST_SEED=7 DIFFTEST_CASES=0 DIFFTEST_CMDTREE=-1 DIFFTEST_WRITE= hack/difftest.sh

## difftest-sequences: the bounded release-command run (seed 11, 24 sequences per dialect,
## test/difftest/sequences, build tag sequences), also part of `make test-difftest`.
.PHONY: difftest-sequences
difftest-sequences: build
	$(GO) test -tags sequences -count=1 -timeout=30m ./test/difftest/sequences

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

# Copies of upstream code are upstream's bytes (test/forkcheck), formatted or not.
GOFMT_FILES = $$(git ls-files '*.go' ':!:domain/internal/yamlv2/*')
## lint: gofmt of every Go file (but copies of upstream code), go vet and golangci-lint (GOLANGCI_VERSION,
## installed into .cache/tools once).
lint: $(GOLANGCI)
	@test -z "$$(gofmt -l $(GOFMT_FILES))" || { gofmt -l $(GOFMT_FILES); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet -tags e2e ./...
	$(GOLANGCI) run ./...

$(GOLANGCI):
	GOBIN=$(TOOLS_BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

## bench: in-process and whole-process benchmarks side by side with Helm (hack/bench.sh [SECTION...]),
## ending with the summary table (docs/performance.md).
bench: build
	@hack/bench.sh

## dev-cluster: start the local control plane in the background (hack/dev-cluster.sh; prints its KUBECONFIG).
dev-cluster:
	@hack/dev-cluster.sh up

## dev-cluster-down: stop the local control plane.
dev-cluster-down:
	@hack/dev-cluster.sh down

## clean: remove bin/ and dist/.
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
