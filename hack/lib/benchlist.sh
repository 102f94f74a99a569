# hack/lib/benchlist.sh — what the `list -A` benchmarks (test/e2e/releases/bench-list.sh,
# test/e2e/sqlstore/bench-list.sh) share: the binaries compared and the measuring of one
# record set. Sourced, not run; the caller sets `root`, `runs` and `log` first, and
# `state` (a directory holding the built hack/benchcmp) before calling benchlist_measure.

# benchlist_binaries sets BIN (absolute), helm and helm3 from the environment or the peers.
benchlist_binaries() {
	BIN="${BIN:-bin/kubectl-chart}"
	[[ -x $BIN ]] || { log "$BIN not found; run 'make build' first (or set BIN)"; exit 1; }
	BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
	helm="${HELM:-$("$root/hack/helm-peer.sh" v4.3.1)}"
	helm3="${HELM3:-$("$root/hack/helm-peer.sh" v3.22.0)}"
}

# benchlist_measure TITLE LABEL WARMUP: checks both print the same releases (Helm's default
# --max 256), then one table of `list -A`, and LABEL's lines in $BENCH_TSV when set.
benchlist_measure() {
	diff <("$BIN" list -A -o json) <("$helm" list -A -o json) >/dev/null || log "warning: outputs differ"
	mkdir -p "$state/corpus/list-A"
	printf '\n-- %s --\n' "$1"
	"$state/benchcmp" -corpus "$state/corpus" -charts list-A -a "$BIN" -a-name kubectl-chart \
		-b "$helm" -b-name helm4 -c "$helm3" -c-name helm3 ${BENCH_TSV:+-tsv "$BENCH_TSV" -tsv-label "$2"} \
		-runs "$runs" -warmup "${BENCH_WARMUP:-$3}" -- list -A
}
