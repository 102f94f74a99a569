#!/usr/bin/env bash
# Builds krew and validate-krew-manifest (sigs.k8s.io/krew $KREW_VERSION) from the Go
# module proxy into a cache directory and prints that directory. `go install ...@v0.5.0`
# is refused on machines whose proxy hides the version list, so a throw-away module
# requires the exact version and builds the two commands from it.
set -euo pipefail
KREW_VERSION="${KREW_VERSION:-v0.5.0}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/krew-${KREW_VERSION}"
if [ -x "$cache/bin/krew" ] && [ -x "$cache/bin/validate-krew-manifest" ]; then
  echo "$cache/bin"
  exit 0
fi
mkdir -p "$cache"
work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(
  cd "$work"
  export GOFLAGS=-mod=mod GOWORK=off
  go mod init krewtools.local >/dev/null 2>&1
  go mod edit -require="sigs.k8s.io/krew@${KREW_VERSION}"
  # tidy needs a file importing the commands to keep their dependencies.
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "sigs.k8s.io/krew/cmd/krew"
	_ "sigs.k8s.io/krew/cmd/validate-krew-manifest"
)
GO
  go mod tidy >&2
  CGO_ENABLED=0 go build -trimpath -o "$work/bin/krew" sigs.k8s.io/krew/cmd/krew >&2
  CGO_ENABLED=0 go build -trimpath -o "$work/bin/validate-krew-manifest" sigs.k8s.io/krew/cmd/validate-krew-manifest >&2
)
rm -rf "$cache/bin"
mv "$work/bin" "$cache/bin"
echo "$cache/bin"
