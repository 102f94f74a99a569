#!/usr/bin/env bash
# End-to-end tests: each package under test/ starts its own throw-away control
# plane from TestMain (test/cluster), or uses $KUBECTL_CHART_TEST_KUBECONFIG.
# The binaries are built once into ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/k8s;
# building them here first shows the progress that `go test` would buffer.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${KUBECTL_CHART_TEST_KUBECONFIG:-}" ]; then
  go run ./hack/devcluster build
fi
# The tools test/e2e/dropin drives, and sops and age for helm-secrets (built once; helmfile's first build takes minutes, which
# would otherwise count against a test package's timeout).
for tool in helmfile ct kubectl sops age; do
  hack/tool-peer.sh "$tool" >/dev/null
done
exec go test -tags e2e -count=1 -timeout=20m ./test/...
