#!/usr/bin/env bash
# hack/bench.sh [SECTION...] — kubectl-chart benchmarks (`make bench` runs every section).
#
# Sections (no argument = all, in this order):
#   go       in-process Go benchmarks: go test -bench=. -benchmem ./domain/... (not BenchmarkBudget)
#   budget   what the render budget costs: the templates of corpus charts rendered in-process with
#            it and without it, in turns, in processor time (BenchmarkBudget, -count BENCH_COUNT,
#            default 6; medians), issue 16's target: under 3% of render time
#   render   whole-process `template` timing and peak RSS, kubectl-chart vs Helm 4 and Helm 3
#   startup  whole-process `version`, kubectl-chart vs Helm 4 (target <= 15 ms absolute)
#   list     `list -A` over 1,000 releases x 10 revisions in Secrets on a throw-away control plane,
#            kubectl-chart vs the Helm peer (test/e2e/releases/bench-list.sh; target ratio to Helm 4 <= 0.05)
#   sqllist  `list -A` over 10,000 releases x 10 revisions in PostgreSQL (HELM_DRIVER=sql), on a
#            throw-away server, kubectl-chart vs the Helm peer on the same database
#            (test/e2e/sqlstore/bench-list.sh; target ratio to Helm 4 <= 0.05)
#   install  install and no-change upgrade of a generated 500-object chart on a live control
#            plane, kubectl-chart vs the Helm peer (hack/bench-install.sh)
#   diff     `diff upgrade` of kube-prometheus-stack (corpus chart, installed on a control plane of
#            its own), no change and one --set, kubectl-chart vs the Helm peer doing the same
#            (`helm diff upgrade` when helm-diff can be built, else `helm upgrade --dry-run=server`,
#            Helm v4.3.1 and v3.22.0); target <= 1.5 s and <= 0.5x the peer (hack/bench-diff.sh)
#   drift    `drift -A` over 200 releases x 10 objects (ConfigMaps, Secrets, Services) in 20
#            namespaces, 20 of them drifted (hack/driftseed), on a throw-away control plane
#            (KUBECONFIG: that cluster instead); whole process, target < 2 s
#   stack    `stack diff` and `stack apply` of an unchanged 20-release stack (corpus charts, two
#            namespaces), the apply against helmfile v1.8.0 + Helm v4.3.1 `sync` (hack/bench-stack.sh;
#            targets: diff <= 2 s, apply <= 0.1x helmfile sync)
#   wasm     a Wasm (extism/v1) cli plugin, whole process, kubectl-chart vs Helm 4: first run
#            (empty compilation cache) and second run (cache filled) (hack/bench-wasm.sh)
#   stacktemplate `stack template` of a 20-release state file (corpus charts, two namespaces) vs
#            `helmfile template` (helmfile v1.8.0, hack/tool-peer.sh) with Helm v4.3.1 and with
#            Helm v3.22.0 as its helm; target <= 0.2x helmfile with Helm 4 (issue 27)
#
# After the sections, a summary prints issue 17's table for what they measured: each work's
# kubectl-chart, Helm 3 and Helm 4 medians (whole process), the ratio to Helm 4 and the target.
#
# Adding a section: write a function section_<name> and add <name> to SECTIONS; a row of the
# summary comes from a line "label<TAB>side<TAB>median seconds<TAB>peak MiB" appended to
# $BENCH_TSV (hack/benchcmp -tsv writes them) and an entry in summary_rows.
#
# Environment:
#   BIN           kubectl-chart binary (default bin/kubectl-chart, from `make build`)
#   HELM          Helm 4 binary to compare with (default: hack/helm-peer.sh v4.3.1 builds/caches it)
#   HELM3         Helm 3 binary to compare with (default: hack/helm-peer.sh v3.22.0)
#   CONFORMANCE   conformance directory holding corpus/ (default ../shared/conformance,
#                 relative to the repository root)
#   BENCH_RUNS    measured runs per binary and chart (default 15)
#   BENCH_WARMUP  unmeasured warm-up runs per binary and chart before those (default 2)
#   BENCH_CHARTS  corpus charts for `render` (default: kube-prometheus-stack argo-cd istio-base)
#   The slow sections have run counts of their own, so that a whole `make bench` ends in well
#   under an hour on a loaded 2-core machine (Helm alone lists the 10,000 records in 12-35 s):
#   BENCH_LIST_RUNS / BENCH_LIST_WARMUP     list (default 3 / 0)
#   BENCH_SQL_RUNS / BENCH_SQL_WARMUP       sqllist (default 1 / 0; Helm takes minutes a run)
#   BENCH_DIFF_RUNS / BENCH_DIFF_WARMUP     diff (default 5 / 1)
#   BENCH_INSTALL_RUNS                      install (default 3, hack/bench-install.sh)
#   BENCH_STACK_RUNS / BENCH_STACK_WARMUP   stack (default 5 / 1)
#   BENCH_WASM_RUNS                         wasm first runs (default 5; second runs 3x that)
#   BENCH_STACKTEMPLATE_RUNS / _WARMUP      stacktemplate (default 3 / 1; helmfile takes ~30 s a run)
#
# Benchmarks only report, they never assert timing. Render target (documented, not enforced):
# kubectl-chart median wall time <= 0.35 x Helm 4's (ratio column). A chart kubectl-chart cannot
# render yet shows "error" in its columns and does not fail the run.
set -euo pipefail

