#!/usr/bin/env bash
# hack/bench-diff.sh — the `diff` section of hack/bench.sh: whole-process `kubectl chart diff
# upgrade` of the corpus chart kube-prometheus-stack (about 115 objects, ten large CRDs) on a
# control plane of its own, side by side with the Helm peer doing the same work.
#
# Set-up (not timed): a fresh control plane (hack/devcluster, private state directory, stopped
# at the end) unless KUBECONFIG is set; `kubectl chart install` of the chart with its default
# values (the corpus's `default` case), CRDs included, as the chart installs them; then one
# `kubectl chart upgrade` with the same values, because the chart's grafana Secret checksum is
# random at install time (the first upgrade changes it, with Helm as well) and a no-change
# diff should have nothing to find. Timed, alternating the tools run by run:
#
#   no change    kubectl chart diff upgrade REL CHART
#   --set        kubectl chart diff upgrade REL CHART --set kube-state-metrics.replicas=2
#                (one Deployment changes)
#
# The peer does the same with each Helm binary: `helm diff upgrade` when the helm-diff plugin
# (github.com/databus23/helm-diff) can be built from the Go module proxy and works with that
# Helm (it is then installed as a plugin in a temporary HELM_PLUGINS directory), otherwise
# `helm upgrade REL CHART --dry-run=server` (renders with lookups against the live release and
# cluster; Helm has no diff of its own). The table says which peer was measured.
#
# Before timing, the script prints what kubectl-chart's diff reports for each case (the objects
# it shows as changed) and warns when a no-change diff reports a change. It only reports: a run
# that fails shows "error" in its column and the other figures are still printed.
#
# Target (documented, not enforced): kubectl-chart's median <= 1.5 s and <= 0.5x the peer's.
#
# Environment:
#   BIN            kubectl-chart binary (default bin/kubectl-chart)
#   GO             go command (default go)
#   CONFORMANCE    conformance directory holding corpus/ (default ../shared/conformance)
#   KUBECONFIG     cluster to use; when unset, a fresh control plane of its own. On a cluster of
#                  yours the release goes to a namespace of its own and is uninstalled at the end
#                  (its CRDs stay, as with Helm)
#   HELM           one Helm binary to compare with (default: hack/helm-peer.sh for each version of
#                  BENCH_DIFF_HELM_VERSIONS)
#   BENCH_DIFF_HELM_VERSIONS   Helm peers (default "v4.3.1 v3.22.0"; v3.22.0 is the one the other
#                  sections build, so it is usually cached)
#   BENCH_RUNS     measured runs per tool and case (default 15)
#   BENCH_WARMUP   unmeasured warm-up runs per tool and case before those (default 2)
#   BENCH_DIFF_SET the --set of the changing case (default kube-state-metrics.replicas=2)
#   BENCH_DIFF_HELM_DIFF          a helm-diff binary to use instead of building one; "none" never
#                                 uses helm-diff
#   BENCH_DIFF_HELM_DIFF_VERSION  helm-diff version to build (default latest); the binary is kept
#                                 in ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/helm-diff/<version>/
#   BENCH_DIFF_HELM_DIFF_FLAGS    helm diff upgrade's flags (default "--dry-run=server
#                                 --three-way-merge": lookups work, and it diffs against the live
#                                 objects as kubectl-chart does)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf 'bench diff: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=hack/lib/benchstats.sh
source "$root/hack/lib/benchstats.sh"

GO="${GO:-go}"
BIN="${BIN:-bin/kubectl-chart}"
CONFORMANCE="${CONFORMANCE:-../shared/conformance}"
RUNS="${BENCH_RUNS:-15}"
WARMUP="${BENCH_WARMUP:-2}"
SET="${BENCH_DIFF_SET:-kube-state-metrics.replicas=2}"
HELM_VERSIONS="${BENCH_DIFF_HELM_VERSIONS:-v4.3.1 v3.22.0}"
HELM_DIFF="${BENCH_DIFF_HELM_DIFF:-}"
HELM_DIFF_VERSION="${BENCH_DIFF_HELM_DIFF_VERSION:-latest}"
read -ra HELM_DIFF_FLAGS <<<"${BENCH_DIFF_HELM_DIFF_FLAGS:---dry-run=server --three-way-merge}"
REL=kps

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive number, not '$RUNS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "BENCH_WARMUP must be a number, not '$WARMUP'"
[[ -x $BIN ]] || die "$BIN not found or not executable; run 'make build' first (or set BIN)"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
corpus_chart="$CONFORMANCE/corpus/kube-prometheus-stack/chart"
[[ -f $corpus_chart/Chart.yaml ]] || die "kube-prometheus-stack not found at $corpus_chart (set CONFORMANCE)"

