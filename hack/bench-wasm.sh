#!/usr/bin/env bash
# hack/bench-wasm.sh — a Wasm (extism/v1) cli/v1 plugin run, whole process, kubectl-chart vs
# Helm 4: the first run (compilation cache empty: each run starts from a removed cache) and the
# second (cache filled). The plugin is the cli test plugin (adapters/wasm/testdata/plugins/cli,
# a 3.5 MB Go module), built here with GOOS=wasip1. Called by hack/bench.sh (section wasm).
#
# Environment: BIN, HELM (binaries), GO, BENCH_TSV (rows appended), BENCH_RUNS (default 5).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
GO="${GO:-go}"
: "${BIN:?BIN is the kubectl-chart binary}" "${HELM:?HELM is the Helm 4 binary}"
runs="${BENCH_RUNS:-5}"
bin="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plugins/wasmbench" "$work/cache"
(cd adapters/wasm/testdata/plugins/cli && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 \
	"$GO" build -buildmode=c-shared -o "$work/plugins/wasmbench/plugin.wasm" .)
cat >"$work/plugins/wasmbench/plugin.yaml" <<'YAML'
apiVersion: v1
type: cli/v1
name: wasmbench
version: 0.1.0
runtime: extism/v1
runtimeConfig: {}
YAML
# Cold: each run removes both programs' compilation caches first (a shell's start, the same on
# both sides, against seconds of compilation).
for side in ours helm; do
	target="$bin"
	[[ $side == helm ]] && target="$HELM"
	cat >"$work/cold-$side" <<SH
#!/bin/sh
rm -rf "$work/cache/kubectl-chart/wazero-build" "$work/cache/helm/wazero-build"
exec "$target" "\$@"
SH
	chmod +x "$work/cold-$side"
done
export HELM_PLUGINS="$work/plugins" XDG_CACHE_HOME="$work/cache" KUBECTL_CHART_PLUGINS=""
tsv=()
[[ -n ${BENCH_TSV:-} ]] && tsv=(-tsv "$BENCH_TSV")
"$GO" run ./hack/benchcmp -corpus "$work" -charts . -a "$work/cold-ours" -a-name kubectl-chart \
	-b "$work/cold-helm" -b-name helm4 -runs "$runs" -warmup 0 "${tsv[@]}" -tsv-label "wasm plugin first run" -- wasmbench
"$GO" run ./hack/benchcmp -corpus "$work" -charts . -a "$bin" -a-name kubectl-chart \
	-b "$HELM" -b-name helm4 -runs "$((runs * 3))" -warmup 1 "${tsv[@]}" -tsv-label "wasm plugin second run" -- wasmbench
