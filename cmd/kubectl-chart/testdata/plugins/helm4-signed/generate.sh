#!/bin/sh
# Regenerates this directory's fixtures with the real Helm v4.3.1: a fresh
# GnuPG key (pubring.gpg) and envprint packaged and signed by `helm plugin
# package` (envprint-0.1.0.tgz and .prov). Run from the repository root:
#   sh cmd/kubectl-chart/testdata/plugins/helm4-signed/generate.sh
set -eu
here=cmd/kubectl-chart/testdata/plugins/helm4-signed
helm=$(bash hack/helm-peer.sh v4.3.1)
GNUPGHOME=$(mktemp -d)
export GNUPGHOME
trap 'rm -rf "$GNUPGHOME"' EXIT
printf '%s\n' '%no-protection' 'Key-Type: RSA' 'Key-Length: 2048' 'Name-Real: Helm Fixture' \
	'Name-Email: fixture@example.com' 'Expire-Date: 0' '%commit' | gpg --batch --gen-key 2>/dev/null
gpg --export >"$here/pubring.gpg"
gpg --export-secret-keys >"$GNUPGHOME/secring.gpg"
"$helm" plugin package cmd/kubectl-chart/testdata/plugins/envprint --key 'Helm Fixture' \
	--keyring "$GNUPGHOME/secring.gpg" -d "$here"
