#!/usr/bin/env bash
# hack/krew-tools.sh — build krew and validate-krew-manifest (sigs.k8s.io/krew $KREW_VERSION) from
# the Go module proxy into a cache directory, once, and print that directory. `go install ...@v0.5.0`
# is refused on machines whose proxy hides the version list, so a throwaway module requires the
# exact version and builds the two commands from it.
set -euo pipefail

peer_name=krew-tools
# shellcheck source=lib/peer.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/peer.sh"

KREW_VERSION="${KREW_VERSION:-v0.5.0}"
cache="$(peer_cache_dir "krew-$KREW_VERSION")"
built() { [[ -x $cache/bin/krew && -x $cache/bin/validate-krew-manifest ]]; }
peer_start "$cache" "$cache/bin" built
export GOFLAGS=-mod=mod

cd "$work"
"$GO" mod init krewtools.local >/dev/null 2>&1 || peer_die "go mod init failed in $work"
"$GO" mod edit -require="sigs.k8s.io/krew@$KREW_VERSION"
# tidy needs a file importing the commands to keep their dependencies.
cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "sigs.k8s.io/krew/cmd/krew"
	_ "sigs.k8s.io/krew/cmd/validate-krew-manifest"
)
GO
"$GO" mod tidy >&2 || peer_die "go mod tidy failed for sigs.k8s.io/krew@$KREW_VERSION"
for cmd in krew validate-krew-manifest; do
	"$GO" build -trimpath -o "$work/bin/$cmd" "sigs.k8s.io/krew/cmd/$cmd" >&2 ||
		peer_die "go build sigs.k8s.io/krew/cmd/$cmd@$KREW_VERSION failed"
done
rm -rf "$cache/bin"
mv "$work/bin" "$cache/bin"
echo "$cache/bin"
