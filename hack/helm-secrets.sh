#!/usr/bin/env bash
# hack/helm-secrets.sh [VERSION] — lay out helm-secrets' Helm 4 plugins (secrets, secrets-getter,
# secrets-post-renderer: one per plugin type) with the sops and age they run, once, and print
# the directory.
#
#   VERSION   helm-secrets' release tag (default v4.7.7, the first whose Helm 4 manifests are split
#             per type)
#
# helm-secrets is shell scripts, not a Go module: v4.7.7's are kept unchanged in
# test/e2e/litmus/testdata/helm-secrets-v4.7.7 (no network needed); another version comes from
# the git repository $HELM_SECRETS_SRC (a clone or mirror of github.com/jkroepke/helm-secrets;
# default: GitHub), at its tag. sops and age are built from the Go module proxy (hack/tool-peer.sh).
#
# Layout of ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/helm-secrets/<VERSION>/, printed as the
# only line on stdout (progress goes to stderr):
#   plugins/<name>/   the three plugin directories (their scripts copied in, links resolved), for
#                     HELM_PLUGINS
#   bin/              sops, age and age-keygen, for PATH
set -euo pipefail

peer_name=helm-secrets
# shellcheck source=lib/peer.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/peer.sh"
hack="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

arg="${1:-v4.7.7}"
version="v${arg#v}"
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || peer_die "invalid version '$arg' (want a release tag such as v4.7.7)"
cache="$(peer_cache_dir helm-secrets "$version")"
if [[ -d $cache/plugins && -x $cache/bin/sops ]]; then
	echo "$cache"
	exit 0
fi
sops="$("$hack/tool-peer.sh" sops)" || peer_die "could not build sops"
age="$("$hack/tool-peer.sh" age)" || peer_die "could not build age"

peer_lock "$cache"
peer_workdir "$cache"
kept="$hack/../test/e2e/litmus/testdata/helm-secrets-$version"
if [[ -z ${HELM_SECRETS_SRC:-} && -d $kept ]]; then
	cp -R "$kept" "$work/src"
else
	src="${HELM_SECRETS_SRC:-https://github.com/jkroepke/helm-secrets}"
	git -c advice.detachedHead=false clone -q --depth 1 --branch "$version" "$src" "$work/src" >&2 ||
		peer_die "cannot check out $version of $src (set HELM_SECRETS_SRC to a clone)"
fi
for dir in "$work"/src/plugins/*/; do
	name="$(basename "$dir")"
	mkdir -p "$work/plugins/$name"
	install -m 0644 "$dir/plugin.yaml" "$work/plugins/$name/plugin.yaml"
	# Each plugin's scripts is a link to the repository's; a plugin directory must hold its own.
	cp -RL "$work/src/scripts" "$work/plugins/$name/scripts"
done
mkdir -p "$work/bin"
cp "$sops" "$work/bin/sops"
cp "$age" "$(dirname "$age")/age-keygen" "$work/bin/"
rm -rf "$cache/plugins" "$cache/bin"
mv "$work/plugins" "$work/bin" "$cache/"
peer_log "helm-secrets $version ready in $cache"
echo "$cache"
