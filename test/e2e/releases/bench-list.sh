#!/usr/bin/env bash
# test/e2e/releases/bench-list.sh — the `list` section of hack/bench.sh.
#
# `list -A` over 1,000 releases × 10 revisions stored in Secrets, kubectl-chart vs
# Helm on the same throw-away control plane (hack/devcluster with a private state
# directory, stopped at the end), whole process, wall time and peak RSS
# (hack/benchcmp). Two record sets are measured:
#   kubectl-chart records  written by kubectl-chart (Helm's format plus the summary
#                          annotation): listing reads metadata only
#   helm-format records    the same records without the annotation, as Helm writes
#                          them: kubectl-chart decodes them, as Helm does
# Helm 4 and Helm 3 list the same records in the same rounds.
# Targets (documented, not enforced, issue 17): Helm-written records at most 0.05 x Helm 4's
# time; our records about 0.02 x.
#
# Environment: BIN (default bin/kubectl-chart), HELM (Helm 4, default hack/helm-peer.sh
# v4.3.1), HELM3 (default hack/helm-peer.sh v3.22.0), BENCH_TSV (append the medians there,
# for hack/bench.sh's summary),
# BENCH_LIST_RELEASES (1000), BENCH_LIST_REVISIONS (10), BENCH_RUNS (5 here), BENCH_WARMUP (1 here;
# hack/bench.sh passes its BENCH_LIST_RUNS and BENCH_LIST_WARMUP, 3 and 0 by default),
# BENCH_LIST_HELM_FORMAT (1: also measure helm-format records; 0: skip).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
GO="${GO:-go}"
releases="${BENCH_LIST_RELEASES:-1000}"
revisions="${BENCH_LIST_REVISIONS:-10}"
runs="${BENCH_RUNS:-5}"
log() { printf 'bench list: %s\n' "$*" >&2; }
# shellcheck source=hack/lib/benchlist.sh
source "$root/hack/lib/benchlist.sh"
benchlist_binaries

state="$(mktemp -d)"
cleanup() {
	"$GO" run ./hack/devcluster down -state "$state/cluster" >/dev/null 2>&1 || true
	rm -rf "$state"
}
trap cleanup EXIT
"$GO" build -o "$state/devcluster" ./hack/devcluster
"$GO" build -tags e2e -o "$state/benchseed" ./test/e2e/releases/benchseed
"$GO" build -o "$state/benchcmp" ./hack/benchcmp
line="$("$state/devcluster" up -state "$state/cluster" | tail -n 1)"
export KUBECONFIG="${line#export KUBECONFIG=}"
[[ -f $KUBECONFIG ]] || { log "no kubeconfig from devcluster: $line"; exit 1; }

log "writing $releases releases x $revisions revisions"
"$state/benchseed" -releases "$releases" -revisions "$revisions"
benchlist_measure "kubectl-chart records (summary annotation, metadata-only listing)" "list -A ours-written" 1
if [[ ${BENCH_LIST_HELM_FORMAT:-1} == 1 ]]; then
	log "rewriting the records as Helm writes them (no annotation)"
	"$state/benchseed" -releases "$releases" -revisions "$revisions" -helm-format
	benchlist_measure "helm-format records (latest revisions from labels, only the shown ones decoded)" "list -A helm-written" 1
fi
