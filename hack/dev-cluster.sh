#!/usr/bin/env bash
# Developer cluster: a throw-away Kubernetes control plane with one fake node
# (test/cluster), running in the background until `down`.
#   hack/dev-cluster.sh up      # last line: export KUBECONFIG=...
#   hack/dev-cluster.sh down    # stops every process it started
#   hack/dev-cluster.sh status
# State and logs: ${XDG_STATE_HOME:-$HOME/.local/state}/kubectl-chart/dev-cluster
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
case "${1:-}" in
  up|down|status|build) ;;
  *) echo "usage: $0 up|down|status|build" >&2; exit 2 ;;
esac
exec go run ./hack/devcluster "$@"
