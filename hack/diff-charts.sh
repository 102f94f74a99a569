#!/usr/bin/env bash
# hack/diff-charts.sh — differential check against the Helm peer on real-world charts beyond the
# conformance corpus: the charts that Go modules carry in their repositories, fetched from the Go
# module proxy. For every chart directory: `template` with the defaults and with each ci/*.yaml
# values file, and `lint` / `lint --strict` (exit code and the severities of the findings).
# Not part of `make test` (it downloads modules); run it when changing rendering or lint.
#
# Environment:
#   BIN      kubectl-chart binary (default bin/kubectl-chart)
#   HELM     Helm binary (default: hack/helm-peer.sh)
#   MODULES  space-separated module@version list (default: a fixed list of projects with charts)
#
# Prints one line per differing case and a summary; exits 1 when any case differs. Outputs that
# differ only in generated certificates and random strings are reported as DIFF too: read them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BIN="${BIN:-bin/kubectl-chart}"
[[ -x $BIN ]] || { echo "diff-charts: $BIN not found; run 'make build' first" >&2; exit 2; }
helm="${HELM:-$(hack/helm-peer.sh)}"
MODULES="${MODULES:-sigs.k8s.io/metrics-server@v0.9.0 sigs.k8s.io/descheduler@v0.36.0 github.com/kyverno/kyverno@v1.19.1 github.com/fluxcd/flagger@v1.36.1 github.com/external-secrets/external-secrets@v1.3.2 k8s.io/ingress-nginx@v0.0.0-20240708192948-52c50467d67d github.com/cert-manager/cert-manager@v1.21.2 github.com/kubernetes-sigs/aws-load-balancer-controller@v0.0.0-20260423195125-93ff3b5fdaad github.com/open-policy-agent/gatekeeper/v3@v3.23.1 github.com/chaos-mesh/chaos-mesh@v0.9.1-0.20260902003049-47411975a8cb github.com/projectcalico/calico@v1.11.0-cni-plugin.0.20250813170300-a0db560f0520 github.com/cilium/cilium@v1.20.2 github.com/grafana/loki/v3@v3.7.8 istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad github.com/dapr/dapr@v1.14.0 github.com/envoyproxy/gateway@v1.9.1}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HELM_CACHE_HOME="$work/hc" HELM_CONFIG_HOME="$work/hcfg" HELM_DATA_HOME="$work/hd"

charts=()
for m in $MODULES; do
	dir="$(GOFLAGS=-mod=mod go mod download -json "$m" 2>/dev/null | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
	[[ -n $dir ]] || { echo "diff-charts: cannot download $m" >&2; continue; }
	while IFS= read -r c; do charts+=("$(dirname "$c")"); done < <(find "$dir" -name Chart.yaml | sort)
done

same=0 differ=0
report() { differ=$((differ + 1)); echo "DIFF $1"; }
for d in "${charts[@]}"; do
	name="${d#"$(go env GOMODCACHE)"/}"
	cases=("")
	for v in "$d"/ci/*.yaml; do [[ -f $v ]] && cases+=("$v"); done
	for v in "${cases[@]}"; do
		args=(template rel "$d" -n ns)
		[[ -n $v ]] && args+=(-f "$v")
		"$helm" "${args[@]}" >"$work/h.out" 2>"$work/h.err" && he=0 || he=$?
		"$BIN" "${args[@]}" >"$work/k.out" 2>"$work/k.err" && ke=0 || ke=$?
		if [[ $he != 0 && $ke != 0 ]]; then
			# The dependency hint names each tool's own command.
			hl="$(grep -m1 '^Error' "$work/h.err" | sed 's/helm dependency build/DEPENDENCY BUILD/')"
			kl="$(grep -m1 '^Error' "$work/k.err" | sed 's/kubectl chart dependency build/DEPENDENCY BUILD/')"
			if [[ $hl == "$kl" ]]; then same=$((same + 1)); else report "template $name ${v##*/}: $hl | $kl"; fi
		elif [[ $he != "$ke" ]]; then report "template $name ${v##*/}: exit $he/$ke"
		elif cmp -s "$work/h.out" "$work/k.out"; then same=$((same + 1))
		else report "template $name ${v##*/}: output ($(diff "$work/h.out" "$work/k.out" | grep -c '^[<>]') lines)"
		fi
	done
	for strict in "" --strict; do
		"$helm" lint $strict "$d" >"$work/h.l" 2>/dev/null && he=0 || he=$?
		"$BIN" lint $strict "$d" >"$work/k.l" 2>/dev/null && ke=0 || ke=$?
		ks="$(grep -o '^\[[A-Z]*\]' "$work/k.l" | grep -v INFO | sort | uniq -c | tr -s ' ' | tr '\n' ' ' || true)"
		hs="$(grep -o '^\[[A-Z]*\]' "$work/h.l" | grep -v INFO | sort | uniq -c | tr -s ' ' | tr '\n' ' ' || true)"
		# INFO findings are left out: ours also reports required/fail there (README).
		if [[ $he == "$ke" && $hs == "$ks" ]]; then same=$((same + 1)); else report "lint$strict $name: exit $he/$ke, findings helm: $hs/ ours: $ks"; fi
	done
done
echo "diff-charts: ${#charts[@]} charts, $same cases alike, $differ differing"
[[ $differ == 0 ]]
