#!/usr/bin/env bash
# hack/tool-peer.sh TOOL [VERSION] — build a tool that drives `helm` (helmfile, chart-testing), or
# the kubectl chart-testing calls, once, and print its path.
#
# Like hack/helm-peer.sh: these tools are peers the drop-in e2e suite (test/e2e/dropin) runs with
# Helm or with us as `helm` on PATH, never dependencies. Each is built from the Go module proxy
# inside the cache directory, outside this repository, so nothing here imports them.
#
#   TOOL      helmfile (default version v1.8.0), ct (chart-testing, default version v3.7.1),
#             kubectl (default version v1.36.3, the test control plane's), or what helm-secrets
#             runs: sops (default version v3.13.3) and age (default version v1.3.2; age-keygen is
#             built beside it)
#   VERSION   the tool's release tag
#
# The binary goes to ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/<TOOL>/<VERSION>/<TOOL> and is
# reused on later runs; ct's configuration files (chart_schema.yaml, lintconf.yaml) go beside it in
# etc/, for CT_CONFIG_DIR. The binary's path is the only line on stdout; progress goes to stderr.
# Safe to run concurrently: builds are serialized with flock and the binary is renamed into place
# only after it reported the expected version.
#
#   ct=$(hack/tool-peer.sh ct) && CT_CONFIG_DIR="$(dirname "$ct")/etc" "$ct" lint ...
set -euo pipefail

peer_name=tool-peer
# shellcheck source=lib/peer.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/peer.sh"

tool="${1:-}"
case $tool in
helmfile) default=v1.8.0 mod=github.com/helmfile/helmfile ;;
ct) default=v3.7.1 mod=github.com/helm/chart-testing/v3 ;;
kubectl) default=v1.36.3 mod=k8s.io/kubectl ;;
sops) default=v3.13.3 mod=github.com/getsops/sops/v3 ;;
age) default=v1.3.2 mod=filippo.io/age ;;
*) peer_die "unknown tool '$tool' (want helmfile, ct, kubectl, sops or age)" ;;
esac
arg="${2:-$default}"
version="v${arg#v}"
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	peer_die "invalid version '$arg' (want a release tag such as $default)"

cache="$(peer_cache_dir "$tool" "$version")"
bin="$cache/$tool"

peer_start "$cache" "$bin" test -x "$bin"

start=$SECONDS
peer_log "building $tool $version from the Go module proxy (first time only, takes a few minutes)"
cd "$work"

# src prints the directory of module $mod@$version in the module cache, downloading it first.
src() {
	local dir
	dir="$("$GO" mod download -json "$mod@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
	[[ -n $dir && -d $dir ]] || peer_die "go mod download $mod@$version gave no source directory"
	echo "$dir"
}

case $tool in
helmfile)
	# helmfile's go.mod has replace directives, which `go install mod@version` refuses: build
	# its own source tree, with its own go.mod and go.sum, in a writable copy.
	cp -r "$(src)" "$work/src"
	chmod -R u+w "$work/src"
	cd "$work/src"
	"$GO" mod download >&2 || peer_die "go mod download for $mod@$version failed"
	peer_log "modules resolved in $((SECONDS - start))s; compiling"
	# The release's stamping (its Makefile's ldflags), without the git details a module zip lacks.
	"$GO" build -trimpath -ldflags "-s -w -X go.szostok.io/version.version=$version -X go.szostok.io/version.dirtyBuild=false" \
		-o "$work/$tool" . >&2 || peer_die "go build $mod@$version failed"
	got="$("$work/$tool" version -o short 2>/dev/null || true)"
	;;
ct)
	"$GO" mod init toolpeer >/dev/null 2>&1 || peer_die "go mod init failed in $work"
	# `go get` of the command package records every module and go.sum entry its build needs.
	"$GO" get "$mod/ct@$version" >&2 || peer_die "go get $mod/ct@$version failed"
	peer_log "modules resolved in $((SECONDS - start))s; compiling"
	# The release's stamping (its .goreleaser.yml's ldflags).
	"$GO" build -trimpath -ldflags "-s -w -X $mod/ct/cmd.Version=$version" -o "$work/$tool" "$mod/ct" >&2 ||
		peer_die "go build $mod/ct@$version failed"
	# ct reads its lint configuration and Chart.yaml schema from CT_CONFIG_DIR (or ., ~/.ct, /etc/ct).
	dir="$(src)"
	mkdir -p "$cache/etc"
	for f in chart_schema.yaml lintconf.yaml; do
		install -m 0644 "$dir/etc/$f" "$cache/etc/$f" || peer_die "cannot copy $f from $dir/etc"
	done
	got="$("$work/$tool" version 2>/dev/null | sed -n 's/^Version:[[:space:]]*//p')"
	;;
kubectl)
	# kubectl's main package lives in k8s.io/kubernetes, whose go.mod replaces its staging modules;
	# the published k8s.io/kubectl module (v0.N.x for v1.N.x) holds the command itself.
	staging="v0.${version#v1.}"
	"$GO" mod init toolpeer >/dev/null 2>&1 || peer_die "go mod init failed in $work"
	cat >main.go <<'GO'
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
GO
	"$GO" get "$mod@$staging" "k8s.io/component-base@$staging" >&2 || peer_die "go get $mod@$staging failed"
	"$GO" mod tidy >&2 || peer_die "go mod tidy failed in $work"
	peer_log "modules resolved in $((SECONDS - start))s; compiling"
	# The version kubectl reports, as the release's build stamps it.
	"$GO" build -trimpath -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$version -X k8s.io/component-base/version.gitVersion=$version" \
		-o "$work/$tool" . >&2 || peer_die "go build kubectl $version failed"
	got="$("$work/$tool" version --client 2>/dev/null | sed -n 's/^Client Version:[[:space:]]*//p')"
	;;
sops)
	"$GO" mod init toolpeer >/dev/null 2>&1 || peer_die "go mod init failed in $work"
	"$GO" get "$mod/cmd/sops@$version" >&2 || peer_die "go get $mod/cmd/sops@$version failed"
	peer_log "modules resolved in $((SECONDS - start))s; compiling"
	"$GO" build -trimpath -ldflags "-s -w" -o "$work/$tool" "$mod/cmd/sops" >&2 || peer_die "go build $mod/cmd/sops@$version failed"
	got="v$("$work/$tool" --version --disable-version-check 2>/dev/null | sed -n 's/^sops \([^ ]*\).*/\1/p')"
	;;
age)
	"$GO" mod init toolpeer >/dev/null 2>&1 || peer_die "go mod init failed in $work"
	"$GO" get "$mod/cmd/age@$version" >&2 || peer_die "go get $mod/cmd/age@$version failed"
	peer_log "modules resolved in $((SECONDS - start))s; compiling"
	for cmd in age age-keygen; do
		"$GO" build -trimpath -ldflags "-s -w -X main.Version=$version" -o "$work/$cmd" "$mod/cmd/$cmd" >&2 ||
			peer_die "go build $mod/cmd/$cmd@$version failed"
	done
	mv -f "$work/age-keygen" "$cache/age-keygen"
	got="$("$work/$tool" --version 2>/dev/null)"
	;;
esac

[[ $got == "$version" ]] || peer_die "built binary reports version '$got', want '$version'"
mv -f "$work/$tool" "$bin"
peer_log "built $bin in $((SECONDS - start))s"
echo "$bin"
