#!/usr/bin/env bash
# hack/bench.sh [SECTION...] — kubectl-chart benchmarks (`make bench` runs every section).
#
# Sections (no argument = all, in this order):
#   go       in-process Go benchmarks: go test -bench=. -benchmem ./domain/...
#   render   whole-process `template` timing and peak RSS, kubectl-chart vs the Helm peer
#   list     `list -A` over 1,000 releases x 10 revisions in Secrets on a throw-away control plane,
#            kubectl-chart vs the Helm peer (test/e2e/releases/bench-list.sh; target ratio <= 0.2)
#   install  install and no-change upgrade of a generated 500-object chart on a live control
#            plane, kubectl-chart vs the Helm peer (hack/bench-install.sh)
#   diff     `diff upgrade` of kube-prometheus-stack (corpus chart, installed on a control plane of
#            its own), no change and one --set, kubectl-chart vs the Helm peer doing the same
#            (`helm diff upgrade` when helm-diff can be built, else `helm upgrade --dry-run=server`,
#            Helm v4.3.1 and v3.22.0); target <= 1.5 s and <= 0.5x the peer (hack/bench-diff.sh)
#
# Adding a section: write a function section_<name> and add <name> to SECTIONS.
#
# Environment:
#   BIN           kubectl-chart binary (default bin/kubectl-chart, from `make build`)
#   HELM          Helm binary to compare with (default: built/cached by hack/helm-peer.sh)
#   CONFORMANCE   conformance directory holding corpus/ (default ../shared/conformance,
#                 relative to the repository root)
#   BENCH_RUNS    measured runs per binary and chart (default 15)
#   BENCH_WARMUP  unmeasured warm-up runs per binary and chart before those (default 2)
#   BENCH_CHARTS  corpus charts for `render` (default: kube-prometheus-stack argo-cd istio-base)
#
# Benchmarks only report, they never assert timing. Render target (documented, not enforced):
# kubectl-chart median wall time <= 0.6 x Helm's (ratio column). A chart kubectl-chart cannot
# render yet shows "error" in its columns and does not fail the run.
set -euo pipefail

SECTIONS=(go render install list diff)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

GO="${GO:-go}"
BIN="${BIN:-bin/kubectl-chart}"
CONFORMANCE="${CONFORMANCE:-../shared/conformance}"
BENCH_RUNS="${BENCH_RUNS:-15}"
BENCH_WARMUP="${BENCH_WARMUP:-2}"
BENCH_CHARTS="${BENCH_CHARTS:-kube-prometheus-stack argo-cd istio-base}"

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
title() { printf '\n== %s ==\n' "$*"; }

usage() {
	echo "usage: hack/bench.sh [SECTION...]   sections: ${SECTIONS[*]} (no argument: all)" >&2
}

# go: the in-process Go benchmarks under domain/ (Benchmark* functions in *_test.go).
section_go() {
	title "Go benchmarks (./domain/...)"
	if ! grep -rqsE --include='*_test.go' '^func Benchmark' domain; then
		log "no Benchmark functions under domain/ yet; skipping"
		return 0
	fi
	"$GO" test -run='^$' -bench=. -benchmem ./domain/...
}

# render: `template` of large corpus charts, whole process, kubectl-chart vs Helm.
section_render() {
	title "template: kubectl-chart vs Helm (whole process, ${BENCH_RUNS} runs, target ratio <= 0.6)"
	[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
	local corpus="$CONFORMANCE/corpus"
	[[ -d $corpus ]] || die "conformance corpus not found at $corpus (set CONFORMANCE)"
	local helm="${HELM:-}"
	if [[ -z $helm ]]; then
		helm="$("$root/hack/helm-peer.sh")" || die "could not get the Helm peer (hack/helm-peer.sh)"
	fi
	[[ -x $helm ]] || die "Helm binary $helm not executable"
	log "kubectl-chart: $BIN; helm: $helm ($("$helm" version --short 2>/dev/null || echo 'version unknown'))"

	# kube-prometheus-stack's corpus copy lacks its vendored dependencies; measure a
	# copy with them restored (hack/corpus-restore.sh), so both sides can render it.
	local restored
	restored="$(mktemp -d)"
	trap 'rm -rf "$restored"' RETURN
	"$root/hack/corpus-restore.sh" "$corpus" "$restored"

	local charts
	read -ra charts <<<"$BENCH_CHARTS"
	local IFS=,
	"$GO" run ./hack/benchcmp \
		-corpus "$restored" -charts "${charts[*]}" \
		-a "$BIN" -a-name kubectl-chart -b "$helm" -b-name helm \
		-runs "$BENCH_RUNS" -warmup "$BENCH_WARMUP" \
		-- template rel chart --namespace demo --kube-version 1.31.0
}

# install: install, then a no-change upgrade, of 500 objects on the same control plane.
section_install() {
	title "install / no-change upgrade: kubectl-chart vs Helm (500 objects, whole process)"
	BIN="$BIN" "$root/hack/bench-install.sh"
}

# list: `list -A` with 1,000 releases x 10 revisions in Secrets, kubectl-chart vs Helm.
section_list() {
	title "list -A: 1,000 releases x 10 revisions in Secrets, kubectl-chart vs Helm (target ratio <= 0.2)"
	BIN="$BIN" GO="$GO" "$root/test/e2e/releases/bench-list.sh"
}

# diff: `diff upgrade` of kube-prometheus-stack, no change and one --set, kubectl-chart vs Helm.
section_diff() {
	title "diff upgrade: kube-prometheus-stack, kubectl-chart vs Helm (whole process, ${BENCH_RUNS} runs, target <= 1.5 s and <= 0.5x)"
	BIN="$BIN" GO="$GO" CONFORMANCE="$CONFORMANCE" BENCH_RUNS="$BENCH_RUNS" BENCH_WARMUP="$BENCH_WARMUP" \
		"$root/hack/bench-diff.sh"
}

main() {
	local selected=("$@") s rc failed=()
	((${#selected[@]})) || selected=("${SECTIONS[@]}")
	for s in "${selected[@]}"; do
		case $s in
		-h | --help | help) usage; return 0 ;;
		esac
		[[ " ${SECTIONS[*]} " == *" $s "* ]] || { usage; die "unknown section '$s'"; }
	done
	for s in "${selected[@]}"; do
		# Each section runs in its own subshell, with errexit in force (it would not be inside
		# an `if`), so one failing section (e.g. a Go benchmark that does not compile) still
		# lets the others report; the script then fails at the end.
		set +e
		(
			set -e
			"section_$s"
		)
		rc=$?
		set -e
		if ((rc != 0)); then
			log "section '$s' failed (exit $rc)"
			failed+=("$s")
		fi
	done
	if ((${#failed[@]})); then
		die "failed sections: ${failed[*]}"
	fi
}

# On one line: bash reads a script as it runs it, so an edit made meanwhile cannot run stray lines.
main "$@"; exit