work="$(mktemp -d)"
own_cluster=0
ns=demo
cleanup() {
	local rc=$?
	if ((own_cluster)); then
		"$work/devcluster" down -state "$work/cluster" >/dev/null 2>&1 || log "warning: could not stop the control plane in $work/cluster"
	elif [[ -n ${KUBECONFIG:-} && -f $work/installed ]]; then
		"$BIN" uninstall "$REL" -n "$ns" --wait >/dev/null 2>&1 || log "warning: could not uninstall $REL from namespace $ns"
		if command -v kubectl >/dev/null 2>&1; then
			kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
		fi
	fi
	rm -rf "$work"
	return "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The chart as the corpus has it (dependencies vendored as .tgz).
chart="$(cd "$corpus_chart" && pwd)"

# --- the Helm peers ---------------------------------------------------------------------------
helms=()
if [[ -n ${HELM:-} ]]; then
	[[ -x $HELM ]] || die "Helm binary $HELM not executable"
	helms+=("$HELM")
else
	for v in $HELM_VERSIONS; do
		if h="$("$root/hack/helm-peer.sh" "$v")"; then
			helms+=("$h")
		else
			log "warning: could not get Helm $v (hack/helm-peer.sh $v); it is left out"
		fi
	done
fi
((${#helms[@]})) || die "no Helm peer"

# Helm runs with homes of its own: no plugins, repositories or caches of the user's, and the
# helm-diff plugin (when there is one) in a temporary HELM_PLUGINS directory.
export HELM_PLUGINS="$work/helm/plugins" HELM_CONFIG_HOME="$work/helm/config" \
	HELM_CACHE_HOME="$work/helm/cache" HELM_DATA_HOME="$work/helm/data"
mkdir -p "$HELM_PLUGINS" "$HELM_CONFIG_HOME" "$HELM_CACHE_HOME" "$HELM_DATA_HOME"

# helm_diff_binary prints the path of a helm-diff binary, building it from the Go module proxy
# into the cache the first time; it fails (saying why) when it cannot.
helm_diff_binary() {
	if [[ -n $HELM_DIFF ]]; then
		[[ -x $HELM_DIFF ]] || { log "BENCH_DIFF_HELM_DIFF=$HELM_DIFF is not executable"; return 1; }
		echo "$HELM_DIFF"
		return 0
	fi
	local cache="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/helm-diff/$HELM_DIFF_VERSION"
	if [[ -x $cache/diff ]]; then
		echo "$cache/diff"
		return 0
	fi
	mkdir -p "$cache"
	local build
	build="$(mktemp -d "$cache/build.XXXXXX")"
	log "building helm-diff@$HELM_DIFF_VERSION from the Go module proxy (first time only)"
	# From inside the cache directory, with no workspace and no vendoring of this repository.
	if ! (cd "$build" && GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 GOBIN="$build/bin" \
		"$GO" install "github.com/databus23/helm-diff/v3@$HELM_DIFF_VERSION") >"$build/log" 2>&1; then
		log "helm-diff cannot be built: $(grep -v '^go: downloading' "$build/log" | tail -n 3 | tr '\n' ' ')"
		rm -rf "$build"
		rmdir "$cache" 2>/dev/null || true
		return 1
	fi
	mv -f "$build/bin/helm-diff" "$cache/diff"
	rm -rf "$build"
	echo "$cache/diff"
}

# Installed as the upstream plugin.yaml describes it, without its download hooks.
helm_diff=""
if [[ $HELM_DIFF != none ]] && hd="$(helm_diff_binary)"; then
	hd_version="$("$GO" version -m "$hd" 2>/dev/null | awk '$1 == "mod" { sub(/^v/, "", $3); print $3 }' || true)"
	mkdir -p "$HELM_PLUGINS/diff/bin"
	cp "$hd" "$HELM_PLUGINS/diff/bin/diff"
	cat >"$HELM_PLUGINS/diff/plugin.yaml" <<-YAML
		name: "diff"
		version: "${hd_version:-0.0.0}"
		usage: "Preview helm upgrade changes as a diff"
		description: "Preview helm upgrade changes as a diff"
		command: "\$HELM_PLUGIN_DIR/bin/diff"
	YAML
	helm_diff="$hd"
fi

# --- the control plane and the release --------------------------------------------------------
if [[ -z ${KUBECONFIG:-} ]]; then
	"$GO" build -o "$work/devcluster" ./hack/devcluster
	own_cluster=1
	line="$("$work/devcluster" up -state "$work/cluster" | tail -n 1)"
	export KUBECONFIG="${line#export KUBECONFIG=}"
else
	ns="bench-diff-$RANDOM$RANDOM"
	log "using the cluster of KUBECONFIG=$KUBECONFIG, namespace $ns"
fi
[[ -f $KUBECONFIG ]] || die "kubeconfig $KUBECONFIG not found"

log "installing kube-prometheus-stack ($chart) as $REL in namespace $ns"
"$BIN" install "$REL" "$chart" -n "$ns" --create-namespace >/dev/null 2>"$work/err" ||
	{ tail -n 20 "$work/err" >&2; die "kubectl chart install failed"; }
touch "$work/installed"

# changed_objects FILE: the object headers of a diff ("Deployment demo/x (update)"), one a line.
changed_objects() { grep -E '^[A-Za-z0-9]+ [^ ]+ \([a-z-]+\)$' "$1" | sed 's/^/    /' || true; }

# diff_check NAME EXPECT [ARGS...]: one untimed `kubectl chart diff upgrade` whose changes are
# logged; a status other than EXPECT (0: no change, 2: changes, -: either) is reported with the diff.
diff_check() {
	local name=$1 expect=$2 rc=0
	shift 2
	"$BIN" diff upgrade "$REL" "$chart" -n "$ns" --detailed-exitcode "$@" >"$work/diff.out" 2>"$work/err" || rc=$?
	case $rc in
	0) log "$name: kubectl chart diff reports no change" ;;
	2) log "$name: kubectl chart diff reports changes to:"; changed_objects "$work/diff.out" >&2 ;;
	*) log "$name: kubectl chart diff failed (exit $rc):"; tail -n 20 "$work/err" >&2; return 0 ;;
	esac
	if [[ $expect != - ]] && ((rc != expect)); then
		log "warning: $name: expected $([[ $expect == 0 ]] && echo 'no change' || echo 'a change'); the diff:"
		head -n 80 "$work/diff.out" >&2
	fi
}
diff_check "right after install" -
# The first upgrade after install changes grafana's checksum/secret (the chart draws its admin
# password twice at install time; `helm upgrade` renders the same new checksum). Let it settle.
"$BIN" upgrade "$REL" "$chart" -n "$ns" >/dev/null 2>"$work/err" ||
	{ tail -n 20 "$work/err" >&2; die "kubectl chart upgrade failed"; }
objects="$("$BIN" get manifest "$REL" -n "$ns" 2>/dev/null | grep -c '^kind:' || true)"
diff_check "no change" 0
diff_check "--set $SET" 2 --set "$SET"

# --- timing -----------------------------------------------------------------------------------
cases=(nochange set)
declare -A case_label=([nochange]="no change" [set]="--set $SET")
case_args() { [[ $1 == set ]] && printf '%s\n' --set "$SET"; true; }

# Tools: kubectl-chart, then one peer per Helm binary.
tools=(kubectl-chart)
declare -A tool_helm=() tool_mode=() tool_label=()
for h in "${helms[@]}"; do
	hv="$("$h" version --template '{{.Version}}' 2>/dev/null || echo unknown)"
	t="helm-$hv"
	[[ -n ${tool_helm[$t]:-} ]] && continue
	tool_helm[$t]=$h tool_mode[$t]=dry-run tool_label[$t]="helm $hv upgrade --dry-run=server"
	if [[ -n $helm_diff ]]; then
		if "$h" diff upgrade "$REL" "$chart" -n "$ns" "${HELM_DIFF_FLAGS[@]}" >/dev/null 2>"$work/err"; then
			tool_mode[$t]=helm-diff tool_label[$t]="helm $hv diff upgrade ${HELM_DIFF_FLAGS[*]}"
		else
			log "helm-diff does not work with Helm $hv, measuring helm upgrade --dry-run=server: $(tail -n 2 "$work/err" | tr '\n' ' ')"
		fi
	fi
	tools+=("$t")
done

# run_tool TOOL CASE: one whole-process run, standard output discarded; sets $took (seconds).
run_tool() {
	local tool=$1 c=$2 t0 t1 args rc=0
	mapfile -t args < <(case_args "$c")
	t0=${EPOCHREALTIME/,/.}
	case $tool in
	kubectl-chart) "$BIN" diff upgrade "$REL" "$chart" -n "$ns" "${args[@]}" >/dev/null 2>"$work/err" || rc=$? ;;
	*)
		if [[ ${tool_mode[$tool]} == helm-diff ]]; then
			"${tool_helm[$tool]}" diff upgrade "$REL" "$chart" -n "$ns" "${HELM_DIFF_FLAGS[@]}" "${args[@]}" >/dev/null 2>"$work/err" || rc=$?
		else
			"${tool_helm[$tool]}" upgrade "$REL" "$chart" -n "$ns" --dry-run=server "${args[@]}" >/dev/null 2>"$work/err" || rc=$?
		fi
		;;
	esac
	t1=${EPOCHREALTIME/,/.}
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	return "$rc"
}

