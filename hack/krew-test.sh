#!/usr/bin/env bash
# Krew packaging test (part of `make test`):
#   1. builds krew and validate-krew-manifest (hack/krew-tools.sh, cached);
#   2. builds the release archives and dist/chart.yaml (hack/dist.sh), checks that a
#      second build of the linux/amd64 archive has the same sha256 and that
#      dist/chart.yaml has not drifted from krew-manifest.yaml (go test ./hack/dist);
#   3. validates dist/chart.yaml;
#   4. installs the linux/amd64 archive into a temporary KREW_ROOT with
#      `kubectl krew install --manifest --archive`, runs `kubectl chart version` through
#      kubectl, renders a chart of the conformance corpus and compares it with Helm's
#      output, and checks completion through the kubectl_complete-chart link;
#   5. installs again from a custom index: a local git repository whose manifest points
#      at the archives served on 127.0.0.1 (validated with installs for every platform).
# Needs go, git and kubectl (/usr/bin/kubectl v1.32 on CI). Nothing outside a temporary
# directory and the cache is touched; the user's ~/.krew is never used.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$(pwd)"
CONFORMANCE="${CONFORMANCE:-../shared/conformance}"
KUBECTL="${KUBECTL:-$(command -v kubectl || echo /usr/bin/kubectl)}"
step() { printf '\n== %s\n' "$*"; }
fail() { echo "krew-test: FAIL: $*" >&2; exit 1; }

step "krew and validate-krew-manifest"
tools="$(hack/krew-tools.sh)"
echo "$tools"

step "release archives (make dist)"
# One commit for every build below, even if HEAD moves meanwhile.
ref="$(git rev-parse HEAD)"
DIST_REF="$ref" hack/dist.sh
version="$(sed -n 's/^  version: //p' krew-manifest.yaml | head -1)"
archive="dist/kubectl-chart_${version}_linux_amd64.tar.gz"
[ -f "$archive" ] || fail "$archive was not built"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/kubectl-chart-krew.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

step "reproducible: a second build of linux/amd64 gives the same archive"
(
  commit="$(git rev-parse --short=12 "$ref")"
  src="$tmp/src"; mkdir -p "$src"; git archive "$ref" | tar -x -C "$src"
  go run ./hack/dist -manifest krew-manifest.yaml -out "$tmp/again" -src "$src" -commit "$commit" \
    -mtime "${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct "$ref")}" -files LICENSE -only linux/amd64
)
a="$(sha256sum "$archive" | cut -d' ' -f1)"
b="$(sha256sum "$tmp/again/$(basename "$archive")" | cut -d' ' -f1)"
[ "$a" = "$b" ] || fail "two builds of the same source differ: $a vs $b"
echo "sha256 $a (twice)"

step "dist/chart.yaml matches krew-manifest.yaml except URIs and checksums"
go test -count=1 ./hack/dist -run 'TestGeneratedManifestDoesNotDrift|TestTopLevelManifest' -args -dist "$repo/dist"

step "validate-krew-manifest dist/chart.yaml"
"$tools/validate-krew-manifest" -manifest dist/chart.yaml -skip-install

# The loopback file server for the custom index, built before HOME changes (Go's caches live there).
go build -o "$tmp/serve" ./hack/dist

# kubectl finds plugins (and krew itself) on PATH; the user's krew is never touched.
export KREW_ROOT="$tmp/krew" KREW_NO_UPGRADE_CHECK=1 HOME="$tmp/home"
mkdir -p "$tmp/bin" "$HOME" "$KREW_ROOT"
ln -s "$tools/krew" "$tmp/bin/kubectl-krew"
export PATH="$KREW_ROOT/bin:$tmp/bin:$PATH"

step "kubectl krew install --manifest --archive"
"$KUBECTL" krew install --manifest=dist/chart.yaml --archive="$archive"
out="$("$KUBECTL" chart version)"
echo "$out"
case "$out" in "kubectl-chart $version "*) ;; *) fail "kubectl chart version printed: $out" ;; esac

