#!/usr/bin/env bash
# test/e2e/sqlstore/bench-list.sh — the `sqllist` section of hack/bench.sh.
#
# `list -A` over 10,000 releases x 10 revisions in PostgreSQL (HELM_DRIVER=sql, Helm's
# tables, records as Helm's SQL driver writes them), kubectl-chart vs Helm 4 and Helm 3 on
# the same database: a throw-away server (test/e2e/sqlstore/benchdb, test/pgserver), whole
# process, wall time and peak RSS (hack/benchcmp). Helm's list needs a reachable cluster
# even for the sql driver: $KUBECONFIG's, else a throw-away one (hack/devcluster).
# Target (documented, not enforced, issue 28): <= 0.05 x Helm 4's time, memory bounded.
#
# Environment: BIN (default bin/kubectl-chart), HELM, HELM3 (default hack/helm-peer.sh v4.3.1,
# v3.22.0), BENCH_TSV (append the medians there), BENCH_SQL_RELEASES (10000),
# BENCH_SQL_REVISIONS (10), BENCH_RUNS (3 here), BENCH_WARMUP (0 here).
# Helm takes minutes a run at 100,000 records; seeding them takes a few minutes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
GO="${GO:-go}"
releases="${BENCH_SQL_RELEASES:-10000}"
revisions="${BENCH_SQL_REVISIONS:-10}"
runs="${BENCH_RUNS:-3}"
log() { printf 'bench sqllist: %s\n' "$*" >&2; }
# shellcheck source=hack/lib/benchlist.sh
source "$root/hack/lib/benchlist.sh"
benchlist_binaries

state="$(mktemp -d)"
dbpid=""
cleanup() {
	[[ -n $dbpid ]] && kill -INT "$dbpid" 2>/dev/null && wait "$dbpid" 2>/dev/null || true
	[[ -f $state/devcluster ]] && "$state/devcluster" down -state "$state/cluster" >/dev/null 2>&1 || true
	rm -rf "$state"
}
trap cleanup EXIT
"$GO" build -tags e2e -o "$state/benchdb" ./test/e2e/sqlstore/benchdb
"$GO" build -o "$state/benchcmp" ./hack/benchcmp
if [[ -z ${KUBECONFIG:-} ]]; then
	"$GO" build -o "$state/devcluster" ./hack/devcluster
	line="$("$state/devcluster" up -state "$state/cluster" | tail -n 1)"
	export KUBECONFIG="${line#export KUBECONFIG=}"
fi

log "writing $releases releases x $revisions revisions"
"$state/benchdb" -releases "$releases" -revisions "$revisions" -url-file "$state/url" &
dbpid=$!
until [[ -s $state/url ]]; do
	kill -0 "$dbpid" 2>/dev/null || { log "benchdb failed"; exit 1; }
	sleep 1
done
export HELM_DRIVER=sql HELM_DRIVER_SQL_CONNECTION_STRING="$(cat "$state/url")"
benchlist_measure "Helm-written records in PostgreSQL (latest revisions from the columns, only the shown ones decoded)" "list -A sql" 0