declare -A samples=() failed=()
for ((run = 1 - WARMUP; run <= RUNS; run++)); do
	line=""
	for c in "${cases[@]}"; do
		for t in "${tools[@]}"; do
			[[ -n ${failed[$t/$c]:-} ]] && continue
			if ! run_tool "$t" "$c"; then
				log "$t, ${case_label[$c]}: failed; its figures are left out:"
				head -n 5 "$work/err" >&2
				failed[$t/$c]=1
				continue
			fi
			line+=" $t/$c ${took}s"
			if ((run >= 1)); then samples[$t/$c]+="$took "; fi
		done
	done
	if ((run < 1)); then
		log "warm-up $((run + WARMUP))/$WARMUP:$line"
	else
		log "run $run/$RUNS:$line"
	fi
done

figure() { # "median min max" -> "0.512 s (0.480-0.601)"
	local m lo hi
	read -r m lo hi <<<"$1"
	printf '%s s (%s-%s)' "$m" "$lo" "$hi"
}

printf '\nkube-prometheus-stack %s: %s objects, namespace %s; median (min-max) of %s whole-process runs\n' \
	"$(awk '/^version:/ { print $2 }' "$chart/Chart.yaml")" "${objects:-?}" "$ns" "$RUNS"
printf 'target: kubectl-chart <= 1.5 s and <= 0.5x the peer (documented, not enforced)\n\n'
pw=4
for t in "${tools[@]:1}"; do if ((${#tool_label[$t]} > pw)); then pw=${#tool_label[$t]}; fi; done
printf "%-44s %-24s %-${pw}s %-24s %6s  %s\n" "work (diff upgrade)" kubectl-chart peer "peer time" ratio "target <= 1.5 s, <= 0.5x"
for c in "${cases[@]}"; do
	kc="" kcm=""
	if [[ -z ${failed[kubectl-chart/$c]:-} ]]; then
		# shellcheck disable=SC2086
		kc="$(bench_stats ${samples[kubectl-chart/$c]})"
		kcm=${kc%% *}
	fi
	for t in "${tools[@]:1}"; do
		pk="" pkm="" ratio="-" verdict="-"
		if [[ -z ${failed[$t/$c]:-} ]]; then
			# shellcheck disable=SC2086
			pk="$(bench_stats ${samples[$t/$c]})"
			pkm=${pk%% *}
		fi
		if [[ -n $kcm && -n $pkm ]]; then
			ratio="$(awk -v a="$kcm" -v b="$pkm" 'BEGIN { printf "%.2fx", a / b }')"
			verdict="$(awk -v a="$kcm" -v b="$pkm" 'BEGIN { print (a <= 1.5 && a <= 0.5 * b) ? "met" : "not met" }')"
		fi
		printf "%-44s %-24s %-${pw}s %-24s %6s  %s\n" "${case_label[$c]}" \
			"$([[ -n $kc ]] && figure "$kc" || echo error)" "${tool_label[$t]}" \
			"$([[ -n $pk ]] && figure "$pk" || echo error)" "$ratio" "$verdict"
	done
done
