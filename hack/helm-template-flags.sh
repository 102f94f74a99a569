#!/usr/bin/env bash
# hack/helm-template-flags.sh — list the flags Helm's `template` accepts, per Helm release, into
# cmd/kubectl-chart/testdata/helm-flags/template-<dialect>.txt, which TestTemplateAcceptsHelmFlags
# reads. Helm is run, never linked (hack/helm-peer.sh builds it).
#
# A line is "--name TYPE" ("bool" for flags without a value): the local flags `helm template --help`
# prints, and the hidden ones (deprecated in Helm 4) found by trying each of install's, upgrade's and
# template's flags on a chart. Global flags are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
out=cmd/kubectl-chart/testdata/helm-flags
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

list() { # helm: the local flags of `helm template --help`, "--name TYPE"
	"$1" template --help | sed -n '/^Flags:/,/^$/p' | grep -- '--' | grep -v -- '--help ' |
		sed -E 's/^ *(-[a-z], )?--([a-z0-9-]+) ?([A-Za-z0-9]+)?.*/--\2 \3/; s/ $/ bool/'
}

for pair in helm4:v4.3.1 helm3:v3.22.0; do
	dialect=${pair%%:*}
	helm=$(bash hack/helm-peer.sh "${pair#*:}")
	env -i HOME="$work" PATH="$PATH" "$helm" create "$work/c" >/dev/null
	{
		list "$helm"
		# Hidden flags: install's, upgrade's and template's (of either release) that template takes too.
		for v in v4.3.1 v3.22.0; do
			h=$(bash hack/helm-peer.sh "$v")
			"$h" install --help
			"$h" upgrade --help
			"$h" template --help
		done | grep -oE -- '^ *(-[a-z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u |
			while read -r f; do
				grep -q -- "^$f " <(list "$helm") && continue
				err=$(env -i HOME="$work" PATH="$PATH" KUBECONFIG=/nonexistent "$helm" template x "$work/c" "$f" 2>&1 >/dev/null || true)
				case $err in
				*"unknown flag"* | *"unknown shorthand"*) ;;
				*"needs an argument"*) echo "$f string" ;;
				*) echo "$f bool" ;;
				esac
			done
	} | grep -vE -- '^--(help|burst-limit|qps|color|colour|content-cache|debug|kube-[a-z-]+|kubeconfig|namespace|registry-config|repository-cache|repository-config) ' |
		sort -u >"$out/template-$dialect.txt"
	echo "wrote $out/template-$dialect.txt ($(wc -l <"$out/template-$dialect.txt") flags)" >&2
done
