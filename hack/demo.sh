#!/usr/bin/env bash
# The first five minutes (`make demo`): starts the local control plane (hack/dev-cluster.sh,
# one fake node, nothing but Go needed), installs an example chart from examples/ with the
# bbolt release store, then shows list, status and history, and how to clean up.
#   DEMO_CHART=examples/demo    chart to install (default: examples/demo, else the first in examples/)
#   DEMO_RELEASE=demo           release name; DEMO_NAMESPACE=demo its namespace
# The release records live in a file of their own, never in your real store:
#   ${XDG_STATE_HOME:-$HOME/.local/state}/kubectl-chart/demo/releases.db
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin="$(pwd)/bin/kubectl-chart"
[ -x "$bin" ] || make build
release="${DEMO_RELEASE:-demo}"
namespace="${DEMO_NAMESPACE:-demo}"
chart="${DEMO_CHART:-}"
if [ -z "$chart" ]; then
  if [ -f examples/demo/Chart.yaml ]; then
    chart=examples/demo
  else
    chart="$(dirname "$(ls examples/*/Chart.yaml 2>/dev/null | head -1)")"
  fi
fi
[ -n "$chart" ] && [ -f "$chart/Chart.yaml" ] || { echo "demo: no chart in examples/ (set DEMO_CHART)" >&2; exit 1; }

# Say exactly what this build lacks instead of failing half-way.
missing=()
for c in install list status history; do
  "$bin" "$c" --help >/dev/null 2>&1 || missing+=("$c")
done
if ! "$bin" install --help 2>/dev/null | grep -q -- '--storage'; then
  missing+=("--storage on install")
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "demo: this build of kubectl-chart lacks: ${missing[*]}" >&2
  exit 1
fi

state="${XDG_STATE_HOME:-$HOME/.local/state}/kubectl-chart/demo"
mkdir -p "$state"
export KUBECTL_CHART_STORAGE=bbolt KUBECTL_CHART_BBOLT_PATH="$state/releases.db"
run() { printf '\n$ %s\n' "kubectl chart $*"; "$bin" "$@"; }

echo "== starting the local control plane (first run builds it from the Go module proxy; later runs reuse it)"
kubeconfig_line="$(hack/dev-cluster.sh up | tail -1)"
case "$kubeconfig_line" in
  "export KUBECONFIG="*) export KUBECONFIG="${kubeconfig_line#export KUBECONFIG=}" ;;
  *) echo "demo: dev cluster did not start: $kubeconfig_line" >&2; exit 1 ;;
esac
echo "KUBECONFIG=$KUBECONFIG"

if "$bin" status "$release" -n "$namespace" >/dev/null 2>&1; then
  echo "== removing the release left by an earlier demo"
  "$bin" uninstall "$release" -n "$namespace" >/dev/null
fi

echo
echo "== installing $chart as '$release' in namespace '$namespace' (release store: bbolt, $KUBECTL_CHART_BBOLT_PATH)"
run install "$release" "$chart" -n "$namespace" --create-namespace --storage bbolt --wait --timeout 2m
run list -n "$namespace" --storage bbolt
run status "$release" -n "$namespace" --storage bbolt
run history "$release" -n "$namespace" --storage bbolt

cat <<EOF

== done. Try more against the same cluster and store:
   export KUBECONFIG=$KUBECONFIG KUBECTL_CHART_STORAGE=bbolt KUBECTL_CHART_BBOLT_PATH=$KUBECTL_CHART_BBOLT_PATH
   bin/kubectl-chart upgrade $release $chart -n $namespace --set message=hello-again
   bin/kubectl-chart history $release -n $namespace

== clean up: the release and its objects, the control plane, the demo's release records
   bin/kubectl-chart uninstall $release -n $namespace --storage bbolt
   make dev-cluster-down
   rm -rf "$state"
EOF
