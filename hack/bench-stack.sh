#!/usr/bin/env bash
# hack/bench-stack.sh — the `stack` section of hack/bench.sh (issue 27): a stack of 20 releases
# (corpus charts, two namespaces, needs within each) on a control plane of its own, side by side
# with helmfile v1.8.0 running Helm v4.3.1.
#
# Set-up (not timed): a fresh control plane (hack/devcluster, stopped at the end) unless
# KUBECONFIG is set (then the stack goes to two namespaces of its own, destroyed at the end); a
# state file of the charts of BENCH_STACK_CHARTS, each released in both namespaces (release
# NAME-a needs the one before it in the list, NAME-b likewise); `kubectl chart stack apply` of
# it, then one more, so that charts whose render changes at each install (random secrets)
# settle. Timed, alternating the tools run by run:
#
#   stack diff      kubectl chart stack diff (unchanged stack)           target <= 2 s
#   stack apply     kubectl chart stack apply (unchanged stack) against
#                   helmfile --helm-binary HELM4 sync --skip-deps (offline) target <= 0.1x helmfile sync
#
# It only reports: a run that fails shows "error" and the other figures are still printed.
#
# Environment:
#   BIN                  kubectl-chart binary (default bin/kubectl-chart)
#   GO                   go command (default go)
#   CONFORMANCE          conformance directory holding corpus/ (default ../shared/conformance)
#   KUBECONFIG           cluster to use; when unset, a fresh control plane of its own
#   HELM                 Helm 4 binary (default: hack/helm-peer.sh v4.3.1)
#   HELMFILE             helmfile binary (default: hack/tool-peer.sh helmfile v1.8.0)
#   BENCH_RUNS           measured runs per tool and case (default 5)
#   BENCH_WARMUP         unmeasured warm-up runs (default 1)
#   BENCH_STACK_CHARTS   corpus charts, 10 of them for 20 releases (default below; charts whose
#                        cluster-scoped objects have fixed names, such as metrics-server's APIService,
#                        prometheus-adapter's ClusterRoles or argo-rollouts' CRDs in templates/, cannot
#                        be released twice in one cluster and are left out)
#   BENCH_TSV            append the medians there (hack/bench.sh's summary)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf 'bench stack: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=hack/lib/benchstats.sh
source "$root/hack/lib/benchstats.sh"

