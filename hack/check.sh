#!/usr/bin/env bash
# hack/check.sh — `make check`, the fast loop before a commit (a minute or two with warm caches):
#
#   1. gofmt of the Go files changed since the branch left main (committed or not; not the
#      copies of upstream code that keep upstream's formatting);
#   2. go build of every package but the programs (linking them is most of a build's time; `go vet`
#      type-checks them and `make build` links kubectl-chart), then go vet ./...;
#   3. golangci-lint of the packages whose files changed (Go files or testdata; `make lint` lints
#      every package);
#   4. go test -short of those packages and of the module's root package (the dependency rule,
#      architecture_test.go): tests that take minutes skip, no race detector, results cached by
#      go test, end-to-end packages (test/e2e/...) left out since they need a cluster.
#
# `make test` (race detector, fuzzing, conformance, difftest, end-to-end, Krew) stays the gate.
#
#   CHECK_BASE   what "changed" is measured from (default: the merge base with main, else HEAD)
#   CHECK_PKGS   packages to lint and test instead of the changed ones, e.g. ./domain/... (or ./...)
#   GOLANGCI     golangci-lint binary (default .cache/tools/golangci-lint, installed by make lint)
#   GOLANGCI_LINT_CACHE  its cache (default .cache/golangci-lint in this checkout)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
GOLANGCI=${GOLANGCI:-.cache/tools/golangci-lint}
base=${CHECK_BASE:-$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD)}

# Each step is announced with the seconds spent so far, so a slow one shows.
step() { printf 'check: [%3ds] %s\n' "$SECONDS" "$*" >&2; }

# Files changed since base: committed on this branch, staged, unstaged and untracked.
changed=$( { git diff --name-only "$base" -- ; git ls-files --others --exclude-standard; } | sort -u)

# The package a changed file belongs to: its directory, or for testdata and other
# non-Go files the nearest directory above that holds Go files; nothing for a file of a
# module of its own (hack/gen-apiversions).
package_of() {
	local d
	d=$(dirname "$1")
	while [[ $d != . ]]; do
		[[ -f $d/go.mod ]] && return
		if compgen -G "$d/*.go" >/dev/null; then
			printf './%s\n' "$d"
			return
		fi
		d=$(dirname "$d")
	done
	printf '.\n'
}

step "gofmt"
# Copies of upstream code keep upstream's bytes, formatted or not (test/forkcheck).
gofiles=$(grep '\.go$' <<<"$changed" | grep -v '^domain/internal/yamlv2/' || true)
existing=()
for f in $gofiles; do [[ -f $f ]] && existing+=("$f"); done
if ((${#existing[@]})); then
	unformatted=$(gofmt -l "${existing[@]}")
	if [[ -n $unformatted ]]; then
		printf '%s\n' "$unformatted"
		echo "gofmt: files above need formatting" >&2
		exit 1
	fi
fi

step "go build (packages; programs are type-checked by vet)"
mapfile -t libs < <($GO list -f '{{if and (ne .Name "main") .GoFiles}}{{.ImportPath}}{{end}}' ./...)
$GO build "${libs[@]}"
step "go vet ./..."
$GO vet ./...

# The packages to lint and test: CHECK_PKGS, else those holding a changed file.
if [[ -n ${CHECK_PKGS:-} ]]; then
	read -r -a pkgs <<<"$CHECK_PKGS"
else
	pkgs=()
	while IFS= read -r f; do
		[[ -z $f ]] && continue
		[[ -e $f ]] || continue # deleted: its package, if any, shows through its other files
		pkgs+=("$(package_of "$f")")
	done <<<"$changed"
	mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | grep . | sort -u)
fi

if [[ ! -x $GOLANGCI ]]; then
	echo "check: $GOLANGCI not found; make lint installs it" >&2
	exit 1
fi
if ((${#pkgs[@]})); then
	step "golangci-lint run ${pkgs[*]}"
	# A cache of this checkout's own: golangci-lint locks its cache for a whole run, so a
	# shared one makes every checkout on the machine wait for the others' runs. Runs in this
	# checkout wait for each other rather than fail.
	export GOLANGCI_LINT_CACHE=${GOLANGCI_LINT_CACHE:-$PWD/.cache/golangci-lint}
	"$GOLANGCI" run --allow-serial-runners "${pkgs[@]}"
fi

# Tests: those packages but the end-to-end ones, and the root package (the dependency rule).
testable=(.)
for p in "${pkgs[@]}"; do
	[[ $p =~ ^\./test/e2e(/|$) ]] && continue
	testable+=("$p")
done
mapfile -t testable < <(printf '%s\n' "${testable[@]}" | sort -u)
step "go test -short ${testable[*]}"
$GO test -short "${testable[@]}"
step "done"
