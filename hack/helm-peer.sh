#!/usr/bin/env bash
# hack/helm-peer.sh [VERSION] — build the Helm peer we compare against, once, and print its path.
#
# Helm is a peer, never a dependency: it is built from the Go module proxy in a throwaway module
# created inside the cache directory, outside this repository, so nothing here imports helm.sh/helm.
#
#   VERSION   Helm release tag, default v3.22.0 (the version that produced the conformance goldens).
#             Any version the proxy serves works, e.g. v4.x (module helm.sh/helm/v4).
#
# The binary goes to ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/helm/<VERSION>/helm and is
# reused on later runs. Its path is the only line on stdout; progress goes to stderr.
# Safe to run concurrently: builds are serialized with flock and the binary is renamed into place
# only after it reported the expected version.
#
#   helm=$(hack/helm-peer.sh) && "$helm" version
set -euo pipefail

peer_name=helm-peer
# shellcheck source=lib/peer.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/peer.sh"

arg="${1:-v3.22.0}"
version="v${arg#v}"
[[ $version =~ ^v([0-9]+)\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	peer_die "invalid version '$arg' (want a release tag such as v3.22.0)"
major="${BASH_REMATCH[1]}"
case $major in
0 | 1 | 2) peer_die "Helm $version predates Go modules; only v3 and later can be built" ;;
3) mod=helm.sh/helm/v3 ;;
*) mod="helm.sh/helm/v$major" ;;
esac

cache="$(peer_cache_dir helm "$version")"
bin="$cache/helm"

peer_start "$cache" "$bin" test -x "$bin"

start=$SECONDS
peer_log "building Helm $version from the Go module proxy (first time only, takes a few minutes)"
cd "$work"
"$GO" mod init helmpeer >/dev/null 2>&1 || peer_die "go mod init failed in $work"
# `go get` of the command package records every module and go.sum entry its build needs
# (a bare `go mod tidy` would drop the requirement, since no file here imports Helm).
"$GO" get "$mod/cmd/helm@$version" >&2 || peer_die "go get $mod/cmd/helm@$version failed"
peer_log "modules resolved in $((SECONDS - start))s; compiling"

src="$("$GO" list -m -f '{{.Dir}}' "$mod")"
[[ -n $src && -d $src ]] || peer_die "module $mod@$version not found in the module cache"
grep -Eq '^[[:space:]]*version[[:space:]]*=' "$src/internal/version/version.go" 2>/dev/null ||
	peer_die "$src/internal/version/version.go has no 'version' variable; ldflags need updating for $version"

# Same stamping as Helm's Makefile: the release version, a clean tree, and the default
# Capabilities.KubeVersion derived from the client-go it was built with (v0.N.x -> 1.N).
ldflags="-s -w -X $mod/internal/version.version=$version -X $mod/internal/version.gitTreeState=clean"
client_go="$("$GO" list -m -f '{{.Version}}' k8s.io/client-go 2>/dev/null || true)"
if [[ $client_go =~ ^v0\.([0-9]+)\. ]]; then
	k8s_minor="${BASH_REMATCH[1]}"
	while IFS= read -r file; do
		pkg="$mod/$(dirname "${file#"$src"/}")"
		ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$k8s_minor"
	done < <(grep -rlE --include='*.go' --exclude='*_test.go' '^[[:space:]]*k8sVersionMajor[[:space:]]*=' "$src/pkg" "$src/internal" 2>/dev/null || true)
else
	peer_log "warning: cannot tell the k8s.io/client-go version; default KubeVersion stays Helm's fallback"
fi

"$GO" build -trimpath -ldflags "$ldflags" -o "$work/helm" "$mod/cmd/helm" >&2 ||
	peer_die "go build $mod/cmd/helm@$version failed"

got="$("$work/helm" version --template '{{.Version}}' 2>/dev/null || true)"
[[ $got == "$version" ]] || peer_die "built binary reports version '$got', want '$version'"

mv -f "$work/helm" "$bin"
peer_log "built $bin in $((SECONDS - start))s"
echo "$bin"
