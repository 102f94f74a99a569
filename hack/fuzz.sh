#!/usr/bin/env bash
# Runs every Go fuzz target of the project briefly (FUZZTIME each, default 100000
# executions), as part of `make test`; longer local runs: FUZZTIME=5m hack/fuzz.sh.
# A count, not a duration, by default: a duration can end while a worker is inside a
# slow input, which go test reports as a failure ("context deadline exceeded").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime=${FUZZTIME:-100000x}

mapfile -t targets < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' domain ports adapters cmd 2>/dev/null |
  while read -r file; do
    pkg="./$(dirname "$file")"
    grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed "s|^func |$pkg |"
  done | sort -u)

if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi
for t in "${targets[@]}"; do
  read -r pkg name <<< "$t"
  echo "fuzz: $name in $pkg for $fuzztime"
  go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$pkg"
done
