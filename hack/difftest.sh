#!/usr/bin/env bash
# hack/difftest.sh — the differential tester (test/difftest): generated charts, values and
# command lines run through Helm v3.22.0 / v4.3.1 and bin/kubectl-chart, differences shrunk
# to minimal reproducers, printed in full and stored under test/difftest/testdata/regressions.
#
#   DIFFTEST_CASES    cases per dialect (default 200)
#   DIFFTEST_SEED     seed (default: a fresh one, printed)
#   DIFFTEST_DIALECT  helm3, helm4 or both (default both)
#   DIFFTEST_WRITE    directory for reproducers (default test/difftest/testdata/regressions; "" for none)
#   DIFFTEST_JOBS     cases run in parallel (default 2)
#   DIFFTEST_SEQUENCES  when set, run this many release-command sequences per dialect instead
#                     (install, upgrade, rollback, test, uninstall, list/history/status/get, failing
#                     ones) on the cluster of $KUBECTL_CHART_TEST_KUBECONFIG, else on a control
#                     plane started for the run; each step's stdout, stderr and exit status and the
#                     release records and objects after it are compared
#   DIFFTEST_CMDTREE  also run this many command-availability probes per dialect (-1: all of
#                     them, about 750 a dialect): both Helms' and our command trees (as helm) walked
#                     by their --help, probes of help, unknown flags and subcommands, bare parents
#                     and every flag any of them knows; stdout, stderr and exit status compared
#   DIFFTEST_CMDTREE_FILTER  comma-separated command paths ("install,repo add"): only their probes
#
# The Helm peers are built (once, cached) by hack/helm-peer.sh, as the end-to-end tests find them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
helm3=$(bash hack/helm-peer.sh v3.22.0)
helm4=$(bash hack/helm-peer.sh v4.3.1)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/difftest" ./test/difftest/cmd/difftest
args=(-cases "${DIFFTEST_CASES:-200}" -dialect "${DIFFTEST_DIALECT:-both}" -j "${DIFFTEST_JOBS:-2}"
	-helm3 "$helm3" -helm4 "$helm4" -bin bin/kubectl-chart
	-write "${DIFFTEST_WRITE-test/difftest/testdata/regressions}")
if [[ -n ${DIFFTEST_SEED:-} ]]; then args+=(-seed "$DIFFTEST_SEED"); fi
if [[ -n ${DIFFTEST_CMDTREE:-} ]]; then args+=(-cmdtree "$DIFFTEST_CMDTREE"); fi
if [[ -n ${DIFFTEST_CMDTREE_FILTER:-} ]]; then args+=(-cmdtree-filter "$DIFFTEST_CMDTREE_FILTER"); fi
if [[ -n ${DIFFTEST_SEQUENCES:-} ]]; then args+=(-sequences "$DIFFTEST_SEQUENCES"); fi
exec "$bin/difftest" "${args[@]}" "$@"
