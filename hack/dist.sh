#!/usr/bin/env bash
# Release archives for Krew: cross-compiles kubectl-chart (CGO_ENABLED=0, -trimpath,
# version and commit stamped with -ldflags) for every platform of krew-manifest.yaml,
# packs reproducible archives (fixed entry times, owners, modes and order) into dist/
# and writes dist/chart.yaml with their URIs and sha256. The version is
# krew-manifest.yaml's spec.version; the commit is HEAD.
#   DIST_DIR=dist             output directory
#   DIST_BASE_URL=...         where the archives will be served (default: the manifest's URIs)
#   DIST_REF=HEAD             the commit to build (git archive), so the stamped commit is
#                             exactly what was built; DIST_SOURCE=worktree builds the
#                             working tree as it is instead
#   SOURCE_DATE_EPOCH=...     archive entry times (default: the commit's time)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(mkdir -p "${DIST_DIR:-dist}" && cd "${DIST_DIR:-dist}" && pwd)"
ref="${DIST_REF:-HEAD}"
commit="$(git rev-parse --short=12 "$ref" 2>/dev/null || echo unknown)"
mtime="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct "$ref" 2>/dev/null || echo 0)}"
src=.
if [ "${DIST_SOURCE:-ref}" != worktree ] && git rev-parse --verify -q "$ref" >/dev/null 2>&1; then
  src="$(mktemp -d "${TMPDIR:-/tmp}/kubectl-chart-src.XXXXXX")"
  trap 'rm -rf "$src"' EXIT
  git archive "$ref" | tar -x -C "$src"
fi
rm -f "$out"/kubectl-chart_* "$out"/chart.yaml
go run ./hack/dist -manifest krew-manifest.yaml -out "$out" -src "$src" \
  -base-url "${DIST_BASE_URL:-}" -commit "$commit" -mtime "$mtime" -files LICENSE
