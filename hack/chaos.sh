#!/usr/bin/env bash
# hack/chaos.sh [go test flags] — the full fault suite (test/e2e/chaos) on a control plane of its
# own (or $KUBECTL_CHART_TEST_KUBECONFIG's, without the API server restarts), then its summary table.
#
#   KUBECTL_CHART_CHAOS       full (default here) or bounded (what `make test` runs)
#   KUBECTL_CHART_CHAOS_SEED  repeats the random choices of an earlier run (printed with the table)
#   CHAOS_SUMMARY             where the table is written (default .cache/chaos-summary.txt)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export KUBECTL_CHART_CHAOS="${KUBECTL_CHART_CHAOS:-full}"
export KUBECTL_CHART_CHAOS_SUMMARY="${CHAOS_SUMMARY:-$PWD/.cache/chaos-summary.txt}"
mkdir -p "$(dirname "$KUBECTL_CHART_CHAOS_SUMMARY")"
rm -f "$KUBECTL_CHART_CHAOS_SUMMARY"
if [ -z "${KUBECTL_CHART_TEST_KUBECONFIG:-}" ]; then
  go run ./hack/devcluster build
fi
status=0
go test -tags e2e -count=1 -timeout=90m "$@" ./test/e2e/chaos/ || status=$?
cat "$KUBECTL_CHART_CHAOS_SUMMARY" 2>/dev/null || echo "chaos: no summary table (the suite did not get to run)"
exit "$status"