step "kubectl chart renders a conformance chart as Helm does"
if [ -d "$CONFORMANCE/corpus/cert-manager" ]; then
  # Both dialects: Helm 4's (the default, corpus-helm4/) and Helm 3's (corpus/).
  (cd "$CONFORMANCE/corpus/cert-manager" &&
    "$KUBECTL" chart template rel chart --namespace demo --kube-version 1.31.0 >"$tmp/cert-manager.yaml" &&
    "$KUBECTL" chart template rel chart --namespace demo --kube-version 1.31.0 --compat helm3 >"$tmp/cert-manager-helm3.yaml")
  cmp "$tmp/cert-manager.yaml" "$CONFORMANCE/corpus-helm4/cert-manager/golden/default.yaml" ||
    fail "cert-manager renders differently from Helm 4's golden"
  cmp "$tmp/cert-manager-helm3.yaml" "$CONFORMANCE/corpus/cert-manager/golden/default.yaml" ||
    fail "cert-manager renders differently from Helm 3's golden (--compat helm3)"
  echo "cert-manager/default: $(grep -c '^kind:' "$tmp/cert-manager.yaml") objects, byte-identical to Helm 4's and (--compat helm3) Helm 3's"
else
  fail "conformance corpus not found at $CONFORMANCE"
fi

step "completion through kubectl (kubectl_complete-chart link)"
ln -s "$KREW_ROOT/bin/kubectl-chart" "$KREW_ROOT/bin/kubectl_complete-chart"
out="$("$KUBECTL" __complete chart te)"
echo "$out" | grep -qx 'template.*' || fail "kubectl __complete chart te: $out"
echo "te  -> $(echo "$out" | head -1)"
if "$KUBECTL" chart install --help >/dev/null 2>&1; then
  out="$("$KUBECTL" __complete chart ins)"
  echo "$out" | grep -q '^install' || fail "kubectl __complete chart ins: $out"
  echo "ins -> $(echo "$out" | head -1)"
else
  echo "ins -> (this build has no install command yet; not asserted)"
fi
out="$("$KUBECTL" __complete chart version -o '')"
echo "$out" | grep -qx 'json' || fail "kubectl __complete chart version -o: $out"

step "custom index: a local git repository, archives served on 127.0.0.1"
"$tmp/serve" -serve dist >"$tmp/url" 2>"$tmp/serve.log" &
server_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url="$(head -1 "$tmp/url")"
[ -n "$url" ] || fail "file server did not start: $(cat "$tmp/serve.log")"
index="$tmp/index"
mkdir -p "$index/plugins"
sed "s#uri: .*/\(kubectl-chart_[^/]*\)\$#uri: $url/\1#" dist/chart.yaml >"$index/plugins/chart.yaml"
grep -q "uri: $url/" "$index/plugins/chart.yaml" || fail "index manifest URIs were not rewritten"
"$tools/validate-krew-manifest" -manifest "$index/plugins/chart.yaml"
# A second, fresh KREW_ROOT: without the default index (no network) krew refuses
# to uninstall, so the first installation is simply left in its own root.
export KREW_ROOT="$tmp/krew-index"
export PATH="$KREW_ROOT/bin:$tmp/bin:$PATH"
mkdir -p "$KREW_ROOT"
git -C "$index" init -q
git -C "$index" -c user.email=test@example.com -c user.name=test add plugins
git -C "$index" -c user.email=test@example.com -c user.name=test commit -q -m "kubectl-chart $version"
"$KUBECTL" krew index add local "$index"
"$KUBECTL" krew install local/chart
out="$("$KUBECTL" chart version --short)"
# --short is Helm's (tools read it): Helm's release with build metadata naming ours.
[ "$out" = "v4.3.1+kubectl-chart.$version" ] || fail "kubectl chart version --short after index install: $out"
"$KUBECTL" krew list || true
echo
echo "krew-test: OK"
