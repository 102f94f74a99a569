#!/usr/bin/env bash
# Render conformance gate run by `make test`: renders every case of the shared corpus
# in both dialects with compare.sh and requires every case to pass, byte-identical
# (strict) and as data (normalized):
#
#   corpus/        Helm v3.22.0's output, rendered with --compat helm3
#   corpus-helm4/  Helm v4.3.1's output, rendered with the default dialect (helm4)
#
# corpus-helm4/<id>/ refers to the chart and values files of corpus/<id>/. Where
# those references arrive as small files holding a relative path instead of symbolic
# links (copies that do not keep links), the gate renders from a copy of the
# directory with the links made again.
#
# usage: hack/conformance.sh CONFORMANCE_DIR BINARY
set -euo pipefail

conformance=$(cd "${1:?usage: conformance.sh CONFORMANCE_DIR BINARY}" && pwd)
bin=${2:?usage: conformance.sh CONFORMANCE_DIR BINARY}
[[ $bin == /* ]] || bin=$PWD/$bin
max_strict_misses=${MAX_STRICT_MISSES:-0}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# linked_corpus DIR OUT: OUT/<id>/<entry> links to what DIR/<id>/<entry> is or
# refers to (a symbolic link, or a file that holds a relative path that exists).
linked_corpus() {
  local src=$1 out=$2 id entry target
  mkdir -p "$out"
  for dir in "$src"/*/; do
    id=$(basename "$dir")
    mkdir -p "$out/$id"
    for entry in "$dir"*; do
      target=$entry
      if [ -f "$entry" ] && [ ! -L "$entry" ] && [ "$(wc -c < "$entry")" -lt 4096 ]; then
        ref=$(head -n 1 "$entry")
        if [[ $ref == ../* ]] && [ -e "$dir$ref" ]; then target=$dir$ref; fi
      fi
      ln -s "$(readlink -f "$target")" "$out/$id/$(basename "$entry")"
    done
  done
}

# gate NAME CORPUS RENDERER: runs compare.sh and checks its counts.
failed=0
gate() {
  local name=$1 corpus=$2 renderer=$3 report=$work/$1.report
  set +e
  "$conformance/compare.sh" -c "$corpus" -o "$work/$name.cases" "$renderer" > "$report" 2>&1
  set -e
  # Failures as compare.sh -q shows them, then its verdict lines.
  grep -v -E '^PASS .*IDENTICAL|^[0-9]+ passed, [0-9]+ failed' "$report" | sed "s/^/$name: /" || true
  local total strict_fail norm_fail
  total=$(grep -c -E '^(PASS|FAIL) ' "$report" || true)
  norm_fail=$(grep -c -E '^FAIL ' "$report" || true)
  strict_fail=$(grep -E '^(PASS|FAIL) ' "$report" | grep -c -v 'strict:ok' || true)
  echo "conformance $name: $total cases; normalized failures $norm_fail; strict failures $strict_fail"
  if [ "$total" -eq 0 ]; then
    echo "conformance $name: no case ran" >&2; failed=1
  elif [ "$norm_fail" -gt 0 ]; then
    echo "conformance $name: FAILED: $norm_fail case(s) differ from Helm" >&2; failed=1
  elif [ "$strict_fail" -gt "$max_strict_misses" ]; then
    echo "conformance $name: FAILED: $strict_fail strict misses (at most $max_strict_misses allowed)" >&2; failed=1
  fi
}

# Helm 3: the binary with --compat helm3 after the case's arguments.
printf '#!/bin/sh\nexec "%s" "$@" --compat helm3\n' "$bin" > "$work/helm3"
chmod +x "$work/helm3"
gate helm3 "$conformance/corpus" "$work/helm3"

# Helm 4: the binary as it is (helm4 is template's default); no KUBECTL_CHART_COMPAT.
helm4_corpus=$conformance/corpus-helm4
if [ -d "$helm4_corpus" ]; then
  linked_corpus "$helm4_corpus" "$work/corpus-helm4"
  # An empty KUBECTL_CHART_COMPAT is unset: the default decides.
  KUBECTL_CHART_COMPAT='' gate helm4 "$work/corpus-helm4" "$bin"
else
  echo "conformance helm4: $helm4_corpus not found" >&2; failed=1
fi

[ "$failed" = 0 ] && echo "conformance: OK"
exit "$failed"