GO="${GO:-go}"
BIN="${BIN:-bin/kubectl-chart}"
CONFORMANCE="${CONFORMANCE:-../shared/conformance}"
RUNS="${BENCH_RUNS:-5}"
WARMUP="${BENCH_WARMUP:-1}"
CHARTS="${BENCH_STACK_CHARTS:-kube-state-metrics prometheus-node-exporter prometheus-blackbox-exporter alertmanager grafana promtail logstash bitnami-redis istio-gateway prometheus}"

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive number, not '$RUNS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "BENCH_WARMUP must be a number, not '$WARMUP'"
[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
helm4="${HELM:-$("$root/hack/helm-peer.sh" v4.3.1)}" || die "could not get Helm 4 (hack/helm-peer.sh v4.3.1)"
helmfile="${HELMFILE:-$("$root/hack/tool-peer.sh" helmfile v1.8.0)}" || die "could not get helmfile (hack/tool-peer.sh helmfile v1.8.0)"

work="$(mktemp -d)"
own_cluster=0
cleanup() {
	local rc=$?
	if ((own_cluster)); then
		"$work/devcluster" down -state "$work/cluster" >/dev/null 2>&1 || log "warning: could not stop the control plane in $work/cluster"
	elif [[ -f $work/helmfile.yaml ]]; then
		"$BIN" stack destroy -f "$work/helmfile.yaml" >/dev/null 2>&1 || log "warning: could not destroy the stack"
	fi
	rm -rf "$work"
	return "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -z ${KUBECONFIG:-} ]]; then
	"$GO" build -o "$work/devcluster" ./hack/devcluster
	own_cluster=1
	line="$("$work/devcluster" up -state "$work/cluster" | tail -n 1)"
	export KUBECONFIG="${line#export KUBECONFIG=}"
fi
[[ -f $KUBECONFIG ]] || die "kubeconfig $KUBECONFIG not found"
export HELM_CONFIG_HOME="$work/helm/config" HELM_CACHE_HOME="$work/helm/cache" HELM_DATA_HOME="$work/helm/data"

suffix="$RANDOM$RANDOM"
{
	echo "releases:"
	for side in a b; do
		prev=""
		for c in $CHARTS; do
			dir="$(cd "$CONFORMANCE/corpus/$c/chart" 2>/dev/null && pwd)" || die "corpus chart $c not found under $CONFORMANCE/corpus"
			echo "  - name: $c-$side"
			echo "    namespace: bench-stack-$side-$suffix"
			echo "    createNamespace: true"
			echo "    chart: $dir"
			[[ -z $prev ]] || printf '    needs:\n      - bench-stack-%s-%s/%s-%s\n' "$side" "$suffix" "$prev" "$side"
			prev="$c"
		done
	done
} >"$work/helmfile.yaml"
log "installing the stack of $(grep -c '^  - name:' "$work/helmfile.yaml") releases"
for _ in 1 2; do
	"$BIN" stack apply -f "$work/helmfile.yaml" >/dev/null 2>"$work/err" ||
		{ tail -n 20 "$work/err" >&2; die "kubectl chart stack apply failed"; }
done
rc=0
"$BIN" stack diff -f "$work/helmfile.yaml" --detailed-exitcode >"$work/diff.out" 2>&1 || rc=$?
((rc == 0)) || { log "warning: stack diff of the applied stack exits $rc (not unchanged):"; tail -n 40 "$work/diff.out" >&2; }

# time_runs LABEL CMD... prints the median wall seconds of RUNS runs (after WARMUP), or "error".
time_runs() {
	local i TIMEFORMAT='%3R' samples="" out
	for ((i = 0; i < WARMUP; i++)); do "$@" >/dev/null 2>&1 || true; done
	for ((i = 0; i < RUNS; i++)); do
		out="$({ time "$@" >/dev/null 2>"$work/run.err"; } 2>&1)" || { echo error; tail -n 5 "$work/run.err" >&2; return 0; }
		samples+="$out"$'\n'
	done
	# shellcheck disable=SC2086
	bench_median $samples
}

diff_k="$(time_runs "$BIN" stack diff -f "$work/helmfile.yaml")"
apply_k="$(time_runs "$BIN" stack apply -f "$work/helmfile.yaml")"
sync_h="$(time_runs "$helmfile" --helm-binary "$helm4" -f "$work/helmfile.yaml" sync --skip-deps)"
ratio="-"
[[ $apply_k == error || $sync_h == error ]] || ratio="$(awk -v a="$apply_k" -v b="$sync_h" 'BEGIN { printf "%.3f", a / b }')"
printf '| %-42s | %12s | %14s | %8s | %-22s |\n' "work (20 releases, unchanged)" "kubectl-chart" "helmfile+Helm4" "ratio" "target"
printf '| %-42s | %12s | %14s | %8s | %-22s |\n' "stack diff" "$diff_k s" "-" "-" "<= 2 s"
printf '| %-42s | %12s | %14s | %8s | %-22s |\n' "stack apply vs helmfile sync" "$apply_k s" "$sync_h s" "$ratio" "<= 0.1x"
if [[ -n ${BENCH_TSV:-} ]]; then
	printf '%s\t%s\t%s\t\n' "stack diff 20 releases" kubectl-chart "$diff_k" "stack apply 20 releases" kubectl-chart "$apply_k" \
		"stack apply 20 releases" helm4 "$sync_h" >>"$BENCH_TSV"
fi
