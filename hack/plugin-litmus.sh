#!/usr/bin/env bash
# The plugin litmus of issue 14: a real Helm plugin, helm-unittest, built from
# the Go module proxy, installed with `kubectl chart plugin install` and run as
# `kubectl chart unittest` on the corpus charts that ship unittests/, must print
# what it prints under Helm v3.22.0 (the Time: lines aside) and exit the same.
# Not part of `make test`: the first build downloads and compiles helm-unittest
# (minutes). Usage: bash hack/plugin-litmus.sh [VERSION]   (default v1.1.2)
set -euo pipefail
version=${1:-v1.1.2}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${CORPUS:-$root/../shared/conformance/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

helm3=$(bash "$root/hack/helm-peer.sh" v3.22.0)
src=$(go mod download -json "github.com/helm-unittest/helm-unittest@$version" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp -r "$src" "$work/src" && chmod -R u+w "$work/src"
mkdir -p "$work/plugin"
cp "$src/plugin.yaml" "$work/plugin/"
goos=$(go env GOOS) goarch=$(go env GOARCH)
case $goos in darwin) bin=untt-macos-$goarch ;; *) bin=untt-$goos-$goarch ;; esac
(cd "$work/src" && go build -o "$work/plugin/$bin" ./cmd/helm-unittest)
(cd "$root" && go build -o "$work/kubectl-chart" ./cmd/kubectl-chart)

export HOME=$work/home XDG_CONFIG_HOME=$work/home/config XDG_DATA_HOME=$work/home/data \
	KUBECTL_CHART_PLUGINS=$work/home/plugins HELM_PLUGINS=$work/home/helm-plugins \
	HELM_CONFIG_HOME=$work/home/helm-config HELM_DATA_HOME=$work/home/helm-data HELM_CACHE_HOME=$work/home/helm-cache
"$work/kubectl-chart" plugin install "$work/plugin"
mkdir -p "$HELM_PLUGINS" && cp -r "$work/plugin" "$HELM_PLUGINS/unittest"

fail=0 n=0
for tests in "$corpus"/*/chart/unittests; do
	chart=$(dirname "$tests")
	n=$((n + 1))
	ours=0 theirs=0
	"$work/kubectl-chart" unittest -f 'unittests/*.yaml' "$chart" >"$work/ours" 2>&1 || ours=$?
	"$helm3" unittest -f 'unittests/*.yaml' "$chart" >"$work/theirs" 2>&1 || theirs=$?
	sed -i '/^Time:/d' "$work/ours" "$work/theirs"
	if [ "$ours" != "$theirs" ] || ! diff -u "$work/theirs" "$work/ours"; then
		echo "DIFFERENT: $chart (exit $ours, Helm $theirs)"
		fail=$((fail + 1))
	else
		echo "same: $chart ($(grep '^Tests:' "$work/ours"))"
	fi
done
echo "plugin litmus: $n charts, $fail differences"
[ "$fail" -eq 0 ]
