#!/usr/bin/env bash
# hack/bench-install.sh — whole-process install and no-change upgrade of a generated chart
# with 500 objects (200 ConfigMaps, 150 Services, 150 Deployments), kubectl-chart vs the Helm
# peers (Helm 4 and Helm 3), on the same control plane. Called by hack/bench.sh's `install`
# section.
#
# Environment:
#   BIN             kubectl-chart binary (default bin/kubectl-chart)
#   HELM            Helm 4 binary (default: hack/helm-peer.sh v4.3.1)
#   HELM3           Helm 3 binary (default: hack/helm-peer.sh v3.22.0)
#   BENCH_TSV       append the medians there (hack/bench.sh's summary)
#   KUBECONFIG      cluster to use; when unset, a fresh control plane of its own, stopped
#                   afterwards (a long-used cluster carries leftovers that skew the figures)
#   BENCH_INSTALL_RUNS  measured runs per tool (default 3)
#
# Reports median wall times and the ratios to Helm 4; targets (documented, not enforced, issue
# 17): install <= 0.3x Helm 4's time, no-change upgrade <= 0.2x.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf 'bench-install: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

BIN="${BIN:-bin/kubectl-chart}"
RUNS="${BENCH_INSTALL_RUNS:-3}"
[[ -x $BIN ]] || die "$BIN not found; run 'make build' first (or set BIN)"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
helm="${HELM:-$("$root/hack/helm-peer.sh" v4.3.1)}"
helm3="${HELM3:-$("$root/hack/helm-peer.sh" v3.22.0)}"
[[ -x $helm && -x $helm3 ]] || die "Helm binaries $helm / $helm3 not executable"
work="$(mktemp -d)"
cleanup() {
	[[ -d $work/cluster ]] && go run ./hack/devcluster down -state "$work/cluster" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
if [[ -z ${KUBECONFIG:-} ]]; then
	line="$(go run ./hack/devcluster up -state "$work/cluster" | tail -1)"
	export KUBECONFIG="${line#export KUBECONFIG=}"
fi
[[ -f $KUBECONFIG ]] || die "kubeconfig $KUBECONFIG not found"
chart="$work/bench500"
mkdir -p "$chart/templates"
cat >"$chart/Chart.yaml" <<'YAML'
apiVersion: v2
name: bench500
version: 0.1.0
YAML
cat >"$chart/values.yaml" <<'YAML'
configMaps: 200
services: 150
deployments: 150
YAML
cat >"$chart/templates/objects.yaml" <<'YAML'
{{- range $i := until (int .Values.configMaps) }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ $i }}
data:
  index: "{{ $i }}"
  release: {{ $.Release.Name }}
{{- end }}
{{- range $i := until (int .Values.services) }}
---
apiVersion: v1
kind: Service
metadata:
  name: svc-{{ $i }}
spec:
  selector:
    app: app-{{ $i }}
  ports:
    - port: 80
      targetPort: 8080
{{- end }}
{{- range $i := until (int .Values.deployments) }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{{ $i }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: app-{{ $i }}
  template:
    metadata:
      labels:
        app: app-{{ $i }}
    spec:
      containers:
        - name: app
          image: nginx:1.27
          ports:
            - containerPort: 8080
{{- end }}
YAML

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# shellcheck source=hack/lib/benchstats.sh
source "$root/hack/lib/benchstats.sh"

# measure TOOL NS: prints "install upgrade" seconds for one run in a fresh namespace.
measure() {
	local tool=$1 ns=$2 t0 t1 t2
	kubectl create namespace "$ns" >/dev/null
	case $tool in
	kubectl-chart)
		t0=$(now); "$BIN" install bench "$chart" -n "$ns" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
		t1=$(now); "$BIN" upgrade bench "$chart" -n "$ns" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
		t2=$(now) ;;
	helm4 | helm3)
		local h=$helm
		[[ $tool == helm3 ]] && h=$helm3
		t0=$(now); "$h" install bench "$chart" -n "$ns" >/dev/null
		t1=$(now); "$h" upgrade bench "$chart" -n "$ns" >/dev/null
		t2=$(now) ;;
	esac
	echo "$(elapsed "$t0" "$t1") $(elapsed "$t1" "$t2")"
	# Outside the timed part: a namespace still being emptied would slow the next run.
	kubectl delete namespace "$ns" --wait=true --timeout=5m >/dev/null
}

# Runs alternate between the tools so that both see the same cluster.
declare -A inst=([kubectl-chart]="" [helm4]="" [helm3]="") upg=([kubectl-chart]="" [helm4]="" [helm3]="")
for run in $(seq 1 "$RUNS"); do
	for tool in kubectl-chart helm4 helm3; do
		# Not read from a process substitution: measure must have deleted its namespace
		# (seconds of the control plane's work) before the next run starts.
		measure "$tool" "bench-$tool-$run-$RANDOM" >"$work/times"
		read -r i u <"$work/times"
		log "$tool run $run: install ${i}s, no-change upgrade ${u}s"
		inst[$tool]+="$i " upg[$tool]+="$u "
	done
done
# shellcheck disable=SC2086
{
	ki=$(bench_median ${inst[kubectl-chart]}) hi=$(bench_median ${inst[helm4]}) h3i=$(bench_median ${inst[helm3]})
	ku=$(bench_median ${upg[kubectl-chart]}) hu=$(bench_median ${upg[helm4]}) h3u=$(bench_median ${upg[helm3]})
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '%-28s %14s %10s %10s %16s %8s\n' "500 objects, median of $RUNS" kubectl-chart helm4 helm3 "ratio to helm4" target
printf '%-28s %13ss %9ss %9ss %16s %8s\n' install "$ki" "$hi" "$h3i" "$(ratio "$ki" "$hi")" "<= 0.3"
printf '%-28s %13ss %9ss %9ss %16s %8s\n' "no-change upgrade" "$ku" "$hu" "$h3u" "$(ratio "$ku" "$hu")" "<= 0.2"
if [[ -n ${BENCH_TSV:-} ]]; then
	printf '%s\t%s\t%s\t\n' "install 500 objects" kubectl-chart "$ki" "install 500 objects" helm4 "$hi" "install 500 objects" helm3 "$h3i" \
		"no-change upgrade 500 objects" kubectl-chart "$ku" "no-change upgrade 500 objects" helm4 "$hu" \
		"no-change upgrade 500 objects" helm3 "$h3u" >>"$BENCH_TSV"
fi
