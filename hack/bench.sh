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
#   drift    `drift -A` over 200 releases x 10 objects (ConfigMaps, Secrets, Services) in 20
#            namespaces, 20 of them drifted (hack/driftseed), on a throw-away control plane
#            (KUBECONFIG: that cluster instead); whole process, target < 2 s
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

SECTIONS=(go render install list diff drift)

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

# drift: `drift -A` over 200 releases of 10 objects each (hack/driftseed); no Helm peer (Helm has
# no drift). A fresh control plane of its own unless KUBECONFIG is set (then its namespaces
# drift-bench-NN are deleted afterwards).
section_drift() {
	title "drift -A: 200 releases x 10 objects in 20 namespaces (whole process, ${BENCH_RUNS} runs, target < 2 s)"
	[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
	local bin line i rc
	bin="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
	# Not local: the EXIT trap runs after the function returned (the section runs in a subshell
	# of its own, whose end is EXIT).
	work="$(mktemp -d)"
	trap '
		if [[ -d $work/cluster ]]; then "$work/devcluster" down -state "$work/cluster" >/dev/null 2>&1 || true
		elif [[ -x $work/driftseed ]]; then "$work/driftseed" -delete >/dev/null 2>&1 || true; fi
		rm -rf "$work"' EXIT
	"$GO" build -o "$work/driftseed" ./hack/driftseed
	if [[ -z ${KUBECONFIG:-} ]]; then
		"$GO" build -o "$work/devcluster" ./hack/devcluster
		line="$("$work/devcluster" up -state "$work/cluster" | tail -n 1)"
		export KUBECONFIG="${line#export KUBECONFIG=}"
	fi
	[[ -f $KUBECONFIG ]] || die "kubeconfig $KUBECONFIG not found"
	export KUBECTL_CHART_STORAGE=secret
	"$work/driftseed" -releases 200 -namespaces 20 -drifted 10
	# Check once that it reports what was seeded (20 drifted releases). On a cluster of one's
	# own, a release that cannot be read makes drift -A exit 1: it is still measured.
	rc=0
	"$bin" drift -A -o json >"$work/drift.json" || rc=$?
	((rc == 0)) || log "warning: drift -A exited $rc"
	log "drift -A reports $(grep -c '"drifted": true' "$work/drift.json") drifted release(s) of $(grep -c '"release":' "$work/drift.json")"
	for ((i = 0; i < BENCH_WARMUP; i++)); do "$bin" drift -A >/dev/null 2>&1 || true; done
	# Wall time and CPU time (user + system) of each run, by bash's time.
	local TIMEFORMAT='%3R %3U %3S' samples=""
	for ((i = 0; i < BENCH_RUNS; i++)); do
		samples+="$({ time "$bin" drift -A >/dev/null 2>&1 || true; } 2>&1)"$'\n'
	done
	printf '%s' "$samples" | awk '
		{ wall[NR] = $1; cpu[NR] = $2 + $3 }
		# Sorts a in place: then a[1] is the minimum and a[n] the maximum.
		function median(a, n,    i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			return a[int((n + 1) / 2)]
		}
		END {
			n = NR; mw = median(wall, n); mc = median(cpu, n)
			printf "%-40s %10s %10s %10s %12s   %s\n", "", "median", "min", "max", "CPU median", "target"
			printf "%-40s %8.2f s %8.2f s %8.2f s %10.2f s   %s\n", "kubectl-chart drift -A (2,000 objects)", mw, wall[1], wall[n], mc, "< 2 s"
		}'
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