SECTIONS=(go budget render startup install list sqllist diff drift stack stacktemplate wasm)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

GO="${GO:-go}"
BIN="${BIN:-bin/kubectl-chart}"
CONFORMANCE="${CONFORMANCE:-../shared/conformance}"
BENCH_RUNS="${BENCH_RUNS:-15}"
BENCH_WARMUP="${BENCH_WARMUP:-2}"
BENCH_CHARTS="${BENCH_CHARTS:-kube-prometheus-stack argo-cd istio-base}"

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
title() { printf '\n== %s ==\n' "$*"; }

# peers sets helm4 and helm3 to the Helm binaries compared with.
peers() {
	helm4="${HELM:-}" helm3="${HELM3:-}"
	[[ -n $helm4 ]] || helm4="$("$root/hack/helm-peer.sh" v4.3.1)" || die "could not get Helm 4 (hack/helm-peer.sh v4.3.1)"
	[[ -n $helm3 ]] || helm3="$("$root/hack/helm-peer.sh" v3.22.0)" || die "could not get Helm 3 (hack/helm-peer.sh v3.22.0)"
	[[ -x $helm4 && -x $helm3 ]] || die "Helm binaries $helm4 / $helm3 not executable"
}

usage() {
	echo "usage: hack/bench.sh [SECTION...]   sections: ${SECTIONS[*]} (no argument: all)" >&2
}

# go: the in-process Go benchmarks under domain/ (Benchmark* functions in *_test.go).
section_go() {
	title "Go benchmarks (./domain/...)"
	if ! grep -rqsE --include='*_test.go' '^func Benchmark' domain; then
		log "no Benchmark functions under domain/ yet; skipping"
		return 0
	fi
	# Tests do not run here (-run), nor BenchmarkBudget, which the budget section runs.
	"$GO" test -run='^$' -bench=. -skip='^BenchmarkBudget$' -benchmem ./domain/...
}

# budget: BenchmarkBudget's renders with the render budget on and off, in turns, in processor
# time (the machine's other load does not count); per chart the medians of -count runs.
section_budget() {
	title "render budget cost: corpus templates rendered in-process, budget on vs off (processor time, -count ${BENCH_COUNT:-6}, target < 3%)"
	local out
	out="$("$GO" test -run='^$' -bench='^BenchmarkBudget$' -benchtime="${BENCH_BUDGET_TIME:-10x}" \
		-count="${BENCH_COUNT:-6}" ./domain/engine)" || { printf '%s\n' "$out"; die "BenchmarkBudget failed"; }
	printf '%s\n' "$out" | awk '
		$1 ~ /^BenchmarkBudget\// {
			c = $1; sub(/^BenchmarkBudget\//, "", c); sub(/-[0-9]+$/, "", c)
			if (!(c in n)) order[++charts] = c
			k = ++n[c]
			for (i = 5; i < NF; i += 2) v[c, $(i + 1), k] = $i
		}
		function median(c, m,   i, j, t, a, k) {
			k = n[c]
			for (i = 1; i <= k; i++) a[i] = v[c, m, i]
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		END {
			printf "| %-24s | %12s | %12s | %8s |\n", "chart", "budget on", "budget off", "cost"
			printf "|%s|%s|%s|%s|\n", "--------------------------", "-------------:", "-------------:", "---------:"
			for (i = 1; i <= charts; i++) {
				c = order[i]
				printf "| %-24s | %9.1f ms | %9.1f ms | %+7.1f%% |\n", c, median(c, "on-cpu-ms/op"), median(c, "off-cpu-ms/op"), median(c, "cost-%")
			}
		}'
}

# render: `template` of large corpus charts, whole process, kubectl-chart vs Helm.
section_render() {
	title "template: kubectl-chart vs Helm 4 and Helm 3 (whole process, ${BENCH_RUNS} runs, target ratio to Helm 4 <= 0.35)"
	[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
	local corpus="$CONFORMANCE/corpus"
	[[ -d $corpus ]] || die "conformance corpus not found at $corpus (set CONFORMANCE)"
	peers
	log "kubectl-chart: $BIN; helm4: $helm4; helm3: $helm3"

	local charts
	read -ra charts <<<"$BENCH_CHARTS"
	local IFS=,
	"$GO" run ./hack/benchcmp \
		-corpus "$corpus" -charts "${charts[*]}" \
		-a "$BIN" -a-name kubectl-chart -b "$helm4" -b-name helm4 -c "$helm3" -c-name helm3 \
		-runs "$BENCH_RUNS" -warmup "$BENCH_WARMUP" -tsv "$BENCH_TSV" -tsv-label "template {chart}" \
		-- template rel chart --namespace demo --kube-version 1.31.0
}

# startup: `version`, whole process: what every command pays before doing anything.
section_startup() {
	title "version start-up: kubectl-chart vs Helm 4 and Helm 3 (whole process, ${BENCH_RUNS} runs, target <= 15 ms)"
	[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
	peers
	"$GO" run ./hack/benchcmp -corpus "$root" -charts . \
		-a "$BIN" -a-name kubectl-chart -b "$helm4" -b-name helm4 -c "$helm3" -c-name helm3 \
		-runs "$((BENCH_RUNS * 2))" -warmup "$BENCH_WARMUP" -tsv "$BENCH_TSV" -tsv-label "version start-up" \
		-- version
	# None in a `make build` binary (hack/wazero-lazyinit); upstream's wazero runs six.
	echo "wazero package initialisers run by version: $(GODEBUG=inittrace=1 "$BIN" version 2>&1 >/dev/null | grep -c '^init github.com/tetratelabs/wazero' || true)"
}

# install: install, then a no-change upgrade, of 500 objects on the same control plane.
section_install() {
	title "install / no-change upgrade: kubectl-chart vs Helm (500 objects, whole process)"
	peers
	BIN="$BIN" HELM="$helm4" HELM3="$helm3" BENCH_TSV="$BENCH_TSV" "$root/hack/bench-install.sh"
}

# list: `list -A` with 1,000 releases x 10 revisions in Secrets, kubectl-chart vs Helm.
section_list() {
	title "list -A: 1,000 releases x 10 revisions in Secrets, kubectl-chart vs Helm 4 and Helm 3 (target ratio to Helm 4 <= 0.05)"
	peers
	BIN="$BIN" GO="$GO" HELM="$helm4" HELM3="$helm3" BENCH_TSV="$BENCH_TSV" BENCH_RUNS="${BENCH_LIST_RUNS:-3}" \
		BENCH_WARMUP="${BENCH_LIST_WARMUP:-0}" "$root/test/e2e/releases/bench-list.sh"
}

# sqllist: `list -A` with 10,000 releases x 10 revisions in PostgreSQL, kubectl-chart vs Helm.
section_sqllist() {
	title "list -A: 10,000 releases x 10 revisions in PostgreSQL, kubectl-chart vs Helm 4 and Helm 3 (target ratio to Helm 4 <= 0.05)"
	peers
	BIN="$BIN" GO="$GO" HELM="$helm4" HELM3="$helm3" BENCH_TSV="$BENCH_TSV" BENCH_RUNS="${BENCH_SQL_RUNS:-1}" \
		BENCH_WARMUP="${BENCH_SQL_WARMUP:-0}" "$root/test/e2e/sqlstore/bench-list.sh"
}

# wasm: a Wasm plugin's first and second run (compilation cache empty, then filled).
section_wasm() {
	title "Wasm plugin (extism/v1 cli/v1): first and second run, kubectl-chart vs Helm 4 (whole process)"
	[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
	peers
	BIN="$BIN" GO="$GO" HELM="$helm4" BENCH_TSV="$BENCH_TSV" BENCH_RUNS="${BENCH_WASM_RUNS:-5}" "$root/hack/bench-wasm.sh"
}

# stacktemplate: `stack template` of 20 releases vs `helmfile template`, each run from the stack's
# directory through a one-line wrapper (benchcmp gives every side the same arguments).
section_stacktemplate() {
	title "stack template: 20 releases (corpus charts, two namespaces) vs helmfile template with Helm 4 and Helm 3 (whole process, target <= 0.2)"
	[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
	peers
	local helmfile corpus bin c i ns
	helmfile="$("$root/hack/tool-peer.sh" helmfile)" || die "could not get helmfile (hack/tool-peer.sh helmfile)"
	corpus="$(cd "${CONFORMANCE:-$root/../shared/conformance}/corpus" && pwd)" || die "no conformance corpus"
	bin="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
	work="$(mktemp -d)"
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/stacks/stack20" "$work/home"
	# Charts without dependencies (helmfile would run `helm dependency build` on the others).
	local charts=(alertmanager argo-rollouts argo-workflows argocd-apps cert-manager grafana ingress-nginx
		istio-base istio-gateway kube-state-metrics logstash metrics-server opentelemetry-collector
		opentelemetry-operator prometheus-adapter prometheus-blackbox-exporter prometheus-node-exporter
		promtail helm-object-order synthetic-files)
	{
		echo "releases:"
		i=0
		for c in "${charts[@]}"; do
			ns=team-a
			((i % 2)) && ns=team-b
			printf -- '- name: %s\n  namespace: %s\n  chart: %s\n' "$c" "$ns" "$corpus/$c/chart"
			# opentelemetry-collector refuses to render without an image and a mode.
			[[ $c == opentelemetry-collector ]] &&
				printf '  set:\n  - name: image.repository\n    value: otel/opentelemetry-collector-k8s\n  - name: mode\n    value: deployment\n'
			i=$((i + 1))
		done
	} >"$work/stacks/stack20/helmfile.yaml"
	printf '#!/bin/sh\nexec "%s" stack template "$@"\n' "$bin" >"$work/ours"
	printf '#!/bin/sh\nexec "%s" --helm-binary "%s" template "$@"\n' "$helmfile" "$helm4" >"$work/helmfile-helm4"
	printf '#!/bin/sh\nexec "%s" --helm-binary "%s" template "$@"\n' "$helmfile" "$helm3" >"$work/helmfile-helm3"
	chmod +x "$work/ours" "$work/helmfile-helm4" "$work/helmfile-helm3"
	HOME="$work/home" XDG_CACHE_HOME="$work/home/cache" XDG_CONFIG_HOME="$work/home/config" \
		"$GO" run ./hack/benchcmp -corpus "$work/stacks" -charts stack20 \
		-a "$work/ours" -a-name kubectl-chart -b "$work/helmfile-helm4" -b-name helm4 -c "$work/helmfile-helm3" -c-name helm3 \
		-runs "${BENCH_STACKTEMPLATE_RUNS:-3}" -warmup "${BENCH_STACKTEMPLATE_WARMUP:-1}" -tsv "$BENCH_TSV" -tsv-label "stack template 20 releases" \
		-- --file helmfile.yaml
}

# summary_rows: label|what (time or peak)|TSV label|target, in issue 17's order.
summary_rows=(
	"template kube-prometheus-stack|time|template kube-prometheus-stack|<= 0.35"
	"template argo-cd|time|template argo-cd|<= 0.35"
	"template istio-base|time|template istio-base|<= 0.35"
	"template peak memory, istio-base|peak|template istio-base|<= 1.0"
	"version start-up|time|version start-up|<= 15 ms absolute"
	"install, 500 objects|time|install 500 objects|<= 0.3"
	"no-change upgrade, 500 objects|time|no-change upgrade 500 objects|<= 0.2"
	"list -A, 1,000 x 10 written by Helm|time|list -A helm-written|<= 0.05"
	"list -A, 1,000 x 10 written by us|time|list -A ours-written|keep (0.02)"
	"Wasm plugin, first run|time|wasm plugin first run|report"
	"Wasm plugin, second run|time|wasm plugin second run|report"
	"list -A, 10,000 x 10 in PostgreSQL|time|list -A sql|<= 0.05"
	"list -A peak memory, 10,000 x 10 in PostgreSQL|peak|list -A sql|bounded"
	"stack diff, 20 releases unchanged|time|stack diff 20 releases|<= 2 s absolute"
	"stack apply, 20 unchanged (Helm 4: helmfile sync)|time|stack apply 20 releases|<= 0.1"
	"stack template, 20 releases (vs helmfile)|time|stack template 20 releases|<= 0.2"
)

# summary prints the table of what the sections measured; rows nothing measured show "-".
summary() {
	[[ -s $BENCH_TSV ]] || return 0
	title "summary (issue 17): medians, whole process"
	printf '%s\n' "${summary_rows[@]}" | awk -F'|' -v tsv="$BENCH_TSV" '
		BEGIN {
			FS = "\t"
			while ((getline line < tsv) > 0) { split(line, f, "\t"); t[f[1], f[2]] = f[3]; m[f[1], f[2]] = f[4] }
			FS = "|"
			printf "| %-38s | %13s | %10s | %10s | %15s | %-18s |\n", "work", "kubectl-chart", "Helm 3", "Helm 4", "ratio to Helm 4", "target"
			printf "|%s|%s|%s|%s|%s|%s|\n", "----------------------------------------", "--------------:", "-----------:", "-----------:", "----------------:", "--------------------"
		}
		function fmt(v, what) {
			if (v == "") return "-"
			if (what == "peak") return sprintf("%.0f MiB", v)
			return v < 1 ? sprintf("%.0f ms", v * 1000) : sprintf("%.2f s", v)
		}
		{
			k = ($2 == "peak") ? m[$3, "kubectl-chart"] : t[$3, "kubectl-chart"]
			h3 = ($2 == "peak") ? m[$3, "helm3"] : t[$3, "helm3"]
			h4 = ($2 == "peak") ? m[$3, "helm4"] : t[$3, "helm4"]
			ratio = (k != "" && h4 != "" && h4 > 0) ? sprintf("%.2f", k / h4) : "-"
			printf "| %-38s | %13s | %10s | %10s | %15s | %-18s |\n", $1, fmt(k, $2), fmt(h3, $2), fmt(h4, $2), ratio, $4
		}'
}

# diff: `diff upgrade` of kube-prometheus-stack, no change and one --set, kubectl-chart vs Helm.
section_diff() {
	title "diff upgrade: kube-prometheus-stack, kubectl-chart vs Helm (whole process, ${BENCH_DIFF_RUNS:-5} runs, target <= 1.5 s and <= 0.5x)"
	BIN="$BIN" GO="$GO" CONFORMANCE="$CONFORMANCE" BENCH_RUNS="${BENCH_DIFF_RUNS:-5}" BENCH_WARMUP="${BENCH_DIFF_WARMUP:-1}" \
		"$root/hack/bench-diff.sh"
}

# stack: `stack diff` and `stack apply` of an unchanged 20-release stack, the apply against
# helmfile sync (issue 27).
section_stack() {
	title "stack: 20 releases unchanged, diff and apply vs helmfile sync (whole process, ${BENCH_STACK_RUNS:-5} runs, targets <= 2 s and <= 0.1x)"
	BIN="$BIN" GO="$GO" CONFORMANCE="$CONFORMANCE" BENCH_TSV="$BENCH_TSV" BENCH_RUNS="${BENCH_STACK_RUNS:-5}" BENCH_WARMUP="${BENCH_STACK_WARMUP:-1}" \
		"$root/hack/bench-stack.sh"
}

# drift: `drift -A` over 200 releases of 10 objects each (hack/driftseed); no Helm peer (Helm has
# no drift). A fresh control plane of its own unless KUBECONFIG is set (then its namespaces
# drift-bench-NN are deleted afterwards).
section_drift() {
	title "drift -A: 200 releases x 10 objects in 20 namespaces (whole process, ${BENCH_RUNS} runs, target < 2 s)"
	[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
	local bin line i rc
	bin="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
	# Not local: the EXIT trap runs after the function returned (the section runs in a subshell
	# of its own, whose end is EXIT).
	work="$(mktemp -d)"
	trap '
		if [[ -d $work/cluster ]]; then "$work/devcluster" down -state "$work/cluster" >/dev/null 2>&1 || true
		elif [[ -x $work/driftseed ]]; then "$work/driftseed" -delete >/dev/null 2>&1 || true; fi
		rm -rf "$work"' EXIT
	"$GO" build -o "$work/driftseed" ./hack/driftseed
	if [[ -z ${KUBECONFIG:-} ]]; then
		"$GO" build -o "$work/devcluster" ./hack/devcluster
		line="$("$work/devcluster" up -state "$work/cluster" | tail -n 1)"
		export KUBECONFIG="${line#export KUBECONFIG=}"
	fi
	[[ -f $KUBECONFIG ]] || die "kubeconfig $KUBECONFIG not found"
	export KUBECTL_CHART_STORAGE=secret
	"$work/driftseed" -releases 200 -namespaces 20 -drifted 10
	# Check once that it reports what was seeded (20 drifted releases). On a cluster of one's
	# own, a release that cannot be read makes drift -A exit 1: it is still measured.
	rc=0
	"$bin" drift -A -o json >"$work/drift.json" || rc=$?
	((rc == 0)) || log "warning: drift -A exited $rc"
	log "drift -A reports $(grep -c '"drifted": true' "$work/drift.json") drifted release(s) of $(grep -c '"release":' "$work/drift.json")"
	for ((i = 0; i < BENCH_WARMUP; i++)); do "$bin" drift -A >/dev/null 2>&1 || true; done
	# Wall time and CPU time (user + system) of each run, by bash's time.
	local TIMEFORMAT='%3R %3U %3S' samples=""
	for ((i = 0; i < BENCH_RUNS; i++)); do
		samples+="$({ time "$bin" drift -A >/dev/null 2>&1 || true; } 2>&1)"$'\n'
	done
	printf '%s' "$samples" | awk '
		{ wall[NR] = $1; cpu[NR] = $2 + $3 }
		# Sorts a in place: then a[1] is the minimum and a[n] the maximum.
		function median(a, n,    i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			return a[int((n + 1) / 2)]
		}
		END {
			n = NR; mw = median(wall, n); mc = median(cpu, n)
			printf "%-40s %10s %10s %10s %12s   %s\n", "", "median", "min", "max", "CPU median", "target"
			printf "%-40s %8.2f s %8.2f s %8.2f s %10.2f s   %s\n", "kubectl-chart drift -A (2,000 objects)", mw, wall[1], wall[n], mc, "< 2 s"
		}'
}

main() {
	local selected=("$@") s rc failed=()
	BENCH_TSV="$(mktemp)"
	export BENCH_TSV
	trap 'rm -f "$BENCH_TSV"' EXIT
	((${#selected[@]})) || selected=("${SECTIONS[@]}")
	for s in "${selected[@]}"; do
		case $s in
		-h | --help | help) usage; return 0 ;;
		esac
		[[ " ${SECTIONS[*]} " == *" $s "* ]] || { usage; die "unknown section '$s'"; }
	done
	for s in "${selected[@]}"; do
		# Each section runs in its own subshell, with errexit in force (it would not be inside
		# an `if`), so one failing section (e.g. a Go benchmark that does not compile) still
		# lets the others report; the script then fails at the end.
		set +e
		(
			set -e
			"section_$s"
		)
		rc=$?
		set -e
		if ((rc != 0)); then
			log "section '$s' failed (exit $rc)"
			failed+=("$s")
		fi
	done
	summary
	if ((${#failed[@]})); then
		die "failed sections: ${failed[*]}"
	fi
}

# On one line: bash reads a script as it runs it, so an edit made meanwhile cannot run stray lines.
main "$@"; exit
